// Package tensortotiled is the lowering from the tensor dialect to the
// tiled one (step 2 of docs/architecture.md; MLIR's lib/Conversion/TensorToTiled),
// four passes that the `lower-tensor-to-tiled` pipeline (composed in
// package registry) runs in this order, each declaring the facts it needs
// and provides:
//
//	tiled-prepare              decompose what the tiled level has no op for
//	plan-gemms                 choose a GEMM plan for every matmul
//	tiled-assign-layouts       give every tensor value a #tiled.layout
//	convert-tensor-to-tiled    turn every tensor op into its tiled form
//
// This file holds what they share: the data-flow rules that say which
// tensor ops carry their operand's layout to their result.
package tensortotiled

import (
	"slices"

	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/dialects/tiled"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/layout"
	"github.com/ipuir/ipuir/target"
)

// preservesLayout reports whether op's result can be computed where its
// first operand lies, in its layout: the op says it preserves layouts
// (elementwise ops, convert, softmax, layer_norm, gelu: see
// ir.LayoutPreserving) and the result has the first operand's shape.
func preservesLayout(op *ir.Operation) bool {
	if !ir.Implements[ir.LayoutPreserving](op) || op.NumResults() != 1 || op.NumOperands() == 0 {
		return false
	}
	in, ok1 := op.Operand(0).Type().(*ir.RankedTensorType)
	out, ok2 := op.Result(0).Type().(*ir.RankedTensorType)
	return ok1 && ok2 && slices.Equal(in.Dims, out.Dims)
}

// isMatmul reports whether op is a tensor matmul the planner handles.
func isMatmul(op *ir.Operation) bool { return op.Is(tensor.MatmulOp, tensor.BatchMatmulOp) }

// isResident reports whether v (a derivation root) is placed on tiles when the
// program is loaded rather than computed or streamed: a constant, or a
// function argument used only as the right operand of matmuls — a weight.
// Host inputs used any other way (x) arrive in a default layout instead.
func isResident(v *ir.Value) bool {
	if def := v.DefiningOp(); def != nil {
		if def.Is(tensor.ConcatOp) {
			// The weights of a jointly planned matmul: placed part by part.
			for _, in := range def.Operands() {
				if !isResident(in) {
					return false
				}
			}
			return true
		}
		return def.Is(tensor.ConstantOp) && !isHome(v)
	}
	blk := v.OwnerBlock()
	if blk == nil || !ir.Implements[ir.FunctionLike](blk.ParentOp()) || isHome(v) {
		return false
	}
	return readAsWeights(v)
}

// isHome reports whether v, a function argument or a constant, is stored
// in its home layout (tiled.HomeAttr) rather than resident in its readers'
// plans' layouts.
func isHome(v *ir.Value) bool {
	if def := v.DefiningOp(); def != nil {
		return def.Is(tensor.ConstantOp) && def.Attr(tiled.HomeAttr) != nil
	}
	blk := v.OwnerBlock()
	return blk != nil && blk.ParentOp() != nil && ir.ArgumentAttr(blk.ParentOp(), v.Index(), tiled.HomeAttr) != nil
}

// homeLayouts gives each home weight of fn (isHome: arguments, then
// constants, in order) its home: the default layout, started on the tile
// where the previous home's span ended (wrapping), so that a program's
// weights are spread over the whole chip instead of all starting on tile
// 0. plan-gemms prices the exchange from it and tiled-assign-layouts
// places the weight in it, so both call this.
func homeLayouts(fn *ir.Operation, tg *target.Target) (map[*ir.Value]layout.Layout, error) {
	homes := entryValues(fn, isHome)
	out := map[*ir.Value]layout.Layout{}
	next := int64(0)
	for _, v := range homes {
		rt, ok := v.Type().(*ir.RankedTensorType)
		if !ok {
			continue
		}
		l, err := layout.DefaultLayout(rt.Dims, tg)
		if err != nil {
			return nil, err
		}
		span := l.Tiling.TileCount
		offset := next % (int64(tg.Tiles) - span + 1)
		l.Tiling.TileOffset, l.Tiling.TileCount = offset, offset+span
		next = offset + span
		out[v] = l
	}
	return out, nil
}

// entryValues are the values of fn's entry block that keep accepts: its
// arguments, then the results of its single-result ops, in order.
func entryValues(fn *ir.Operation, keep func(*ir.Value) bool) []*ir.Value {
	f, ok := ir.Interface[ir.FunctionLike](fn)
	if !ok || f.FunctionBody(fn).Empty() {
		return nil
	}
	entry := f.FunctionBody(fn).Front()
	var out []*ir.Value
	for _, arg := range entry.Arguments() {
		if keep(arg) {
			out = append(out, arg)
		}
	}
	for _, op := range entry.Ops() {
		if op.NumResults() == 1 && keep(op.Result(0)) {
			out = append(out, op.Result(0))
		}
	}
	return out
}

// readAsWeights reports whether every use of v is as a matmul's right
// operand, directly or through concats that are only read so.
func readAsWeights(v *ir.Value) bool {
	resident := v.HasUses()
	v.Uses(func(u *ir.OpOperand) {
		switch {
		case isMatmul(u.Owner()) && u.Index() == 1:
		case u.Owner().Is(tensor.ConcatOp) && readAsWeights(u.Owner().Result(0)):
		default:
			resident = false
		}
	})
	return resident
}

// functions returns the functions (ir.FunctionLike ops) directly in a
// module, or op itself when it is one.
func functions(op *ir.Operation) []*ir.Operation {
	if ir.Implements[ir.FunctionLike](op) {
		return []*ir.Operation{op}
	}
	var out []*ir.Operation
	for _, r := range op.Regions() {
		for _, b := range r.Blocks() {
			for _, o := range b.Ops() {
				if ir.Implements[ir.FunctionLike](o) {
					out = append(out, o)
				}
			}
		}
	}
	return out
}
