package layout

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/numeric"
	"github.com/ipuir/ipuir/target"
)

// This file is the one place that turns a layout and a tensor shape into
// shards: which elements each tile holds, with what padding, on which tile.
//
// The rule, per partitioned axis of length L (derived from the reference
// log's three "tensor view falls outside its storage shard" records, whose
// shards it reproduces exactly; see shard_test.go):
//
//  1. The axis is cut into G = padding_groups equal groups of Lg = L/G
//     elements. Each group is padded to Pg = ⌈Lg/padding_multiple⌉ ·
//     padding_multiple positions; group g occupies positions
//     [g·Pg, (g+1)·Pg) of the padded axis, and its data the first Lg of
//     them. With one group, positions are simply indices, and positions at
//     or past L are padding.
//  2. Each group holds Bg = Pg/block_size blocks and gets P/G of the axis's
//     P partitions. Blocks are dealt out as evenly as possible, the first
//     ones getting one more: with q, r = Bg div (P/G), Bg mod (P/G),
//     partition j of the group holds q+1 blocks if j < r, else q, starting
//     at block j·q + min(j, r).
//  3. A shard's extent on the axis is then [start, logical_end,
//     physical_end): start is its first position; logical_end is where its
//     data ends (min of its block end and the group's data end, never below
//     start); physical_end is start plus its block length rounded up to
//     shard_padding_multiple. So a shard's storage may run past the next
//     shard's start: that is padding private to its tile.
//
// For example 729 rows in 46 partitions with block size and padding multiple
// 16: Pg = 736, 46 blocks, one each; partition 45 is [720, 729, 736). And 729
// rows in 10 partitions of blocks of 2: Pg = 730, 365 blocks, q = 36, r = 5;
// partition 9 starts at block 9·36 + 5 = 329, position 658, and is
// [658, 729, 730).
//
// Axes that are not partitioned are whole in every shard: [0, L, L).
//
// Tiles: a shard's partition index i_a along each listed axis a, and its
// replica ρ, place it on tile tile_offset + Σ i_a·stride_a + ρ·replica_stride, where a
// derived stride is the span of the axes listed before it, and the derived
// replica stride the span of all of them. Every tile must be below the tile
// count and no two shards may share a tile.

// Extent is one axis of a shard or view: positions [Start, PhysicalEnd) are
// stored, of which [Start, LogicalEnd) hold data. The reference log calls
// it ShardExtent.
type Extent struct {
	Start, LogicalEnd, PhysicalEnd int64
}

// PhysicalSize is the number of stored positions.
func (e Extent) PhysicalSize() int64 { return e.PhysicalEnd - e.Start }

// LogicalSize is the number of positions holding data.
func (e Extent) LogicalSize() int64 { return e.LogicalEnd - e.Start }

// Contains reports whether view v lies inside storage shard e: it starts no
// earlier, its data ends no later than the shard's data, and its storage
// ends no later than the shard's storage.
func (e Extent) Contains(v Extent) bool {
	return v.Start >= e.Start && v.LogicalEnd <= e.LogicalEnd && v.PhysicalEnd <= e.PhysicalEnd
}

// WellFormed reports whether start ≤ logical_end ≤ physical_end.
func (e Extent) WellFormed() bool {
	return 0 <= e.Start && e.Start <= e.LogicalEnd && e.LogicalEnd <= e.PhysicalEnd
}

// maxTilesWithoutTarget bounds a layout's tile count when no target is
// known, so that verifying a hostile layout cannot allocate without limit.
// Every target we describe has far fewer tiles.
const maxTilesWithoutTarget = 1 << 16

// maxExtent bounds axis sizes, blocks and padding multiples so that shard
// arithmetic on them cannot overflow int64 (2^40 elements is far beyond any
// tile's memory).
const maxExtent = 1 << 40

// axisSplit is the arithmetic of one partitioned axis, computed once.
type axisSplit struct {
	tiling          AxisTiling
	axis            int   // the tensor axis, counted from the front
	length          int64 // L
	groupLen        int64 // Lg
	paddedGroupLen  int64 // Pg
	partsPerGroup   int64 // P/G
	blocksPerGroup  int64 // Bg
	quotient, extra int64 // q, r
}

// LayoutError is a layout that is not well formed for its tensor (or
// target). Its text names the axis and the field at fault.
type LayoutError struct{ Msg string }

func (e *LayoutError) Error() string { return e.Msg }

