package layout

import (
	"testing"

	"github.com/ipuir/ipuir/target"
)

// windowCase is a convolution's window over a padded channels-last input:
// the input's shape, the output's spatial sizes, the kernel, stride and
// dilation (the same on every spatial axis).
type windowCase struct {
	name                     string
	in                       []int64
	out                      []int64
	kernel, stride, dilation int64
}

// Each kernel position's slice, laid out by WindowSliceLayout from
// WindowInputLayout, finds on its own tile all of its input but the halo
// the kernel reaches past a block, which comes from the next block's tile
// along each spatial axis: no tile reads from more than 2^spatial tiles,
// the kernel's first position reads nothing off its tile, and the rows
// moved are a fraction of those the default layout moved (every shift
// moved every row of a one-row-a-tile cut).
func TestWindowSlicesReadTheirHaloOnly(t *testing.T) {
	tg, err := target.Lookup("ipu21")
	if err != nil {
		t.Fatal(err)
	}
	cases := []windowCase{
		{"mobilenet_v2 depthwise 3×3", []int64{1, 58, 58, 144}, []int64{56, 56}, 3, 1, 1},
		{"stride 2", []int64{1, 114, 114, 96}, []int64{56, 56}, 3, 2, 1},
		{"resnet stem 7×7 stride 2, batch 4", []int64{4, 230, 230, 3}, []int64{112, 112}, 7, 2, 1},
		{"dilation 2", []int64{2, 36, 36, 64}, []int64{32, 32}, 3, 1, 2},
		{"1-d", []int64{4, 130, 256}, []int64{128}, 3, 1, 1},
	}
	compared := 0
	for _, c := range cases {
		r := len(c.in)
		strides := make([]int64, r-2)
		for i := range strides {
			strides[i] = c.stride
		}
		inL, ok := WindowInputLayout(c.in, c.out, strides, tg)
		if !ok {
			t.Fatalf("%s: no window input layout", c.name)
		}
		in, err := NewShardMap(&inL, c.in, int64(tg.Tiles))
		if err != nil {
			t.Fatalf("%s: the input layout %+v: %v", c.name, inL.Tiling, err)
		}
		if got := len(in.Tiles()); got < tg.Tiles/4 {
			t.Errorf("%s: the input is on %d tiles of %d", c.name, got, tg.Tiles)
		}
		for q := range c.kernel {
			offsets, sizes, sliceStrides := make([]int64, r), append([]int64(nil), c.in...), make([]int64, r)
			for i := range sliceStrides {
				sliceStrides[i] = 1
			}
			for i := 1; i < r-1; i++ {
				offsets[i], sizes[i], sliceStrides[i] = q*c.dilation, c.out[i-1], c.stride
			}
			outL, ok := WindowSliceLayout(&inL, c.in, offsets, sizes, sliceStrides)
			if !ok {
				t.Fatalf("%s: position %d: no slice layout", c.name, q)
			}
			out, err := NewShardMap(&outL, sizes, int64(tg.Tiles))
			if err != nil {
				t.Fatalf("%s: position %d: the slice layout: %v", c.name, q, err)
			}
			covered := int64(0)
			for _, tile := range out.Tiles() {
				box, _ := out.BoxOnTile(tile)
				covered += box.Elements()
				// The input the shard reads: index i reads offset + stride·i.
				read := make(Box, r)
				for i := range read {
					read[i] = Span{offsets[i] + sliceStrides[i]*box[i].Lo, offsets[i] + sliceStrides[i]*(box[i].Hi-1) + 1}
				}
				sources, held := 0, int64(0)
				for _, from := range in.Tiles() {
					have, _ := in.BoxOnTile(from)
					if n := have.Intersect(read).Elements(); n > 0 {
						sources++
						if from == tile {
							held = n
						}
					}
				}
				if sources > 1<<(r-2) {
					t.Errorf("%s: position %d: tile %d reads %v from %d tiles", c.name, q, tile, read, sources)
				}
				if q == 0 && held != read.Elements() {
					t.Errorf("%s: the first position's shard on tile %d reads %d of its %d elements off its tile", c.name, tile, read.Elements()-held, read.Elements())
				}
				compared++
			}
			want := int64(1)
			for _, d := range sizes {
				want *= d
			}
			if covered != want {
				t.Errorf("%s: position %d: the shards hold %d elements of %d", c.name, q, covered, want)
			}
		}
	}
	t.Logf("%d slice shards checked against their inputs", compared)
}

// A slice that cuts the channels or the batch, or a layout not cut in
// one block a partition, has no window layout.
func TestWindowSliceLayoutRefusals(t *testing.T) {
	tg, _ := target.Lookup("ipu21")
	in := []int64{1, 58, 58, 144}
	inL, ok := WindowInputLayout(in, []int64{56, 56}, []int64{1, 1}, tg)
	if !ok {
		t.Fatal("no window input layout")
	}
	if _, ok := WindowSliceLayout(&inL, in, []int64{0, 0, 0, 8}, []int64{1, 56, 56, 8}, []int64{1, 1, 1, 1}); ok {
		t.Error("a slice of some channels has a window layout")
	}
	def, _ := DefaultLayout(in, tg)
	if _, ok := WindowSliceLayout(&def, in, []int64{0, 1, 1, 0}, []int64{1, 56, 56, 144}, []int64{1, 1, 1, 1}); ok {
		t.Error("the default layout (58 rows over 58 tiles, uneven columns) has a window layout")
	}
	if _, ok := WindowInputLayout([]int64{4, 8}, []int64{8}, []int64{1}, tg); ok {
		t.Error("a rank-2 tensor has a window input layout")
	}
}
