package eval

import (
	"fmt"

	"github.com/ipuir/ipuir/elem"
)

// ConvParams are a convolution's window: per spatial axis its stride,
// dilation and the zeros padded before and after (negative: positions
// cropped), and the number of groups the channels are split into.
type ConvParams struct {
	Strides, Dilations  []int
	PadBefore, PadAfter []int
	Groups              int
}

// MaxConvWindow bounds a convolution's kernel positions (the product of
// its kernel extents), as the ONNX importer bounds them: the work of every
// output element grows with it.
const MaxConvWindow = 1 << 16

// ConvShape checks a convolution of an input [N, C, s...] by a weight
// [M, C/groups, k...] and returns its result's shape [N, M, o...], with
// o = (s + before + after − (k − 1)·dilation − 1) / stride + 1 per axis.
func ConvShape(in, w []int, p ConvParams) ([]int, error) {
	r := len(in)
	if r < 3 || len(w) != r {
		return nil, fmt.Errorf("a convolution takes an input [N, C, spatial...] and a weight [M, C/groups, kernel...] of one rank of at least 3, got ranks %d and %d", r, len(w))
	}
	sp := r - 2
	if len(p.Strides) != sp || len(p.Dilations) != sp || len(p.PadBefore) != sp || len(p.PadAfter) != sp {
		return nil, fmt.Errorf("%d spatial axes need %d strides, dilations and pads before and after each, got %d, %d, %d and %d",
			sp, sp, len(p.Strides), len(p.Dilations), len(p.PadBefore), len(p.PadAfter))
	}
	g, c, m := p.Groups, in[1], w[0]
	if g < 1 || c%g != 0 || m%g != 0 || w[1]*g != c {
		return nil, fmt.Errorf("%d groups of an input of %d channels by a weight of %d output and %d input channels: each group takes C/groups input channels and gives M/groups output channels", g, c, m, w[1])
	}
	window := 1
	out := []int{in[0], m}
	for i := range sp {
		s, d, k, n := p.Strides[i], p.Dilations[i], w[2+i], in[2+i]
		if s < 1 || d < 1 || k < 1 {
			return nil, fmt.Errorf("spatial axis %d: stride %d, dilation %d and kernel %d must be at least 1", i, s, d, k)
		}
		if k > MaxConvWindow || d > MaxElements/k || n > MaxElements ||
			p.PadBefore[i] < -MaxElements || p.PadBefore[i] > MaxElements || p.PadAfter[i] < -MaxElements || p.PadAfter[i] > MaxElements {
			return nil, fmt.Errorf("spatial axis %d: kernel %d, dilation %d, pads %d and %d are out of range", i, k, d, p.PadBefore[i], p.PadAfter[i])
		}
		span := (k-1)*d + 1
		padded := n + p.PadBefore[i] + p.PadAfter[i]
		if padded < span {
			return nil, fmt.Errorf("spatial axis %d: %d positions padded by %d and %d are fewer than the kernel's span of %d", i, n, p.PadBefore[i], p.PadAfter[i], span)
		}
		if window > MaxConvWindow/k {
			return nil, fmt.Errorf("a kernel of more than %d positions", MaxConvWindow)
		}
		window *= k
		out = append(out, (padded-span)/s+1)
	}
	if _, err := NumElements(out); err != nil {
		return nil, err
	}
	return out, nil
}

