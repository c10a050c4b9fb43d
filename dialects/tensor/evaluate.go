package tensor

import (
	"fmt"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/ir"
)

// Evaluates reports whether Evaluate knows op: whether it is an op of the
// tensor dialect.
func Evaluates(op *ir.Operation) bool { return specOf(op) != nil }

// Evaluate computes the result of a tensor-dialect op from its operands'
// values, with the kernels of package eval. It checks that the arrays match
// the operand types and that the result matches the result type, so it is
// safe on IR that was never verified. The reference interpreter and the
// constant folder both evaluate through here.
func Evaluate(op *ir.Operation, args []*eval.Array) (*eval.Array, error) {
	s := specOf(op)
	if s == nil {
		return nil, fmt.Errorf("'%s' is not an op of the tensor dialect", op.Name())
	}
	if op.NumResults() != 1 {
		return nil, fmt.Errorf("'%s' has %d results, expected 1", op.Name(), op.NumResults())
	}
	if len(args) != op.NumOperands() {
		return nil, fmt.Errorf("'%s' has %d operands, but %d values were given", op.Name(), op.NumOperands(), len(args))
	}
	for i, a := range args {
		if err := a.Check(); err != nil {
			return nil, fmt.Errorf("operand #%d: %w", i, err)
		}
		if !matchesType(a, op.Operand(i).Type()) {
			return nil, fmt.Errorf("operand #%d is %s, but its type is %s", i, describe(a), typeStr(op.Operand(i).Type()))
		}
	}
	out, err := s.evaluate(op, args)
	if err != nil {
		return nil, err
	}
	if !matchesType(out, op.Result(0).Type()) {
		return nil, fmt.Errorf("computed %s, but the result type is %s", describe(out), typeStr(op.Result(0).Type()))
	}
	return out, nil
}

// matchesType reports whether a has t's shape and element kind; a scalar
// type matches a rank-0 array.
func matchesType(a *eval.Array, t ir.Type) bool {
	if IsStringTensor(t) || a.IsStrings() {
		return MatchesStrings(a, t)
	}
	k, ok := ElementKind(t)
	if !ok || a.Kind != k {
		return false
	}
	switch tt := t.(type) {
	case *ir.FloatType, *ir.IntegerType:
		return a.Rank() == 0
	case *ir.RankedTensorType:
		return ir.NumElements(tt.Dims) >= 0 && eval.SameShape(a.Shape, shapeOf(t))
	}
	return false
}

// intsOf is integral float64 values as int64s (u64 values above 2^63
// wrap, as their bit patterns do).
func intsOf(xs []float64) []int64 {
	out := make([]int64, len(xs))
	for i, x := range xs {
		if x >= 1<<63 {
			out[i] = int64(uint64(x))
		} else {
			out[i] = int64(x)
		}
	}
	return out
}

func describe(a *eval.Array) string { return "a value of type '" + a.TypeString() + "'" }

// ArrayFromAttr decodes a constant: dense float or integer elements of
// static shape, or a float scalar.
func ArrayFromAttr(a ir.Attribute) (*eval.Array, error) {
	switch v := a.(type) {
	case *ir.DenseElementsAttr:
		if !isStaticTensor(v.Typ) {
			return nil, fmt.Errorf("constant of type %s is not a statically shaped tensor of floats or integers", typeStr(v.Typ))
		}
		k, _ := ElementKind(v.Typ)
		shape := shapeOf(v.Typ)
		if _, err := eval.NumElements(shape); err != nil {
			return nil, err
		}
		if v.Splat {
			// Decode the one value once: splats such as the attention
			// block's 16×729×729 scale would otherwise decode millions.
			n, _ := eval.NumElements(shape)
			data := make([]float64, n)
			x := denseAt(v, k, 0)
			for i := range data {
				data[i] = x
			}
			return &eval.Array{Shape: shape, Kind: k, Data: data}, nil
		}
		if k.IsFloat() {
			return &eval.Array{Shape: shape, Kind: k, Data: v.Float64s()}, nil
		}
		n := v.NumElements()
		data := make([]float64, n)
		for i := range data {
			data[i] = denseAt(v, k, int64(i))
		}
		return &eval.Array{Shape: shape, Kind: k, Data: data}, nil
	case *ir.FloatAttr:
		k, ok := kindOf(v.Typ)
		if !ok {
			return nil, fmt.Errorf("constant of type %s is not f16, bf16, f32 or f64", typeStr(v.Typ))
		}
		return &eval.Array{Kind: k, Data: []float64{v.Val}}, nil
	}
	return nil, fmt.Errorf("unsupported constant %s", ir.AttrString(a))
}

// denseAt is element i of a dense attribute of kind k as a float64 (an
// integer's value; i1 is 0 or 1).
func denseAt(v *ir.DenseElementsAttr, k elem.Type, i int64) float64 {
	switch {
	case k.IsFloat():
		return v.FloatAt(i)
	case k == elem.I1:
		if v.Int64At(i) != 0 {
			return 1
		}
		return 0
	case k.IsUnsigned():
		return float64(uint64(v.Int64At(i)))
	}
	return float64(v.Int64At(i))
}

// AttrFromArray encodes a value of type t as a constant attribute: a float
// attribute for a scalar type, dense elements for a tensor type.
func AttrFromArray(ctx *ir.Context, t ir.Type, a *eval.Array) (ir.Attribute, error) {
	if !matchesType(a, t) {
		return nil, fmt.Errorf("%s does not have type %s", describe(a), typeStr(t))
	}
	switch tt := t.(type) {
	case *ir.FloatType:
		return ctx.FloatAttr(tt, a.Data[0]), nil
	case *ir.RankedTensorType:
		if a.Kind.IsFloat() {
			return ctx.DenseFloats(tt, a.Data), nil
		}
		return ctx.DenseInts(tt, intsOf(a.Data)), nil
	}
	return nil, fmt.Errorf("type %s cannot hold a constant", typeStr(t))
}
