package tensor

import (
	"fmt"

	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/ir"
)

// Op names of this file.
const (
	ConstantOpName = "tensor.constant"
	SplatOpName    = "tensor.splat"
)

func constantSpecs() []*opSpec {
	return []*opSpec{
		{
			handle: &ConstantOp,
			def: &ir.OpDef{
				Name:    ConstantOpName,
				Summary: "A constant tensor or float scalar.",
				Description: "The result is `value`, a dense float or integer elements attribute of static shape " +
					"or a float attribute; the result type is the value's type. The dialect's folders " +
					"materialise folded values as this op.",
				Example:        "%0 = tensor.constant dense<[1.0, 2.0]> : tensor<2xf32>",
				Results:        []ir.ValueDef{{Name: "result", Type: AnyTensorOrFloatScalar}},
				Attributes:     []ir.AttrDef{{Name: "value", Kind: ConstantValueKind}},
				Traits:         ir.TraitPure | ir.TraitConstantLike,
				AssemblyFormat: "attr-dict $value",
			},
			infer: func(_ []ir.Type, attrs attrLookup) (resultType, error) {
				a := attrs("value")
				if a == nil {
					return resultType{}, fmt.Errorf("requires attribute 'value'")
				}
				if !ConstantValueKind.Pred(a) {
					return resultType{}, fmt.Errorf("attribute 'value' failed to satisfy constraint: %s", ConstantValueKind.Desc)
				}
				t := a.(ir.TypedAttr).Type()
				if _, scalar := t.(*ir.FloatType); scalar {
					return resultType{Elem: t, Scalar: true}, nil
				}
				return tensorResult(shapeOf(t), elemOf(t)), nil
			},
			evaluate: func(op *ir.Operation, _ []*eval.Array) (*eval.Array, error) {
				return ArrayFromAttr(op.Attr("value"))
			},
			fold: func(op *ir.Operation, _ []ir.Attribute) (ir.FoldResult, bool) {
				return ir.FoldResult{Attr: op.Attr("value")}, true
			},
			bound: exact,
		},
		{
			handle: &SplatOp,
			def: &ir.OpDef{
				Name:    SplatOpName,
				Summary: "A tensor whose every element is the scalar operand.",
				Description: "The operand is a float scalar of the result's element type. " +
					"A constant operand folds to a splat constant of any size.",
				Example:        "%1 = tensor.splat %0 : f16 -> tensor<729x1152xf16>",
				Operands:       []ir.ValueDef{{Name: "input", Type: AnyScalar}},
				Results:        []ir.ValueDef{{Name: "result", Type: AnyTensor}},
				Traits:         ir.TraitPure,
				AssemblyFormat: "$input attr-dict `:` type($input) `->` type($result)",
			},
			check: func(op *ir.Operation) error {
				in, out := op.Operand(0).Type(), elemOf(op.Result(0).Type())
				if in != out {
					return fmt.Errorf("result element type %s differs from the operand type %s", typeStr(out), typeStr(in))
				}
				return nil
			},
			evaluate: func(op *ir.Operation, args []*eval.Array) (*eval.Array, error) {
				if len(args[0].Data) != 1 {
					return nil, fmt.Errorf("splat operand holds %d values, expected one", len(args[0].Data))
				}
				k, _ := ElementKind(op.Result(0).Type())
				return eval.Splat(args[0].Data[0], shapeOf(op.Result(0).Type()), k)
			},
			splat: splatMove,
			bound: boundOfSplat,
		},
	}
}
