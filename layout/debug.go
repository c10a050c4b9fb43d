package layout

import (
	"strconv"
	"strings"
)

// DebugString renders the layout exactly as the reference compile log does
// (`Layout { order: BlockMajor(TransposedMatrix { row_block: 384, ... }),
// tiling: TensorTiling { ... }, memory_class: Ipu21Standard }`), so that
// verifier messages and planner log lines read like the ones users know.
// replica_stride and tile_offset, which the log's structure lacks, appear
// only when set.
func (l *Layout) DebugString() string {
	var b strings.Builder
	b.WriteString("Layout { order: ")
	b.WriteString(l.Order.debugString())
	t := &l.Tiling
	b.WriteString(", tiling: TensorTiling { tile_count: ")
	b.WriteString(strconv.FormatInt(t.TileCount, 10))
	b.WriteString(", replicas: ")
	b.WriteString(strconv.FormatInt(t.Replicas, 10))
	if t.ReplicaStride != 0 {
		b.WriteString(", replica_stride: Some(")
		b.WriteString(strconv.FormatInt(t.ReplicaStride, 10))
		b.WriteString(")")
	}
	if t.TileOffset != 0 {
		b.WriteString(", tile_offset: ")
		b.WriteString(strconv.FormatInt(t.TileOffset, 10))
	}
	b.WriteString(", axes: [")
	for i, a := range t.Axes {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("AxisTiling { axis: FromEnd(")
		b.WriteString(strconv.Itoa(a.FromEnd))
		for _, f := range []struct {
			name string
			v    int64
		}{{"partitions", a.Partitions}, {"padding_groups", a.PaddingGroups}, {"block_size", a.BlockSize},
			{"padding_multiple", a.PaddingMultiple}, {"shard_padding_multiple", a.ShardPaddingMultiple}} {
			if f.name == "partitions" {
				b.WriteString("), ")
			} else {
				b.WriteString(", ")
			}
			b.WriteString(f.name)
			b.WriteString(": ")
			b.WriteString(strconv.FormatInt(f.v, 10))
		}
		b.WriteString(", padding: ")
		b.WriteString(a.Padding.debugString())
		b.WriteString(", tile_stride: ")
		if a.TileStride == 0 {
			b.WriteString("None")
		} else {
			b.WriteString("Some(")
			b.WriteString(strconv.FormatInt(a.TileStride, 10))
			b.WriteString(")")
		}
		b.WriteString(" }")
	}
	b.WriteString("] }, memory_class: ")
	b.WriteString(l.MemoryClass)
	b.WriteString(" }")
	return b.String()
}

func (o Order) debugString() string {
	switch o.Kind {
	case RowMajor:
		return "RowMajor"
	case BlockMajor:
		return "BlockMajor(TransposedMatrix { row_block: " + strconv.FormatInt(o.RowBlock, 10) +
			", column_block: " + strconv.FormatInt(o.ColumnBlock, 10) + " })"
	case AmpLeft:
		return "Amp(Left)"
	case AmpRight:
		return "Amp(Right)"
	}
	return "Invalid"
}

func (p Padding) debugString() string {
	switch p {
	case PaddingZero:
		return "Zero"
	case PaddingUndefined:
		return "Undefined"
	}
	return "Invalid"
}

// DebugExtents renders extents as the log does:
// `[ShardExtent { axis: 0, start: 0, logical_end: 1, physical_end: 1 }, ...]`.
func DebugExtents(ext []Extent) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, e := range ext {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("ShardExtent { axis: ")
		b.WriteString(strconv.Itoa(i))
		b.WriteString(", start: ")
		b.WriteString(strconv.FormatInt(e.Start, 10))
		b.WriteString(", logical_end: ")
		b.WriteString(strconv.FormatInt(e.LogicalEnd, 10))
		b.WriteString(", physical_end: ")
		b.WriteString(strconv.FormatInt(e.PhysicalEnd, 10))
		b.WriteString(" }")
	}
	b.WriteByte(']')
	return b.String()
}
