package tensortotiled

import (
	"fmt"
	"slices"

	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/dialects/tiled"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/kernel"
	"github.com/ipuir/ipuir/layout"
	"github.com/ipuir/ipuir/passes"
)

// ConvertTensorToTiled replaces every tensor op of a laid-out program
// (after tiled-assign-layouts) by its tiled form:
//
//	tensor.matmul, tensor.batch_matmul    tiled.matmul (with its plan)
//	tensor.add ... tensor.convert         tiled.elementwise <fn>
//	tensor.broadcast                      tiled.broadcast
//	tensor.reduce_sum, tensor.reduce_max  tiled.reduce (each tile's partials), then tiled.combine (across tiles)
//	tensor.transpose, tensor.reshape      tiled.transpose, tiled.reshape (on each tile's shard)
//	tensor.slice, tensor.concat           tiled.slice, tiled.concat (exchanges)
//	tensor.constant, tensor.splat         tiled.constant (a splat stays one scalar per tile)
//
// softmax and layer_norm were decomposed by tiled-prepare. A tensor op
// left without a tiled form (a splat of a computed scalar) is an error
// naming it.
type ConvertTensorToTiled struct {
	NumConverted passes.Statistic `statistic:"num-converted" help:"Number of tensor ops lowered to the tiled dialect"`
}

func (*ConvertTensorToTiled) Name() string { return "convert-tensor-to-tiled" }
func (*ConvertTensorToTiled) Summary() string {
	return "Lower every laid-out tensor op to its tiled form"
}
func (*ConvertTensorToTiled) Anchor() string { return "" }
func (*ConvertTensorToTiled) Requires() []*ir.Fact {
	return []*ir.Fact{tiled.GemmsPlanned, tiled.LaidOut}
}
func (*ConvertTensorToTiled) Provides() []*ir.Fact { return []*ir.Fact{tiled.Level} }

// fnOf is the function of tiled.elementwise that computes elementwise op:
// the kernel row (kernel.Fns) for the function the op's spec names.
func fnOf(op *ir.Operation) (*kernel.Fn, error) {
	f, ok := tensor.ElementwiseFunction(op)
	if !ok {
		return nil, fmt.Errorf("is not elementwise")
	}
	return kernel.FnFor(f)
}

