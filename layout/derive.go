package layout

import (
	"slices"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/target"
)

// Layouts derived from other layouts: what an op that does no exchange
// leaves its result in (a transposed or reshaped shard, a partial
// reduction), and what it needs its input in (the input of a broadcast).
// Each keeps every element on the tile that holds it, so the op is local
// to each tile. Derived layouts spell every tile stride out, because the
// derived default depends on which axes are listed and in what order.

// resolved returns t with every stride explicit.
func (t *Tiling) resolved() Tiling {
	strides, replica := t.resolvedStrides()
	out := Tiling{TileCount: t.TileCount, Replicas: t.Replicas, TileOffset: t.TileOffset, Axes: make([]AxisTiling, len(t.Axes))}
	for i, a := range t.Axes {
		a.TileStride = strides[i]
		out.Axes[i] = a
	}
	if t.Replicas > 1 {
		out.ReplicaStride = replica
	}
	return out
}

// axisAt returns the tiling of the axis at front index i of a rank-r
// tensor, if it is partitioned into more than one piece.
func (t *Tiling) axisAt(i, rank int) (AxisTiling, bool) {
	a, ok := t.Axis(rank - i)
	return a, ok && a.Partitions > 1
}

// ProjectLayout is a layout for a tensor of outShape whose axis j is axis
// from[j] of a tensor laid out by l (or, where from[j] is -1, a new whole
// axis), such that every tile holding a shard of l holds the projection of
// that shard: the input of a broadcast to l, and the result of combining
// partial reductions. Partitioned axes of l that are dropped become
// replicas; ok is false when more than one is and their tiles do not form
// one arithmetic progression (a layout has one replica stride).
func ProjectLayout(l *Layout, shape []int64, from []int, outShape []int64) (Layout, bool) {
	t := l.Tiling.resolved()
	rank := len(shape)
	out := Layout{Order: Order{Kind: RowMajor}, MemoryClass: l.MemoryClass,
		Tiling: Tiling{TileCount: t.TileCount, Replicas: 1, TileOffset: t.TileOffset}}
	kept := map[int]bool{}
	for j, i := range from {
		if i < 0 {
			continue
		}
		a, ok := t.axisAt(i, rank)
		if !ok || shape[i] != outShape[j] {
			continue
		}
		kept[i] = true
		a.FromEnd = len(outShape) - j
		out.Tiling.Axes = append(out.Tiling.Axes, a)
	}
	// The dropped axes, with the replicas l already has, must enumerate
	// their tiles as one progression: sorted by stride, each stride the
	// previous one times its count.
	type group struct{ count, stride int64 }
	var dropped []group
	for _, a := range t.Axes {
		if a.Partitions > 1 && !kept[rank-a.FromEnd] {
			dropped = append(dropped, group{a.Partitions, a.TileStride})
		}
	}
	if t.Replicas > 1 {
		dropped = append(dropped, group{t.Replicas, t.ReplicaStride})
	}
	for i := 1; i < len(dropped); i++ {
		for j := i; j > 0 && dropped[j].stride < dropped[j-1].stride; j-- {
			dropped[j], dropped[j-1] = dropped[j-1], dropped[j]
		}
	}
	for i := 1; i < len(dropped); i++ {
		if dropped[i].stride != dropped[i-1].stride*dropped[i-1].count {
			return Layout{}, false
		}
	}
	if len(dropped) > 0 {
		out.Tiling.Replicas = 1
		for _, g := range dropped {
			out.Tiling.Replicas *= g.count
		}
		out.Tiling.ReplicaStride = dropped[0].stride
	}
	return out, true
}