func layoutErr(format string, args ...any) *LayoutError {
	return &LayoutError{Msg: fmt.Sprintf(format, args...)}
}

// AxisName writes an axis as layouts do: -1 is the last.
func AxisName(fromEnd int) string { return "-" + strconv.Itoa(fromEnd) }

func newAxisSplit(shape []int64, a AxisTiling) (axisSplit, error) {
	rank := len(shape)
	if a.FromEnd < 1 || a.FromEnd > rank {
		return axisSplit{}, layoutErr("axis %s does not exist in a rank-%d tensor", AxisName(a.FromEnd), rank)
	}
	axis := rank - a.FromEnd
	n := shape[axis]
	name := AxisName(a.FromEnd)
	switch {
	case n < 0:
		return axisSplit{}, layoutErr("axis %s has a dynamic size; only static shapes can be tiled", name)
	case n > maxExtent || a.BlockSize > maxExtent || a.PaddingMultiple > maxExtent || a.ShardPaddingMultiple > maxExtent:
		return axisSplit{}, layoutErr("axis %s: sizes, blocks and padding multiples above %d are not supported", name, int64(maxExtent))
	case a.Partitions < 1:
		return axisSplit{}, layoutErr("axis %s: partitions must be at least 1, got %d", name, a.Partitions)
	case a.PaddingGroups < 1:
		return axisSplit{}, layoutErr("axis %s: padding_groups must be at least 1, got %d", name, a.PaddingGroups)
	case a.BlockSize < 1:
		return axisSplit{}, layoutErr("axis %s: block_size must be at least 1, got %d", name, a.BlockSize)
	case a.PaddingMultiple < 1:
		return axisSplit{}, layoutErr("axis %s: padding_multiple must be at least 1, got %d", name, a.PaddingMultiple)
	case a.ShardPaddingMultiple < 1:
		return axisSplit{}, layoutErr("axis %s: shard_padding_multiple must be at least 1, got %d", name, a.ShardPaddingMultiple)
	case a.TileStride < 0:
		return axisSplit{}, layoutErr("axis %s: tile_stride must be positive, got %d", name, a.TileStride)
	case a.Padding != PaddingZero && a.Padding != PaddingUndefined:
		return axisSplit{}, layoutErr("axis %s: invalid padding kind", name)
	case a.PaddingMultiple%a.BlockSize != 0:
		return axisSplit{}, layoutErr("axis %s: padding_multiple %d is not a multiple of block_size %d, so padded groups would hold a partial block",
			name, a.PaddingMultiple, a.BlockSize)
	case a.Partitions%a.PaddingGroups != 0:
		return axisSplit{}, layoutErr("axis %s: %d partitions cannot be shared equally by %d padding groups", name, a.Partitions, a.PaddingGroups)
	case n%a.PaddingGroups != 0:
		return axisSplit{}, layoutErr("axis %s of size %d cannot be cut into %d equal padding groups", name, n, a.PaddingGroups)
	}
	s := axisSplit{tiling: a, axis: axis, length: n, groupLen: n / a.PaddingGroups, partsPerGroup: a.Partitions / a.PaddingGroups}
	s.paddedGroupLen = numeric.CeilDiv(s.groupLen, a.PaddingMultiple) * a.PaddingMultiple
	s.blocksPerGroup = s.paddedGroupLen / a.BlockSize
	if s.partsPerGroup > s.blocksPerGroup {
		return axisSplit{}, layoutErr("axis %s: %d partitions per padding group but the group of %d elements has only %d blocks of %d, so some shards would be empty",
			name, s.partsPerGroup, s.groupLen, s.blocksPerGroup, a.BlockSize)
	}
	s.quotient, s.extra = s.blocksPerGroup/s.partsPerGroup, s.blocksPerGroup%s.partsPerGroup
	return s, nil
}

// extent returns partition p's extent (0 ≤ p < partitions).
func (s *axisSplit) extent(p int64) Extent {
	g, j := p/s.partsPerGroup, p%s.partsPerGroup
	firstBlock := j*s.quotient + min(j, s.extra)
	blocks := s.quotient
	if j < s.extra {
		blocks++
	}
	localStart := firstBlock * s.tiling.BlockSize
	localEnd := localStart + blocks*s.tiling.BlockSize
	physical := numeric.CeilDiv(blocks*s.tiling.BlockSize, s.tiling.ShardPaddingMultiple) * s.tiling.ShardPaddingMultiple
	base := g * s.paddedGroupLen
	logical := min(localEnd, s.groupLen)
	if logical < localStart {
		logical = localStart
	}
	return Extent{Start: base + localStart, LogicalEnd: base + logical, PhysicalEnd: base + localStart + physical}
}

