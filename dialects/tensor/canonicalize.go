package tensor

import (
	"github.com/ipuir/ipuir/ir"
)

// Canonicalization patterns that fold chains of two ops into one. The
// single-op identities (transpose by the identity, reshape or convert to the
// same type, x+0, x·1) are folders, which the greedy driver tries first.

// transposeOfTranspose: transpose(transpose(x, p), q) → transpose(x, r)
// with r[i] = p[q[i]]; an identity r then folds away.
var transposeOfTranspose = &ir.Pattern{
	PatternName: "tensor.transpose-of-transpose",
	RootOp:      TransposeOpName,
	Rewrite: func(op *ir.Operation, rw *ir.Rewriter) bool {
		inner := op.Operand(0).DefiningOp()
		if inner == nil || !inner.Is(TransposeOp) {
			return false
		}
		q, err1 := opAttrs(op).ints(PermutationAttr)
		p, err2 := opAttrs(inner).ints(PermutationAttr)
		if err1 != nil || err2 != nil || len(p) != len(q) {
			return false
		}
		r := make([]int64, len(q))
		for i, qi := range q {
			if qi < 0 || qi >= len(p) {
				return false
			}
			r[i] = int64(p[qi])
		}
		rw.ReplaceOpWithNew(op, &ir.OperationState{
			Name: TransposeOpName, Loc: op.Loc(), Operands: []*ir.Value{inner.Operand(0)},
			ResultTypes: []ir.Type{op.Result(0).Type()},
			Attrs:       []ir.NamedAttr{{Name: PermutationAttr, Value: rw.Ctx.DenseI64Array(r...)}},
		})
		return true
	},
}

// reshapeOfReshape: reshape(reshape(x)) → reshape(x); a reshape to x's own
// type then folds away.
var reshapeOfReshape = &ir.Pattern{
	PatternName: "tensor.reshape-of-reshape",
	RootOp:      ReshapeOpName,
	Rewrite: func(op *ir.Operation, rw *ir.Rewriter) bool {
		inner := op.Operand(0).DefiningOp()
		if inner == nil || !inner.Is(ReshapeOp) {
			return false
		}
		rw.ModifyInPlace(op, func() { op.SetOperand(0, inner.Operand(0)) })
		return true
	},
}

// convertOfConvert: convert(convert(x: A → B) → C) → convert(x: A → C)
// when B holds every value of A exactly (f16 → f32, bf16 → f32, anything →
// f64), so that skipping B changes no value. A narrowing middle step (f32 →
// f16 → f32) rounds, and is kept.
var convertOfConvert = &ir.Pattern{
	PatternName: "tensor.convert-of-convert",
	RootOp:      ConvertOpName,
	Rewrite: func(op *ir.Operation, rw *ir.Rewriter) bool {
		inner := op.Operand(0).DefiningOp()
		if inner == nil || !inner.Is(ConvertOp) {
			return false
		}
		a, okA := ElementKind(inner.Operand(0).Type())
		b, okB := ElementKind(inner.Result(0).Type())
		if !okA || !okB || !losslessWidening(a, b) {
			return false
		}
		rw.ModifyInPlace(op, func() { op.SetOperand(0, inner.Operand(0)) })
		return true
	},
}
