package tensor

import (
	"fmt"
	"math"

	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/ir"
)

// Op names of this file.
const (
	TransposeOpName = "tensor.transpose"
	ReshapeOpName   = "tensor.reshape"
	BroadcastOpName = "tensor.broadcast"
	SliceOpName     = "tensor.slice"
	ConcatOpName    = "tensor.concat"
)

// Attribute names of this file.
const (
	PermutationAttr = "permutation"
	DimensionsAttr  = "dimensions"
	OffsetsAttr     = "offsets"
	SizesAttr       = "sizes"
	StridesAttr     = "strides"
)

func movementSpecs() []*opSpec {
	return []*opSpec{transposeSpec(), reshapeSpec(), broadcastSpec(), sliceSpec(), concatSpec()}
}

func transposeSpec() *opSpec {
	return &opSpec{
		handle: &TransposeOp,
		def: &ir.OpDef{
			Name:    TransposeOpName,
			Summary: "Permutes the axes of a tensor.",
			Description: "Result axis i is operand axis permutation[i]. The identity permutation folds " +
				"away; a transpose of a transpose becomes one transpose.",
			Example:        "%1 = tensor.transpose %0 permutation = [1, 0, 2] : tensor<729x16x72xf16> -> tensor<16x729x72xf16>",
			Operands:       []ir.ValueDef{{Name: "input", Type: AnyTensor}},
			Results:        []ir.ValueDef{{Name: "result", Type: AnyTensor}},
			Attributes:     []ir.AttrDef{{Name: PermutationAttr, Kind: ir.DenseI64ArrayKind}},
			Traits:         ir.TraitPure | ir.TraitSameOperandsAndResultElementType,
			AssemblyFormat: "$input `permutation` `=` custom<IndexList>($permutation) attr-dict `:` type($input) `->` type($result)",
			Canonicalize:   []ir.RewritePattern{transposeOfTranspose},
		},
		infer: func(operands []ir.Type, attrs attrLookup) (resultType, error) {
			if err := requireTensor(operands, 0); err != nil {
				return resultType{}, err
			}
			perm, err := attrs.ints(PermutationAttr)
			if err != nil {
				return resultType{}, err
			}
			shape := shapeOf(operands[0])
			if err := eval.CheckPermutation(perm, len(shape)); err != nil {
				return resultType{}, err
			}
			return tensorResult(eval.PermutedShape(shape, perm), elemOf(operands[0])), nil
		},
		evaluate: func(op *ir.Operation, args []*eval.Array) (*eval.Array, error) {
			perm, err := opAttrs(op).ints(PermutationAttr)
			if err != nil {
				return nil, err
			}
			return eval.Transpose(args[0], perm)
		},
		fold: func(op *ir.Operation, _ []ir.Attribute) (ir.FoldResult, bool) {
			perm, err := opAttrs(op).ints(PermutationAttr)
			if err != nil || !isIdentity(perm) {
				return ir.FoldResult{}, false
			}
			return ir.FoldResult{Value: op.Operand(0)}, true
		},
		splat: splatMove,
		bound: moved,
	}
}

func isIdentity(perm []int) bool {
	for i, p := range perm {
		if p != i {
			return false
		}
	}
	return true
}

func reshapeSpec() *opSpec {
	return &opSpec{
		handle: &ReshapeOp,
		def: &ir.OpDef{
			Name:    ReshapeOpName,
			Summary: "Reinterprets a tensor's elements, in row-major order, under another shape.",
			Description: "The result type gives the new shape; it has as many elements as the operand " +
				"and the same element type. A reshape of a reshape becomes one reshape.",
			Example:        "%1 = tensor.reshape %0 : tensor<729x1152xf16> -> tensor<729x16x72xf16>",
			Operands:       []ir.ValueDef{{Name: "input", Type: AnyTensor}},
			Results:        []ir.ValueDef{{Name: "result", Type: AnyTensor}},
			Traits:         ir.TraitPure | ir.TraitSameOperandsAndResultElementType,
			AssemblyFormat: "$input attr-dict `:` type($input) `->` type($result)",
			Canonicalize:   []ir.RewritePattern{reshapeOfReshape},
		},
		check: func(op *ir.Operation) error {
			in, out := op.Operand(0).Type(), op.Result(0).Type()
			n, m := ir.NumElements(dims64(shapeOf(in))), ir.NumElements(dims64(shapeOf(out)))
			if n != m {
				return fmt.Errorf("operand type %s has %d elements, but result type %s has %d", typeStr(in), n, typeStr(out), m)
			}
			return nil
		},
		evaluate: func(op *ir.Operation, args []*eval.Array) (*eval.Array, error) {
			return eval.Reshape(args[0], shapeOf(op.Result(0).Type()))
		},
		fold:  foldSameType,
		splat: splatMove,
		bound: moved,
	}
}

