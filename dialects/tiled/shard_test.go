package tiled

import (
	"errors"
	"testing"
)

// The reference compile log's three "tensor view falls outside its storage
// shard" records, as layouts, tiles and view extents. want is the log line's
// text from the message on, copied verbatim from the log: our error must
// reproduce it exactly, shard extents included, which is what pins the shard
// rule of shard.go.
type logRecord struct {
	name   string
	layout Layout
	shape  []int64
	// shard locates the record's shard: its partition indices in axis order.
	shard []int64
	view  []Extent
	want  string
}

func axis(fromEnd int, partitions, block int64) AxisTiling {
	a := NewAxis(fromEnd, partitions)
	a.BlockSize, a.PaddingMultiple = block, block
	return a
}

func logRecords() []logRecord {
	strided := axis(2, 46, 16)
	strided.TileStride = 1
	return []logRecord{
		{
			name: "block-major 46x3, 10 replicas",
			layout: Layout{
				Order:       Order{Kind: BlockMajor, RowBlock: 384, ColumnBlock: 16},
				Tiling:      Tiling{TileCount: 1380, Replicas: 10, Axes: []AxisTiling{strided, axis(1, 3, 384)}},
				MemoryClass: "Ipu21Standard",
			},
			shape: []int64{1, 729, 1152},
			shard: []int64{45, 0},
			view:  []Extent{{0, 1, 1}, {736, 736, 743}, {0, 16, 16}},
			want:  "tensor view falls outside its storage shard layout=Layout { order: BlockMajor(TransposedMatrix { row_block: 384, column_block: 16 }), tiling: TensorTiling { tile_count: 1380, replicas: 10, axes: [AxisTiling { axis: FromEnd(2), partitions: 46, padding_groups: 1, block_size: 16, padding_multiple: 16, shard_padding_multiple: 1, padding: Zero, tile_stride: Some(1) }, AxisTiling { axis: FromEnd(1), partitions: 3, padding_groups: 1, block_size: 384, padding_multiple: 384, shard_padding_multiple: 1, padding: Zero, tile_stride: None }] }, memory_class: Ipu21Standard } shard_extents=[ShardExtent { axis: 0, start: 0, logical_end: 1, physical_end: 1 }, ShardExtent { axis: 1, start: 720, logical_end: 729, physical_end: 736 }, ShardExtent { axis: 2, start: 0, logical_end: 384, physical_end: 384 }] view_extents=[ShardExtent { axis: 0, start: 0, logical_end: 1, physical_end: 1 }, ShardExtent { axis: 1, start: 736, logical_end: 736, physical_end: 743 }, ShardExtent { axis: 2, start: 0, logical_end: 16, physical_end: 16 }]",
		},
		{
			name: "AMP left 3x6, 80 replicas",
			layout: Layout{
				Order:       Order{Kind: AmpLeft},
				Tiling:      Tiling{TileCount: 1440, Replicas: 80, Axes: []AxisTiling{axis(1, 3, 384), axis(2, 6, 2)}},
				MemoryClass: "Ipu21Standard",
			},
			shape: []int64{1, 729, 1152},
			shard: []int64{0, 5},
			view:  []Extent{{0, 1, 1}, {722, 729, 731}, {0, 16, 16}},
			want:  "tensor view falls outside its storage shard layout=Layout { order: Amp(Left), tiling: TensorTiling { tile_count: 1440, replicas: 80, axes: [AxisTiling { axis: FromEnd(1), partitions: 3, padding_groups: 1, block_size: 384, padding_multiple: 384, shard_padding_multiple: 1, padding: Zero, tile_stride: None }, AxisTiling { axis: FromEnd(2), partitions: 6, padding_groups: 1, block_size: 2, padding_multiple: 2, shard_padding_multiple: 1, padding: Zero, tile_stride: None }] }, memory_class: Ipu21Standard } shard_extents=[ShardExtent { axis: 0, start: 0, logical_end: 1, physical_end: 1 }, ShardExtent { axis: 1, start: 610, logical_end: 729, physical_end: 730 }, ShardExtent { axis: 2, start: 0, logical_end: 384, physical_end: 384 }] view_extents=[ShardExtent { axis: 0, start: 0, logical_end: 1, physical_end: 1 }, ShardExtent { axis: 1, start: 722, logical_end: 729, physical_end: 731 }, ShardExtent { axis: 2, start: 0, logical_end: 16, physical_end: 16 }]",
		},
		{
			name: "AMP left 2x10, 72 replicas",
			layout: Layout{
				Order:       Order{Kind: AmpLeft},
				Tiling:      Tiling{TileCount: 1440, Replicas: 72, Axes: []AxisTiling{axis(1, 2, 576), axis(2, 10, 2)}},
				MemoryClass: "Ipu21Standard",
			},
			shape: []int64{1, 729, 1152},
			shard: []int64{0, 9},
			view:  []Extent{{0, 1, 1}, {722, 729, 731}, {0, 16, 16}},
			want:  "tensor view falls outside its storage shard layout=Layout { order: Amp(Left), tiling: TensorTiling { tile_count: 1440, replicas: 72, axes: [AxisTiling { axis: FromEnd(1), partitions: 2, padding_groups: 1, block_size: 576, padding_multiple: 576, shard_padding_multiple: 1, padding: Zero, tile_stride: None }, AxisTiling { axis: FromEnd(2), partitions: 10, padding_groups: 1, block_size: 2, padding_multiple: 2, shard_padding_multiple: 1, padding: Zero, tile_stride: None }] }, memory_class: Ipu21Standard } shard_extents=[ShardExtent { axis: 0, start: 0, logical_end: 1, physical_end: 1 }, ShardExtent { axis: 1, start: 658, logical_end: 729, physical_end: 730 }, ShardExtent { axis: 2, start: 0, logical_end: 576, physical_end: 576 }] view_extents=[ShardExtent { axis: 0, start: 0, logical_end: 1, physical_end: 1 }, ShardExtent { axis: 1, start: 722, logical_end: 729, physical_end: 731 }, ShardExtent { axis: 2, start: 0, logical_end: 16, physical_end: 16 }]",
		},
	}
}

func TestReferenceLogViewErrors(t *testing.T) {
	for _, r := range logRecords() {
		t.Run(r.name, func(t *testing.T) {
			m, err := NewShardMap(&r.layout, r.shape, 1472)
			if err != nil {
				t.Fatalf("layout rejected: %v", err)
			}
			tile := m.Tile(r.shard, 0)
			err = m.CheckView(tile, r.view)
			var ve *ViewError
			if !errors.As(err, &ve) {
				t.Fatalf("CheckView(tile %d) = %v, want a ViewError", tile, err)
			}
			if got := err.Error(); got != r.want {
				t.Errorf("message differs from the log\n got: %s\nwant: %s", got, r.want)
			}
			// The same view is rejected on every replica of the shard.
			for rep := int64(1); rep < r.layout.Tiling.Replicas; rep++ {
				if m.CheckView(m.Tile(r.shard, rep), r.view) == nil {
					t.Fatalf("replica %d accepted the view", rep)
				}
			}
		})
	}
}
