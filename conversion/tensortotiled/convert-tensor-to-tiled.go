package tensortotiled

import (
	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/dialects/tiled"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/passes"
)

// ConvertTensorToTiled is the `convert-tensor-to-tiled` pass: it replaces
// every planned tensor.matmul and tensor.batch_matmul (one batch axis),
// whose operands tiled-assign-layouts has put in its plan's layouts, with a
// tiled.matmul carrying the plan and its estimate. tiled.matmul's verifier
// then checks the layouts against the plan and the plan against the target.
// Other tensor ops keep operating on laid-out tensors: the tensor dialect
// accepts any encoding.
//
// It is a dialect conversion (passes.ApplyPartialConversion): tensor
// matmuls are illegal, everything else may stay, and one conversion
// pattern per matmul op rewrites them, so that a failure leaves the IR as
// it was.
type ConvertTensorToTiled struct {
	NumConverted passes.Statistic `statistic:"num-converted" help:"Number of matmuls lowered to tiled.matmul"`
}

func (*ConvertTensorToTiled) Name() string { return "convert-tensor-to-tiled" }
func (*ConvertTensorToTiled) Summary() string {
	return "Lower planned, laid-out tensor matmuls to tiled.matmul"
}
func (*ConvertTensorToTiled) Anchor() string { return "" }

func (p *ConvertTensorToTiled) Run(root *ir.Operation, pc *passes.PassContext) error {
	// What the earlier passes must have done is checked first, so that a
	// matmul they missed is reported with what to run, not as a failure to
	// legalize.
	var failed error
	root.Walk(func(op *ir.Operation) ir.WalkResult {
		if !isMatmul(op) {
			return ir.WalkAdvance
		}
		if _, ok := op.Attr(tiled.PlanAnnotation).(*tiled.GemmPlanAttr); !ok {
			failed = op.EmitOpError("has no '%s' attribute: run plan-gemms first", tiled.PlanAnnotation)
			return ir.WalkInterrupt
		}
		for i := 0; i < 2; i++ {
			if _, ok := tiled.LayoutOf(op.Operand(i).Type()); !ok {
				failed = op.EmitOpError("operand #%d has no #tiled.layout: run tiled-assign-layouts first", i)
				return ir.WalkInterrupt
			}
		}
		return ir.WalkAdvance
	})
	if failed != nil {
		return failed
	}
	target := passes.NewConversionTarget()
	target.MarkUnknownOpDynamicallyLegal(func(*ir.Operation) bool { return true })
	target.AddIllegalOp(tensor.MatmulOpName, tensor.BatchMatmulOpName)
	patterns := passes.NewPatternSet()
	for _, root := range []string{tensor.MatmulOpName, tensor.BatchMatmulOpName} {
		patterns.Add(&passes.ConversionPattern{PatternName: "tensor-matmul-to-tiled", RootOp: root, Rewrite: p.matmulToTiled})
	}
	return passes.ApplyPartialConversion(root, target, patterns, nil)
}

// matmulToTiled rewrites one planned matmul as a tiled.matmul with the
// plan and estimate as inherent attributes.
func (p *ConvertTensorToTiled) matmulToTiled(op *ir.Operation, operands []*ir.Value, rw *passes.ConversionRewriter) bool {
	pa, ok := op.Attr(tiled.PlanAnnotation).(*tiled.GemmPlanAttr)
	if !ok {
		return false
	}
	attrs := []ir.NamedAttr{{Name: tiled.PlanAttrName, Value: pa}}
	if e, ok := op.Attr(tiled.EstimateAnnotation).(*tiled.EstimateAttr); ok {
		attrs = append(attrs, ir.NamedAttr{Name: tiled.EstimateAttrName, Value: e})
	}
	// Keep the op's other discardable attributes; the plan's own are now
	// inherent ones, and the constraint has been applied.
	if d := op.Attrs(); d != nil {
		for _, a := range d.Entries {
			switch a.Name {
			case tiled.PlanAnnotation, tiled.EstimateAnnotation, tiled.ConstraintAnnotation:
			default:
				attrs = append(attrs, a)
			}
		}
	}
	rw.ReplaceOpWithNew(op, &ir.OperationState{Name: tiled.MatmulOpName, Loc: op.Loc(), Operands: operands,
		ResultTypes: op.ResultTypes(), Attrs: attrs})
	p.NumConverted.Inc()
	return true
}