// assignedLen is the length of partition p's blocks before shard padding:
// the positions a kernel working on whole groups sees as its part.
func (s *axisSplit) assignedLen(p int64) int64 {
	j := p % s.partsPerGroup
	blocks := s.quotient
	if j < s.extra {
		blocks++
	}
	return blocks * s.tiling.BlockSize
}

// physicalSizes returns the distinct physical sizes of the axis's shards
// (one or two: q blocks and q+1 blocks), largest first.
func (s *axisSplit) physicalSizes() []int64 {
	round := func(blocks int64) int64 {
		spm := s.tiling.ShardPaddingMultiple
		return numeric.CeilDiv(blocks*s.tiling.BlockSize, spm) * spm
	}
	if s.extra > 0 {
		return []int64{round(s.quotient + 1), round(s.quotient)}
	}
	return []int64{round(s.quotient)}
}

// ShardMap is a layout applied to a tensor shape: the shard of every tile.
// NewShardMap checks that the layout is well formed for the shape; every
// method afterwards is plain arithmetic.
type ShardMap struct {
	Layout *Layout
	Shape  []int64

	splits        []axisSplit
	strides       []int64
	replicaStride int64
	// owner[t] is shard·replicas + replica for the shard on tile t, or -1.
	owner []int64
}

// NewShardMap checks l against shape (axes, sizes, blocks, padding, tile
// mapping) and returns its shard map. maxTiles bounds the tile count (the
// target's tile count; 0 for the bound used without a target).
func NewShardMap(l *Layout, shape []int64, maxTiles int64) (*ShardMap, error) {
	m, err := newUnplacedShardMap(l, shape, maxTiles)
	if err != nil {
		return nil, err
	}
	if err := m.placeShards(); err != nil {
		return nil, err
	}
	return m, nil
}

// newUnplacedShardMap is NewShardMap's checks and arithmetic without the
// per-tile table: its work is proportional to the tensor's rank.
func newUnplacedShardMap(l *Layout, shape []int64, maxTiles int64) (*ShardMap, error) {
	if maxTiles <= 0 {
		maxTiles = maxTilesWithoutTarget
	}
	if err := checkOrder(l.Order, len(shape)); err != nil {
		return nil, err
	}
	t := &l.Tiling
	switch {
	case l.MemoryClass == "":
		return nil, layoutErr("layout has no memory class")
	case t.TileCount < 1:
		return nil, layoutErr("tile_count must be at least 1, got %d", t.TileCount)
	case t.TileCount > maxTiles:
		return nil, layoutErr("tile_count %d exceeds the %d tiles available", t.TileCount, maxTiles)
	case t.Replicas < 1:
		return nil, layoutErr("replicas must be at least 1, got %d", t.Replicas)
	case t.ReplicaStride < 0:
		return nil, layoutErr("replica_stride must be positive, got %d", t.ReplicaStride)
	case t.TileOffset < 0 || t.TileOffset >= t.TileCount:
		return nil, layoutErr("tile_offset %d must lie below tile_count %d", t.TileOffset, t.TileCount)
	}
	m := &ShardMap{Layout: l, Shape: shape}
	seen := map[int]bool{}
	for _, a := range t.Axes {
		s, err := newAxisSplit(shape, a)
		if err != nil {
			return nil, err
		}
		if seen[a.FromEnd] {
			return nil, layoutErr("axis %s is tiled twice", AxisName(a.FromEnd))
		}
		seen[a.FromEnd] = true
		m.splits = append(m.splits, s)
	}
	if err := m.checkBlockOrder(); err != nil {
		return nil, err
	}
	shards := t.ShardsPerReplica()
	if need := satMul(shards, t.Replicas); need > t.TileCount {
		return nil, layoutErr("%d shards × %d replicas need %d tiles but tile_count is %d", shards, t.Replicas, need, t.TileCount)
	}
	m.strides, m.replicaStride = t.resolvedStrides()
	return m, nil
}

// TileShard is the shard (its linear index, one replica's worth) that a
// tile holds.
type TileShard struct{ Tile, Shard int64 }

