package layout

import (
	"slices"

	"github.com/ipuir/ipuir/numeric"
)

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

// StepHome is the home of a weight of shape that a temporal plan reads a
// step at a time, each step's slice (stepShape: the inner axis shorter)
// in the layout step: the weight cut into the blocks the step layout's
// shards hold, along every axis, the inner one included, so that every
// shard a step needs is one block of the home, sent by one tile. Where
// that takes more than tiles tiles, the blocks of the axis with the most
// are merged, two by two and so on. A weight in the default layout (one
// row a tile) sent a step's tile one piece per row it needs: 64 entries
// in each of its exchange tables per step, which for ViT-B/16's MLPs in
// f32 grew to 200 KiB on one tile. ok is false when step does not fit
// stepShape or no cut fits tiles.
func StepHome(step *Layout, stepShape, shape []int64, tiles int64, class string) (Layout, bool) {
	if len(stepShape) != len(shape) {
		return Layout{}, false
	}
	if _, err := NewShardMap(step, stepShape, 0); err != nil {
		return Layout{}, false
	}
	blocks := slices.Clone(stepShape)
	for _, a := range step.Tiling.Axes {
		axis := len(stepShape) - a.FromEnd
		if axis < 0 || axis >= len(stepShape) || a.PaddingGroups != 1 || a.BlockSize < 1 {
			return Layout{}, false
		}
		perPart := numeric.CeilDiv(numeric.CeilDiv(stepShape[axis], a.BlockSize), a.Partitions) * a.BlockSize
		blocks[axis] = min(perPart, stepShape[axis])
	}
	parts := func() []int64 {
		p := make([]int64, len(shape))
		for i, n := range shape {
			p[i] = numeric.CeilDiv(n, max(blocks[i], 1))
		}
		return p
	}
	for {
		p := parts()
		total := int64(1)
		for _, x := range p {
			total = satMul(total, x)
		}
		if total <= tiles {
			break
		}
		widest := 0
		for i := range p {
			if p[i] > p[widest] {
				widest = i
			}
		}
		if p[widest] <= 1 {
			return Layout{}, false
		}
		blocks[widest] *= 2
	}
	out := Layout{Order: Order{Kind: RowMajor}, MemoryClass: class, Tiling: Tiling{TileCount: 1, Replicas: 1}}
	for i, p := range parts() {
		if p <= 1 {
			continue
		}
		a := NewAxis(len(shape)-i, p)
		a.BlockSize, a.PaddingMultiple = blocks[i], blocks[i]
		out.Tiling.Axes = append(out.Tiling.Axes, a)
		out.Tiling.TileCount *= p
	}
	return out, true
}
