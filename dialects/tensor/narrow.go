package tensor

import (
	"math"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/target/irtarget"
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
	return narrow(root, ctx.I(64), ctx.I(32), func(op *ir.Operation, d *ir.DenseElementsAttr, t ir.ShapedType) (ir.Attribute, error) {
		vals := d.Int64s()
		for _, v := range vals {
			if v < math.MinInt32 || v > math.MaxInt32 {
				return nil, op.EmitOpError("the i64 constant %d does not fit 32 bits, and the machines compute i64 as i32", v)
			}
		}
		return ctx.DenseInts(t, vals), nil
	})
}

// NarrowF64 computes the program's f64 values as f32, as NarrowI64 does
// for i64: the machines' vector and AMP units have no binary64 arithmetic,
// and models exported from NumPy or with double defaults carry f64 where
// single precision is what the machine can give (IREE demotes f64 to f32
// on its input for the same reason). Each f64 constant is rounded to
// f32; one whose finite magnitude is beyond f32's range is refused rather
// than turned into an infinity. The host streams keep f64, a runner
// rounds each input (refusing the same out-of-range values) and widens
// each output, and --check compares the widened outputs with the f64
// reference, so the precision lost is measured, not hidden.
//
// A program that needs binary64 (values beyond f32's range, or its
// precision) says so on its module, ipu.f64 = "binary64" (irtarget.F64Attr): then
// nothing is narrowed, and the tiles compute its f64 values in software,
// one element at a time at the target's binary64 rates, never on the AMP.
func NarrowF64(root *ir.Operation) (int, error) {
	binary64, err := irtarget.KeepsBinary64(root)
	if err != nil || binary64 {
		return 0, err
	}
	ctx := root.Context()
	return narrow(root, ctx.F64(), ctx.F32(), func(op *ir.Operation, d *ir.DenseElementsAttr, t ir.ShapedType) (ir.Attribute, error) {
		vals := d.Float64s()
		for _, v := range vals {
			if !math.IsInf(v, 0) && math.Abs(v) > math.MaxFloat32 {
				return nil, op.EmitOpError("the f64 constant %g is beyond f32's range, and the machines compute f64 as f32", v)
			}
		}
		return ctx.DenseFloats(t, vals), nil
	})
}

// narrow retypes every from-typed value under root (block arguments, op
// results, function signatures, scalar and tensor element types) as to,
// and each constant's value with convert, and drops the converts that
// become identities. It returns how many values it retyped.
func narrow(root *ir.Operation, from, to ir.Type, convert func(op *ir.Operation, d *ir.DenseElementsAttr, t ir.ShapedType) (ir.Attribute, error)) (int, error) {
	n, err := retype(root, from, to, convert)
	if err == nil {
		dropIdentityConverts(root)
	}
	return n, err
}