// PartialLayout is the layout of the partial results of reducing a tensor
// laid out by l over axes: each tile reduces its own shard, so a reduced
// axis cut into P partitions keeps P entries, one per tile along it, and a
// whole one keeps 1. It returns the layout and the partials' shape.
func PartialLayout(l *Layout, shape []int64, axes []int64) (Layout, []int64) {
	t := l.Tiling.resolved()
	rank := len(shape)
	outShape := append([]int64(nil), shape...)
	out := Layout{Order: Order{Kind: RowMajor}, MemoryClass: l.MemoryClass, Tiling: t}
	out.Tiling.Axes = nil
	reduced := map[int]bool{}
	for _, a := range axes {
		reduced[int(a)] = true
		outShape[a] = 1
	}
	for _, a := range t.Axes {
		i := rank - a.FromEnd
		if reduced[i] {
			if a.Partitions > 1 {
				outShape[i] = a.Partitions
				p := NewAxis(a.FromEnd, a.Partitions)
				p.TileStride = a.TileStride
				out.Tiling.Axes = append(out.Tiling.Axes, p)
			}
			continue
		}
		out.Tiling.Axes = append(out.Tiling.Axes, a)
	}
	return out, outShape
}

// PermuteLayout is the layout of transpose(x, perm) when x is laid out by
// l and every tile transposes its own shard: result axis j is input axis
// perm[j], cut as it was.
func PermuteLayout(l *Layout, perm []int64) Layout {
	t := l.Tiling.resolved()
	rank := len(perm)
	out := Layout{Order: Order{Kind: RowMajor}, MemoryClass: l.MemoryClass, Tiling: t}
	out.Tiling.Axes = make([]AxisTiling, len(t.Axes))
	for k, a := range t.Axes {
		from := rank - a.FromEnd
		for j, i := range perm {
			if int(i) == from {
				a.FromEnd = rank - j
			}
		}
		out.Tiling.Axes[k] = a
	}
	return out
}

// Unpartition returns l with the axes at the given front indices made whole
// (the other axes and the replicas stay on their tiles).
func Unpartition(l *Layout, rank int, axes []int) Layout {
	t := l.Tiling.resolved()
	out := *l
	out.Tiling = t
	out.Tiling.Axes = nil
	for _, a := range t.Axes {
		drop := false
		for _, i := range axes {
			drop = drop || rank-a.FromEnd == i
		}
		if !drop {
			out.Tiling.Axes = append(out.Tiling.Axes, a)
		}
	}
	return out
}

// reshapeGroups pairs runs of input and output axes with equal products,
// the units a reshape regroups: [inLo, inHi) with [outLo, outHi).
func reshapeGroups(in, out []int64) ([][4]int, bool) {
	var groups [][4]int
	i, j := 0, 0
	for i < len(in) || j < len(out) {
		// A unit axis on one side only is a group of its own: it holds no
		// partition, and absorbing it would make its neighbour's group a
		// regrouping.
		if i < len(in) && in[i] == 1 && (j == len(out) || out[j] != 1) {
			groups = append(groups, [4]int{i, i + 1, j, j})
			i++
			continue
		}
		if j < len(out) && out[j] == 1 && (i == len(in) || in[i] != 1) {
			groups = append(groups, [4]int{i, i, j, j + 1})
			j++
			continue
		}
		gi, gj := i, j
		pi, pj := int64(1), int64(1)
		if i < len(in) {
			pi *= in[i]
			i++
		}
		if j < len(out) {
			pj *= out[j]
			j++
		}
		for pi != pj {
			if pi < pj {
				if i == len(in) {
					return nil, false
				}
				pi *= in[i]
				i++
			} else {
				if j == len(out) {
					return nil, false
				}
				pj *= out[j]
				j++
			}
		}
		groups = append(groups, [4]int{gi, i, gj, j})
	}
	return groups, true
}

