package tensor

import (
	"fmt"

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
