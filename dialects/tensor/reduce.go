package tensor

import (
	"fmt"

	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/ir"
)

// Op names of this file.
const (
	ReduceSumOpName = "tensor.reduce_sum"
	ReduceMaxOpName = "tensor.reduce_max"
)

// AxesAttr lists the axes a reduction removes.
const AxesAttr = "axes"

func reduceSpec(handle **ir.OpDef, name string, kind eval.ReduceOp, summary, semantics string) *opSpec {
	short := name[len(Name)+1:]
	return &opSpec{
		handle: handle,
		def: &ir.OpDef{
			Name:    name,
			Summary: summary,
			Description: "Reduces the operand over `axes` (strictly increasing, each in range) and drops " +
				"those axes from the shape; reducing every axis gives a rank-0 tensor. " + semantics,
			Example:        fmt.Sprintf("%%1 = tensor.%s %%0 axes = [1] : tensor<729x1152xf32> -> tensor<729xf32>", short),
			Operands:       []ir.ValueDef{{Name: "input", Type: AnyTensor}},
			Results:        []ir.ValueDef{{Name: "result", Type: AnyTensor}},
			Attributes:     []ir.AttrDef{{Name: AxesAttr, Kind: ir.DenseI64ArrayKind, Doc: "the reduced axes"}},
			Traits:         ir.TraitPure | ir.TraitSameOperandsAndResultElementType,
			AssemblyFormat: "$input `axes` `=` custom<IndexList>($axes) attr-dict `:` type($input) `->` type($result)",
		},
		infer: func(operands []ir.Type, attrs attrLookup) (resultType, error) {
			if err := requireTensor(operands, 0); err != nil {
				return resultType{}, err
			}
			axes, err := attrs.ints(AxesAttr)
			if err != nil {
				return resultType{}, err
			}
			shape := shapeOf(operands[0])
			if err := eval.CheckAxes(axes, len(shape)); err != nil {
				return resultType{}, err
			}
			return tensorResult(eval.ReducedShape(shape, axes), elemOf(operands[0])), nil
		},
		evaluate: func(op *ir.Operation, args []*eval.Array) (*eval.Array, error) {
			axes, err := opAttrs(op).ints(AxesAttr)
			if err != nil {
				return nil, err
			}
			return eval.Reduce(kind, args[0], axes)
		},
		bound: boundOfReduce(kind),
	}
}

func reduceSpecs() []*opSpec {
	return []*opSpec{
		reduceSpec(&ReduceSumOp, ReduceSumOpName, eval.ReduceSum, "Sum over axes.",
			"f16, bf16 and f32 sums accumulate in f32 (f64 in f64) in row-major order of the reduced "+
				"elements, and round once to the element type; an empty sum is +0."),
		reduceSpec(&ReduceMaxOp, ReduceMaxOpName, eval.ReduceMax, "Maximum over axes.",
			"NaN propagates and +0 is above -0; the maximum of no elements is -inf."),
	}
}