// ReshapeLayout is the layout of reshape(x) to outShape when x is laid out
// by l and every tile keeps its own shard: possible when, in each run of
// axes the reshape regroups, the shards are equal contiguous chunks of the
// run's row-major order (unpadded, equal partitions, tiles in order) that
// are also boxes of the output axes. A shard stored row major then is the
// same memory before and after: the reshape is a reinterpretation.
func ReshapeLayout(l *Layout, shape, outShape []int64) (Layout, bool) {
	if slices.Contains(shape, 0) && slices.Contains(outShape, 0) {
		// No element to keep anywhere: the result whole on l's tiles.
		t := l.Tiling.resolved()
		return Layout{Order: Order{Kind: RowMajor}, MemoryClass: l.MemoryClass,
			Tiling: Tiling{TileCount: t.TileCount, Replicas: t.Replicas, ReplicaStride: t.ReplicaStride, TileOffset: t.TileOffset}}, true
	}
	groups, ok := reshapeGroups(shape, outShape)
	if !ok {
		return Layout{}, false
	}
	m, err := NewShardMap(l, shape, 0)
	if err != nil {
		return Layout{}, false
	}
	t := l.Tiling.resolved()
	rank, outRank := len(shape), len(outShape)
	out := Layout{Order: Order{Kind: RowMajor}, MemoryClass: l.MemoryClass,
		Tiling: Tiling{TileCount: t.TileCount, Replicas: t.Replicas, ReplicaStride: t.ReplicaStride, TileOffset: t.TileOffset}}
	splitOf := func(i int) *axisSplit {
		for k := range m.splits {
			if m.splits[k].axis == i && m.splits[k].tiling.Partitions > 1 {
				return &m.splits[k]
			}
		}
		return nil
	}
	strideOf := func(i int) int64 {
		a, _ := t.Axis(rank - i)
		return a.TileStride
	}
	for _, g := range groups {
		inLo, inHi, outLo, outHi := g[0], g[1], g[2], g[3]
		if inHi-inLo == 1 && outHi-outLo == 1 {
			if a, ok := t.axisAt(inLo, rank); ok {
				a.FromEnd = outRank - outLo
				out.Tiling.Axes = append(out.Tiling.Axes, a)
			}
			continue
		}
		// Linearise the run: chunk elements per shard, parts shards, the
		// tile stride between consecutive chunks.
		chunk, parts, stride := int64(1), int64(1), int64(0)
		inner := true // no partitioned axis seen yet, from the innermost
		for i := inHi - 1; i >= inLo; i-- {
			s := splitOf(i)
			switch {
			case s == nil && inner:
				chunk *= shape[i]
			case s == nil && shape[i] == 1:
			case s == nil:
				return Layout{}, false // a whole axis outside a cut one: not contiguous
			default:
				a := s.tiling
				if a.PaddingGroups != 1 || s.paddedGroupLen != s.length || s.extra != 0 ||
					s.physicalSizes()[0] != s.length/a.Partitions {
					return Layout{}, false // unequal or padded chunks
				}
				size := s.length / a.Partitions
				if inner {
					chunk *= size
					stride = strideOf(i)
					inner = false
				} else if size != 1 || strideOf(i) != stride*parts {
					return Layout{}, false
				}
				parts *= a.Partitions
			}
		}
		if parts == 1 {
			continue // the run is whole on every tile
		}
		// Delinearise into the output axes, innermost first.
		c, s := chunk, stride
		var axes []AxisTiling
		for j := outHi - 1; j >= outLo; j-- {
			n := outShape[j]
			switch {
			case c >= n:
				if c%n != 0 {
					return Layout{}, false
				}
				c /= n
			case n%c != 0:
				return Layout{}, false
			default:
				p := n / c
				a := NewAxis(outRank-j, p)
				a.TileStride = s
				axes = append(axes, a)
				s *= p
				c = 1
			}
		}
		out.Tiling.Axes = append(out.Tiling.Axes, axes...)
	}
	return out, true
}

// tilesInRowMajorOrder is d (a layout with derived strides) with its axes
// listed back to front. DefaultLayout lists its axes front to back, so the
// front axis varies fastest over the tiles; listed back to front, the
// tiles follow the row-major order of the shards, and consecutive rows of
// axes a reshape merges land on consecutive tiles, as ReshapeLayout needs.
func tilesInRowMajorOrder(d Layout) Layout {
	d.Tiling.Axes = slices.Clone(d.Tiling.Axes)
	slices.Reverse(d.Tiling.Axes)
	return d
}

// Choices of the tiled lowering: for an op that must stay local, the
// layouts it needs its input in and leaves its result in.

