package layout

// StoredOnce is a layout that stores a tensor once, for bringing it into
// l just before each use: l's shard boundaries on every axis, no
// replicas, row major in class, each of l's shards cut into up to
// l.Tiling.Replicas pieces (none under StoredPieceBytes, at elemBytes an
// element) along the axis where its shards hold the most blocks, the
// pieces on consecutive tiles from tile 0. It is the home of
// a weight that a matmul's plan reads replicated: the tiles of a replica
// group then receive their shard as a few whole pieces, each sent once to
// all of them, instead of as many pieces as the shard has rows of a
// layout cut another way (a relayout's exchange tables grow with its
// pieces, and a tile keeps its tables for the whole program). Shards of
// l that the cut leaves intact keep their extents, so a piece never
// straddles two of them; where the cut does not divide the blocks
// evenly, a piece may (at most one extra piece per shard). ok is false
// when l does not fit shape or the result needs more than tiles tiles.
func StoredOnce(l *Layout, shape []int64, elemBytes, tiles int64, class string) (Layout, bool) {
	m, err := NewShardMap(l, shape, 0)
	if err != nil {
		return Layout{}, false
	}
	out := Layout{Order: Order{Kind: RowMajor}, MemoryClass: class, Tiling: Tiling{Replicas: 1}}
	listed := map[int]bool{}
	for _, a := range l.Tiling.Axes {
		a.TileStride, a.ShardPaddingMultiple = 0, DefaultShardPaddingMultiple
		listed[a.FromEnd] = true
		out.Tiling.Axes = append(out.Tiling.Axes, a)
	}
	// Axes l keeps whole can take the cut too, one block per element.
	for fromEnd := 1; fromEnd <= len(shape); fromEnd++ {
		if !listed[fromEnd] {
			out.Tiling.Axes = append(out.Tiling.Axes, NewAxis(fromEnd, 1))
		}
	}
	shards := out.Tiling.ShardsPerReplica()
	spread := min(max(l.Tiling.Replicas, 1), max(tiles/max(shards, 1), 1),
		max(satMul(m.MaxShardElements(), elemBytes)/StoredPieceBytes, 1))
	best, bestBlocks := -1, int64(1)
	for i, a := range out.Tiling.Axes {
		s, err := newAxisSplit(shape, a)
		if err != nil {
			return Layout{}, false
		}
		if blocks := s.quotient; blocks > bestBlocks {
			best, bestBlocks = i, blocks
		}
	}
	if best >= 0 && spread > 1 {
		out.Tiling.Axes[best].Partitions *= min(spread, bestBlocks)
	}
	// Drop axes left whole, as layouts list only cut ones.
	kept := out.Tiling.Axes[:0]
	for _, a := range out.Tiling.Axes {
		if a.Partitions > 1 || listed[a.FromEnd] {
			kept = append(kept, a)
		}
	}
	out.Tiling.Axes = kept
	out.Tiling.TileCount = out.Tiling.ShardsPerReplica()
	if out.Tiling.TileCount > tiles {
		return Layout{}, false
	}
	if _, err := NewShardMap(&out, shape, tiles); err != nil {
		return Layout{}, false
	}
	return out, true
}
