package layout

import (
	"fmt"
	"strconv"
)

// String is the layout in the syntax of the tiled dialect's #tiled.layout
// attribute, without `#tiled.layout<` and `>`; fields at their default
// are left out.
func (l *Layout) String() string {
	w := &FieldWriter{}
	w.Raw("order", l.Order.String())
	w.Int("tile_count", l.Tiling.TileCount)
	if l.Tiling.Replicas != DefaultReplicas {
		w.Int("replicas", l.Tiling.Replicas)
	}
	if l.Tiling.ReplicaStride != 0 {
		w.Int("replica_stride", l.Tiling.ReplicaStride)
	}
	if l.Tiling.TileOffset != 0 {
		w.Int("tile_offset", l.Tiling.TileOffset)
	}
	axes := []byte{'['}
	for i, ax := range l.Tiling.Axes {
		if i > 0 {
			axes = append(axes, ", "...)
		}
		axes = append(append(append(axes, '{'), ax.String()...), '}')
	}
	w.Raw("axes", string(append(axes, ']')))
	w.Raw("memory_class", l.MemoryClass)
	return w.String()
}

// String writes the order as the layout syntax does.
func (o Order) String() string {
	switch o.Kind {
	case RowMajor:
		return "row_major"
	case BlockMajor:
		return fmt.Sprintf("block_major<row_block = %d, column_block = %d>", o.RowBlock, o.ColumnBlock)
	case AmpLeft:
		return "amp<left>"
	case AmpRight:
		return "amp<right>"
	}
	return "invalid"
}

// String writes the axis record's fields (without braces).
func (a AxisTiling) String() string {
	w := &FieldWriter{}
	w.Raw("axis", "-"+strconv.Itoa(a.FromEnd))
	w.Int("partitions", a.Partitions)
	if a.PaddingGroups != DefaultPaddingGroups {
		w.Int("padding_groups", a.PaddingGroups)
	}
	if a.BlockSize != DefaultBlockSize {
		w.Int("block_size", a.BlockSize)
	}
	if a.PaddingMultiple != DefaultPaddingMultiple {
		w.Int("padding_multiple", a.PaddingMultiple)
	}
	if a.ShardPaddingMultiple != DefaultShardPaddingMultiple {
		w.Int("shard_padding_multiple", a.ShardPaddingMultiple)
	}
	if a.Padding == PaddingUndefined {
		w.Raw("padding", "undefined")
	}
	if a.TileStride != 0 {
		w.Int("tile_stride", a.TileStride)
	}
	return w.String()
}

// FieldWriter joins `name = value` pairs with commas, as the tiled
// dialect's attribute syntax writes records.
type FieldWriter struct{ buf []byte }

func (w *FieldWriter) Raw(name, value string) {
	if len(w.buf) > 0 {
		w.buf = append(w.buf, ", "...)
	}
	w.buf = append(w.buf, name...)
	w.buf = append(w.buf, " = "...)
	w.buf = append(w.buf, value...)
}

func (w *FieldWriter) Int(name string, v int64) { w.Raw(name, strconv.FormatInt(v, 10)) }

func (w *FieldWriter) String() string { return string(w.buf) }
