package tensor

import (
	"fmt"

	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/ir"
)

// Build creates the tensor-dialect op called name at b's insertion point,
// with the result type inferred from the operands and attributes, and
// verifies it (VerifyOne). On error nothing is left in the IR. Ops whose
// result type cannot be inferred (convert, reshape, broadcast, splat) are
// built with BuildTyped.
func Build(b *ir.Builder, name string, loc ir.Location, operands []*ir.Value, attrs ...ir.NamedAttr) (*ir.Value, error) {
	s := specFor(name)
	if s == nil {
		return nil, fmt.Errorf("'%s' is not an op of the tensor dialect", name)
	}
	if s.infer == nil {
		return nil, fmt.Errorf("'%s' needs an explicit result type: use BuildTyped", name)
	}
	types := make([]ir.Type, len(operands))
	for i, v := range operands {
		types[i] = v.Type()
	}
	r, err := s.infer(types, listAttrs(attrs))
	if err != nil {
		return nil, fmt.Errorf("'%s' op %w", name, err)
	}
	return BuildTyped(b, name, loc, r.Type(b.Ctx), operands, attrs...)
}

// BuildTyped is Build with an explicit result type.
func BuildTyped(b *ir.Builder, name string, loc ir.Location, result ir.Type, operands []*ir.Value, attrs ...ir.NamedAttr) (*ir.Value, error) {
	if b.Ctx.OpDef(name) == nil {
		return nil, fmt.Errorf("'%s' is not registered in this context (call tensor.Register)", name)
	}
	op := ir.NewOperation(b.Ctx, &ir.OperationState{
		Name: name, Loc: loc, Operands: operands, ResultTypes: []ir.Type{result}, Attrs: attrs,
	})
	if d := ir.VerifyOne(op); d != nil {
		op.DropAllReferences()
		return nil, d
	}
	b.Insert(op)
	return op.Result(0), nil
}

// Constant creates a tensor.constant holding a (dense float elements or a
// float attribute).
func Constant(b *ir.Builder, loc ir.Location, a ir.Attribute) (*ir.Value, error) {
	return Build(b, ConstantOpName, loc, nil, ir.NamedAttr{Name: "value", Value: a})
}

// ConvertedConstant is v converted to the float type et at compile time,
// when v is a tensor.constant: a new constant holding each element rounded
// as tensor.convert rounds it (a splat stays a splat). ok is false when v
// is not a constant, and the caller converts at run time. A program then
// stores the narrow copy alone (an f32 weight multiplied in f16 takes half
// the memory) and moves no convert's operand through exchange.
func ConvertedConstant(b *ir.Builder, loc ir.Location, v *ir.Value, et ir.Type) (*ir.Value, bool, error) {
	def := v.DefiningOp()
	rt, isTensor := v.Type().(*ir.RankedTensorType)
	k, isFloat := kindOf(et)
	if def == nil || !def.Is(ConstantOp) || !isTensor || !isFloat {
		return nil, false, nil
	}
	from, fromFloat := kindOf(rt.Elem)
	if !fromFloat {
		return nil, false, nil
	}
	t := b.Ctx.Tensor(rt.Dims, et)
	if x, ok := SplatValue(def.Attr("value")); ok {
		splat, err := eval.Convert(&eval.Array{Kind: from, Data: []float64{x}}, k)
		if err != nil {
			return nil, false, err
		}
		c, err := SplatConstant(b, loc, t, splat.Data[0])
		return c, err == nil, err
	}
	a, err := ArrayFromAttr(def.Attr("value"))
	if err != nil || !a.Kind.IsFloat() {
		return nil, false, nil
	}
	converted, err := eval.Convert(a, k)
	if err != nil {
		return nil, false, err
	}
	attr, err := AttrFromArray(b.Ctx, t, converted)
	if err != nil {
		return nil, false, err
	}
	c, err := Constant(b, loc, attr)
	return c, err == nil, err
}

// SplatConstant creates a tensor.constant of type t (a float tensor type)
// whose every element is v rounded to the element type.
func SplatConstant(b *ir.Builder, loc ir.Location, t ir.Type, v float64) (*ir.Value, error) {
	rt, ok := t.(*ir.RankedTensorType)
	if !ok || !isStaticFloatTensor(rt) {
		return nil, fmt.Errorf("splat constant of type %s: want %s", typeStr(t), FloatTensor.Desc)
	}
	return Constant(b, loc, b.Ctx.DenseFloats(rt, []float64{v}))
}

// I64Array is the attribute form of an axis or index list.
func I64Array(ctx *ir.Context, xs ...int) *ir.DenseArrayAttr {
	vals := make([]int64, len(xs))
	for i, x := range xs {
		vals[i] = int64(x)
	}
	return ctx.DenseI64Array(vals...)
}

// I64 is the attribute form of one axis.
func I64(ctx *ir.Context, x int) *ir.IntegerAttr { return ctx.IntegerAttr(ctx.I(64), int64(x)) }
