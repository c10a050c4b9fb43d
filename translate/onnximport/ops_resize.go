package onnximport

import (
	"math"
	"slices"

	"github.com/ipuir/ipuir/internal/rowmajor"
	"github.com/ipuir/ipuir/translate/onnximport/onnxpb"
)

// pick is x's positions idx along axis, in order: runs of consecutive
// positions become one slice each, a repeated position the same slice, and
// the pieces one concatenation (exact for any value, Inf and NaN too).
func (im *importer) pick(x *value, axis int, idx []int64) (*value, error) {
	if len(idx) == 0 {
		shape := slices.Clone(x.shape)
		shape[axis] = 0
		return splat(x.elem, shape, 0), nil
	}
	if len(idx) > maxKernelOffsets*16 {
		return nil, im.fail("%d positions taken along an axis (the importer takes %d)", len(idx), maxKernelOffsets*16)
	}
	if x.konst != nil {
		shape := slices.Clone(x.shape)
		shape[axis] = int64(len(idx))
		out := &value{elem: x.elem, shape: shape, konst: &konst{vals: make([]float64, rowmajor.Elements(shape))}}
		src := make([]int64, len(shape))
		rowmajor.ForEach(shape, func(lin int64, o []int64) {
			copy(src, o)
			src[axis] = idx[o[axis]]
			out.konst.v()[lin] = x.konst.v()[rowmajor.Linear(x.shape, src)]
		})
		return out, nil
	}
	type run struct{ start, count int64 }
	seen := map[run]*value{}
	var parts []*value
	for i := 0; i < len(idx); {
		j := i + 1
		for j < len(idx) && idx[j] == idx[j-1]+1 {
			j++
		}
		r := run{idx[i], int64(j - i)}
		p := seen[r]
		if p == nil {
			var err error
			if p, err = im.along(x, axis, r.start, r.count, 1); err != nil {
				return nil, err
			}
			seen[r] = p
		}
		parts = append(parts, p)
		i = j
	}
	if len(parts) == 1 {
		return parts[0], nil
	}
	return im.concatValues(parts, int64(axis))
}

// resampleAxis is x with axis mapped through the matrix r[i][o], the
// weight of input position i in output position o: x moved last, one
// matmul by r as a constant, moved back.
func (im *importer) resampleAxis(x *value, axis int, r [][]float64) (*value, error) {
	in, out := int64(len(r)), int64(len(r[0]))
	rank := len(x.shape)
	perm := make([]int64, 0, rank)
	for i := range rank {
		if i != axis {
			perm = append(perm, int64(i))
		}
	}
	perm = append(perm, int64(axis))
	moved, err := im.transposeValue(x, perm)
	if err != nil {
		return nil, err
	}
	rows := rowmajor.Elements(moved.shape[:rank-1])
	flat, err := im.reshapeValue(moved, []int64{rows, in})
	if err != nil {
		return nil, err
	}
	m := &value{elem: x.elem, shape: []int64{in, out}, konst: &konst{vals: make([]float64, in*out)}}
	for i := range in {
		for o := range out {
			m.konst.v()[i*out+o] = round(x.elem, r[i][o])
		}
	}
	y, err := im.matmulValues(flat, m)
	if err != nil {
		return nil, err
	}
	shape := slices.Clone(moved.shape)
	shape[rank-1] = out
	if y, err = im.reshapeValue(y, shape); err != nil {
		return nil, err
	}
	back := make([]int64, rank)
	for i, p := range perm {
		back[p] = int64(i)
	}
	return im.transposeValue(y, back)
}

// resizeSpec is how Resize or Upsample maps output positions to input
// ones on every axis.
type resizeSpec struct {
	mode, transform, nearest string
	cubicA                   float64
	excludeOutside           bool
	extrapolation            float64
	roi                      []float64 // starts then ends, per axis (tf_crop_and_resize)
}

