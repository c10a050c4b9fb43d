package layout

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/target"
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

// Shard arithmetic by hand: each case lists, for chosen partition indices,
// the extents and tile the rule of shard.go gives.
func TestShardArithmetic(t *testing.T) {
	type want struct {
		coords  []int64
		replica int64
		tile    int64
		extents []Extent
	}
	cases := []struct {
		name   string
		tiling Tiling
		shape  []int64
		wants  []want
	}{
		{
			name:   "even split, one axis",
			tiling: Tiling{TileCount: 4, Replicas: 1, Axes: []AxisTiling{NewAxis(1, 4)}},
			shape:  []int64{8},
			wants: []want{
				{[]int64{0}, 0, 0, []Extent{{0, 2, 2}}},
				{[]int64{3}, 0, 3, []Extent{{6, 8, 8}}},
			},
		},
		{
			name: "uneven blocks: first partitions get one more",
			// 10 rows in blocks of 2 = 5 blocks over 3 partitions: 2, 2, 1.
			tiling: Tiling{TileCount: 3, Replicas: 1, Axes: []AxisTiling{axis(2, 3, 2)}},
			shape:  []int64{10, 4},
			wants: []want{
				{[]int64{0}, 0, 0, []Extent{{0, 4, 4}, {0, 4, 4}}},
				{[]int64{1}, 0, 1, []Extent{{4, 8, 8}, {0, 4, 4}}},
				{[]int64{2}, 0, 2, []Extent{{8, 10, 10}, {0, 4, 4}}},
			},
		},
		{
			name: "padding multiple larger than the block",
			// 729 padded to 768 (a multiple of 64) = 48 blocks of 16 over 5:
			// 10, 10, 10, 9, 9 blocks; the last shard holds 729 - 608 = 121
			// data rows and 23 rows of padding.
			tiling: Tiling{TileCount: 5, Replicas: 1, Axes: []AxisTiling{{FromEnd: 1, Partitions: 5, PaddingGroups: 1,
				BlockSize: 16, PaddingMultiple: 64, ShardPaddingMultiple: 1, Padding: PaddingZero}}},
			shape: []int64{729},
			wants: []want{
				{[]int64{0}, 0, 0, []Extent{{0, 160, 160}}},
				{[]int64{3}, 0, 3, []Extent{{480, 624, 624}}},
				{[]int64{4}, 0, 4, []Extent{{624, 729, 768}}},
			},
		},
		{
			name: "a shard of padding only",
			// 20 positions padded to 64 in blocks of 16: 4 blocks over 4;
			// shards 2 and 3 hold no data: logical_end = start.
			tiling: Tiling{TileCount: 4, Replicas: 1, Axes: []AxisTiling{{FromEnd: 1, Partitions: 4, PaddingGroups: 1,
				BlockSize: 16, PaddingMultiple: 64, ShardPaddingMultiple: 1, Padding: PaddingZero}}},
			shape: []int64{20},
			wants: []want{
				{[]int64{1}, 0, 1, []Extent{{16, 20, 32}}},
				{[]int64{3}, 0, 3, []Extent{{48, 48, 64}}},
			},
		},
		{
			name: "shard padding multiple",
			// 729 rows over 6 partitions of single rows: 122 ×3, 121 ×3;
			// each shard stored padded to a multiple of 6 (the AMP row group).
			tiling: Tiling{TileCount: 6, Replicas: 1, Axes: []AxisTiling{{FromEnd: 1, Partitions: 6, PaddingGroups: 1,
				BlockSize: 1, PaddingMultiple: 1, ShardPaddingMultiple: 6, Padding: PaddingZero}}},
			shape: []int64{729},
			wants: []want{
				{[]int64{0}, 0, 0, []Extent{{0, 122, 126}}},
				{[]int64{5}, 0, 5, []Extent{{608, 729, 734}}},
			},
		},
		{
			name: "padding groups",
			// 1152 = 16 heads of 72, each padded to 80 and cut in 2 blocks of
			// 40: positions are in the padded axis (group g at g·80).
			tiling: Tiling{TileCount: 32, Replicas: 1, Axes: []AxisTiling{{FromEnd: 1, Partitions: 32, PaddingGroups: 16,
				BlockSize: 40, PaddingMultiple: 80, ShardPaddingMultiple: 1, Padding: PaddingZero}}},
			shape: []int64{1152},
			wants: []want{
				{[]int64{0}, 0, 0, []Extent{{0, 40, 40}}},
				{[]int64{1}, 0, 1, []Extent{{40, 72, 80}}},
				{[]int64{3}, 0, 3, []Extent{{120, 152, 160}}},
				{[]int64{31}, 0, 31, []Extent{{1240, 1272, 1280}}},
			},
		},
		{
			name: "replicas and derived strides",
			// 2 × 3 shards per replica (first axis fastest), 4 replicas after
			// one another: tile = i + 2j + 6r.
			tiling: Tiling{TileCount: 24, Replicas: 4, Axes: []AxisTiling{NewAxis(2, 2), NewAxis(1, 3)}},
			shape:  []int64{4, 9},
			wants: []want{
				{[]int64{1, 0}, 0, 1, []Extent{{2, 4, 4}, {0, 3, 3}}},
				{[]int64{0, 2}, 0, 4, []Extent{{0, 2, 2}, {6, 9, 9}}},
				{[]int64{1, 2}, 3, 23, []Extent{{2, 4, 4}, {6, 9, 9}}},
			},
		},
		{
			name: "explicit strides and replica stride interleave",
			// Replicas next to each other: tile = 2i + 4j + r.
			tiling: Tiling{TileCount: 16, Replicas: 2, ReplicaStride: 1,
				Axes: []AxisTiling{{FromEnd: 2, Partitions: 2, PaddingGroups: 1, BlockSize: 1, PaddingMultiple: 1,
					ShardPaddingMultiple: 1, Padding: PaddingZero, TileStride: 2}, {FromEnd: 1, Partitions: 4, PaddingGroups: 1,
					BlockSize: 1, PaddingMultiple: 1, ShardPaddingMultiple: 1, Padding: PaddingZero, TileStride: 4}}},
			shape: []int64{2, 8},
			wants: []want{
				{[]int64{1, 0}, 1, 3, []Extent{{1, 2, 2}, {0, 2, 2}}},
				{[]int64{0, 3}, 0, 12, []Extent{{0, 1, 1}, {6, 8, 8}}},
				{[]int64{1, 3}, 1, 15, []Extent{{1, 2, 2}, {6, 8, 8}}},
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := Layout{Order: Order{Kind: RowMajor}, Tiling: c.tiling, MemoryClass: "Ipu21Standard"}
			m, err := NewShardMap(&l, c.shape, 0)
			if err != nil {
				t.Fatalf("layout rejected: %v", err)
			}
			for _, w := range c.wants {
				if got := m.Extents(w.coords); !slices.Equal(got, w.extents) {
					t.Errorf("extents of %v = %v, want %v", w.coords, got, w.extents)
				}
				tile := m.Tile(w.coords, w.replica)
				if tile != w.tile {
					t.Errorf("tile of %v replica %d = %d, want %d", w.coords, w.replica, tile, w.tile)
				}
				s, ok := m.OnTile(tile)
				if !ok || !slices.Equal(s.Coords, w.coords) || s.Replica != w.replica {
					t.Errorf("OnTile(%d) = %+v, %v; want coords %v replica %d", tile, s, ok, w.coords, w.replica)
				}
			}
		})
	}
}

