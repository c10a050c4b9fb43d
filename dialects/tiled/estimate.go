package tiled

import (
	"fmt"
	"slices"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/elem/irelem"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/kernel"
	"github.com/ipuir/ipuir/layout"
	"github.com/ipuir/ipuir/target"
)

// The cost model of the ops other than tiled.matmul (whose plan the
// planner in package plan costs) and tiled.stream_in (estimateStreamIn). Every op runs in BSP supersteps that all
// tiles go through alike, so an op costs what its busiest tile spends:
//
//   - local ops (elementwise, broadcast, reduce, and a transpose or reshape
//     that changes a shard's memory order) run on the vector unit over the
//     largest shard, padding included (target.ElementwiseCycles,
//     target.ReduceCycles); a reinterpretation costs nothing, and so does a
//     broadcast read only by elementwise ops, which read its input through
//     it (BroadcastIsView);
//   - an exchange (relayout, combine) is one phase after one sync, as long
//     as its busiest tile's larger direction (ExchangeTraffic: a tile sends
//     and receives one word per cycle each way; a multicast sends once);
//   - reduce and combine count their vector work as reduction cycles.
//
// Peak bytes are the op's operand and result shards on the busiest tile, by
// memory kind; a splat constant holds one element.

// EstimateOp returns the cost of op, a tiled op other than tiled.matmul,
// on tg. Ops of other dialects cost nothing here.
func EstimateOp(op *ir.Operation, tg *target.Target) (Estimate, error) {
	var e Estimate
	if op.Is(MatmulOp) {
		return e, fmt.Errorf("tiled.matmul is costed by its plan")
	}
	// An op whose result is its operands' memory seen anew holds that
	// memory once: a broadcast view its input, any other alias its result.
	alias := Aliases(op, tg)
	if op.Is(StreamInOp) {
		// The input is in streaming memory: no tile holds it.
		err := addShardBytes(&e, op.Result(0), tg)
		if err == nil {
			err = estimateStreamIn(&e, op, tg)
		}
		e.Total()
		return e, err
	}
	if !alias || op.Is(BroadcastOp) {
		for _, v := range op.Operands() {
			if err := addShardBytes(&e, v, tg); err != nil {
				return e, err
			}
		}
	}
	if !alias || !op.Is(BroadcastOp) {
		for _, v := range op.Results() {
			if err := addShardBytes(&e, v, tg); err != nil {
				return e, err
			}
		}
	}
	var err error
	switch op.Def() {
	case RelayoutOp:
		err = estimateRelayout(&e, op, tg)
	case ElementwiseOp:
		var m *layout.ShardMap
		var et elem.Type
		if m, et, err = shardMapOf(op.Result(0), tg); err == nil {
			fn, _ := kernel.FnNamed(op.Attr(FnAttrName).(*ir.StringAttr).Val)
			var operands []elem.Type
			for _, v := range op.Operands() {
				if k, ok := irelem.Of(ir.ElementTypeOrSelf(v.Type())); ok {
					operands = append(operands, k)
				}
			}
			e.ComputeCycles, err = fn.Cycles(tg, m.MaxShardElements(), kernel.PricedAs(et, operands...))
		}
	case BroadcastOp:
		var m *layout.ShardMap
		var et elem.Type
		if m, et, err = shardMapOf(op.Result(0), tg); err == nil && !BroadcastIsView(op) {
			e.ComputeCycles, err = tg.ElementwiseCycles(m.MaxShardElements(), et, target.Simple)
		}
	case ReduceOp:
		err = estimateReduce(&e, op, tg)
	case CombineOp:
		err = estimateCombine(&e, op, tg)
	case SliceOp, ConcatOp:
		err = estimateGather(&e, op, tg)
	case TransposeOp, ReshapeOp:
		var m *layout.ShardMap
		var et elem.Type
		if m, et, err = shardMapOf(op.Operand(0), tg); err == nil && !reinterprets(op, m) {
			e.ComputeCycles, err = tg.ElementwiseCycles(m.MaxShardElements(), et, target.Simple)
		}
	}
	e.Total()
	return e, err
}

