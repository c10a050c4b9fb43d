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
	"fmt"

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
	if blk == nil || !ir.Implements[ir.FunctionLike](blk.ParentOp()) || isHome(v) || isStreamed(v) {
		return false
	}
	return readAsWeights(v)
}

// isStreamed reports whether v is a function argument kept in streaming
// memory (tiled.StreamedAttr), or the concat of such arguments that a
// jointly planned matmul reads (each part loaded into its place).
func isStreamed(v *ir.Value) bool {
	if def := v.DefiningOp(); def != nil {
		if !def.Is(tensor.ConcatOp) || def.NumOperands() == 0 {
			return false
		}
		for _, in := range def.Operands() {
			if !isStreamed(in) {
				return false
			}
		}
		return true
	}
	return tiled.IsStreamedArgument(v)
}

// pinnedResident reports whether v is a function argument the user keeps
// in tile memory (tiled.ResidentAttr): automatic placement leaves it.
func pinnedResident(v *ir.Value) bool {
	blk := v.OwnerBlock()
	return v.DefiningOp() == nil && blk != nil && blk.ParentOp() != nil && ir.ArgumentAttr(blk.ParentOp(), v.Index(), tiled.ResidentAttr) != nil
}

// streamable reports whether v may be streamed: an argument of fn's entry
// block read only as matmuls' right operand, directly or through the
// concats of jointly planned matmuls (whose parts are streamed together,
// weightGroup).
func streamable(v *ir.Value) bool {
	blk := v.OwnerBlock()
	if v.DefiningOp() != nil || blk == nil || blk.ParentOp() == nil || !ir.Implements[ir.FunctionLike](blk.ParentOp()) ||
		blk.Parent().Front() != blk {
		return false
	}
	return readAsWeights(v)
}

// weightGroup is v with the other weights it is concatenated with for a
// jointly planned matmul, transitively: one placement for them all, since
// their concat is one operand.
func weightGroup(v *ir.Value) []*ir.Value {
	seen := map[*ir.Value]bool{v: true}
	out := []*ir.Value{v}
	for i := 0; i < len(out); i++ {
		out[i].Uses(func(u *ir.OpOperand) {
			if u.Owner().Is(tensor.ConcatOp) {
				for _, in := range u.Owner().Operands() {
					if !seen[in] {
						seen[in] = true
						out = append(out, in)
					}
				}
			}
		})
	}
	return out
}

// setStreamed marks fn's argument v streamed (and no longer home).
func setStreamed(ctx *ir.Context, fn *ir.Operation, v *ir.Value) {
	n := v.OwnerBlock().NumArguments()
	ir.SetArgumentAttr(ctx, fn, v.Index(), n, tiled.HomeAttr, nil)
	ir.SetArgumentAttr(ctx, fn, v.Index(), n, tiled.StreamedAttr, ctx.Unit())
}

// isHome reports whether v, a function argument or a constant, is stored
// in its home layout (tiled.HomeAttr) rather than resident in its readers'
// layouts.
func isHome(v *ir.Value) bool { return homeAttr(v) != nil }

// homeAttr is v's tiled.HomeAttr: unit, a #tiled.layout, or nil when v is
// not a home weight.
func homeAttr(v *ir.Value) ir.Attribute {
	if def := v.DefiningOp(); def != nil {
		if !def.Is(tensor.ConstantOp) {
			return nil
		}
		return def.Attr(tiled.HomeAttr)
	}
	blk := v.OwnerBlock()
	if blk == nil || blk.ParentOp() == nil {
		return nil
	}
	return ir.ArgumentAttr(blk.ParentOp(), v.Index(), tiled.HomeAttr)
}

// setHomeAttr sets v's tiled.HomeAttr (nil removes it).
func setHomeAttr(ctx *ir.Context, fn *ir.Operation, v *ir.Value, a ir.Attribute) {
	if def := v.DefiningOp(); def != nil {
		def.SetAttr(ctx, tiled.HomeAttr, a)
		return
	}
	ir.SetArgumentAttr(ctx, fn, v.Index(), v.OwnerBlock().NumArguments(), tiled.HomeAttr, a)
}