// Every shard of every replica is somewhere, shards of one replica cover
// each data position exactly once, and no tile holds two shards.
func TestShardsPartitionTheTensor(t *testing.T) {
	for _, n := range []int64{1, 7, 16, 100, 729} {
		for _, parts := range []int64{1, 2, 3, 5, 7} {
			for _, block := range []int64{1, 2, 16} {
				a := NewAxis(1, parts)
				a.BlockSize, a.PaddingMultiple = block, block
				l := Layout{Order: Order{Kind: RowMajor}, MemoryClass: "M",
					Tiling: Tiling{TileCount: 2 * parts, Replicas: 2, Axes: []AxisTiling{a}}}
				m, err := NewShardMap(&l, []int64{n}, 0)
				if err != nil {
					continue // more partitions than blocks: rejected, checked elsewhere
				}
				covered := make([]int, n)
				for p := int64(0); p < parts; p++ {
					e := m.Extents([]int64{p})[0]
					if !e.WellFormed() {
						t.Fatalf("n=%d parts=%d block=%d: shard %d extent %v malformed", n, parts, block, p, e)
					}
					for i := e.Start; i < e.LogicalEnd; i++ {
						covered[i]++
					}
				}
				for i, c := range covered {
					if c != 1 {
						t.Fatalf("n=%d parts=%d block=%d: position %d covered %d times", n, parts, block, i, c)
					}
				}
				if got := int64(len(m.Tiles())); got != 2*parts {
					t.Fatalf("n=%d parts=%d: %d tiles hold shards, want %d", n, parts, got, 2*parts)
				}
			}
		}
	}
}

