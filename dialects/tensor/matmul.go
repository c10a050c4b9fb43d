package tensor

import (
	"fmt"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/elem/irelem"
	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/ir"
)

// Op names of this file.
const (
	MatmulOpName      = "tensor.matmul"
	BatchMatmulOpName = "tensor.batch_matmul"
)

const matmulSemantics = " Operands and result share one element type. f16, bf16 and f32 products " +
	"accumulate in f32, f64 ones in f64, summing over k in increasing order and rounding the final " +
	"sum once to the element type. `partials_type = f16` (f16 operands only) lets a device keep its " +
	"partial sums in f16 between blocks of 16 products, at twice the AMP's f32-partials rate: the " +
	"value is still this sum, and the op's error bound widens by the f16 roundings of the partials."

// PartialsTypeAttr names a matmul's partials type, the type a device keeps
// its partial sums in (PopLibs' partialsType): f32, the default, or f16
// for f16 operands.
const PartialsTypeAttr = "partials_type"

// PartialsBlock is how many products a device sums, in f32, before it
// rounds a partial sum to an f16 partials type: one block of the AMP's
// input channels (target.AMPVertex.InputChannels for f16).
const PartialsBlock = 16

// PartialsOf is a matmul's declared partials type; false when it declares
// none (the target's default then applies).
func PartialsOf(op *ir.Operation) (elem.Type, bool) {
	a, ok := op.Attr(PartialsTypeAttr).(*ir.TypeAttr)
	if !ok {
		return elem.Invalid, false
	}
	return irelem.Of(a.T)
}

var partialsAttrDef = ir.AttrDef{Name: PartialsTypeAttr, Kind: ir.TypeAttrKind, Optional: true,
	Doc: "the type partial sums are kept in: f32 (the default) or, for f16 operands, f16"}

func isF16(t ir.Type) bool {
	e, ok := irelem.Of(t)
	return ok && e == elem.F16
}

// checkPartials is the partials type's rule: f32, or f16 with f16 operands.
func checkPartials(operands []ir.Type, attrs attrLookup) error {
	a := attrs(PartialsTypeAttr)
	if a == nil {
		return nil
	}
	ta, ok := a.(*ir.TypeAttr)
	if !ok {
		return fmt.Errorf("attribute '%s' failed to satisfy constraint: %s", PartialsTypeAttr, ir.TypeAttrKind.Desc)
	}
	p, ok := irelem.Of(ta.T)
	switch {
	case !ok || (p != elem.F16 && p != elem.F32):
		return fmt.Errorf("'%s' is %s: partial sums are f32 or f16", PartialsTypeAttr, ir.TypeString(ta.T))
	case p == elem.F16 && !isF16(elemOf(operands[0])):
		return fmt.Errorf("'%s' is f16, which only f16 operands may accumulate in (these are %s)", PartialsTypeAttr, typeStr(elemOf(operands[0])))
	}
	return nil
}

func matmulSpecs() []*opSpec {
	return []*opSpec{
		{
			handle: &MatmulOp,
			def: &ir.OpDef{
				Name:           MatmulOpName,
				Summary:        "Matrix product of an M×K and a K×N tensor.",
				Description:    "result[i, j] = Σ_k lhs[i, k]·rhs[k, j]." + matmulSemantics,
				Example:        "%2 = tensor.matmul %0, %1 : tensor<729x1152xf16>, tensor<1152x1152xf16> -> tensor<729x1152xf16>",
				Operands:       []ir.ValueDef{{Name: "lhs", Type: FloatTensor}, {Name: "rhs", Type: FloatTensor}},
				Results:        []ir.ValueDef{{Name: "result", Type: FloatTensor}},
				Attributes:     []ir.AttrDef{partialsAttrDef},
				Traits:         ir.TraitPure | ir.TraitSameOperandsAndResultElementType,
				AssemblyFormat: "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)",
			},
			infer: func(operands []ir.Type, attrs attrLookup) (resultType, error) {
				return inferMatmul(operands, attrs, false)
			},
			evaluate: func(_ *ir.Operation, args []*eval.Array) (*eval.Array, error) {
				return eval.MatMul(args[0], args[1])
			},
			bound: boundOfMatmul,
		},
		{
			handle: &BatchMatmulOp,
			def: &ir.OpDef{
				Name:    BatchMatmulOpName,
				Summary: "Matrix products of matching matrices of two batches: B…×M×K times B…×K×N.",
				Description: "The operands have one rank of at least 3 and equal leading (batch) dimensions; " +
					"result[b…, i, j] = Σ_k lhs[b…, i, k]·rhs[b…, k, j]." + matmulSemantics,
				Example:        "%2 = tensor.batch_matmul %0, %1 : tensor<16x729x72xf16>, tensor<16x72x729xf16> -> tensor<16x729x729xf16>",
				Operands:       []ir.ValueDef{{Name: "lhs", Type: FloatTensor}, {Name: "rhs", Type: FloatTensor}},
				Results:        []ir.ValueDef{{Name: "result", Type: FloatTensor}},
				Attributes:     []ir.AttrDef{partialsAttrDef},
				Traits:         ir.TraitPure | ir.TraitSameOperandsAndResultElementType,
				AssemblyFormat: "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)",
			},
			infer: func(operands []ir.Type, attrs attrLookup) (resultType, error) {
				return inferMatmul(operands, attrs, true)
			},
			evaluate: func(_ *ir.Operation, args []*eval.Array) (*eval.Array, error) {
				return eval.BatchMatMul(args[0], args[1])
			},
			bound: boundOfMatmul,
		},
	}
}

