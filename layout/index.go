package layout

import "strconv"

// Shards in index space. Extents are positions, which include the padding
// of padding groups; what an op reads or an exchange moves are elements,
// named by their indices. A shard's data along one axis is one contiguous
// index range (a partition never spans two padding groups), so a shard's
// data is a Box of index Spans, and the lowering reasons about data
// movement and containment on boxes.

// Span is the half-open index range [Lo, Hi) along one axis.
type Span struct{ Lo, Hi int64 }

// Len is the number of indices in s (0 when empty).
func (s Span) Len() int64 { return max(0, s.Hi-s.Lo) }

// Intersect is the indices in both s and o.
func (s Span) Intersect(o Span) Span { return Span{max(s.Lo, o.Lo), min(s.Hi, o.Hi)} }

// Box is one Span per tensor axis, front to back.
type Box []Span

// Elements is the number of elements in b.
func (b Box) Elements() int64 {
	n := int64(1)
	for _, s := range b {
		n = satMul(n, s.Len())
	}
	return n
}

// Intersect is the elements in both b and o (same rank).
func (b Box) Intersect(o Box) Box {
	out := make(Box, len(b))
	for i := range b {
		out[i] = b[i].Intersect(o[i])
	}
	return out
}

// Contains reports whether every element of o is in b.
func (b Box) Contains(o Box) bool {
	if o.Elements() == 0 {
		return true
	}
	for i := range b {
		if o[i].Lo < b[i].Lo || o[i].Hi > b[i].Hi {
			return false
		}
	}
	return true
}

// span is partition p's data in index space.
func (s *axisSplit) span(p int64) Span {
	e := s.extent(p)
	g := p / s.partsPerGroup
	shift := g * (s.paddedGroupLen - s.groupLen) // padding of the groups before g
	hi := e.LogicalEnd - shift
	lo := min(e.Start-shift, hi)
	return Span{lo, hi}
}

// position is the position of index i along the axis.
func (s *axisSplit) position(i int64) int64 {
	g := i / s.groupLen
	return i + g*(s.paddedGroupLen-s.groupLen)
}

// IndexBox is the data of the shard at coords.
func (m *ShardMap) IndexBox(coords []int64) Box {
	b := make(Box, len(m.Shape))
	for i, n := range m.Shape {
		b[i] = Span{0, n}
	}
	for i := range m.splits {
		s := &m.splits[i]
		b[s.axis] = s.span(coords[i])
	}
	return b
}

// BoxOnTile is the data of the shard on tile, if it holds one.
func (m *ShardMap) BoxOnTile(tile int64) (Box, bool) {
	shard, ok := m.shardOnTile(tile)
	if !ok {
		return nil, false
	}
	coords := make([]int64, len(m.splits))
	m.coordsOf(shard, coords)
	return m.IndexBox(coords), true
}

// ViewOf returns the extents, in m's positions, of the elements in b: a
// view that CheckView can test against a shard. ok is false when a span
// crosses a padding group, which no view can express.
func (m *ShardMap) ViewOf(b Box) ([]Extent, bool) {
	ext := make([]Extent, len(b))
	for i, s := range b {
		ext[i] = Extent{s.Lo, s.Hi, s.Hi}
	}
	for i := range m.splits {
		s := &m.splits[i]
		sp := b[s.axis]
		if sp.Len() == 0 {
			continue
		}
		if sp.Lo/s.groupLen != (sp.Hi-1)/s.groupLen {
			return nil, false
		}
		lo := s.position(sp.Lo)
		ext[s.axis] = Extent{lo, lo + sp.Len(), lo + sp.Len()}
	}
	return ext, true
}

// CheckCovers checks that the shard on tile holds every element of b: the
// shard-view containment rule for an op that reads b on that tile. Its
// error is CheckView's (the reference log's message with the layout, shard
// and view extents).
func (m *ShardMap) CheckCovers(tile int64, b Box) error {
	if b.Elements() == 0 {
		if _, ok := m.shardOnTile(tile); !ok {
			return layoutErr("tile %d holds no shard of the layout (tile_count %d)", tile, m.Layout.Tiling.TileCount)
		}
		return nil
	}
	view, ok := m.ViewOf(b)
	if !ok {
		return layoutErr("the elements %s read on tile %d span two padding groups, so no shard holds them", b, tile)
	}
	return m.CheckView(tile, view)
}

// String writes b as [lo, hi) per axis.
func (b Box) String() string {
	out := "["
	for i, s := range b {
		if i > 0 {
			out += ", "
		}
		out += "[" + strconv.FormatInt(s.Lo, 10) + ", " + strconv.FormatInt(s.Hi, 10) + ")"
	}
	return out + "]"
}

// partitionsOverlapping returns the partitions of split s whose data
// meets sp, as the half-open range [first, last) of partition indices
// (partitions are in index order, so they form one range).
func (s *axisSplit) partitionsOverlapping(sp Span) (int64, int64) {
	n := s.tiling.Partitions
	if sp.Len() == 0 {
		return 0, 0
	}
	// Binary search for the first partition whose data ends after sp.Lo
	// (empty partitions, which lie in padding, end where they start).
	lo, hi := int64(0), n
	for lo < hi {
		mid := (lo + hi) / 2
		if s.span(mid).Hi <= sp.Lo {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	first := lo
	lo, hi = first, n
	for lo < hi {
		mid := (lo + hi) / 2
		if s.span(mid).Lo < sp.Hi {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return first, lo
}

// Partitions is how many partitions cut the tensor's axis (counted from
// the front): 1 for an axis the layout does not cut.
func (m *ShardMap) Partitions(axis int) int64 {
	for k := range m.splits {
		if s := &m.splits[k]; s.axis == axis && s.tiling.Partitions > 1 {
			return s.tiling.Partitions
		}
	}
	return 1
}

// PartitionSpan is partition p's data along a cut axis in index space; the
// whole axis for an axis the layout does not cut.
func (m *ShardMap) PartitionSpan(axis int, p int64) Span {
	for k := range m.splits {
		if s := &m.splits[k]; s.axis == axis && s.tiling.Partitions > 1 {
			return s.span(p)
		}
	}
	return Span{0, m.Shape[axis]}
}