// ReshapeLayouts returns the layout a reshape of a tensor in l needs its
// input in, and its result's layout: l itself when its shards reinterpret
// (ReshapeLayout); else the layout that reinterprets into the result
// shape's default layout or its even cut (EvenLayout; its tiles in either
// order); else the input's default layout in row-major tile order; else,
// spread less, the default cut only on each group's outer axis, the
// input's even cut, l with every regrouped axis made whole, and the
// default so. The caller relays the input out when the
// first differs from l.
func ReshapeLayouts(l *Layout, in, out []int64, et elem.Type, tg *target.Target) (Layout, Layout, error) {
	fits := func(x Layout, shape []int64) bool {
		_, err := Check(&x, shape, et, tg)
		return err == nil
	}
	if r, ok := ReshapeLayout(l, in, out); ok && fits(r, out) {
		return *l, r, nil
	}

	// The result's default layout, then its even cut (EvenLayout): an
	// uneven cut of a regrouped axis (a conv's [12544, 64] read as
	// [1, 112, 112, 64] with 112 over 13 tiles) does not reinterpret, an
	// even one always does.
	for _, layoutOf := range []func([]int64, *target.Target) (Layout, error){DefaultLayout, EvenLayout} {
		d, err := layoutOf(out, tg)
		if err != nil {
			continue
		}
		for _, d := range []Layout{d, tilesInRowMajorOrder(d)} {
			if back, ok := ReshapeLayout(&d, out, in); ok && fits(back, in) {
				if r, ok := ReshapeLayout(&back, in, out); ok {
					return back, r, nil
				}
			}
		}
	}
	groups, ok := reshapeGroups(in, out)
	if !ok {
		return Layout{}, Layout{}, layoutErr("cannot reshape %v to %v", in, out)
	}
	var whole []int
	for _, g := range groups {
		if g[1]-g[0] != 1 || g[3]-g[2] != 1 {
			for i := g[0]; i < g[1]; i++ {
				whole = append(whole, i)
			}
		}
	}
	// l's partitions do not reinterpret: the input's default layout, when
	// its cuts are whole runs of each group (the outer axes of a group cut
	// into single rows, as the default cuts them front to back: im2col's
	// [N, H, W, KC] read as [N·H·W, KC] cut by N and H into rows of W);
	// then the default layout of the input
	// with the regrouped axes made whole but the outermost of each group,
	// whose partitions are whole runs of the group (im2col's [N, H, W, KC]
	// read as [N·H·W, KC] cut by rows of H: spread, where l with the
	// regrouped axes whole would put the rows on a few tiles); then that;
	// then the default with every regrouped axis whole, which spreads the
	// axes that stay.
	if d, err := DefaultLayout(in, tg); err == nil {
		rows := tilesInRowMajorOrder(d)
		if r, ok := ReshapeLayout(&rows, in, out); ok && fits(rows, in) {
			return rows, r, nil
		}
		var inner []int
		for _, g := range groups {
			if g[1]-g[0] != 1 || g[3]-g[2] != 1 {
				first := true
				for i := g[0]; i < g[1]; i++ {
					if first && in[i] > 1 {
						first = false
						continue
					}
					inner = append(inner, i)
				}
			}
		}
		u := Unpartition(&d, len(in), inner)
		if r, ok := ReshapeLayout(&u, in, out); ok && fits(u, in) {
			return u, r, nil
		}
	}
	if d, err := EvenLayout(in, tg); err == nil {
		for _, d := range []Layout{d, tilesInRowMajorOrder(d)} {
			if r, ok := ReshapeLayout(&d, in, out); ok && fits(d, in) {
				return d, r, nil
			}
		}
	}
	u := Unpartition(l, len(in), whole)
	if r, ok := ReshapeLayout(&u, in, out); ok && fits(u, in) {
		return u, r, nil
	}
	if d, err := DefaultLayout(in, tg); err == nil {
		u := Unpartition(&d, len(in), whole)
		if r, ok := ReshapeLayout(&u, in, out); ok && fits(u, in) {
			return u, r, nil
		}
	}
	return Layout{}, Layout{}, layoutErr("no layout lets a reshape of %v to %v stay on its tiles and fit target %s", in, out, tg.Name)
}