// Conv is the convolution of x [N, C, s...] by w [M, C/groups, k...]:
// result[n, m, o...] = Σ over the group's input channels c and kernel
// positions q of x[n, c, o·stride + q·dilation − before] · w[m, c, q],
// positions outside x counting as zero. Each sum is the matmul of the
// receptive fields, kernel position major and channel minor, by the
// weight in that order (im2col), accumulated as MatMul accumulates (f32
// for f16, bf16 and f32, in increasing order) and rounded once: the
// tiled lowering computes exactly that matmul.
func Conv(x, w *Array, p ConvParams) (*Array, error) {
	if err := checkAll(x, w); err != nil {
		return nil, err
	}
	if x.Kind != w.Kind || !x.Kind.IsFloat() {
		return nil, fmt.Errorf("conv of %s by %s: operands of one float kind", x.TypeString(), w.TypeString())
	}
	shape, err := ConvShape(x.Shape, w.Shape, p)
	if err != nil {
		return nil, err
	}
	out, err := New(shape, x.Kind)
	if err != nil {
		return nil, err
	}
	if x.Kind == elem.F64 {
		convInto(x.Data, w.Data, out.Data, x.Shape, w.Shape, shape, p)
		return out, nil
	}
	acc := make([]float32, len(out.Data))
	convInto(toFloat32(x.Data), toFloat32(w.Data), acc, x.Shape, w.Shape, shape, p)
	roundFromFloat32(out.Data, acc, x.Kind)
	return out, nil
}

// convFieldValues bounds the receptive-field matrix Conv builds at once
// to about 2^22 values, whatever the input.
const convFieldValues = 1 << 22

// convInto computes Conv's sums into out [N, M, o...] in F.
func convInto[F float32 | float64](x, w, out []F, in, ws, os []int, p ConvParams) {
	sp := len(in) - 2
	N, C, M, g := in[0], in[1], ws[0], p.Groups
	cg, mg := C/g, M/g
	kernel, outSp := ws[2:], os[2:]
	window, positions := 1, 1
	for i := range sp {
		window *= kernel[i]
		positions *= outSp[i]
	}
	inner := window * cg
	rows := N * positions
	chunk := max(1, min(rows, convFieldValues/max(inner, 1)))
	field := make([]F, chunk*inner)
	weights := make([]F, inner*mg)
	sum := make([]F, chunk*mg)
	inStrides := rowMajorStrides(in)
	pos, q := make([]int, sp), make([]int, sp)
	for gi := range g {
		// The group's weight as [window·cg, mg]: row q·cg + c, column m.
		for m := range mg {
			for c := range cg {
				base := ((gi*mg+m)*cg + c) * window
				for k := range window {
					weights[(k*cg+c)*mg+m] = w[base+k]
				}
			}
		}
		for r0 := 0; r0 < rows; r0 += chunk {
			r1 := min(r0+chunk, rows)
			for r := r0; r < r1; r++ {
				n, lin := r/positions, r%positions
				for i := sp - 1; i >= 0; i-- {
					pos[i], lin = lin%outSp[i], lin/outSp[i]
				}
				row := field[(r-r0)*inner : (r-r0+1)*inner]
				clear(q)
				for k := range window {
					at, inside := n*inStrides[0]+gi*cg*inStrides[1], true
					for i := range sp {
						v := pos[i]*p.Strides[i] + q[i]*p.Dilations[i] - p.PadBefore[i]
						if v < 0 || v >= in[2+i] {
							inside = false
							break
						}
						at += v * inStrides[2+i]
					}
					for c := range cg {
						if inside {
							row[k*cg+c] = x[at+c*inStrides[1]]
						} else {
							row[k*cg+c] = 0
						}
					}
					for i := sp - 1; i >= 0; i-- {
						if q[i]++; q[i] < kernel[i] {
							break
						}
						q[i] = 0
					}
				}
			}
			clear(sum[:(r1-r0)*mg])
			mulAll(problem{batches: 1, m: r1 - r0, k: inner, n: mg}, field[:(r1-r0)*inner], weights, sum[:(r1-r0)*mg])
			for r := r0; r < r1; r++ {
				n, lin := r/positions, r%positions
				for m := range mg {
					out[(n*M+gi*mg+m)*positions+lin] = sum[(r-r0)*mg+m]
				}
			}
		}
	}
}

// rowMajorStrides is each axis's element stride in a row-major array.
func rowMajorStrides(shape []int) []int {
	s := make([]int, len(shape))
	acc := 1
	for i := len(shape) - 1; i >= 0; i-- {
		s[i] = acc
		acc *= shape[i]
	}
	return s
}