func inferMatmul(operands []ir.Type, attrs attrLookup, batched bool) (resultType, error) {
	if err := requireTensor(operands, 0); err != nil {
		return resultType{}, err
	}
	if err := requireTensor(operands, 1); err != nil {
		return resultType{}, err
	}
	if err := checkPartials(operands, attrs); err != nil {
		return resultType{}, err
	}
	lhs, rhs := shapeOf(operands[0]), shapeOf(operands[1])
	if e1, e2 := elemOf(operands[0]), elemOf(operands[1]); e1 != e2 {
		return resultType{}, fmt.Errorf("operands have different element types: %s and %s", typeStr(e1), typeStr(e2))
	}
	if !batched && (len(lhs) != 2 || len(rhs) != 2) {
		return resultType{}, fmt.Errorf("operands must have rank 2, but have ranks %d and %d", len(lhs), len(rhs))
	}
	if batched && (len(lhs) < 3 || len(lhs) != len(rhs)) {
		return resultType{}, fmt.Errorf("operands must have one rank of at least 3, but have ranks %d and %d", len(lhs), len(rhs))
	}
	r := len(lhs)
	batch := lhs[:r-2]
	if !eval.SameShape(batch, rhs[:r-2]) {
		return resultType{}, fmt.Errorf("batch dimensions differ: %s and %s", eval.ShapeString(batch), eval.ShapeString(rhs[:r-2]))
	}
	if lhs[r-1] != rhs[r-2] {
		return resultType{}, fmt.Errorf("contracting dimensions differ: lhs has %d columns, rhs has %d rows", lhs[r-1], rhs[r-2])
	}
	shape := append(append([]int{}, batch...), lhs[r-2], rhs[r-1])
	return tensorResult(shape, elemOf(operands[0])), nil
}

// LowerMatmulPrecision rewrites every tensor.matmul, tensor.batch_matmul
// and tensor.conv under root whose operands are f32 to multiply in f16: each operand is
// converted to f16 (rounded to nearest; a constant at compile time, so
// that the program stores its weights in f16 alone), the product is an f16 matmul
// (accumulated in f32 and rounded once to f16, as every matmul), and its
// result is converted back to f32. The AMP multiplies f16 at four times
// its f32 rate (target.AMPRate); the price is the rounding of both
// operands and of the result to f16's 11-bit significand, which the
// accuracy model carries (each convert and the f16 matmul are ops of the
// program). It returns how many matmuls it rewrote.
func LowerMatmulPrecision(root *ir.Operation) (int, error) {
	ctx := root.Context()
	var todo []*ir.Operation
	root.Walk(func(op *ir.Operation) ir.WalkResult {
		if op.Is(MatmulOp, BatchMatmulOp, ConvOp) && op.NumOperands() == 2 {
			a, aok := op.Operand(0).Type().(*ir.RankedTensorType)
			b, bok := op.Operand(1).Type().(*ir.RankedTensorType)
			if aok && bok && a.Elem == ctx.F32() && b.Elem == ctx.F32() {
				todo = append(todo, op)
			}
		}
		return ir.WalkAdvance
	})
	b := ir.NewBuilder(ctx)
	halfOf := map[*ir.Value]*ir.Value{}
	for _, op := range todo {
		b.SetInsertionPoint(op)
		var halves []*ir.Value
		for _, v := range op.Operands() {
			// A constant (a weight) is converted now: the program holds
			// it in f16 alone, as the device would after a convert.
			h, folded := halfOf[v]
			var err error
			if !folded || h.DefiningOp().Block() != op.Block() {
				h, folded, err = ConvertedConstant(b, op.Loc(), v, ctx.F16())
				if folded {
					halfOf[v] = h // a weight two matmuls share, converted once
				}
			}
			if !folded && err == nil {
				rt := v.Type().(*ir.RankedTensorType)
				h, err = BuildTyped(b, ConvertOpName, op.Loc(), ctx.Tensor(rt.Dims, ctx.F16()), []*ir.Value{v})
			}
			if err != nil {
				return 0, err
			}
			halves = append(halves, h)
		}
		// A conv's window (properties or attributes); a matmul has none.
		product, err := Build(b, op.Name(), op.Loc(), halves, op.AllAttrs()...)
		if err != nil {
			return 0, op.EmitOpError("in f16: %v", err)
		}
		back, err := BuildTyped(b, ConvertOpName, op.Loc(), op.Result(0).Type(), []*ir.Value{product})
		if err != nil {
			return 0, err
		}
		op.Result(0).ReplaceAllUsesWith(back)
		operands := op.Operands()
		op.Erase()
		for _, v := range operands {
			if def := v.DefiningOp(); def != nil && def.Is(ConstantOp) && !v.HasUses() {
				def.Erase() // its f16 copy replaced it
			}
		}
	}
	return len(todo), nil
}