// ReduceLayouts returns, for a reduction over axes of a tensor in l, the
// layout and shape of the partial results each tile computes (tiled.reduce)
// and the layout of the combined result (tiled.combine): the partials'
// layout projected onto the kept axes, replicated over the tiles that
// reduced, so that a broadcast back finds its input in place; the result
// shape's default layout where that projection is not a layout.
//
// Each tile of the combined result gathers the partials of its shard from
// every tile that reduced it. Where that is more than the tile held of the
// input (a global pooling of [1, 96, 112, 112] cut only spatially, whose
// 1,456 replicas would each gather all 96 × 1,456 partials: 559 KB a tile),
// the result takes its shape's default layout instead, spread so that each
// tile gathers only its own part.
func ReduceLayouts(l *Layout, shape []int64, axes []int64, tg *target.Target) (Layout, []int64, Layout, error) {
	partial, pshape := PartialLayout(l, shape, axes)
	var from []int
	var rshape []int64
	for i, n := range pshape {
		if !slices.Contains(axes, int64(i)) {
			from = append(from, i)
			rshape = append(rshape, n)
		}
	}
	if r, ok := ProjectLayout(&partial, pshape, from, rshape); ok && !gathersMoreThanHeld(l, shape, &r, rshape, pshape, axes) {
		return partial, pshape, r, nil
	}
	r, err := DefaultLayout(rshape, tg)
	return partial, pshape, r, err
}

// gathersMoreThanHeld reports whether a tile of the combined result r
// receives more partials (its shard's elements times the partitions of the
// reduced axes) than the largest shard of the input in l holds.
func gathersMoreThanHeld(l *Layout, shape []int64, r *Layout, rshape, pshape, axes []int64) bool {
	in, err := NewShardMap(l, shape, 0)
	if err != nil {
		return false
	}
	out, err := NewShardMap(r, rshape, 0)
	if err != nil {
		return false
	}
	gathered := out.MaxShardElements()
	for _, a := range axes {
		gathered = satMul(gathered, pshape[a])
	}
	return gathered > in.MaxShardElements()
}

// BroadcastLayouts returns, for a broadcast (input axis i is result axis
// dims[i]) whose result is wanted in l, the layout its input must be in and
// the layout the broadcast produces: l when the projection of l's shards
// is a layout; else, when the input is no larger than a shard of l with
// the axes the input lacks made whole, l from the whole input on every
// tile l spans; else that unpartitioned layout (the caller relays the
// result out to l). A one-hot's iota [1000] broadcast to [512, 1000] in a
// replicated matmul operand took the second way, 112 KiB a tile where the
// wanted shard is 7 KiB; the whole input is 4 KiB.
func BroadcastLayouts(l *Layout, out, in []int64, dims []int64) (Layout, Layout) {
	from := make([]int, len(dims))
	for i, d := range dims {
		from[i] = int(d)
	}
	if p, ok := ProjectLayout(l, out, from, in); ok {
		return p, *l
	}
	var whole []int
	for j := range out {
		kept := false
		for i, d := range dims {
			kept = kept || (int(d) == j && in[i] == out[j])
		}
		if !kept {
			whole = append(whole, j)
		}
	}
	u := Unpartition(l, len(out), whole)
	p, _ := ProjectLayout(&u, out, from, in)
	if everywhere, ok := wholeOnTilesOf(l, out, in); ok {
		if um, err := NewShardMap(&u, out, 0); err == nil && elementsOf(in) <= um.MaxShardElements() {
			return everywhere, *l
		}
	}
	return p, u
}

// wholeOnTilesOf is a layout holding a tensor of shape in whole on every
// tile from l's first to its last, stored as l stores its shards.
func wholeOnTilesOf(l *Layout, shape, in []int64) (Layout, bool) {
	m, err := NewShardMap(l, shape, 0)
	if err != nil {
		return Layout{}, false
	}
	tiles := m.Tiles()
	if len(tiles) == 0 {
		return Layout{}, false
	}
	first, last := slices.Min(tiles), slices.Max(tiles)
	return Layout{Order: Order{Kind: RowMajor}, MemoryClass: l.MemoryClass,
		Tiling: Tiling{TileCount: last + 1, Replicas: last - first + 1, ReplicaStride: 1, TileOffset: first}}, true
}

