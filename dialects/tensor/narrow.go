package tensor

import (
	"math"

	"github.com/ipuir/ipuir/ir"
)

// NarrowI64 computes the program's i64 values as i32 (the machines have no
// 64-bit integer arithmetic; ONNX models index and count in i64): every
// i64 tensor type of a function's arguments, results and ops becomes i32,
// and every i64 constant is checked to fit 32 bits and retyped. A
// function's signature changes with them; the host streams keep the
// source's i64 (translate/pkgemit), and a runner converts at the boundary,
// refusing an input that does not fit. It returns how many values it
// narrowed.
func NarrowI64(root *ir.Operation) (int, error) {
	ctx := root.Context()
	i64, i32 := ctx.I(64), ctx.I(32)
	narrow := func(t ir.Type) (ir.Type, bool) {
		switch tt := t.(type) {
		case *ir.RankedTensorType:
			if tt.Elem == i64 {
				return ctx.TensorWithEncoding(tt.Dims, i32, tt.Encoding), true
			}
		case *ir.IntegerType:
			if tt == i64 {
				return i32, true
			}
		}
		return t, false
	}
	n := 0
	var failure error
	root.Walk(func(op *ir.Operation) ir.WalkResult {
		if failure != nil {
			return ir.WalkInterrupt
		}
		for _, r := range op.Regions() {
			for _, b := range r.Blocks() {
				for _, a := range b.Arguments() {
					if t, ok := narrow(a.Type()); ok {
						a.SetType(t)
						n++
					}
				}
			}
		}
		if ft, ok := op.Attr("function_type").(*ir.TypeAttr); ok {
			if f, ok := ft.T.(*ir.FunctionType); ok {
				ins, outs := make([]ir.Type, len(f.Inputs)), make([]ir.Type, len(f.Results))
				for i, t := range f.Inputs {
					ins[i], _ = narrow(t)
				}
				for i, t := range f.Results {
					outs[i], _ = narrow(t)
				}
				op.SetAttr(ctx, "function_type", ctx.TypeAttr(ctx.Function(ins, outs)))
			}
		}
		for _, r := range op.Results() {
			if t, ok := narrow(r.Type()); ok {
				r.SetType(t)
				n++
			}
		}
		if op.Is(ConstantOp) {
			if d, ok := op.Attr("value").(*ir.DenseElementsAttr); ok {
				if t, ok := narrow(d.Typ); ok {
					vals := d.Int64s()
					for _, v := range vals {
						if v < math.MinInt32 || v > math.MaxInt32 {
							failure = op.EmitOpError("the i64 constant %d does not fit 32 bits, and the machines compute i64 as i32", v)
							return ir.WalkInterrupt
						}
					}
					op.SetAttr(ctx, "value", ctx.DenseInts(t.(ir.ShapedType), vals))
				}
			}
		}
		return ir.WalkAdvance
	})
	if failure != nil {
		return 0, failure
	}
	return n, nil
}