// source is output position o's position in the input of extent in, for
// an output of extent out at scale s along axis k of a rank-r input. As
// ONNX defines them, the modes that scale by the output's length take it
// unrounded, in·s (out itself when sizes are given).
func (sp *resizeSpec) source(o, in, out int64, s float64, k, r int) float64 {
	x := float64(o)
	length := float64(in) * s
	switch sp.transform {
	case "half_pixel":
		return (x+0.5)/s - 0.5
	case "half_pixel_symmetric":
		adj := float64(out) / (s * float64(in))
		center := float64(in) / 2
		offset := center * (1 - adj)
		return offset + (x+0.5)/s - 0.5
	case "pytorch_half_pixel":
		if length > 1 {
			return (x+0.5)/s - 0.5
		}
		return 0
	case "align_corners":
		if length == 1 {
			return 0
		}
		return x * float64(in-1) / (length - 1)
	case "tf_half_pixel_for_nn":
		return (x + 0.5) / s
	case "tf_crop_and_resize":
		start, end := sp.roi[k], sp.roi[r+k]
		if length > 1 {
			return start*float64(in-1) + x*(end-start)*float64(in-1)/(length-1)
		}
		return 0.5 * (start + end) * float64(in-1)
	}
	return x / s // asymmetric
}

// matrix is the [in][out] weights of one axis, or for nearest the input
// position of each output (nil weights); outside marks outputs that take
// the extrapolation value (tf_crop_and_resize).
func (sp *resizeSpec) matrix(in, out int64, s float64, k, r int) (w [][]float64, pos []int64, outside []bool) {
	outside = make([]bool, out)
	if sp.mode == "nearest" {
		pos = make([]int64, out)
	} else {
		w = make([][]float64, in)
		for i := range w {
			w[i] = make([]float64, out)
		}
	}
	for o := range out {
		x := sp.source(o, in, out, s, k, r)
		if sp.transform == "tf_crop_and_resize" && (x < 0 || x > float64(in-1)) {
			outside[o] = true
			if pos != nil {
				pos[o] = 0
			}
			continue
		}
		switch sp.mode {
		case "nearest":
			var i float64
			switch sp.nearest {
			case "floor":
				i = math.Floor(x)
			case "ceil":
				i = math.Ceil(x)
			case "round_prefer_ceil":
				i = math.Floor(x + 0.5)
			default: // round_prefer_floor
				i = math.Ceil(x - 0.5)
			}
			pos[o] = min(max(int64(i), 0), in-1)
		case "linear":
			x = min(max(x, 0), float64(in-1))
			i0 := int64(math.Floor(x))
			i1 := min(i0+1, in-1)
			t := x - float64(i0)
			w[i0][o] += 1 - t
			w[i1][o] += t
		case "cubic":
			i0 := int64(math.Floor(x))
			t := x - float64(i0)
			a := sp.cubicA
			taps := [4]float64{
				((a*(t+1)-5*a)*(t+1)+8*a)*(t+1) - 4*a,
				((a+2)*t-(a+3))*t*t + 1,
				((a+2)*(1-t)-(a+3))*(1-t)*(1-t) + 1,
				((a*(2-t)-5*a)*(2-t)+8*a)*(2-t) - 4*a,
			}
			sum := 0.0
			for j, c := range taps {
				p := i0 - 1 + int64(j)
				if sp.excludeOutside && (p < 0 || p >= in) {
					taps[j] = 0
					continue
				}
				sum += c
			}
			for j, c := range taps {
				if c == 0 {
					continue
				}
				if sp.excludeOutside {
					c /= sum
				}
				p := min(max(i0-1+int64(j), 0), in-1)
				w[p][o] += c
			}
		}
	}
	return w, pos, outside
}