// PlacedShards checks l against shape as NewShardMap does and returns the
// tiles that hold a shard, in increasing order, with the shard each holds.
// Unlike NewShardMap, its work and memory are proportional to the shards
// it places, which must be at most limit (checked before any is placed),
// not to the tile count: a package reader derives a buffer's pieces from
// an untrusted layout with it, bounded by the bytes that describe them.
// The map it returns answers BoxOf, not the per-tile queries.
func PlacedShards(l *Layout, shape []int64, maxTiles, limit int64) (*ShardMap, []TileShard, error) {
	m, err := newUnplacedShardMap(l, shape, maxTiles)
	if err != nil {
		return nil, nil, err
	}
	t := &l.Tiling
	shards := t.ShardsPerReplica()
	if n := satMul(shards, t.Replicas); n > limit {
		return nil, nil, layoutErr("%d shards × %d replicas are more than the %d this layout may place", shards, t.Replicas, limit)
	}
	out := make([]TileShard, 0, shards*t.Replicas)
	coords := make([]int64, len(m.splits))
	for shard := int64(0); shard < shards; shard++ {
		m.coordsOf(shard, coords)
		for r := int64(0); r < t.Replicas; r++ {
			tile := m.tileOf(coords, r)
			if tile >= t.TileCount {
				return nil, nil, layoutErr("shard %v (replica %d) maps to tile %d, beyond tile_count %d", coords, r, tile, t.TileCount)
			}
			out = append(out, TileShard{tile, shard})
		}
	}
	byTile := func(a, b TileShard) int { return cmp.Compare(a.Tile, b.Tile) }
	if !slices.IsSortedFunc(out, byTile) {
		slices.SortStableFunc(out, byTile)
	}
	for i := 1; i < len(out); i++ {
		if out[i].Tile == out[i-1].Tile {
			a, b := make([]int64, len(coords)), make([]int64, len(coords))
			m.coordsOf(out[i-1].Shard, a)
			m.coordsOf(out[i].Shard, b)
			return nil, nil, layoutErr("shards %v and %v both map to tile %d", a, b, out[i].Tile)
		}
	}
	return m, out, nil
}

// BoxOf fills b, one span per tensor axis, with the data of the shard
// with the given linear index, without allocating.
func (m *ShardMap) BoxOf(shard int64, b Box) {
	for i, n := range m.Shape {
		b[i] = Span{0, n}
	}
	for i := range m.splits {
		s := &m.splits[i]
		b[s.axis] = s.span(shard % s.tiling.Partitions)
		shard /= s.tiling.Partitions
	}
}

func checkOrder(o Order, rank int) error {
	switch o.Kind {
	case RowMajor:
		if o.RowBlock != 0 || o.ColumnBlock != 0 {
			return layoutErr("row-major order takes no blocks")
		}
	case BlockMajor:
		if o.RowBlock < 1 || o.ColumnBlock < 1 {
			return layoutErr("block-major order needs positive row_block and column_block, got %d and %d", o.RowBlock, o.ColumnBlock)
		}
		if rank < 2 {
			return layoutErr("block-major order needs a tensor of rank 2 or more, got rank %d", rank)
		}
	case AmpLeft, AmpRight:
		if rank < 2 {
			return layoutErr("AMP operand order needs a tensor of rank 2 or more, got rank %d", rank)
		}
	default:
		return layoutErr("layout has no order")
	}
	return nil
}

// checkBlockOrder checks that block-major blocks tile every shard: each
// shard's physical size along the last axis is a multiple of row_block and
// along the second-to-last a multiple of column_block.
func (m *ShardMap) checkBlockOrder() error {
	o := m.Layout.Order
	if o.Kind != BlockMajor {
		return nil
	}
	for _, c := range []struct {
		fromEnd int
		block   int64
		field   string
	}{{1, o.RowBlock, "row_block"}, {2, o.ColumnBlock, "column_block"}} {
		sizes := []int64{m.Shape[len(m.Shape)-c.fromEnd]}
		for i := range m.splits {
			if m.splits[i].tiling.FromEnd == c.fromEnd {
				sizes = m.splits[i].physicalSizes()
			}
		}
		for _, size := range sizes {
			if size%c.block != 0 {
				return layoutErr("block-major %s %d does not divide the physical shard size %d of axis %s",
					c.field, c.block, size, AxisName(c.fromEnd))
			}
		}
	}
	return nil
}