func TestLayoutErrors(t *testing.T) {
	row := Order{Kind: RowMajor}
	cases := []struct {
		name   string
		layout Layout
		shape  []int64
		want   string
	}{
		{"axis out of range", Layout{Order: row, MemoryClass: "M", Tiling: Tiling{TileCount: 4, Replicas: 1,
			Axes: []AxisTiling{NewAxis(3, 2)}}}, []int64{4, 4}, "axis -3 does not exist in a rank-2 tensor"},
		{"too many partitions", Layout{Order: row, MemoryClass: "M", Tiling: Tiling{TileCount: 64, Replicas: 1,
			Axes: []AxisTiling{axis(1, 50, 16)}}}, []int64{729}, "50 partitions per padding group but the group of 729 elements has only 46 blocks of 16"},
		{"padding multiple not a multiple of the block", Layout{Order: row, MemoryClass: "M", Tiling: Tiling{TileCount: 4, Replicas: 1,
			Axes: []AxisTiling{{FromEnd: 1, Partitions: 2, PaddingGroups: 1, BlockSize: 16, PaddingMultiple: 24, ShardPaddingMultiple: 1, Padding: PaddingZero}}}},
			[]int64{64}, "padding_multiple 24 is not a multiple of block_size 16"},
		{"groups do not divide the axis", Layout{Order: row, MemoryClass: "M", Tiling: Tiling{TileCount: 4, Replicas: 1,
			Axes: []AxisTiling{{FromEnd: 1, Partitions: 3, PaddingGroups: 3, BlockSize: 1, PaddingMultiple: 1, ShardPaddingMultiple: 1, Padding: PaddingZero}}}},
			[]int64{10}, "axis -1 of size 10 cannot be cut into 3 equal padding groups"},
		{"more shards than tiles", Layout{Order: row, MemoryClass: "M", Tiling: Tiling{TileCount: 10, Replicas: 3,
			Axes: []AxisTiling{NewAxis(1, 4)}}}, []int64{8}, "4 shards × 3 replicas need 12 tiles but tile_count is 10"},
		{"two shards on one tile", Layout{Order: row, MemoryClass: "M", Tiling: Tiling{TileCount: 8, Replicas: 2, ReplicaStride: 1,
			Axes: []AxisTiling{NewAxis(1, 4)}}}, []int64{8}, "both map to tile 1"},
		{"tile beyond the count", Layout{Order: row, MemoryClass: "M", Tiling: Tiling{TileCount: 4, Replicas: 1,
			Axes: []AxisTiling{{FromEnd: 1, Partitions: 2, PaddingGroups: 1, BlockSize: 1, PaddingMultiple: 1, ShardPaddingMultiple: 1, Padding: PaddingZero, TileStride: 5}}}},
			[]int64{8}, "maps to tile 5, beyond tile_count 4"},
		{"block-major blocks do not tile the shard", Layout{Order: Order{Kind: BlockMajor, RowBlock: 384, ColumnBlock: 16}, MemoryClass: "M",
			Tiling: Tiling{TileCount: 4, Replicas: 1, Axes: []AxisTiling{axis(1, 4, 100)}}}, []int64{16, 400},
			"block-major row_block 384 does not divide the physical shard size 100 of axis -1"},
		{"dynamic axis", Layout{Order: row, MemoryClass: "M", Tiling: Tiling{TileCount: 4, Replicas: 1,
			Axes: []AxisTiling{NewAxis(1, 2)}}}, []int64{ir.Dynamic}, "dynamic size"},
		{"tile count beyond the machine", Layout{Order: row, MemoryClass: "M", Tiling: Tiling{TileCount: 1 << 20, Replicas: 1}},
			[]int64{8}, "tile_count 1048576 exceeds the 65536 tiles available"},
		{"huge sizes", Layout{Order: row, MemoryClass: "M", Tiling: Tiling{TileCount: 4, Replicas: 1,
			Axes: []AxisTiling{{FromEnd: 1, Partitions: 2, PaddingGroups: 1, BlockSize: 1, PaddingMultiple: 1 << 62, ShardPaddingMultiple: 1, Padding: PaddingZero}}}},
			[]int64{8}, "are not supported"},
	}
	for _, c := range cases {
		_, err := NewShardMap(&c.layout, c.shape, 0)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to contain %q", c.name, err, c.want)
		}
	}
}

