package layout

import (
	"github.com/ipuir/ipuir/numeric"
	"github.com/ipuir/ipuir/target"
)

// DefaultLayout is the layout of a tensor no plan asks anything of
// (elementwise intermediates, reshaped and transposed values, host inputs):
// row major in the standard class, spread over as many tiles as its shape
// allows by cutting axes front to back, each into as many partitions as its
// size and the tiles left allow. A 729×1152 tensor on 1,472 tiles is cut
// 729 × 2; a 16×729×72 one 16 × 92. Spreading a tensor thin keeps every
// tile's share of an exchange into or out of it small.
func DefaultLayout(shape []int64, t *target.Target) (Layout, error) {
	return defaultLayoutOn(shape, t, int64(t.Tiles))
}

// StoredPieceBytes is the smallest piece of a tensor that a storage
// layout (StoredOnce, StorageLayout) puts on a tile of its own, where the
// tensor is large enough to leave a choice. Every piece an exchange moves
// takes a table entry on its sender and on each receiver for the whole
// program (target.CodeModel.TableEntryBytes), so a vector spread one
// element a tile costs each tile that reads it whole an entry per
// element; pieces of a kibibyte or more keep the tables a small fraction
// of the data, while a tensor of tens of kibibytes and up is still spread
// over tens of tiles.
const StoredPieceBytes = 1024

// StorageLayout is the layout of a tensor stored once and only read by
// exchanges into other layouts (a model's parameters between uses): the
// default layout, spread over no more tiles than leave each shard
// StoredPieceBytes.
func StorageLayout(shape []int64, elemBytes int64, t *target.Target) (Layout, error) {
	n := int64(1)
	for _, d := range shape {
		n = satMul(n, d)
	}
	return defaultLayoutOn(shape, t, min(int64(t.Tiles), max(1, satMul(n, elemBytes)/StoredPieceBytes)))
}

// defaultLayoutOn is DefaultLayout on the first tiles of t.
func defaultLayoutOn(shape []int64, t *target.Target, tiles int64) (Layout, error) {
	standard, err := t.Class(target.Standard)
	if err != nil {
		return Layout{}, err
	}
	l := Layout{Order: Order{Kind: RowMajor}, MemoryClass: standard.Name, Tiling: Tiling{TileCount: 1, Replicas: 1}}
	for axis, p := range defaultPartitions(shape, tiles) {
		if p <= 1 {
			continue
		}
		l.Tiling.Axes = append(l.Tiling.Axes, NewAxis(len(shape)-axis, p))
		l.Tiling.TileCount *= p
	}
	return l, nil
}

// defaultPartitions is DefaultLayout's cut of each axis.
func defaultPartitions(shape []int64, tiles int64) []int64 {
	parts := make([]int64, len(shape))
	remaining := tiles
	for axis, n := range shape {
		parts[axis] = max(1, min(n, remaining))
		remaining /= parts[axis]
	}
	return parts
}

// EvenLayout is DefaultLayout with every axis cut into a number of
// partitions that divides it: front to back, each axis into its largest
// divisor the tiles left allow. Every shard then holds the same whole
// rows, so a reshape that regroups the axes reinterprets it where the
// default's uneven cut (112 rows over 13 tiles, say) cannot.
func EvenLayout(shape []int64, t *target.Target) (Layout, error) {
	l, err := defaultLayoutOn(nil, t, 1)
	if err != nil {
		return Layout{}, err
	}
	remaining := int64(t.Tiles)
	for axis, n := range shape {
		p := largestDivisorAtMost(n, remaining)
		if p <= 1 {
			continue
		}
		remaining /= p
		l.Tiling.Axes = append(l.Tiling.Axes, NewAxis(len(shape)-axis, p))
		l.Tiling.TileCount *= p
	}
	return l, nil
}

// largestDivisorAtMost is the largest divisor of n no greater than limit
// (1 when n < 1). It tries the divisors up to √n and their cofactors, so
// its work is bounded by √n, never by n.
func largestDivisorAtMost(n, limit int64) int64 {
	if n < 1 || limit < 1 {
		return 1
	}
	if n <= limit {
		return n
	}
	best := int64(1)
	for d := int64(1); d*d <= n; d++ {
		if n%d != 0 {
			continue
		}
		if d <= limit {
			best = max(best, d)
		}
		if c := n / d; c <= limit {
			best = max(best, c)
		}
	}
	return best
}

// DefaultShardDims are the extents of the largest shard of
// DefaultLayout(shape) on a target of the given tiles, axis by axis,
// without building it (the planner prices temporal plans' steps with it).
func DefaultShardDims(shape []int64, tiles int64) []int64 {
	dims := make([]int64, len(shape))
	for axis, p := range defaultPartitions(shape, tiles) {
		dims[axis] = numeric.CeilDiv(shape[axis], p)
	}
	return dims
}

// DefaultShardElements is the element count of the largest shard of
// DefaultLayout(shape) on a target of the given tiles (the planner sizes
// temporal plans' operands with it).
func DefaultShardElements(shape []int64, tiles int64) int64 {
	n := int64(1)
	for _, d := range DefaultShardDims(shape, tiles) {
		n = satMul(n, d)
	}
	return n
}