// retype is narrow without dropping the converts that become identities.
func retype(root *ir.Operation, from, to ir.Type, convert func(op *ir.Operation, d *ir.DenseElementsAttr, t ir.ShapedType) (ir.Attribute, error)) (int, error) {
	ctx := root.Context()
	narrow := func(t ir.Type) (ir.Type, bool) {
		switch tt := t.(type) {
		case *ir.RankedTensorType:
			if tt.Elem == from {
				return ctx.TensorWithEncoding(tt.Dims, to, tt.Encoding), true
			}
		default:
			if t == from {
				return to, true
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
					v, err := convert(op, d, t.(ir.ShapedType))
					if err != nil {
						failure = err
						return ir.WalkInterrupt
					}
					op.SetAttr(ctx, "value", v)
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

// dropIdentityConverts removes the converts that convert to their
// operand's own type: after retyping, a convert between the two types (an
// ONNX Cast from f64 to f32) is the identity, and the tiled dialect
// refuses a convert that changes nothing.
func dropIdentityConverts(root *ir.Operation) {
	var identities []*ir.Operation
	root.Walk(func(op *ir.Operation) ir.WalkResult {
		if op.Is(ConvertOp) && op.NumOperands() == 1 && op.NumResults() == 1 && op.Operand(0).Type() == op.Result(0).Type() {
			identities = append(identities, op)
		}
		return ir.WalkAdvance
	})
	for _, op := range identities {
		op.Result(0).ReplaceAllUsesWith(op.Operand(0))
		op.Erase()
	}
}

// WidenUnsigned computes the program's unsigned values as i32: the
// machines compute on signless integers of 8, 16 and 32 bits, none
// unsigned. Every ui8 and ui16 type becomes i32, as NarrowI64 retypes
// i64, and each op whose unsigned result can leave its type's range (an
// add, sub, mul or div, a sum, a convert) is followed by the wrap the
// unsigned type has: v mod 2^bits, as the reference computes it
// (truncation, then the bits that fit). Data movement, selects and
// maxima keep their operands' values and need none. ui32 and ui64 are
// taken as far as i32 holds them (a runner refuses an input beyond 2³¹ −
// 1, as it refuses an i64 beyond 32 bits): their data movement,
// comparisons and conversions, but no arithmetic, whose results could pass
// it. The host streams keep the source's type. It returns how many values
// it retyped.
func WidenUnsigned(root *ir.Operation) (int, error) {
	ctx := root.Context()
	type wrapping struct {
		op      *ir.Operation
		modulus int64
	}
	var wraps []wrapping
	var failure error
	root.Walk(func(op *ir.Operation) ir.WalkResult {
		if op.NumResults() != 1 || keepsValues(op) {
			return ir.WalkAdvance
		}
		it, ok := ir.ElementTypeOrSelf(op.Result(0).Type()).(*ir.IntegerType)
		switch {
		case !ok || it.Signedness != ir.Unsigned:
		case it.Width == 8 || it.Width == 16:
			wraps = append(wraps, wrapping{op, 1 << it.Width})
		case (it.Width == 32 || it.Width == 64) && !fitsI32(op):
			// ui32 and ui64 fit i32 only as far as 2³¹ − 1, which the
			// runner checks of each input: a result computed from them
			// may pass it, and would then read as negative.
			failure = op.EmitOpError("computes %s values, which may pass 2^31 - 1; the machines compute ui32 and ui64 as i32, so only their data movement, comparisons, maxima and conversions to other types are taken", ir.TypeString(it))
			return ir.WalkInterrupt
		}
		return ir.WalkAdvance
	})
	if failure != nil {
		return 0, failure
	}
	total := 0
	for _, width := range []int{8, 16, 32, 64} {
		// Retyped first, the converts that became identities dropped after
		// the wraps: a convert to ui8 from i32 is one, and its wrap reads it.
		n, err := retype(root, ctx.IntegerType(width, ir.Unsigned), ctx.I(32), func(op *ir.Operation, d *ir.DenseElementsAttr, t ir.ShapedType) (ir.Attribute, error) {
			vals := d.Int64s()
			for _, v := range vals {
				if v < 0 || v > math.MaxInt32 {
					return nil, op.EmitOpError("the ui%d constant %d does not fit 31 bits, and the machines compute it as i32", width, uint64(v))
				}
			}
			return ctx.DenseInts(t, vals), nil
		})
		if err != nil {
			return 0, err
		}
		total += n
	}
	rw := ir.NewRewriter(ctx, nil)
	for _, w := range wraps {
		v := w.op.Result(0)
		rw.SetInsertionPointAfter(w.op)
		d := decomposer{rw: rw, loc: w.op.Loc()}
		m := d.must(Constant(&rw.Builder, d.loc, ctx.DenseInts(v.Type().(ir.ShapedType), []int64{w.modulus})))
		zero := d.must(Constant(&rw.Builder, d.loc, ctx.DenseInts(v.Type().(ir.ShapedType), []int64{0})))
		// r = v − trunc(v / m)·m lies in (−m, m); a negative one moves up by m.
		r := d.binary(SubOpName, v, d.binary(MulOpName, d.binary(DivOpName, v, m), m))
		wrapped := d.op("tensor.select", []*ir.Value{d.binary("tensor.less", r, zero), d.binary(AddOpName, r, m), r})
		first := m.DefiningOp()
		v.ReplaceUsesWithIf(wrapped, func(u *ir.OpOperand) bool { return !wrapOps(u.Owner(), first, wrapped.DefiningOp()) })
	}
	dropIdentityConverts(root)
	return total, nil
}

// fitsI32 says whether op, of a ui32 or ui64 result, computes only values
// an i32 holds when its operands' do: a convert from a narrower unsigned
// type or from i1 (data movement, selects and maxima are keepsValues').
func fitsI32(op *ir.Operation) bool {
	if !op.Is(ConvertOp) {
		return false
	}
	from, ok := ir.ElementTypeOrSelf(op.Operand(0).Type()).(*ir.IntegerType)
	return ok && (from.Width == 1 || from.Signedness == ir.Unsigned)
}

// keepsValues says whether op's result holds only values of its operands
// (data movement, a select, a maximum), so that an unsigned result needs
// no wrap.
func keepsValues(op *ir.Operation) bool {
	if op.Is(ConstantOp, SplatOp, TransposeOp, ReshapeOp, BroadcastOp, SliceOp, ConcatOp, MaxOp, ReduceMaxOp) {
		return true
	}
	return op.Name() == "tensor.select"
}

// wrapOps says whether op is one of the ops of a wrap, which run from
// first to last in one block.
func wrapOps(op, first, last *ir.Operation) bool {
	for o := first; o != nil; o = o.Next() {
		if o == op {
			return true
		}
		if o == last {
			break
		}
	}
	return false
}

// WidenBF16 computes the program's bf16 values as f32, where that is
// exact: the machines have no bf16 arithmetic (docs/targets.md), and a
// bf16 model's inputs are most often only converted up. An op may produce
// bf16 by data movement, select or maximum (its operands' values), or by
// a conversion whose result reaches only the function's results through
// such ops: the host rounds each output to bf16 when it reads it, as the
// conversion would have. Any other bf16 result (arithmetic, or a rounding
// that later ops read) is refused, naming the op, rather than computed in
// f32's precision. The host streams keep bf16. It returns how many values
// it retyped.
func WidenBF16(root *ir.Operation) (int, error) {
	ctx := root.Context()
	bf16 := FloatType(ctx, elem.BF16)
	var failure error
	root.Walk(func(op *ir.Operation) ir.WalkResult {
		if op.NumResults() != 1 || ir.ElementTypeOrSelf(op.Result(0).Type()) != bf16 || keepsValues(op) {
			return ir.WalkAdvance
		}
		if op.Is(ConvertOp) && onlyReturned(op.Result(0), 0) {
			return ir.WalkAdvance
		}
		failure = op.EmitOpError("computes bf16 values, which the machines have no arithmetic for: only bf16 inputs, their data movement and conversions from them, and conversions to bf16 that the function returns, are taken")
		return ir.WalkInterrupt
	})
	if failure != nil {
		return 0, failure
	}
	return narrow(root, bf16, ctx.F32(), func(op *ir.Operation, d *ir.DenseElementsAttr, t ir.ShapedType) (ir.Attribute, error) {
		return ctx.DenseFloats(t, d.Float64s()), nil
	})
}

// onlyReturned says whether v reaches only return-like ops, through ops
// that keep their operands' values.
func onlyReturned(v *ir.Value, depth int) bool {
	if depth > 64 {
		return false
	}
	for _, user := range v.Users() {
		switch {
		case user.HasTrait(ir.TraitReturnLike):
		case keepsValues(user) && user.NumResults() == 1:
			if !onlyReturned(user.Result(0), depth+1) {
				return false
			}
		default:
			return false
		}
	}
	return true
}
