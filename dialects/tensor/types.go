package tensor

import (
	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/elem/irelem"
	"github.com/ipuir/ipuir/ir"
)

// kindOf maps an element type to the float type the interpreter rounds
// to (the IR's one mapping, package irelem); ok is false for element types
// the dialect does not compute on.
func kindOf(t ir.Type) (elem.Type, bool) {
	if _, scalar := t.(*ir.FloatType); !scalar {
		return elem.Invalid, false
	}
	e, ok := irelem.Of(t)
	return e, ok && e.IsFloat()
}

// scalarKindOf maps a float or integer element type to its elem.Type; ok
// is false for element types the dialect does not compute on (index,
// complex, ...).
func scalarKindOf(t ir.Type) (elem.Type, bool) {
	switch t.(type) {
	case *ir.FloatType, *ir.IntegerType:
		return irelem.Of(t)
	}
	return elem.Invalid, false
}

// ElementKind returns the element type of a supported scalar type (float
// or integer) or of the element type of a supported tensor type.
func ElementKind(t ir.Type) (elem.Type, bool) { return scalarKindOf(ir.ElementTypeOrSelf(t)) }

// isStaticTensor accepts ranked tensors with static dimensions of any
// element type the dialect computes on: floats, integers, i1.
func isStaticTensor(t ir.Type) bool {
	rt, ok := t.(*ir.RankedTensorType)
	if !ok {
		return false
	}
	if _, ok := scalarKindOf(rt.Elem); !ok {
		return false
	}
	return ir.NumElements(rt.Dims) >= 0
}

// isStaticBoolTensor accepts statically shaped tensors of i1.
func isStaticBoolTensor(t ir.Type) bool {
	k, ok := ElementKind(t)
	return ok && k == elem.I1 && isStaticTensor(t)
}

// FloatType returns the IR float type of a float element type.
func FloatType(ctx *ir.Context, k elem.Type) *ir.FloatType { return irelem.FloatType(ctx, k) }

// isStaticFloatTensor accepts ranked tensors with static dimensions and an
// element type the interpreter computes on; any encoding is allowed, so
// that later stages may attach layouts.
func isStaticFloatTensor(t ir.Type) bool {
	rt, ok := t.(*ir.RankedTensorType)
	if !ok {
		return false
	}
	if _, ok := kindOf(rt.Elem); !ok {
		return false
	}
	return ir.NumElements(rt.Dims) >= 0
}

// Type constraints of the dialect's operands and results.
var (
	FloatTensor = ir.TypeConstraint{
		Desc: "statically shaped tensor of f16, bf16, f32 or f64 values",
		Pred: isStaticFloatTensor,
	}
	FloatScalar = ir.TypeConstraint{
		Desc: "f16, bf16, f32 or f64",
		Pred: func(t ir.Type) bool { _, ok := kindOf(t); return ok },
	}
	// AnyTensor is what data movement, constants, conversions, arithmetic
	// and comparisons take: floats, signless and unsigned integers, i1.
	AnyTensor = ir.TypeConstraint{
		Desc: "statically shaped tensor of floats, integers or i1",
		Pred: isStaticTensor,
	}
	AnyTensorOrFloatScalar = ir.TypeConstraint{
		Desc: "f16, bf16, f32 or f64, or a statically shaped tensor of floats, integers or i1",
		Pred: func(t ir.Type) bool { return isStaticTensor(t) || FloatScalar.Accepts(t) },
	}
	AnyScalar = ir.TypeConstraint{
		Desc: "a float or integer type",
		Pred: func(t ir.Type) bool { _, ok := scalarKindOf(t); return ok },
	}
	BoolTensor = ir.TypeConstraint{
		Desc: "statically shaped tensor of i1",
		Pred: isStaticBoolTensor,
	}
)

// shapeOf returns the dimensions of a tensor type as ints (nil for a
// scalar); the constraints above guarantee they are static.
func shapeOf(t ir.Type) []int {
	rt, ok := t.(*ir.RankedTensorType)
	if !ok {
		return nil
	}
	out := make([]int, len(rt.Dims))
	for i, d := range rt.Dims {
		out[i] = int(d)
	}
	return out
}

func dims64(shape []int) []int64 {
	out := make([]int64, len(shape))
	for i, d := range shape {
		out[i] = int64(d)
	}
	return out
}

func elemOf(t ir.Type) ir.Type { return ir.ElementTypeOrSelf(t) }

// sameShapeAndElement compares two types ignoring tensor encodings: the
// dialect's ops define shapes and element types, not layouts.
func sameShapeAndElement(a, b ir.Type) bool {
	if a == b {
		return true
	}
	ra, okA := a.(*ir.RankedTensorType)
	rb, okB := b.(*ir.RankedTensorType)
	if !okA || !okB || ra.Elem != rb.Elem || len(ra.Dims) != len(rb.Dims) {
		return false
	}
	for i := range ra.Dims {
		if ra.Dims[i] != rb.Dims[i] {
			return false
		}
	}
	return true
}

// typeStr quotes a type as verifier messages do.
func typeStr(t ir.Type) string { return "'" + ir.TypeString(t) + "'" }

// resultType is an inferred result: a tensor shape and element type, or a
// scalar. It is not an ir.Type because verification has no context to
// unique one in; Type makes one when a context is at hand.
type resultType struct {
	Shape []int
	Elem  ir.Type
	// Kind, when Elem is nil, is the element type by kind (a comparison's
	// i1, which inference names without a context).
	Kind   elem.Type
	Scalar bool
}

func tensorResult(shape []int, elem ir.Type) resultType { return resultType{Shape: shape, Elem: elem} }

// Type returns the result as an IR type of ctx (a tensor without encoding,
// or the scalar type).
func (r resultType) Type(ctx *ir.Context) ir.Type {
	e := r.Elem
	if e == nil {
		e = irelem.Type(ctx, r.Kind)
	}
	if r.Scalar {
		return e
	}
	return ctx.Tensor(dims64(r.Shape), e)
}

// Matches reports whether t has the inferred shape and element type; a
// tensor's encoding is not compared.
func (r resultType) Matches(t ir.Type) bool {
	if r.Scalar {
		return t == r.Elem
	}
	rt, ok := t.(*ir.RankedTensorType)
	if !ok || len(rt.Dims) != len(r.Shape) {
		return false
	}
	if k, _ := scalarKindOf(rt.Elem); r.Elem != nil && rt.Elem != r.Elem || r.Elem == nil && k != r.Kind {
		return false
	}
	for i, d := range rt.Dims {
		if d != int64(r.Shape[i]) {
			return false
		}
	}
	return true
}

// String spells the type as the IR does.
func (r resultType) String() string {
	if r.Scalar {
		return ir.TypeString(r.Elem)
	}
	var p ir.AsmPrinter
	p.WriteString("tensor<")
	p.PrintShape(dims64(r.Shape))
	if r.Elem == nil {
		p.WriteString(r.Kind.String())
	} else {
		p.PrintType(r.Elem)
	}
	p.WriteByte('>')
	return p.String()
}
