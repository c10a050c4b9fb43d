package layout

import (
	"slices"

	"github.com/ipuir/ipuir/numeric"
)

// OrderKind says how the elements of each shard are arranged in tile memory.
type OrderKind uint8

const (
	// RowMajor: the shard is stored row major.
	RowMajor OrderKind = iota + 1
	// BlockMajor: the shard is stored as consecutive transposed-matrix
	// blocks of RowBlock × ColumnBlock elements. A block's rows run along the
	// tensor's last axis and its columns along the second-to-last, so a
	// result computed in swapped orientation is stored without a transpose.
	BlockMajor
	// AmpLeft: the order the AMP unit streams its left operand in (rows).
	AmpLeft
	// AmpRight: the order the AMP unit loads its right operand (weight
	// blocks) in.
	AmpRight
)

// Order is a layout's element order within each shard.
type Order struct {
	Kind OrderKind
	// RowBlock and ColumnBlock are the transposed-matrix block of BlockMajor;
	// zero for the other kinds.
	RowBlock, ColumnBlock int64
}

// Padding says what padding positions of a shard hold.
type Padding uint8

const (
	// PaddingZero: padding holds zeros, so a reduction over a padded axis
	// (the inner axis of a matmul) is unaffected.
	PaddingZero Padding = iota + 1
	// PaddingUndefined: padding holds whatever was there; cheaper, valid only
	// where no one reads it as data.
	PaddingUndefined
)

// AxisTiling describes how one axis is cut into partitions.
type AxisTiling struct {
	// FromEnd counts axes from the end: 1 is the last axis, 2 the one
	// before it (the reference log's FromEnd(n)). Written as -n.
	FromEnd int
	// Partitions is how many shards the axis is cut into.
	Partitions int64
	// PaddingGroups splits the axis into equal groups padded separately
	// (heads of an attention projection, say); Partitions is a multiple of it.
	PaddingGroups int64
	// BlockSize is the unit of distribution: partitions get whole blocks.
	BlockSize int64
	// PaddingMultiple is what each padding group's length is rounded up to;
	// a multiple of BlockSize.
	PaddingMultiple int64
	// ShardPaddingMultiple is what each shard's physical size is rounded up
	// to, so that a kernel reading whole groups (6 AMP rows, 16 inner
	// elements) stays inside the shard.
	ShardPaddingMultiple int64
	Padding              Padding
	// TileStride is the tile distance between consecutive partitions of this
	// axis; 0 means derived: the span of the axes listed before it.
	TileStride int64
}

// Tiling says how a tensor is spread over tiles.
type Tiling struct {
	// TileCount is the number of tiles the tensor is spread over; every
	// shard's tile is below it.
	TileCount int64
	// Replicas is how many full copies of the tensor are stored.
	Replicas int64
	// ReplicaStride is the tile distance between copies; 0 means derived:
	// the span of all partitioned axes. (Not in the reference log's
	// TensorTiling; it lets both operands of a 3-D matmul grid be described,
	// one of which is replicated along an inner grid dimension.)
	ReplicaStride int64
	// TileOffset is added to every shard's tile: a layout of a slice of a
	// tensor (one of the matmuls of a jointly planned wider one) keeps its
	// shards on the tiles of the whole. 0 by default.
	TileOffset int64
	// Axes lists the partitioned axes; axes not listed are whole in every
	// shard. Tile strides derive in this order.
	Axes []AxisTiling
}

// Layout is a tensor's distribution: order, tiling and memory class.
type Layout struct {
	Order  Order
	Tiling Tiling
	// MemoryClass names a class of the target (e.g. "Ipu21Standard").
	MemoryClass string
}

// Default field values; the tiled dialect's printer elides them.
const (
	DefaultPaddingGroups        = 1
	DefaultBlockSize            = 1
	DefaultPaddingMultiple      = 1
	DefaultShardPaddingMultiple = 1
	DefaultReplicas             = 1
)