// estimateStreamIn prices a load from streaming memory: an exchange after a
// sync, as long as the target's streaming transfer of the bytes it writes
// into tiles. The chip does not compute
// meanwhile (the default the PopART guide states for streaming memory).
func estimateStreamIn(e *Estimate, op *ir.Operation, tg *target.Target) error {
	bytes, err := StreamedBytes(op.Result(0), tg)
	if err != nil {
		return err
	}
	if e.ExchangeCycles, err = tg.StreamingCycles(bytes); err != nil {
		return err
	}
	e.SyncCycles = int64(tg.SyncCycles)
	return nil
}

// Aliases reports whether op's result is its operands' memory seen anew:
// a transpose or reshape that leaves every shard's memory as it is, a
// slice or concat of whole shards (ReinterpretsSlices), or a broadcast read
// only by elementwise ops (BroadcastIsView). Storage gives such a result no
// buffer of its own.
func Aliases(op *ir.Operation, tg *target.Target) bool {
	switch {
	case op.Is(BroadcastOp):
		return BroadcastIsView(op)
	case op.Is(SliceOp, ConcatOp):
		return ReinterpretsSlices(op)
	case op.Is(TransposeOp, ReshapeOp):
		m, _, err := shardMapOf(op.Operand(0), tg)
		return err == nil && reinterprets(op, m)
	}
	return false
}

// reinterprets reports whether a transpose or reshape leaves every shard's
// memory as it is: row-major shards, and for a transpose only axes whose
// shards hold one element move.
func reinterprets(op *ir.Operation, in *layout.ShardMap) bool {
	if in.Layout.Order.Kind != layout.RowMajor {
		return false
	}
	if !op.Is(TransposeOp) {
		return true
	}
	shape := in.MaxShardShape()
	var moved []int64
	for _, p := range intsOf(op, PermutationAttrName) {
		if shape[p] > 1 {
			moved = append(moved, p)
		}
	}
	return slices.IsSorted(moved)
}

func shardMapOf(v *ir.Value, tg *target.Target) (*layout.ShardMap, elem.Type, error) {
	t, ok := v.Type().(*ir.RankedTensorType)
	if !ok {
		return nil, elem.Invalid, fmt.Errorf("%s is not a ranked tensor", ir.TypeString(v.Type()))
	}
	l, ok := LayoutOf(t)
	if !ok {
		return nil, elem.Invalid, fmt.Errorf("%s has no layout", ir.TypeString(t))
	}
	et, err := ElemTypeOf(t.Elem)
	if err != nil {
		return nil, elem.Invalid, err
	}
	m, err := CheckLayout(l, t, tg)
	return m, et, err
}

func addShardBytes(e *Estimate, v *ir.Value, tg *target.Target) error {
	if def := v.DefiningOp(); def != nil && def.Is(BroadcastOp) && BroadcastIsView(def) {
		v = def.Operand(0) // read through the view: its input's shard
	}
	t, ok := v.Type().(*ir.RankedTensorType)
	if !ok {
		return nil
	}
	if _, ok := LayoutOf(t); !ok {
		return nil
	}
	m, et, err := shardMapOf(v, tg)
	if err != nil {
		return err
	}
	n := m.MaxShardElements()
	if def := v.DefiningOp(); def != nil && def.Is(ConstantOp) {
		if d, ok := def.Attr(ValueAttrName).(*ir.DenseElementsAttr); ok && d.Splat {
			n = 1
		}
	}
	bytes, err := tg.BytesFor(n, et)
	if err != nil {
		return err
	}
	class, err := tg.ClassByName(m.Layout.MemoryClass)
	if err != nil {
		return err
	}
	switch class.Kind {
	case target.Standard:
		e.PeakStandardBytes += bytes
	case target.Interleaved:
		e.PeakInterleavedBytes += bytes
	}
	return nil
}