// elementsOf is the element count of shape, saturated.
func elementsOf(shape []int64) int64 {
	n := int64(1)
	for _, d := range shape {
		n = satMul(n, d)
	}
	return n
}

// SliceLayout is the layout of x[lo:hi] along axis (a front index) when x
// is laid out by l and the range takes whole shards: lo and hi fall on
// partition boundaries of axis, so every tile holding a shard of the slice
// holds exactly that shard of x, stored alike. The slice is then a
// reinterpretation, and a concat of tensors in such layouts is one too: a
// matmul planned jointly as one wider matmul reads its parts where the
// whole is. The result keeps x's tiles through its tile offset. ok is
// false when the range splits a shard (or the axis is whole and the range
// not all of it).
func SliceLayout(l *Layout, shape []int64, axis int, lo, hi int64) (Layout, bool) {
	m, err := NewShardMap(l, shape, 0)
	if err != nil || axis < 0 || axis >= len(shape) || lo < 0 || hi > shape[axis] || lo >= hi {
		return Layout{}, false
	}
	outShape := slices.Clone(shape)
	outShape[axis] = hi - lo
	t := l.Tiling.resolved()
	out := Layout{Order: l.Order, MemoryClass: l.MemoryClass, Tiling: t}
	out.Tiling.ReplicaStride = 0
	if t.Replicas > 1 {
		_, out.Tiling.ReplicaStride = l.Tiling.resolvedStrides()
	}
	k := slices.IndexFunc(m.splits, func(s axisSplit) bool { return s.axis == axis && s.tiling.Partitions > 1 })
	if k < 0 {
		if lo != 0 || hi != shape[axis] {
			return Layout{}, false
		}
		return out, true
	}
	s := &m.splits[k]
	if s.tiling.PaddingGroups != 1 {
		return Layout{}, false
	}
	first, last := int64(-1), s.tiling.Partitions
	for p := range s.tiling.Partitions {
		sp := s.span(p)
		if sp.Lo == lo && first < 0 {
			first = p
		}
		if sp.Lo == hi && sp.Len() > 0 {
			last = p
			break
		}
	}
	if first < 0 || (last == s.tiling.Partitions && hi != shape[axis]) || last <= first {
		return Layout{}, false
	}
	a := t.Axes[k]
	a.Partitions = last - first
	if hi != shape[axis] {
		a.PaddingMultiple = a.BlockSize
	}
	out.Tiling.Axes = slices.Clone(t.Axes)
	out.Tiling.Axes[k] = a
	out.Tiling.TileOffset = t.TileOffset + first*a.TileStride
	// Check by construction that every shard of the slice is the shard of x
	// on its tile, positions and storage alike.
	sm, err := NewShardMap(&out, outShape, 0)
	if err != nil {
		return Layout{}, false
	}
	for _, tile := range sm.Tiles() {
		got, _ := sm.OnTile(tile)
		want, ok := m.OnTile(tile)
		if !ok {
			return Layout{}, false
		}
		for i := range got.Extents {
			g, w := got.Extents[i], want.Extents[i]
			if i == axis {
				shift := s.position(lo)
				w = Extent{w.Start - shift, w.LogicalEnd - shift, w.PhysicalEnd - shift}
			}
			if g != w {
				return Layout{}, false
			}
		}
	}
	return out, true
}

// ExpandLayout is the inverse of a projection without replicas: the layout
// of a rank-rank tensor whose axis kept[j] is axis j of a tensor laid out
// by l (of rank len(kept)), and whose other axes are whole on every tile.
// Every tile holding a shard of l holds the same elements of the kept
// axes, and all of the others: where tiled.combine gathers partials.
func ExpandLayout(l *Layout, rank int, kept []int) Layout {
	t := l.Tiling.resolved()
	out := Layout{Order: Order{Kind: RowMajor}, MemoryClass: l.MemoryClass, Tiling: t}
	out.Tiling.Axes = make([]AxisTiling, len(t.Axes))
	for k, a := range t.Axes {
		a.FromEnd = rank - kept[len(kept)-a.FromEnd]
		out.Tiling.Axes[k] = a
	}
	return out
}
