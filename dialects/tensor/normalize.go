package tensor

import (
	"fmt"
	"math"

	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/ir"
)

// Op names of this file.
const (
	SoftmaxOpName   = "tensor.softmax"
	LayerNormOpName = "tensor.layer_norm"
)

// Attribute names of this file.
const (
	AxisAttr    = "axis"
	EpsilonAttr = "epsilon"
)

func normalizeSpecs() []*opSpec {
	return []*opSpec{
		{
			handle: &SoftmaxOp,
			def: &ir.OpDef{
				Name:    SoftmaxOpName,
				Summary: "Softmax along one axis: exp(x - max)/Σ exp(x - max).",
				Description: "Fused: computed in float64 (subtracting the maximum along the axis first) and " +
					"rounded once per element. tensor-decompose rewrites it into reduce_max, broadcast, sub, " +
					"exp, reduce_sum and div.",
				Example:        "%1 = tensor.softmax %0 axis = 2 : tensor<16x729x729xf16>",
				Operands:       []ir.ValueDef{{Name: "input", Type: FloatTensor}},
				Results:        []ir.ValueDef{{Name: "result", Type: FloatTensor}},
				Attributes:     []ir.AttrDef{{Name: AxisAttr, Kind: ir.I64AttrKind, Doc: "the normalised axis"}},
				Traits:         ir.TraitPure | ir.TraitSameOperandsAndResultType,
				Interfaces:     []any{softmaxAxis{}},
				AssemblyFormat: "$input `axis` `=` custom<Index>($axis) attr-dict `:` type($result)",
			},
			infer: func(operands []ir.Type, attrs attrLookup) (resultType, error) {
				if err := requireTensor(operands, 0); err != nil {
					return resultType{}, err
				}
				axis, err := attrs.int(AxisAttr)
				if err != nil {
					return resultType{}, err
				}
				shape := shapeOf(operands[0])
				if axis < 0 || axis >= len(shape) {
					return resultType{}, fmt.Errorf("axis %d is out of range for rank %d", axis, len(shape))
				}
				return tensorResult(shape, elemOf(operands[0])), nil
			},
			evaluate: func(op *ir.Operation, args []*eval.Array) (*eval.Array, error) {
				axis, err := opAttrs(op).int(AxisAttr)
				if err != nil {
					return nil, err
				}
				return eval.Softmax(args[0], axis)
			},
			bound: boundByDecomposition,
		},
		{
			handle: &LayerNormOp,
			def: &ir.OpDef{
				Name:    LayerNormOpName,
				Summary: "Layer normalisation over the last axis, with scale and bias.",
				Description: "(x - mean)/√(var + epsilon)·scale + bias over the last axis, with the biased " +
					"(population) variance; scale and bias are rank 1 with the last axis's length and the " +
					"input's element type. Fused: computed in float64 and rounded once per element.",
				Example: "%3 = tensor.layer_norm %0, %1, %2 epsilon = 9.99999997E-7 : tensor<729x1152xf16>, " +
					"tensor<1152xf16>, tensor<1152xf16> -> tensor<729x1152xf16>",
				Operands: []ir.ValueDef{{Name: "input", Type: FloatTensor}, {Name: "scale", Type: FloatTensor},
					{Name: "bias", Type: FloatTensor}},
				Results:    []ir.ValueDef{{Name: "result", Type: FloatTensor}},
				Attributes: []ir.AttrDef{{Name: EpsilonAttr, Kind: F32AttrKind, Doc: "added to the variance"}},
				Traits:     ir.TraitPure | ir.TraitSameOperandsAndResultElementType,
				Interfaces: []any{lastAxis{}},
				AssemblyFormat: "$input `,` $scale `,` $bias `epsilon` `=` custom<F32>($epsilon) attr-dict `:` type($input) `,` " +
					"type($scale) `,` type($bias) `->` type($result)",
			},
			infer: inferLayerNorm,
			evaluate: func(op *ir.Operation, args []*eval.Array) (*eval.Array, error) {
				eps, err := opAttrs(op).float(EpsilonAttr)
				if err != nil {
					return nil, err
				}
				return eval.LayerNorm(args[0], args[1], args[2], eps)
			},
			bound: boundByDecomposition,
		},
	}
}

func inferLayerNorm(operands []ir.Type, attrs attrLookup) (resultType, error) {
	for i := 0; i < 3; i++ {
		if err := requireTensor(operands, i); err != nil {
			return resultType{}, err
		}
	}
	shape := shapeOf(operands[0])
	if len(shape) == 0 {
		return resultType{}, fmt.Errorf("input must have rank at least 1")
	}
	want := tensorResult([]int{shape[len(shape)-1]}, elemOf(operands[0]))
	for i, name := range []string{"scale", "bias"} {
		if got := operands[i+1]; !want.Matches(got) {
			return resultType{}, fmt.Errorf("%s must have type '%s' (the input's last dimension and element type), but has %s",
				name, want, typeStr(got))
		}
	}
	eps, err := attrs.float(EpsilonAttr)
	if err != nil {
		return resultType{}, err
	}
	if math.IsNaN(eps) || eps < 0 {
		return resultType{}, fmt.Errorf("epsilon must be a non-negative number, but is %v", eps)
	}
	return tensorResult(shape, elemOf(operands[0])), nil
}

// softmaxAxis makes softmax ir.LayoutPreserving: each element depends on
// its row along the softmax axis.
type softmaxAxis struct{}

func (softmaxAxis) ReductionAxes(op *ir.Operation) []int64 {
	axis, err := opAttrs(op).int(AxisAttr)
	if err != nil {
		return nil
	}
	return []int64{int64(axis)}
}

// lastAxis makes layer_norm ir.LayoutPreserving: each element depends on
// its row along the last axis.
type lastAxis struct{}

func (lastAxis) ReductionAxes(op *ir.Operation) []int64 {
	in, ok := op.Operand(0).Type().(*ir.RankedTensorType)
	if !ok || len(in.Dims) == 0 {
		return nil
	}
	return []int64{int64(len(in.Dims) - 1)}
}