// placeShards computes every shard's tile and checks that tiles are below
// the tile count and distinct.
func (m *ShardMap) placeShards() error {
	t := &m.Layout.Tiling
	m.owner = make([]int64, t.TileCount)
	if m.placeShardsStepping() {
		return nil
	}
	for i := range m.owner {
		m.owner[i] = -1
	}
	coords := make([]int64, len(m.splits))
	shards := t.ShardsPerReplica()
	for shard := int64(0); shard < shards; shard++ {
		m.coordsOf(shard, coords)
		for r := int64(0); r < t.Replicas; r++ {
			tile := m.tileOf(coords, r)
			if tile >= t.TileCount {
				return layoutErr("shard %v (replica %d) maps to tile %d, beyond tile_count %d", coords, r, tile, t.TileCount)
			}
			if prev := m.owner[tile]; prev >= 0 {
				other := make([]int64, len(coords))
				m.coordsOf(prev/t.Replicas, other)
				return layoutErr("shards %v (replica %d) and %v (replica %d) both map to tile %d",
					other, prev%t.Replicas, coords, r, tile)
			}
			m.owner[tile] = shard*t.Replicas + r
		}
	}
	return nil
}

// placeShardsStepping is placeShards for the common layout, whose highest
// tile lies below the tile count (so no sum saturates): it steps the
// coordinates and the tile as an odometer instead of dividing and
// multiplying for every shard (the planner builds shard maps for every
// candidate plan it prices). It reports false, leaving placeShards to
// place and to name the fault, when the layout is not of that kind or two
// shards share a tile.
func (m *ShardMap) placeShardsStepping() bool {
	t := &m.Layout.Tiling
	highest := satAdd(t.TileOffset, satMul(t.Replicas-1, m.replicaStride))
	for i, s := range m.splits {
		highest = satAdd(highest, satMul(s.tiling.Partitions-1, m.strides[i]))
	}
	if highest >= t.TileCount {
		return false
	}
	for i := range m.owner {
		m.owner[i] = -1
	}
	var coordsBuf [8]int64
	coords := coordsBuf[:0]
	if len(m.splits) > len(coordsBuf) {
		coords = make([]int64, 0, len(m.splits))
	}
	coords = coords[:len(m.splits)]
	base := t.TileOffset
	for shard, shards := int64(0), t.ShardsPerReplica(); shard < shards; shard++ {
		tile := base
		for r := int64(0); r < t.Replicas; r++ {
			if m.owner[tile] >= 0 {
				return false
			}
			m.owner[tile] = shard*t.Replicas + r
			tile += m.replicaStride
		}
		for i := range coords { // the first listed axis varies fastest
			coords[i]++
			base += m.strides[i]
			if coords[i] < m.splits[i].tiling.Partitions {
				break
			}
			base -= coords[i] * m.strides[i]
			coords[i] = 0
		}
	}
	return true
}

// coordsOf fills coords with the per-axis partition indices of a linear
// shard index; the first listed axis varies fastest.
func (m *ShardMap) coordsOf(shard int64, coords []int64) {
	for i, s := range m.splits {
		coords[i] = shard % s.tiling.Partitions
		shard /= s.tiling.Partitions
	}
}

func (m *ShardMap) tileOf(coords []int64, replica int64) int64 {
	tile := satAdd(m.Layout.Tiling.TileOffset, satMul(replica, m.replicaStride))
	for i, c := range coords {
		tile = satAdd(tile, satMul(c, m.strides[i]))
	}
	return tile
}

// shardOnTile returns the linear index of the shard on tile, without
// allocating.
func (m *ShardMap) shardOnTile(tile int64) (int64, bool) {
	if tile < 0 || tile >= int64(len(m.owner)) || m.owner[tile] < 0 {
		return 0, false
	}
	return m.owner[tile] / m.Layout.Tiling.Replicas, true
}

// axisExtent returns the extent, along the axis fromEnd places from the end,
// of the shard with the given linear index, without allocating.
func (m *ShardMap) axisExtent(shard int64, fromEnd int) Extent {
	for i := range m.splits {
		s := &m.splits[i]
		if s.tiling.FromEnd == fromEnd {
			return s.extent(shard % s.tiling.Partitions)
		}
		shard /= s.tiling.Partitions
	}
	n := m.Shape[len(m.Shape)-fromEnd]
	return Extent{0, n, n}
}

// NumShards is the number of distinct shards (one replica's worth).
func (m *ShardMap) NumShards() int64 { return m.Layout.Tiling.ShardsPerReplica() }

// Shard is one tile's piece of a tensor.
type Shard struct {
	Tile    int64
	Replica int64
	// Coords are the partition indices along each listed tiling axis.
	Coords []int64
	// Extents has one entry per tensor axis, front to back.
	Extents []Extent
}

