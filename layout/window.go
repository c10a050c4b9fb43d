package layout

import (
	"github.com/ipuir/ipuir/numeric"
	"github.com/ipuir/ipuir/target"
)

// Window layouts lay out the strided slices a convolution or a pooling
// window reads of its channels-last input [N, s…, C] (padded), one slice
// per kernel position, so that each slice moves a halo and not its whole
// shard: the input is cut into blocks along the channels, the batch and
// the spatial axes, block b of a spatial axis on the same tile as block b
// of every slice, and a slice of stride s takes blocks of 1/s the input's.
// Kernel position q then reads, on each tile, the input block there
// shifted by q: all of it local but the q rows past it, which come from
// the next blocks' tiles. The default layout instead cut the 58 rows of a
// padded 56×56 image one row a tile, so every shift moved every row.

// windowMinChannels is the fewest channels a window layout puts on a
// tile (where the channels allow). Its input comes from a channels-last
// layout cut in blocks of channels (a conv's matmul result), and each
// tile receives one piece per row of its block, a piece as wide as its
// channels: one channel a tile took resnet18's busiest tile to 206 KiB of
// exchange tables, 4 channels take it to 80 KiB. Measured on ipu21, in
// simulated cycles at batch 1 (1 / 4 / 8 channels a tile, then 8 with
// blocks no smaller than the halo): mobilenet_v3_small 206,888 / 219,225
// / 224,516 / 281,561; efficientnet_b0 424,904 / 465,756 / 489,600 /
// 547,780; resnet18 421,941 / 421,480 / 425,765 / 421,502.
const windowMinChannels = 4

// WindowInputLayout is the layout of the input in (shape [N, s…, C]) of
// window slices whose results have spatial sizes out (one per spatial
// axis) and strides strides, on the tiles of t. ok is false when in is
// not of rank 3 or more or out and strides do not match it.
//
// The channels are cut first, into parts of windowMinChannels or more
// (a window never reads across channels, so their cut moves nothing), then
// the batch, then each spatial axis into blocks of output rows, as many
// as the tiles left allow; the input's blocks are the output's times the
// stride, and the cut stops where the input's blocks would need more
// tiles than t has. A block smaller than the kernel's halo takes its halo
// from more than one neighbour, which costs less than the idle tiles a
// larger block leaves on small images.
func WindowInputLayout(in, out, strides []int64, t *target.Target) (Layout, bool) {
	r := len(in)
	if r < 3 || len(out) != r-2 || len(strides) != r-2 {
		return Layout{}, false
	}
	for i, o := range out {
		if o < 1 || strides[i] < 1 || in[1+i] < 1 {
			return Layout{}, false
		}
	}
	l, err := defaultLayoutOn(nil, t, 1)
	if err != nil {
		return Layout{}, false
	}
	remaining := int64(t.Tiles)
	stride := int64(1)
	add := func(fromEnd int, partitions, block int64) {
		if partitions <= 1 {
			return
		}
		a := NewAxis(fromEnd, partitions)
		a.BlockSize, a.PaddingMultiple, a.TileStride = block, block, stride
		l.Tiling.Axes = append(l.Tiling.Axes, a)
		stride = satMul(stride, partitions)
		remaining /= partitions
	}
	C := in[r-1]
	pc := largestDivisorAtMost(C, min(remaining, max(1, C/windowMinChannels)))
	add(1, pc, C/pc)
	pn := largestDivisorAtMost(in[0], remaining)
	add(r, pn, in[0]/pn)
	for i, o := range out {
		axis, s := 1+i, strides[i]
		// The most output blocks whose input blocks still fit the tiles
		// left; the input has a block more where the halo runs past.
		parts := min(o, remaining)
		for ; parts > 1; parts-- {
			rows := numeric.CeilDiv(o, parts)
			if numeric.CeilDiv(in[axis], rows*s) <= remaining {
				break
			}
		}
		if parts <= 1 {
			continue
		}
		rows := numeric.CeilDiv(o, parts)
		add(r-axis, numeric.CeilDiv(in[axis], rows*s), rows*s)
	}
	l.Tiling.TileCount = max(stride, 1)
	return l, true
}

// WindowSliceLayout is the layout of the slice of x (laid out by l, of
// shape) with offsets, sizes and strides that keeps each block of x's
// spatial axes on its tile (see WindowInputLayout): every partitioned
// axis of l is cut into whole blocks, one a partition, and the slice's
// blocks are those divided by the stride. ok is false when l is not so
// cut or the slice cuts the batch or the channels, which a window keeps
// whole.
func WindowSliceLayout(l *Layout, shape, offsets, sizes, strides []int64) (Layout, bool) {
	r := len(shape)
	if r < 3 || len(offsets) != r || len(sizes) != r || len(strides) != r || l.Tiling.Replicas > 1 || l.Order.Kind != RowMajor {
		return Layout{}, false
	}
	for _, axis := range []int{0, r - 1} {
		if offsets[axis] != 0 || sizes[axis] != shape[axis] || strides[axis] != 1 {
			return Layout{}, false
		}
	}
	t := l.Tiling.resolved()
	out := Layout{Order: l.Order, MemoryClass: l.MemoryClass, Tiling: t}
	out.Tiling.Axes = nil
	for _, a := range t.Axes {
		axis := r - a.FromEnd
		if axis < 0 || axis >= r || a.PaddingGroups != 1 || a.ShardPaddingMultiple != 1 ||
			a.PaddingMultiple != a.BlockSize || numeric.CeilDiv(shape[axis], a.BlockSize) != a.Partitions {
			return Layout{}, false // not one whole block a partition
		}
		if axis == 0 || axis == r-1 {
			out.Tiling.Axes = append(out.Tiling.Axes, a)
			continue
		}
		s := strides[axis]
		if s < 1 || a.BlockSize%s != 0 {
			return Layout{}, false
		}
		block := a.BlockSize / s
		parts := numeric.CeilDiv(sizes[axis], block)
		if parts > a.Partitions {
			return Layout{}, false
		}
		if parts <= 1 {
			continue
		}
		b := a
		b.Partitions, b.BlockSize, b.PaddingMultiple = parts, block, block
		out.Tiling.Axes = append(out.Tiling.Axes, b)
	}
	return out, true
}