// homeLayouts gives each home weight of fn (isHome: arguments, then
// constants, in order) its home: the layout its tiled.HomeAttr holds, as
// written (plan-gemms writes one for each), or, for a unit attribute, the
// default layout started on the tile where the previous home's span
// ended (wrapping), so that a program's weights are spread over the whole
// chip instead of all starting on tile 0. plan-gemms prices the exchange
// from it and tiled-assign-layouts places the weight in it, so both call
// this.
func homeLayouts(fn *ir.Operation, tg *target.Target) (map[*ir.Value]layout.Layout, *tilePlacer, error) {
	homes := entryValues(fn, isHome)
	out := map[*ir.Value]layout.Layout{}
	placer := newTilePlacer(int64(tg.Tiles))
	for _, v := range homes {
		rt, ok := v.Type().(*ir.RankedTensorType)
		if !ok {
			continue
		}
		switch a := homeAttr(v).(type) {
		case *tiled.LayoutAttr:
			l := a.Layout
			if _, err := tiled.CheckLayout(&l, rt, tg); err != nil {
				return nil, nil, fmt.Errorf("the home layout of %s: %v", valueDescription(v), err)
			}
			out[v] = l
			placer.claimHome(&l, rt)
		case *ir.UnitAttr:
			l, err := defaultHome(v, tg)
			if err != nil {
				return nil, nil, err
			}
			placer.placeHome(&l, rt)
			out[v] = l
		default:
			return nil, nil, fmt.Errorf("%s: '%s' must be a unit attribute or a #tiled.layout, got %s", valueDescription(v), tiled.HomeAttr, ir.AttrString(a))
		}
	}
	return out, placer, nil
}

// valueDescription names a home weight in diagnostics.
func valueDescription(v *ir.Value) string {
	if def := v.DefiningOp(); def != nil {
		if l, ok := ir.FileLineColOf(def.Loc()); ok {
			return fmt.Sprintf("the %s at %s:%d:%d", def.Name(), l.File, l.Line, l.Col)
		}
		return "a " + def.Name()
	}
	return fmt.Sprintf("argument %d", v.Index())
}

// defaultHome is the home of v when nothing says otherwise: weights
// (readAsWeights) in the default layout, which the planner prices
// temporal plans' steps from; other parameters (a bias or a normalization
// scale, read only through broadcasts) in the storage layout, whose
// pieces are few enough that each tile reading them takes a few table
// entries rather than one per element.
func defaultHome(v *ir.Value, tg *target.Target) (layout.Layout, error) {
	rt := v.Type().(*ir.RankedTensorType)
	if readAsWeights(v) {
		return layout.DefaultLayout(rt.Dims, tg)
	}
	et, err := tiled.ElemTypeOf(rt)
	if err != nil {
		return layout.Layout{}, err
	}
	return layout.StorageLayout(rt.Dims, int64(et.Bytes()), tg)
}

// tilePlacer spreads things that occupy a run of consecutive tiles (home
// weights, plans' grids) over the chip, one after another: each goes to
// the window of its span that holds the fewest bytes so far, the first
// such window at or after where the previous one ended. Placing each where
// the previous ended, wrapping to stay on the chip, put every home of more
// than half the chip over its middle tiles (ViT-B/16's 768-tile weights
// all covered tiles 704 to 767 of ipu21's 1,472); starting every plan at
// tile 0 put every small plan's weights and tables on the first tiles.
type tilePlacer struct {
	tiles int64
	load  []int64 // bytes per tile so far
	next  int64
}

func newTilePlacer(tiles int64) *tilePlacer {
	return &tilePlacer{tiles: tiles, load: make([]int64, tiles)}
}

// window is the first tile of the least loaded run of span tiles.
func (p *tilePlacer) window(span int64) int64 {
	span = min(max(span, 1), p.tiles)
	windows := max(p.tiles-span+1, 1)
	sum := int64(0)
	for t := range span {
		sum += p.load[t]
	}
	sums := make([]int64, windows)
	sums[0] = sum
	for o := int64(1); o < windows; o++ { // sliding
		sum += p.load[o+span-1] - p.load[o-1]
		sums[o] = sum
	}
	best := p.next % windows
	for k := range windows {
		if o := (p.next + k) % windows; sums[o] < sums[best] {
			best = o
		}
	}
	return best
}

// claim counts bytes on each of tiles and places the next thing after
// end.
func (p *tilePlacer) claim(tiles []int64, bytes, end int64) {
	p.next = end
	for _, t := range tiles {
		if t >= 0 && t < p.tiles {
			p.load[t] += bytes
		}
	}
}

// placeHome moves l (a home's layout from tile 0, of type rt) to its
// window and counts its bytes there.
func (p *tilePlacer) placeHome(l *layout.Layout, rt *ir.RankedTensorType) {
	span := min(max(l.Tiling.TileCount, 1), p.tiles)
	start := p.window(span)
	l.Tiling.TileOffset, l.Tiling.TileCount = start, start+span
	p.claimHome(l, rt)
}

// claimHome counts the bytes of a home already placed in l.
func (p *tilePlacer) claimHome(l *layout.Layout, rt *ir.RankedTensorType) {
	end := l.Tiling.TileOffset + l.Tiling.ShardsPerReplica()
	et, err := tiled.ElemTypeOf(rt)
	if err != nil {
		p.next = end
		return
	}
	sm, err := layout.NewShardMap(l, rt.Dims, p.tiles)
	if err != nil {
		p.next = end
		return
	}
	p.claim(sm.Tiles(), sm.MaxShardElements()*int64(et.Bytes()), end)
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
