package tensor

import (
	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/ir"
)

// FoldElementLimit is the largest number of elements that an operand or
// result of a constant-folded op may have (splat operands of elementwise
// and data-movement ops excepted, see the package comment). It keeps
// folding cheap and keeps huge constants out of the IR: a 32×32 tile is the
// largest folded tensor.
const FoldElementLimit = 1024

// fold is the Fold hook of every op: the op's algebraic folder first, then
// splat propagation, then constant folding through Evaluate.
func fold(s *opSpec, op *ir.Operation, operands []ir.Attribute) ([]ir.FoldResult, bool) {
	if op.NumResults() != 1 {
		return nil, false
	}
	if s.fold != nil {
		if r, ok := s.fold(op, operands); ok {
			return []ir.FoldResult{r}, true
		}
	}
	if len(operands) != op.NumOperands() || op.NumOperands() == 0 {
		return nil, false
	}
	for _, a := range operands {
		if a == nil {
			return nil, false
		}
	}
	if s.splat != noSplat {
		if a, ok := foldSplats(s, op, operands); ok {
			return []ir.FoldResult{{Attr: a}}, true
		}
	}
	if !ir.IsFloat(op.Result(0).Type()) && ir.NumElements(dims64(shapeOf(op.Result(0).Type()))) > FoldElementLimit {
		return nil, false
	}
	args := make([]*eval.Array, len(operands))
	for i, a := range operands {
		if n := elementCount(a); n < 0 || n > FoldElementLimit {
			return nil, false
		}
		arr, err := ArrayFromAttr(a)
		if err != nil {
			return nil, false
		}
		args[i] = arr
	}
	// A failure to evaluate (an op that does not verify) is no fold; the
	// verifier reports the problem.
	out, err := Evaluate(op, args)
	if err != nil {
		return nil, false
	}
	attr, err := AttrFromArray(op.Context(), op.Result(0).Type(), out)
	if err != nil {
		return nil, false
	}
	return []ir.FoldResult{{Attr: attr}}, true
}

// elementCount is the number of elements of a constant, or -1 for
// attributes that are not constants the dialect folds.
func elementCount(a ir.Attribute) int64 {
	switch v := a.(type) {
	case *ir.DenseElementsAttr:
		return v.NumElements()
	case *ir.FloatAttr:
		return 1
	}
	return -1
}

// SplatValue is the one value of a float constant of one value: a splat
// dense attribute, a dense one of one element, or a float scalar.
func SplatValue(a ir.Attribute) (float64, bool) {
	v, ok := splatValue(a)
	if !ok || !v.Kind.IsFloat() {
		return 0, false
	}
	return v.Data[0], true
}

// splatValue returns the single value of a splat constant: a splat dense
// attribute (or one of a single element) or a float scalar.
func splatValue(a ir.Attribute) (*eval.Array, bool) {
	switch v := a.(type) {
	case *ir.DenseElementsAttr:
		if !(v.Splat || v.NumElements() == 1) || !isStaticTensor(v.Typ) {
			return nil, false
		}
		k, _ := ElementKind(v.Typ)
		return &eval.Array{Shape: []int{1}, Kind: k, Data: []float64{denseAt(v, k, 0)}}, true
	case *ir.FloatAttr:
		k, ok := kindOf(v.Typ)
		return &eval.Array{Shape: []int{1}, Kind: k, Data: []float64{v.Val}}, ok
	}
	return nil, false
}

// foldSplats folds an op whose operands are all splats into a splat of the
// result type, at the cost of one element.
func foldSplats(s *opSpec, op *ir.Operation, operands []ir.Attribute) (ir.Attribute, bool) {
	rt, ok := op.Result(0).Type().(*ir.RankedTensorType)
	if !ok || !isStaticTensor(rt) {
		return nil, false
	}
	args := make([]*eval.Array, len(operands))
	for i, a := range operands {
		v, ok := splatValue(a)
		if !ok {
			return nil, false
		}
		args[i] = v
	}
	var value float64
	switch s.splat {
	case splatMove:
		value = args[0].Data[0]
	case splatElementwise:
		out, err := s.evaluate(op, args)
		if err != nil || len(out.Data) != 1 {
			return nil, false
		}
		value = out.Data[0]
	default:
		return nil, false
	}
	k, _ := ElementKind(rt)
	if args[0].Kind != k && s.splat == splatMove {
		return nil, false
	}
	if !k.IsFloat() {
		return op.Context().DenseInts(rt, intsOf([]float64{value})), true
	}
	return op.Context().DenseFloats(rt, []float64{value}), true
}