// resize is Resize (opset 10 on) and Upsample (7 to 9): per axis, nearest
// positions as slices of the input (exact), or linear and cubic weights as
// a matmul by a constant matrix; the axes one after another (both
// interpolations are separable).
func (im *importer) resize(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	r := len(x.shape)
	if !x.elem.IsFloat() {
		return im.fail("resizing an %v tensor", x.elem)
	}
	str := func(name, def string) string {
		if a := im.typedAttr(n, name, onnxpb.AttributeProto_STRING); a != nil {
			return string(a.GetS())
		}
		return def
	}
	sp := &resizeSpec{mode: str("mode", "nearest"), transform: str("coordinate_transformation_mode", "half_pixel"),
		nearest: str("nearest_mode", "round_prefer_floor"), cubicA: im.attrFloat(n, "cubic_coeff_a", -0.75),
		excludeOutside: im.attrInt(n, "exclude_outside", 0) != 0, extrapolation: im.attrFloat(n, "extrapolation_value", 0)}
	var scales []float64
	var sizes []int64
	switch {
	case n.GetOpType() == "Upsample" || im.opset < 11:
		// Upsample and Resize-10: scales (an attribute before opset 9),
		// asymmetric coordinates, nearest rounds down.
		sp.transform, sp.nearest = "asymmetric", "floor"
		if sp.mode == "bilinear" {
			sp.mode = "linear"
		}
		if a := im.typedAttr(n, "scales", onnxpb.AttributeProto_FLOATS); a != nil {
			for _, f := range a.GetFloats() {
				scales = append(scales, float64(f))
			}
		} else if v := in[1]; v != nil {
			if v.konst == nil {
				return im.needsValue(v, "the scales")
			}
			scales = v.konst.v()
		}
	default:
		if v := in[1]; v != nil && sp.transform == "tf_crop_and_resize" {
			if v.konst == nil {
				return im.needsValue(v, "the roi")
			}
			sp.roi = v.konst.v()
		}
		if v := in[2]; v != nil && len(v.shape) > 0 && rowmajor.Elements(v.shape) > 0 {
			if v.konst == nil {
				return im.needsValue(v, "the scales")
			}
			scales = v.konst.v()
		}
		if v := in[3]; v != nil {
			if v.konst == nil {
				return im.needsValue(v, "the sizes")
			}
			for _, f := range v.konst.v() {
				sizes = append(sizes, int64(f))
			}
		}
	}
	if attr(n, "axes") != nil || im.attrInt(n, "antialias", 0) != 0 || str("keep_aspect_ratio_policy", "stretch") != "stretch" {
		return im.fail("axes, antialias and keep_aspect_ratio_policy are not supported")
	}
	if (scales == nil) == (sizes == nil) {
		return im.fail("exactly one of scales and sizes must be given")
	}
	if len(scales) != r && len(sizes) != r {
		return im.fail("scales %v, sizes %v for a rank-%d input", scales, sizes, r)
	}
	switch sp.mode {
	case "nearest", "linear", "cubic":
	default:
		return im.fail("mode '%s' (nearest, linear or cubic)", sp.mode)
	}
	if sp.transform == "tf_crop_and_resize" && len(sp.roi) != 2*r {
		return im.fail("tf_crop_and_resize needs a roi of %d values", 2*r)
	}
	v := x
	for k := range r {
		inExt := x.shape[k]
		var out int64
		var s float64
		if scales != nil {
			s = scales[k]
			if !(s > 0) || math.IsInf(s, 0) {
				return im.fail("scale %g on axis %d", s, k)
			}
			out = int64(math.Floor(float64(inExt) * s))
		} else {
			out = sizes[k]
			if out < 0 {
				return im.fail("size %d on axis %d", out, k)
			}
			if inExt > 0 {
				s = float64(out) / float64(inExt)
			}
		}
		if out == inExt && s == 1 && sp.transform != "tf_crop_and_resize" {
			continue
		}
		if out > maxKernelOffsets*16 || inExt == 0 {
			return im.fail("resizing axis %d from %d to %d", k, inExt, out)
		}
		w, pos, outside := sp.matrix(inExt, out, s, k, r)
		var err error
		if pos != nil {
			v, err = im.pick(v, k, pos)
		} else {
			v, err = im.resampleAxis(v, k, w)
		}
		if err != nil {
			return err
		}
		if slices.Contains(outside, true) {
			// Outputs outside the roi take the extrapolation value; the
			// mapping is monotone, so they are a prefix and a suffix,
			// replaced by constants.
			lo := int64(slices.Index(outside, false))
			hi := out
			for hi > 0 && outside[hi-1] {
				hi--
			}
			if lo < 0 {
				lo, hi = 0, 0
			}
			if slices.Contains(outside[lo:hi], true) {
				return im.fail("tf_crop_and_resize: positions outside the roi between ones inside")
			}
			parts := []*value{}
			fill := func(count int64) {
				shape := slices.Clone(v.shape)
				shape[k] = count
				parts = append(parts, splat(v.elem, shape, round(x.elem, sp.extrapolation)))
			}
			if lo > 0 {
				fill(lo)
			}
			if hi > lo {
				inside, err := im.along(v, k, lo, hi-lo, 1)
				if err != nil {
					return err
				}
				parts = append(parts, inside)
			}
			if hi < out {
				fill(out - hi)
			}
			if v, err = im.concatValues(parts, int64(k)); err != nil {
				return err
			}
		}
	}
	return im.out(n, v)
}