// foldSameType folds an op whose result has its operand's type into the
// operand.
func foldSameType(op *ir.Operation, _ []ir.Attribute) (ir.FoldResult, bool) {
	if sameShapeAndElement(op.Operand(0).Type(), op.Result(0).Type()) {
		return ir.FoldResult{Value: op.Operand(0)}, true
	}
	return ir.FoldResult{}, false
}

func broadcastSpec() *opSpec {
	return &opSpec{
		handle: &BroadcastOp,
		def: &ir.OpDef{
			Name:    BroadcastOpName,
			Summary: "Repeats a tensor along new axes and along axes of size 1.",
			Description: "Operand axis i becomes result axis dimensions[i] (strictly increasing); each " +
				"operand dimension is 1 or equal to its result dimension. Result axes not named in " +
				"`dimensions`, and operand axes of size 1, repeat the operand's values. The result type " +
				"gives the shape.",
			Example:        "%1 = tensor.broadcast %0 dimensions = [0, 1] : tensor<16x729xf16> -> tensor<16x729x729xf16>",
			Operands:       []ir.ValueDef{{Name: "input", Type: AnyTensor}},
			Results:        []ir.ValueDef{{Name: "result", Type: AnyTensor}},
			Attributes:     []ir.AttrDef{{Name: DimensionsAttr, Kind: ir.DenseI64ArrayKind}},
			Traits:         ir.TraitPure | ir.TraitSameOperandsAndResultElementType,
			AssemblyFormat: "$input `dimensions` `=` custom<IndexList>($dimensions) attr-dict `:` type($input) `->` type($result)",
		},
		check: func(op *ir.Operation) error {
			dims, err := opAttrs(op).ints(DimensionsAttr)
			if err != nil {
				return err
			}
			return eval.CheckBroadcast(shapeOf(op.Operand(0).Type()), shapeOf(op.Result(0).Type()), dims)
		},
		evaluate: func(op *ir.Operation, args []*eval.Array) (*eval.Array, error) {
			dims, err := opAttrs(op).ints(DimensionsAttr)
			if err != nil {
				return nil, err
			}
			return eval.Broadcast(args[0], shapeOf(op.Result(0).Type()), dims)
		},
		fold: func(op *ir.Operation, operands []ir.Attribute) (ir.FoldResult, bool) {
			dims, err := opAttrs(op).ints(DimensionsAttr)
			if err != nil || !isIdentity(dims) {
				return ir.FoldResult{}, false
			}
			return foldSameType(op, operands)
		},
		splat: splatMove,
		bound: moved,
	}
}

func sliceSpec() *opSpec {
	return &opSpec{
		handle: &SliceOp,
		def: &ir.OpDef{
			Name:    SliceOpName,
			Summary: "A strided rectangular part of a tensor.",
			Description: "Along axis i the result takes sizes[i] elements starting at offsets[i], stride " +
				"strides[i] apart (offsets ≥ 0, sizes ≥ 0, strides ≥ 1, all inside the operand). A slice " +
				"of the whole tensor folds away.",
			Example: "%1 = tensor.slice %0 offsets = [0, 72] sizes = [729, 72] strides = [1, 1] : " +
				"tensor<729x1152xf16> -> tensor<729x72xf16>",
			Operands: []ir.ValueDef{{Name: "input", Type: AnyTensor}},
			Results:  []ir.ValueDef{{Name: "result", Type: AnyTensor}},
			Attributes: []ir.AttrDef{{Name: OffsetsAttr, Kind: ir.DenseI64ArrayKind},
				{Name: SizesAttr, Kind: ir.DenseI64ArrayKind}, {Name: StridesAttr, Kind: ir.DenseI64ArrayKind}},
			Traits: ir.TraitPure | ir.TraitSameOperandsAndResultElementType,
			AssemblyFormat: "$input `offsets` `=` custom<IndexList>($offsets) `sizes` `=` custom<IndexList>($sizes) `strides` `=` custom<IndexList>($strides) attr-dict " +
				"`:` type($input) `->` type($result)",
		},
		infer: func(operands []ir.Type, attrs attrLookup) (resultType, error) {
			if err := requireTensor(operands, 0); err != nil {
				return resultType{}, err
			}
			offsets, sizes, strides, err := sliceAttrs(attrs)
			if err != nil {
				return resultType{}, err
			}
			if err := eval.CheckSlice(shapeOf(operands[0]), offsets, sizes, strides); err != nil {
				return resultType{}, err
			}
			return tensorResult(sizes, elemOf(operands[0])), nil
		},
		evaluate: func(op *ir.Operation, args []*eval.Array) (*eval.Array, error) {
			offsets, sizes, strides, err := sliceAttrs(opAttrs(op))
			if err != nil {
				return nil, err
			}
			return eval.Slice(args[0], offsets, sizes, strides)
		},
		fold: func(op *ir.Operation, operands []ir.Attribute) (ir.FoldResult, bool) {
			offsets, _, strides, err := sliceAttrs(opAttrs(op))
			if err != nil {
				return ir.FoldResult{}, false
			}
			for i := range offsets {
				if offsets[i] != 0 || strides[i] != 1 {
					return ir.FoldResult{}, false
				}
			}
			return foldSameType(op, operands)
		},
		splat: splatMove,
		bound: moved,
	}
}