// NewAxis returns an axis tiling with every optional field at its default.
func NewAxis(fromEnd int, partitions int64) AxisTiling {
	return AxisTiling{
		FromEnd:              fromEnd,
		Partitions:           partitions,
		PaddingGroups:        DefaultPaddingGroups,
		BlockSize:            DefaultBlockSize,
		PaddingMultiple:      DefaultPaddingMultiple,
		ShardPaddingMultiple: DefaultShardPaddingMultiple,
		Padding:              PaddingZero,
	}
}

// Equal reports whether two layouts are the same in every field.
func (l *Layout) Equal(o *Layout) bool {
	return l.Order == o.Order && l.MemoryClass == o.MemoryClass && l.Tiling.TileCount == o.Tiling.TileCount &&
		l.Tiling.Replicas == o.Tiling.Replicas && l.Tiling.ReplicaStride == o.Tiling.ReplicaStride &&
		l.Tiling.TileOffset == o.Tiling.TileOffset &&
		slices.Equal(l.Tiling.Axes, o.Tiling.Axes)
}

// SameDistribution reports whether two layouts put the same elements on the
// same tiles: equal tilings apart from each shard's own storage (order,
// shard padding, padding kind, memory class) and the tile count, which only
// bounds where shards may go. Converting between two such layouts is a
// local copy on each tile, never an exchange. Axes are matched by position
// in the tensor, not by their place in the list; an axis cut into one
// partition is the same as one not listed; strides are compared as
// resolved, and the replica stride only when there are replicas.
func (l *Layout) SameDistribution(o *Layout) bool {
	a, b := &l.Tiling, &o.Tiling
	if a.Replicas != b.Replicas || a.TileOffset != b.TileOffset {
		return false
	}
	sa, ra := a.resolvedStrides()
	sb, rb := b.resolvedStrides()
	if a.Replicas > 1 && ra != rb {
		return false
	}
	cut := func(t *Tiling, strides []int64) map[int]AxisTiling {
		m := map[int]AxisTiling{}
		for i, x := range t.Axes {
			if x.Partitions > 1 {
				x.TileStride = strides[i]
				x.ShardPaddingMultiple, x.Padding = 0, 0
				m[x.FromEnd] = x
			}
		}
		return m
	}
	ca, cb := cut(a, sa), cut(b, sb)
	if len(ca) != len(cb) {
		return false
	}
	for k, x := range ca {
		if y, ok := cb[k]; !ok || x != y {
			return false
		}
	}
	return true
}

// Axis returns the tiling of the axis fromEnd places from the end, if that
// axis is partitioned.
func (t *Tiling) Axis(fromEnd int) (AxisTiling, bool) {
	for _, a := range t.Axes {
		if a.FromEnd == fromEnd {
			return a, true
		}
	}
	return AxisTiling{}, false
}

// ShardsPerReplica is the product of the partitions of every listed axis.
// It saturates rather than overflowing (the verifier rejects such counts).
func (t *Tiling) ShardsPerReplica() int64 {
	n := int64(1)
	for _, a := range t.Axes {
		n = satMul(n, a.Partitions)
	}
	return n
}

// resolvedStrides returns each axis's tile stride with derived strides
// filled in, and the replica stride. A derived stride is the span of the
// axes before it: one more than the largest tile offset they reach.
func (t *Tiling) resolvedStrides() ([]int64, int64) {
	strides := make([]int64, len(t.Axes))
	span := int64(1)
	for i, a := range t.Axes {
		s := a.TileStride
		if s == 0 {
			s = span
		}
		strides[i] = s
		span = satAdd(span, satMul(a.Partitions-1, s))
	}
	replica := t.ReplicaStride
	if replica == 0 {
		replica = span
	}
	return strides, replica
}

// satMul and satAdd are numeric's saturating count arithmetic, so that
// limits checks on fuzzed or hostile layouts stay meaningful.
const saturated = numeric.Saturated

func satMul(a, b int64) int64 { return numeric.SatMul(a, b) }
func satAdd(a, b int64) int64 { return numeric.SatAdd(a, b) }