// OnTile returns the shard stored on tile, if any.
func (m *ShardMap) OnTile(tile int64) (Shard, bool) {
	if tile < 0 || tile >= int64(len(m.owner)) || m.owner[tile] < 0 {
		return Shard{}, false
	}
	reps := m.Layout.Tiling.Replicas
	coords := make([]int64, len(m.splits))
	m.coordsOf(m.owner[tile]/reps, coords)
	return Shard{Tile: tile, Replica: m.owner[tile] % reps, Coords: coords, Extents: m.Extents(coords)}, true
}

// Extents returns the extents of the shard at the given partition indices.
func (m *ShardMap) Extents(coords []int64) []Extent {
	ext := make([]Extent, len(m.Shape))
	for i, n := range m.Shape {
		ext[i] = Extent{0, n, n}
	}
	for i := range m.splits {
		s := &m.splits[i]
		ext[s.axis] = s.extent(coords[i])
	}
	return ext
}

// AccessView returns the region a kernel touches in the shard at coords
// when it works on whole groups: on each axis whose group is given (by
// FromEnd), from the shard's start to its assigned length rounded up to the
// group; other axes as the shard is. CheckView then tells whether the
// shard's padding covers it.
func (m *ShardMap) AccessView(coords []int64, groups map[int]int64) []Extent {
	ext := m.Extents(coords)
	for i := range m.splits {
		s := &m.splits[i]
		if g, ok := groups[s.tiling.FromEnd]; ok {
			e := &ext[s.axis]
			e.PhysicalEnd = e.Start + numeric.CeilDiv(s.assignedLen(coords[i]), g)*g
		}
	}
	return ext
}

// Tile returns the tile holding replica r of the shard at coords.
func (m *ShardMap) Tile(coords []int64, replica int64) int64 { return m.tileOf(coords, replica) }

// Tiles returns the tiles that hold a shard, in increasing order.
func (m *ShardMap) Tiles() []int64 {
	var out []int64
	for t, o := range m.owner {
		if o >= 0 {
			out = append(out, int64(t))
		}
	}
	return out
}

// MaxShardShape returns, per tensor axis, the largest physical size of any
// shard: the buffer every tile must reserve for this tensor.
func (m *ShardMap) MaxShardShape() []int64 {
	shape := append([]int64(nil), m.Shape...)
	for i := range m.splits {
		s := &m.splits[i]
		shape[s.axis] = s.physicalSizes()[0]
	}
	return shape
}

// MaxShardElements is the element count of MaxShardShape.
func (m *ShardMap) MaxShardElements() int64 {
	n := int64(1)
	for _, d := range m.MaxShardShape() {
		n = satMul(n, d)
	}
	return n
}

// MaxLogicalShardShape returns, per tensor axis, the largest number of data
// positions of any shard: what the busiest tile receives when the tensor is
// exchanged into this layout.
func (m *ShardMap) MaxLogicalShardShape() []int64 {
	shape := append([]int64(nil), m.Shape...)
	for i := range m.splits {
		s := &m.splits[i]
		largest := int64(0)
		for p := int64(0); p < s.partsPerGroup; p++ { // every group is cut alike
			largest = max(largest, s.extent(p).LogicalSize())
		}
		shape[s.axis] = largest
	}
	return shape
}

// Check checks that l is well formed for a tensor of the given shape and,
// when tg is not nil, fits the target: the tile count within the target's,
// the memory class one the target has, and the largest shard of elements
// of type et within that class's capacity on its tile.
func Check(l *Layout, shape []int64, et elem.Type, tg *target.Target) (*ShardMap, error) {
	maxTiles := int64(0)
	if tg != nil {
		maxTiles = int64(tg.Tiles)
	}
	m, err := NewShardMap(l, shape, maxTiles)
	if err != nil || tg == nil {
		return m, err
	}
	class, err := tg.ClassByName(l.MemoryClass)
	if err != nil {
		return nil, layoutErr("memory_class: %v", err)
	}
	bytes, err := tg.BytesFor(m.MaxShardElements(), et)
	if err != nil {
		return nil, err
	}
	if err := tg.Fits(map[target.MemoryKind]int64{class.Kind: bytes}); err != nil {
		return nil, layoutErr("the largest shard (%v of %v) does not fit its tile: %v", m.MaxShardShape(), et, err)
	}
	return m, nil
}