func (p *ConvertTensorToTiled) Run(root *ir.Operation, pc *passes.PassContext) error {
	var failed error
	root.Walk(func(op *ir.Operation) ir.WalkResult {
		if !inTensorDialect(op) {
			return ir.WalkAdvance
		}
		if op.Is(tensor.SplatOp) {
			if def := op.Operand(0).DefiningOp(); def == nil || !def.Is(tensor.ConstantOp) {
				failed = op.EmitOpError("has no tiled form: it splats a scalar computed at run time; pass the value as a rank-0 tensor and tensor.broadcast it")
				return ir.WalkInterrupt
			}
		}
		if isElementwise(op) {
			if _, err := fnOf(op); err != nil {
				failed = op.EmitOpError("has no tiled form: %v", err)
				return ir.WalkInterrupt
			}
		}
		if isMatmul(op) {
			if _, ok := op.Attr(tiled.PlanAnnotation).(*tiled.GemmPlanAttr); !ok {
				failed = op.EmitOpError("has no '%s' attribute: run plan-gemms first", tiled.PlanAnnotation)
				return ir.WalkInterrupt
			}
		}
		for _, v := range slices.Concat(op.Operands(), op.Results()) {
			if _, ok := v.Type().(*ir.RankedTensorType); !ok {
				continue
			}
			if _, ok := tiled.LayoutOf(v.Type()); !ok && !op.Is(tensor.ConstantOp, tensor.SplatOp) {
				failed = op.EmitOpError("has a tensor without #tiled.layout (%s): run tiled-assign-layouts first", ir.TypeString(v.Type()))
				return ir.WalkInterrupt
			}
		}
		return ir.WalkAdvance
	})
	if failed != nil {
		return failed
	}
	target := passes.NewConversionTarget()
	target.MarkUnknownOpDynamicallyLegal(func(op *ir.Operation) bool { return !inTensorDialect(op) })
	patterns := passes.NewPatternSet()
	add := func(name string, def *ir.OpDef, rewrite func(*ir.Operation, []*ir.Value, *passes.ConversionRewriter) bool) {
		patterns.Add(&passes.ConversionPattern{PatternName: name, RootOp: def.Name, Rewrite: func(op *ir.Operation, operands []*ir.Value, rw *passes.ConversionRewriter) bool {
			if !rewrite(op, operands, rw) {
				return false
			}
			p.NumConverted.Inc()
			return true
		}})
	}
	add("tensor-matmul-to-tiled", tensor.MatmulOp, matmulToTiled)
	add("tensor-matmul-to-tiled", tensor.BatchMatmulOp, matmulToTiled)
	for _, def := range tensor.Dialect.Ops {
		if _, ok := ir.DefInterface[ir.Elementwise](def); ok {
			add("tensor-elementwise-to-tiled", def, elementwiseToTiled)
		}
	}
	add("tensor-broadcast-to-tiled", tensor.BroadcastOp, renamedTo(tiled.BroadcastOpName, tensor.DimensionsAttr, tiled.DimensionsAttrName))
	add("tensor-transpose-to-tiled", tensor.TransposeOp, renamedTo(tiled.TransposeOpName, tensor.PermutationAttr, tiled.PermutationAttrName))
	add("tensor-reshape-to-tiled", tensor.ReshapeOp, renamedTo(tiled.ReshapeOpName))
	add("tensor-reduce-to-tiled", tensor.ReduceSumOp, reduceToTiled)
	add("tensor-reduce-to-tiled", tensor.ReduceMaxOp, reduceToTiled)
	add("tensor-slice-to-tiled", tensor.SliceOp, renamedTo(tiled.SliceOpName, tensor.OffsetsAttr, tiled.OffsetsAttrName,
		tensor.SizesAttr, tiled.SizesAttrName, tensor.StridesAttr, tiled.StridesAttrName))
	add("tensor-concat-to-tiled", tensor.ConcatOp, renamedTo(tiled.ConcatOpName, tensor.AxisAttr, tiled.AxisAttrName))
	add("tensor-constant-to-tiled", tensor.ConstantOp, constantToTiled)
	add("tensor-constant-to-tiled", tensor.SplatOp, constantToTiled)
	err := passes.ApplyPartialConversion(root, target, patterns, nil)
	if err != nil {
		return err
	}
	root.Walk(func(op *ir.Operation) ir.WalkResult {
		if inTensorDialect(op) {
			failed = op.EmitOpError("has no tiled form")
			return ir.WalkInterrupt
		}
		return ir.WalkAdvance
	})
	return failed
}

// userAttrs are op's attributes other than the planner's annotations.
func userAttrs(op *ir.Operation, skip ...string) []ir.NamedAttr {
	var out []ir.NamedAttr
	if d := op.Attrs(); d != nil {
		for _, a := range d.Entries {
			switch {
			case a.Name == tiled.PlanAnnotation, a.Name == tiled.EstimateAnnotation, a.Name == tiled.ConstraintAnnotation,
				slices.Contains(skip, a.Name):
			default:
				out = append(out, a)
			}
		}
	}
	return out
}

func matmulToTiled(op *ir.Operation, operands []*ir.Value, rw *passes.ConversionRewriter) bool {
	pa, ok := op.Attr(tiled.PlanAnnotation).(*tiled.GemmPlanAttr)
	if !ok {
		return false
	}
	attrs := append([]ir.NamedAttr{{Name: tiled.PlanAttrName, Value: pa}}, userAttrs(op)...)
	if p := op.Attr(tensor.PartialsTypeAttr); p != nil {
		attrs = append(attrs, ir.NamedAttr{Name: tiled.PartialsTypeAttrName, Value: p})
	}
	rw.ReplaceOpWithNew(op, &ir.OperationState{Name: tiled.MatmulOpName, Loc: op.Loc(), Operands: operands,
		ResultTypes: op.ResultTypes(), Attrs: attrs})
	return true
}

func elementwiseToTiled(op *ir.Operation, operands []*ir.Value, rw *passes.ConversionRewriter) bool {
	fn, err := fnOf(op)
	if err != nil {
		return false
	}
	attrs := append([]ir.NamedAttr{{Name: tiled.FnAttrName, Value: rw.Ctx.String(fn.Name)}}, userAttrs(op, tensor.ApproximateAttr)...)
	rw.ReplaceOpWithNew(op, &ir.OperationState{Name: tiled.ElementwiseOpName, Loc: op.Loc(), Operands: operands,
		ResultTypes: op.ResultTypes(), Attrs: attrs})
	return true
}

