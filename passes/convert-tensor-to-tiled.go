package passes

import (
	"github.com/ipuir/ipuir/dialects/tiled"
	"github.com/ipuir/ipuir/ir"
)

// ConvertTensorToTiled is the `convert-tensor-to-tiled` pass: it replaces
// every planned tensor.matmul and tensor.batch_matmul (one batch axis),
// whose operands tiled-assign-layouts has put in its plan's layouts, with a
// tiled.matmul carrying the plan and its estimate. tiled.matmul's verifier
// then checks the layouts against the plan and the plan against the target.
// Other tensor ops keep operating on laid-out tensors: the tensor dialect
// accepts any encoding.
type ConvertTensorToTiled struct {
	NumConverted Statistic `statistic:"num-converted" help:"Number of matmuls lowered to tiled.matmul"`
}

func (*ConvertTensorToTiled) Name() string { return "convert-tensor-to-tiled" }
func (*ConvertTensorToTiled) Summary() string {
	return "Lower planned, laid-out tensor matmuls to tiled.matmul"
}
func (*ConvertTensorToTiled) Anchor() string { return "" }

func (p *ConvertTensorToTiled) Run(root *ir.Operation, pc *PassContext) error {
	ctx := pc.Context()
	var matmuls []*ir.Operation
	root.Walk(func(op *ir.Operation) ir.WalkResult {
		if isMatmul(op) {
			matmuls = append(matmuls, op)
		}
		return ir.WalkAdvance
	})
	for _, op := range matmuls {
		pa, ok := op.Attr(tiled.PlanAnnotation).(*tiled.GemmPlanAttr)
		if !ok {
			return op.EmitOpError("has no '%s' attribute: run plan-gemms first", tiled.PlanAnnotation)
		}
		for i := 0; i < 2; i++ {
			if _, ok := tiled.LayoutOf(op.Operand(i).Type()); !ok {
				return op.EmitOpError("operand #%d has no #tiled.layout: run tiled-assign-layouts first", i)
			}
		}
		attrs := []ir.NamedAttr{{Name: tiled.PlanAttrName, Value: pa}}
		if e, ok := op.Attr(tiled.EstimateAnnotation).(*tiled.EstimateAttr); ok {
			attrs = append(attrs, ir.NamedAttr{Name: tiled.EstimateAttrName, Value: e})
		}
		// Keep the op's other discardable attributes; the plan's own are
		// now inherent ones, and the constraint has been applied.
		var discardable []ir.NamedAttr
		if d := op.Attrs(); d != nil {
			discardable = d.Entries
		}
		for _, a := range discardable {
			switch a.Name {
			case tiled.PlanAnnotation, tiled.EstimateAnnotation, tiled.ConstraintAnnotation:
			default:
				attrs = append(attrs, a)
			}
		}
		b := ir.NewBuilder(ctx)
		b.SetInsertionPoint(op)
		n := b.Create(&ir.OperationState{Name: tiled.MatmulOp, Loc: op.Loc(), Operands: op.Operands(),
			ResultTypes: op.ResultTypes(), Attrs: attrs})
		op.ReplaceAllUsesWith(n.Results())
		op.Erase()
		p.NumConverted.Inc()
	}
	return nil
}