func TestViewChecks(t *testing.T) {
	l := Layout{Order: Order{Kind: RowMajor}, MemoryClass: "M", Tiling: Tiling{TileCount: 4, Replicas: 1, Axes: []AxisTiling{axis(1, 4, 2)}}}
	m, err := NewShardMap(&l, []int64{3, 7}, 0) // shards of axis -1: [0,2,2) [2,4,4) [4,6,6) [6,7,8)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.CheckView(3, []Extent{{0, 3, 3}, {6, 7, 8}}); err != nil {
		t.Errorf("the whole last shard is a valid view: %v", err)
	}
	if err := m.CheckView(3, []Extent{{1, 2, 2}, {7, 7, 8}}); err != nil {
		t.Errorf("a padding-only corner is a valid view: %v", err)
	}
	for _, bad := range []struct {
		tile int64
		view []Extent
		want string
	}{
		{3, []Extent{{0, 3, 3}, {6, 8, 8}}, ViewOutsideShardMessage}, // data past the tensor's end
		{3, []Extent{{0, 3, 3}, {5, 7, 8}}, ViewOutsideShardMessage}, // starts in the previous shard
		{0, []Extent{{0, 3, 3}, {0, 2, 3}}, ViewOutsideShardMessage}, // storage past the shard's
		{4, []Extent{{0, 3, 3}, {0, 1, 1}}, "tile 4 holds no shard"},
		{0, []Extent{{0, 3, 3}}, "view has 1 extents but the tensor has rank 2"},
		{0, []Extent{{0, 3, 3}, {2, 1, 2}}, "not 0 ≤ start ≤ logical_end ≤ physical_end"},
	} {
		err := m.CheckView(bad.tile, bad.view)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("view %v on tile %d: err = %v, want %q", bad.view, bad.tile, err, bad.want)
		}
	}
}

func TestDefaultLayout(t *testing.T) {
	tg, _ := target.Lookup("ipu21")
	for _, c := range []struct {
		shape []int64
		want  string
	}{
		{[]int64{729, 1152}, "order = row_major, tile_count = 1458, axes = [{axis = -2, partitions = 729}, {axis = -1, partitions = 2}], memory_class = Ipu21Standard"},
		{[]int64{16, 729, 72}, "order = row_major, tile_count = 1472, axes = [{axis = -3, partitions = 16}, {axis = -2, partitions = 92}], memory_class = Ipu21Standard"},
		{[]int64{1, 8}, "order = row_major, tile_count = 8, axes = [{axis = -1, partitions = 8}], memory_class = Ipu21Standard"},
		{[]int64{}, "order = row_major, tile_count = 1, axes = [], memory_class = Ipu21Standard"},
		{[]int64{0, 5}, "order = row_major, tile_count = 5, axes = [{axis = -1, partitions = 5}], memory_class = Ipu21Standard"},
	} {
		l, err := DefaultLayout(c.shape, tg)
		if err != nil {
			t.Fatal(err)
		}
		if got := l.String(); got != c.want {
			t.Errorf("DefaultLayout(%v) = %s, want %s", c.shape, got, c.want)
		}
		if _, err := NewShardMap(&l, c.shape, int64(tg.Tiles)); err != nil {
			t.Errorf("DefaultLayout(%v) is not valid: %v", c.shape, err)
		}
	}
}

// Shards placed by stepping coordinates land where the per-shard formula
// puts them, and layouts whose shards collide or overflow the tile count
// are refused as the formula refuses them, over random tilings with
// explicit and derived strides, replicas and offsets.
// randomLayout is a row-major layout of a random rank-3 shape over up to
// 400 tiles: one to three tiled axes, some with tile strides, replicas
// with and without a stride, a tile offset, and (with blocks) block
// sizes; about half of them place their shards.
func randomLayout(r *rand.Rand, blocks bool) (Layout, []int64) {
	shape := []int64{1 + r.Int64N(40), 1 + r.Int64N(40), 1 + r.Int64N(40)}
	var axes []AxisTiling
	for _, fromEnd := range r.Perm(3)[:1+r.IntN(3)] {
		a := NewAxis(fromEnd+1, 1+r.Int64N(min(shape[2-fromEnd], 6)))
		if r.IntN(3) == 0 {
			a.TileStride = r.Int64N(30)
		}
		if blocks && r.IntN(4) == 0 {
			a.BlockSize = 1 + r.Int64N(3)
			a.PaddingMultiple = a.BlockSize
		}
		axes = append(axes, a)
	}
	tl := Tiling{TileCount: 1 + r.Int64N(400), Replicas: 1 + r.Int64N(3), Axes: axes}
	if r.IntN(3) == 0 {
		tl.ReplicaStride = r.Int64N(60)
	}
	if r.IntN(3) == 0 {
		tl.TileOffset = r.Int64N(tl.TileCount)
	}
	return Layout{Order: Order{Kind: RowMajor}, MemoryClass: "M", Tiling: tl}, shape
}

