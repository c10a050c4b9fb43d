package ir

import "fmt"

// Op interfaces are what an op definition promises about its ops beyond
// its declared shape: that it is a function, a call, elementwise, what
// memory it touches. A definition lists the implementations in
// OpDef.Interfaces, and code asks for one generically:
//
//	if fn, ok := ir.Interface[ir.FunctionLike](op); ok { body := fn.FunctionBody(op) ... }
//
// An interface is any Go interface type; its methods take the op, so that
// one implementation value serves every op of the definition. Packages
// above ir declare interfaces of their own the same way (the back end's
// tile cost and placement hooks, for instance).

// Interface returns op's implementation of the interface T, if its
// definition declares one.
func Interface[T any](op *Operation) (T, bool) {
	if op == nil || op.def == nil {
		var zero T
		return zero, false
	}
	return DefInterface[T](op.def)
}

// DefInterface returns the definition's implementation of T, if any.
func DefInterface[T any](def *OpDef) (T, bool) {
	for _, impl := range def.Interfaces {
		if t, ok := impl.(T); ok {
			return t, true
		}
	}
	var zero T
	return zero, false
}

// Implements reports whether op's definition implements T.
func Implements[T any](op *Operation) bool {
	_, ok := Interface[T](op)
	return ok
}

func (d *OpDef) checkInterfaces() error {
	for i, impl := range d.Interfaces {
		if impl == nil {
			return fmt.Errorf("op %q lists a nil interface implementation (#%d)", d.Name, i)
		}
	}
	return nil
}

// FunctionLike is implemented by ops that define a function (func.func):
// a symbol with a function type and a body region.
type FunctionLike interface {
	// FunctionType is the function's signature.
	FunctionType(op *Operation) *FunctionType
	// SetFunctionType changes the signature (the body's argument types are
	// the caller's to keep in step).
	SetFunctionType(op *Operation, t *FunctionType)
	// FunctionBody is the region holding the function's blocks; it is
	// empty for a declaration.
	FunctionBody(op *Operation) *Region
}

// CallLike is implemented by ops that call a function.
type CallLike interface {
	// Callee is the symbol called, or nil when the callee is a value.
	Callee(op *Operation) *SymbolRefAttr
	// CallArguments are the values passed to the callee.
	CallArguments(op *Operation) []*Value
}

// LayoutPreserving is implemented by ops whose single result has the
// shape of their first operand and holds, at each position, a function of
// the operands' elements at that position and along the ReductionAxes
// only: elementwise ops, conversions, softmax, layer norm, gelu. Such a
// result can be computed where its first operand lies, in its layout; an
// op that moves elements (transpose, reshape, matmul) does not implement
// it, whatever its shapes.
type LayoutPreserving interface {
	// ReductionAxes are the axes along which a result element depends on
	// other positions (softmax's axis); nil for elementwise ops. When such
	// an axis is split over tiles, the op needs a cross-tile combine.
	ReductionAxes(op *Operation) []int64
}

// Elementwise is implemented by ops whose every result element is a
// function of the operand elements at the same position alone.
type Elementwise interface {
	LayoutPreserving
	IsElementwise()
}

// ElementwiseImpl is the implementation of Elementwise (and so of
// LayoutPreserving) to list in OpDef.Interfaces.
type ElementwiseImpl struct{}

func (ElementwiseImpl) IsElementwise()                   {}
func (ElementwiseImpl) ReductionAxes(*Operation) []int64 { return nil }

// EffectKind is what an op does to a memory resource.
type EffectKind uint8

const (
	EffectRead EffectKind = iota + 1
	EffectWrite
	EffectAllocate
	EffectFree
)

func (k EffectKind) String() string {
	switch k {
	case EffectRead:
		return "read"
	case EffectWrite:
		return "write"
	case EffectAllocate:
		return "allocate"
	case EffectFree:
		return "free"
	}
	return fmt.Sprintf("EffectKind(%d)", uint8(k))
}

// MemoryEffect is one effect of an op: its kind, on which value (nil when
// it is on a resource the op names instead) and which resource ("" for
// the default one).
type MemoryEffect struct {
	Kind     EffectKind
	Value    *Value
	Resource string
}

// MemoryEffects is implemented by ops that say exactly which memory they
// touch; an op without it and without TraitPure may touch anything.
type MemoryEffects interface {
	Effects(op *Operation) []MemoryEffect
}

// EffectsOf returns op's memory effects, and false when they are unknown:
// a pure op has none; an op implementing MemoryEffects has what it says.
func EffectsOf(op *Operation) ([]MemoryEffect, bool) {
	if op.HasTrait(TraitPure) {
		return nil, true
	}
	if m, ok := Interface[MemoryEffects](op); ok {
		return m.Effects(op), true
	}
	return nil, false
}