// renamedTo converts an op whose tiled form takes the same operands and
// result and the same attributes, those named in pairs (tensor name, tiled
// name) renamed.
func renamedTo(name string, pairs ...string) func(*ir.Operation, []*ir.Value, *passes.ConversionRewriter) bool {
	return func(op *ir.Operation, operands []*ir.Value, rw *passes.ConversionRewriter) bool {
		var attrs []ir.NamedAttr
		var from []string
		for i := 0; i+1 < len(pairs); i += 2 {
			a := op.Attr(pairs[i])
			if a == nil {
				return false
			}
			attrs = append(attrs, ir.NamedAttr{Name: pairs[i+1], Value: a})
			from = append(from, pairs[i])
		}
		attrs = append(attrs, userAttrs(op, from...)...)
		rw.ReplaceOpWithNew(op, &ir.OperationState{Name: name, Loc: op.Loc(), Operands: operands,
			ResultTypes: op.ResultTypes(), Attrs: attrs})
		return true
	}
}

func reduceToTiled(op *ir.Operation, operands []*ir.Value, rw *passes.ConversionRewriter) bool {
	in := operands[0].Type().(*ir.RankedTensorType)
	l, ok := tiled.LayoutOf(in)
	axes, ok2 := op.Attr(tensor.AxesAttr).(*ir.DenseArrayAttr)
	if !ok || !ok2 {
		return false
	}
	partial, pshape := layout.PartialLayout(l, in.Dims, axes.Ints)
	fn := "sum"
	if op.Is(tensor.ReduceMaxOp) {
		fn = "max"
	}
	fnAttr := ir.NamedAttr{Name: tiled.FnAttrName, Value: rw.Ctx.String(fn)}
	axesAttr := ir.NamedAttr{Name: tiled.AxesAttrName, Value: axes}
	rw.SetInsertionPoint(op)
	p := rw.Create(&ir.OperationState{Name: tiled.ReduceOpName, Loc: op.Loc(), Operands: operands,
		ResultTypes: []ir.Type{rw.Ctx.TensorWithEncoding(pshape, in.Elem, tiled.NewLayoutAttr(rw.Ctx, partial))},
		Attrs:       []ir.NamedAttr{fnAttr, axesAttr}})
	rw.ReplaceOpWithNew(op, &ir.OperationState{Name: tiled.CombineOpName, Loc: op.Loc(), Operands: p.Results(),
		ResultTypes: op.ResultTypes(), Attrs: append([]ir.NamedAttr{fnAttr, axesAttr}, userAttrs(op, tensor.AxesAttr)...)})
	return true
}

// constantToTiled places a constant, or a splat of a constant scalar, in
// the layout its result was given.
func constantToTiled(op *ir.Operation, operands []*ir.Value, rw *passes.ConversionRewriter) bool {
	rt, ok := op.Result(0).Type().(*ir.RankedTensorType)
	if !ok || rt.Encoding == nil {
		return false
	}
	plain := rw.Ctx.Tensor(rt.Dims, rt.Elem)
	var value *ir.DenseElementsAttr
	switch {
	case op.Is(tensor.ConstantOp):
		d, ok := op.Attr("value").(*ir.DenseElementsAttr)
		if !ok {
			return false
		}
		value = d
	default: // splat of a constant scalar
		def := operands[0].DefiningOp()
		if def == nil || !def.Is(tensor.ConstantOp) {
			return false
		}
		f, ok := def.Attr("value").(*ir.FloatAttr)
		if !ok {
			return false
		}
		value = rw.Ctx.DenseFloats(plain, []float64{f.Val})
	}
	rw.ReplaceOpWithNew(op, &ir.OperationState{Name: tiled.ConstantOpName, Loc: op.Loc(), ResultTypes: op.ResultTypes(),
		Attrs: append([]ir.NamedAttr{{Name: tiled.ValueAttrName, Value: value}}, userAttrs(op, "value")...)})
	return true
}

func inTensorDialect(op *ir.Operation) bool {
	return op.Def() != nil && op.Def().Dialect() == tensor.Dialect
}