// addPhase adds one exchange phase (and the sync before it) moving tr,
// over the links too where tr crosses the chips of a span.
func addPhase(e *Estimate, tr *layout.Traffic, tg *target.Target) error {
	w := tr.MaxWords()
	if w == 0 {
		return nil
	}
	c, sync, err := tg.ExchangeStepCycles(w, tr.ChipBytes)
	if err != nil {
		return err
	}
	e.ExchangeCycles += c
	e.SyncCycles += sync
	e.ExchangeWords += tr.MaxReceived
	e.ExchangeSentWords += tr.MaxSent
	return nil
}

// RelayoutTraffic is the exchange that moves a tensor from layout src to
// layout dst.
func RelayoutTraffic(src, dst *layout.ShardMap, et elem.Type, tg *target.Target) layout.Traffic {
	return layout.ExchangeTraffic(src, layout.ShardNeeds(dst), int64(et.Bytes()), tg)
}

func estimateRelayout(e *Estimate, op *ir.Operation, tg *target.Target) error {
	dst, et, err := shardMapOf(op.Result(0), tg)
	if err != nil {
		return err
	}
	if _, ok := LayoutOf(op.Operand(0).Type()); !ok {
		return nil // a value entering the tiled program: the host streams it in
	}
	src, _, err := shardMapOf(op.Operand(0), tg)
	if err != nil {
		return err
	}
	if src.Layout.SameDistribution(dst.Layout) {
		if !src.Layout.Equal(dst.Layout) {
			e.ComputeCycles, err = tg.ElementwiseCycles(dst.MaxShardElements(), et, target.Simple)
		}
		return err
	}
	tr := RelayoutTraffic(src, dst, et, tg)
	return addPhase(e, &tr, tg)
}

func estimateReduce(e *Estimate, op *ir.Operation, tg *target.Target) error {
	in, et, err := shardMapOf(op.Operand(0), tg)
	if err != nil {
		return err
	}
	var axes []int
	for _, a := range intsOf(op, AxesAttrName) {
		axes = append(axes, int(a))
	}
	e.ReductionCycles, err = tg.ReductionCycles(in.MaxShardShape(), axes, et)
	return err
}

// CombineNeeds is what each tile of a combine's result needs of its
// partials: its shard's elements, with every combined axis whole.
func CombineNeeds(in, out *layout.ShardMap, axes []int64) []layout.Need {
	var needs []layout.Need
	for _, tile := range out.Tiles() {
		r, _ := out.BoxOnTile(tile)
		b := make(layout.Box, len(in.Shape))
		j := 0
		for i, n := range in.Shape {
			if slices.Contains(axes, int64(i)) {
				b[i] = layout.Span{Lo: 0, Hi: n}
				continue
			}
			b[i] = r[j]
			j++
		}
		needs = append(needs, layout.Need{Tile: tile, Box: b})
	}
	return needs
}

func estimateCombine(e *Estimate, op *ir.Operation, tg *target.Target) error {
	in, et, err := shardMapOf(op.Operand(0), tg)
	if err != nil {
		return err
	}
	out, _, err := shardMapOf(op.Result(0), tg)
	if err != nil {
		return err
	}
	axes := intsOf(op, AxesAttrName)
	tr := layout.ExchangeTraffic(in, CombineNeeds(in, out, axes), int64(et.Bytes()), tg)
	if err := addPhase(e, &tr, tg); err != nil {
		return err
	}
	entries := int64(1)
	for _, a := range axes {
		entries *= in.Shape[a]
	}
	if entries > 1 {
		e.ReductionCycles, err = tg.ElementwiseCycles((entries-1)*out.MaxShardElements(), et, target.Simple)
	}
	return err
}