func TestSteppedPlacementMatchesFormula(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	placed, refused := 0, 0
	for trial := 0; trial < 3000; trial++ {
		l, shape := randomLayout(r, false)
		tl := l.Tiling
		m, err := NewShardMap(&l, shape, 0)
		// The formula, shard by shard, on a map built without placing.
		f := &ShardMap{Layout: &l, Shape: shape, splits: nil}
		for _, a := range tl.Axes {
			s, serr := newAxisSplit(shape, a)
			if serr != nil {
				f = nil
				break
			}
			f.splits = append(f.splits, s)
		}
		if f == nil || f.checkBlockOrder() != nil || satMul(tl.ShardsPerReplica(), tl.Replicas) > tl.TileCount {
			if err == nil {
				t.Fatalf("trial %d: %+v accepted, but its axes are refused", trial, tl)
			}
			refused++
			continue
		}
		f.strides, f.replicaStride = tl.resolvedStrides()
		f.owner = make([]int64, tl.TileCount)
		for i := range f.owner {
			f.owner[i] = -1
		}
		coords := make([]int64, len(f.splits))
		var formulaErr error
		for shard := int64(0); shard < tl.ShardsPerReplica() && formulaErr == nil; shard++ {
			f.coordsOf(shard, coords)
			for rep := int64(0); rep < tl.Replicas; rep++ {
				tile := f.tileOf(coords, rep)
				if tile >= tl.TileCount || f.owner[tile] >= 0 {
					formulaErr = layoutErr("refused")
					break
				}
				f.owner[tile] = shard*tl.Replicas + rep
			}
		}
		if (err == nil) != (formulaErr == nil) {
			t.Fatalf("trial %d: %+v: placement says %v, the formula %v", trial, tl, err, formulaErr)
		}
		if err != nil {
			refused++
			continue
		}
		if !slices.Equal(m.owner, f.owner) {
			t.Fatalf("trial %d: %+v: owners differ", trial, tl)
		}
		placed++
	}
	t.Logf("%d layouts placed the same way, %d refused by both", placed, refused)
	if placed < 300 || refused < 300 {
		t.Fatalf("%d placed, %d refused: the trials do not cover both", placed, refused)
	}
}

// PlacedShards places and refuses exactly as NewShardMap does, and gives
// every tile the box NewShardMap's BoxOnTile gives it; over its limit it
// refuses before placing.
func TestPlacedShardsMatchShardMap(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	placed, refused := 0, 0
	for trial := 0; trial < 3000; trial++ {
		l, shape := randomLayout(r, true)
		tl := l.Tiling
		m, err := NewShardMap(&l, shape, 0)
		pm, tiles, perr := PlacedShards(&l, shape, 0, 1<<20)
		if (err == nil) != (perr == nil) {
			t.Fatalf("trial %d: %+v: NewShardMap says %v, PlacedShards %v", trial, tl, err, perr)
		}
		if err != nil {
			refused++
			continue
		}
		want := m.Tiles()
		if len(tiles) != len(want) {
			t.Fatalf("trial %d: %d tiles placed, want %d", trial, len(tiles), len(want))
		}
		box := make(Box, len(shape))
		for i, ts := range tiles {
			wantBox, _ := m.BoxOnTile(want[i])
			pm.BoxOf(ts.Shard, box)
			if ts.Tile != want[i] || box.String() != wantBox.String() {
				t.Fatalf("trial %d: piece %d: tile %d box %v, want tile %d box %v", trial, i, ts.Tile, box, want[i], wantBox)
			}
		}
		if n := int64(len(tiles)); n > 1 {
			if _, _, err := PlacedShards(&l, shape, 0, n-1); err == nil {
				t.Fatalf("trial %d: %d shards placed under a limit of %d", trial, n, n-1)
			}
		}
		placed++
	}
	t.Logf("%d layouts placed the same way, %d refused by both", placed, refused)
	if placed < 300 || refused < 300 {
		t.Fatalf("%d placed, %d refused: the trials do not cover both", placed, refused)
	}
}