func sliceAttrs(attrs attrLookup) (offsets, sizes, strides []int, err error) {
	if offsets, err = attrs.ints(OffsetsAttr); err != nil {
		return
	}
	if sizes, err = attrs.ints(SizesAttr); err != nil {
		return
	}
	strides, err = attrs.ints(StridesAttr)
	return
}

func concatSpec() *opSpec {
	return &opSpec{
		handle: &ConcatOp,
		def: &ir.OpDef{
			Name:    ConcatOpName,
			Summary: "Joins tensors along one axis.",
			Description: "The operands have one rank and element type and agree in every dimension but " +
				"`axis`; the result's `axis` dimension is the sum of theirs. A single operand folds away.",
			Example: "%2 = tensor.concat %0, %1 axis = 1 : tensor<729x72xf16>, tensor<729x72xf16> -> " +
				"tensor<729x144xf16>",
			Operands:       []ir.ValueDef{{Name: "inputs", Type: AnyTensor, Kind: ir.Variadic}},
			Results:        []ir.ValueDef{{Name: "result", Type: AnyTensor}},
			Attributes:     []ir.AttrDef{{Name: AxisAttr, Kind: ir.I64AttrKind}},
			Traits:         ir.TraitPure | ir.TraitSameOperandsAndResultElementType,
			AssemblyFormat: "$inputs `axis` `=` custom<Index>($axis) attr-dict `:` type($inputs) `->` type($result)",
		},
		infer: inferConcat,
		evaluate: func(op *ir.Operation, args []*eval.Array) (*eval.Array, error) {
			axis, err := opAttrs(op).int(AxisAttr)
			if err != nil {
				return nil, err
			}
			return eval.Concat(args, axis)
		},
		fold: func(op *ir.Operation, operands []ir.Attribute) (ir.FoldResult, bool) {
			if op.NumOperands() != 1 {
				return ir.FoldResult{}, false
			}
			return foldSameType(op, operands)
		},
		bound: moved,
	}
}

func inferConcat(operands []ir.Type, attrs attrLookup) (resultType, error) {
	if len(operands) == 0 {
		return resultType{}, fmt.Errorf("expected at least one operand")
	}
	for i := range operands {
		if err := requireTensor(operands, i); err != nil {
			return resultType{}, err
		}
	}
	axis, err := attrs.int(AxisAttr)
	if err != nil {
		return resultType{}, err
	}
	first := shapeOf(operands[0])
	if axis < 0 || axis >= len(first) {
		return resultType{}, fmt.Errorf("axis %d is out of range for rank %d", axis, len(first))
	}
	shape := append([]int{}, first...)
	shape[axis] = 0
	for i, t := range operands {
		s := shapeOf(t)
		if elemOf(t) != elemOf(operands[0]) {
			return resultType{}, fmt.Errorf("operand #%d has element type %s, but operand #0 has %s", i, typeStr(elemOf(t)), typeStr(elemOf(operands[0])))
		}
		if len(s) != len(first) {
			return resultType{}, fmt.Errorf("operand #%d has rank %d, but operand #0 has rank %d", i, len(s), len(first))
		}
		for d := range s {
			if d != axis && s[d] != first[d] {
				return resultType{}, fmt.Errorf("operand #%d has size %d in dimension %d, but operand #0 has %d", i, s[d], d, first[d])
			}
		}
		if s[axis] > math.MaxInt64-shape[axis] {
			return resultType{}, fmt.Errorf("the result's size along axis %d overflows a 64-bit integer", axis)
		}
		shape[axis] += s[axis]
	}
	if ir.NumElements(dims64(shape)) < 0 {
		return resultType{}, fmt.Errorf("the result %s has more elements than a 64-bit integer counts", eval.ShapeString(shape))
	}
	return tensorResult(shape, elemOf(operands[0])), nil
}