// estimateGather prices a slice or concat: nothing when it only
// reinterprets whole shards (ReinterpretsSlices); else one phase in which every result
// tile receives the elements of its shard from the inputs that hold them,
// and a copy of those it holds already (charged as a copy of its whole
// shard, an upper bound).
func estimateGather(e *Estimate, op *ir.Operation, tg *target.Target) error {
	out, et, err := shardMapOf(op.Result(0), tg)
	if err != nil {
		return err
	}
	if ReinterpretsSlices(op) {
		return nil
	}
	needs := layout.ShardNeeds(out)
	var total layout.Traffic
	start := int64(0) // a concat input's first index along the axis
	for i := 0; i < op.NumOperands(); i++ {
		in, _, err := shardMapOf(op.Operand(i), tg)
		if err != nil {
			return err
		}
		mapped := make([]layout.Need, 0, len(needs))
		for _, n := range needs {
			b := slices.Clone(n.Box)
			if op.Is(SliceOp) {
				off, strides := intsOf(op, OffsetsAttrName), intsOf(op, StridesAttrName)
				for a, s := range b {
					if s.Len() > 0 {
						b[a] = layout.Span{Lo: off[a] + s.Lo*strides[a], Hi: off[a] + (s.Hi-1)*strides[a] + 1}
					}
				}
			} else {
				axis := op.Attr(AxisAttrName).(*ir.IntegerAttr).Int
				s := b[axis].Intersect(layout.Span{Lo: start, Hi: start + in.Shape[axis]})
				b[axis] = layout.Span{Lo: s.Lo - start, Hi: s.Hi - start}
			}
			mapped = append(mapped, layout.Need{Tile: n.Tile, Box: b})
		}
		if op.Is(ConcatOp) {
			start += in.Shape[op.Attr(AxisAttrName).(*ir.IntegerAttr).Int]
		}
		tr := layout.ExchangeTraffic(in, mapped, int64(et.Bytes()), tg)
		total.Add(&tr)
	}
	if total.LocalElements > 0 { // elements a tile holds are copied into the result's buffer
		if e.ComputeCycles, err = tg.ElementwiseCycles(out.MaxShardElements(), et, target.Simple); err != nil {
			return err
		}
	}
	return addPhase(e, &total, tg)
}

// ReinterpretsSlices reports whether a slice or concat moves nothing: the
// slice's result, or each input of the concat, is in the SliceLayout of the
// whole, so every tile's shard is already where and as it is stored.
func ReinterpretsSlices(op *ir.Operation) bool {
	whole := op.Result(0)
	parts := op.Operands()
	var axis int
	var ranges [][2]int64
	if op.Is(SliceOp) {
		whole, parts = op.Operand(0), op.Results()
		off, sizes, strides := intsOf(op, OffsetsAttrName), intsOf(op, SizesAttrName), intsOf(op, StridesAttrName)
		in := rankedOf(whole)
		axis = -1
		for i := range off {
			if strides[i] != 1 {
				return false
			}
			if off[i] != 0 || sizes[i] != in.Dims[i] {
				if axis >= 0 {
					return false
				}
				axis = i
			}
		}
		if axis < 0 {
			axis = 0
		}
		ranges = [][2]int64{{off[axis], off[axis] + sizes[axis]}}
	} else if op.Is(ConcatOp) {
		axis = int(op.Attr(AxisAttrName).(*ir.IntegerAttr).Int)
		start := int64(0)
		for _, v := range parts {
			n := rankedOf(v).Dims[axis]
			ranges = append(ranges, [2]int64{start, start + n})
			start += n
		}
	} else {
		return false
	}
	wt := rankedOf(whole)
	wl, ok := LayoutOf(wt)
	if !ok {
		return false
	}
	for i, v := range parts {
		pl, ok := LayoutOf(v.Type())
		if !ok {
			return false
		}
		want, ok := layout.SliceLayout(wl, wt.Dims, axis, ranges[i][0], ranges[i][1])
		if !ok || !want.Equal(pl) {
			return false
		}
	}
	return true
}

// BroadcastIsView reports whether a broadcast is read only by elementwise
// ops: they then read its input through the broadcast (a stride of zero
// along the new axes, as the vector unit's broadcast operands do), so the
// broadcast is a view that costs nothing and holds no memory.
func BroadcastIsView(op *ir.Operation) bool {
	view := op.Result(0).HasUses()
	op.Result(0).Uses(func(u *ir.OpOperand) {
		view = view && u.Owner().Is(ElementwiseOp)
	})
	return view
}
