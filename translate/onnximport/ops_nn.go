package onnximport

import (
	"math"
	"slices"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/internal/rowmajor"
	"github.com/ipuir/ipuir/translate/onnximport/onnxpb"
)

// The operators of convolutional networks, composed from the tensor
// dialect's ops: a convolution is im2col (one strided slice of the padded,
// channels-last input per kernel offset, concatenated) and one matmul per
// group, so that the planner tiles it as any matmul; pooling is the
// elementwise maximum or sum of the same slices; the normalisations are
// reductions and elementwise arithmetic.

// maxKernelOffsets bounds the slices a convolution or pooling window
// becomes (an 11×11 kernel is 121).
const maxKernelOffsets = 4096

// transposeValue permutes x's axes: folded when x is known.
func (im *importer) transposeValue(x *value, perm []int64) (*value, error) {
	r := len(x.shape)
	shape := make([]int64, r)
	identity := true
	for i, p := range perm {
		shape[i] = x.shape[p]
		identity = identity && p == int64(i)
	}
	if identity {
		return x, nil
	}
	if x.konst != nil {
		out := &value{elem: x.elem, shape: shape, konst: &konst{vals: make([]float64, len(x.konst.v()))}}
		src := make([]int64, r)
		rowmajor.ForEach(shape, func(lin int64, idx []int64) {
			for i, p := range perm {
				src[p] = idx[i]
			}
			out.konst.v()[lin] = x.konst.v()[rowmajor.Linear(x.shape, src)]
		})
		return out, nil
	}
	s, err := im.use(x)
	if err != nil {
		return nil, err
	}
	return im.emit(x.elem, shape, "tensor.transpose %s permutation = %s : %s -> %s", s, ints(perm), tensorType(x.elem, x.shape), tensorType(x.elem, shape)), nil
}

// along is a slice of x along one axis: count positions from start, step
// apart.
func (im *importer) along(x *value, axis int, start, count, step int64) (*value, error) {
	r := len(x.shape)
	offsets, sizes, strides := make([]int64, r), slices.Clone(x.shape), make([]int64, r)
	for i := range strides {
		strides[i] = 1
	}
	offsets[axis], sizes[axis], strides[axis] = start, count, step
	return im.sliceValue(x, offsets, sizes, strides)
}

// padValue pads x by before[i] and after[i] positions on axis i (negative
// counts crop) in mode "constant" (fill), "edge", "reflect" or "wrap".
func (im *importer) padValue(x *value, before, after []int64, mode string, fill float64) (*value, error) {
	v := x
	for axis := range x.shape {
		b, a := before[axis], after[axis]
		if b == 0 && a == 0 {
			continue
		}
		d := v.shape[axis]
		// Crops first: ONNX's negative pads remove positions.
		if b < 0 || a < 0 {
			lo, hi := max(-b, 0), d-max(-a, 0)
			if hi < lo {
				return nil, im.fail("pads %d and %d crop an axis of %d below nothing", b, a, d)
			}
			var err error
			if v, err = im.along(v, axis, lo, hi-lo, 1); err != nil {
				return nil, err
			}
			d = hi - lo
			b, a = max(b, 0), max(a, 0)
		}
		if b == 0 && a == 0 {
			continue
		}
		if mode != "constant" && d == 0 {
			return nil, im.fail("%s padding of an empty axis", mode)
		}
		if (mode == "reflect" && (b >= d || a >= d)) || (mode == "wrap" && (b > d || a > d)) {
			return nil, im.fail("%s padding of %d and %d on an axis of %d", mode, b, a, d)
		}
		if b+a > maxKernelOffsets && mode != "constant" {
			return nil, im.fail("%s padding of %d positions (the importer takes %d)", mode, b+a, maxKernelOffsets)
		}
		unit := func(i int64) (*value, error) { return im.along(v, axis, i, 1, 1) }
		var parts, tail []*value
		switch mode {
		case "constant":
			shape := slices.Clone(v.shape)
			if b > 0 {
				shape[axis] = b
				if err := im.foldable(shape, 1); err != nil {
					return nil, err
				}
				parts = append(parts, splat(v.elem, shape, fill))
			}
			if a > 0 {
				shape = slices.Clone(v.shape)
				shape[axis] = a
				if err := im.foldable(shape, 1); err != nil {
					return nil, err
				}
				tail = append(tail, splat(v.elem, shape, fill))
			}
		case "edge":
			first, err := unit(0)
			if err != nil {
				return nil, err
			}
			last, err := unit(d - 1)
			if err != nil {
				return nil, err
			}
			for range b {
				parts = append(parts, first)
			}
			for range a {
				tail = append(tail, last)
			}
		case "reflect":
			for i := b; i >= 1; i-- {
				u, err := unit(i)
				if err != nil {
					return nil, err
				}
				parts = append(parts, u)
			}
			for i := int64(1); i <= a; i++ {
				u, err := unit(d - 1 - i)
				if err != nil {
					return nil, err
				}
				tail = append(tail, u)
			}
		case "wrap":
			if b > 0 {
				s, err := im.along(v, axis, d-b, b, 1)
				if err != nil {
					return nil, err
				}
				parts = append(parts, s)
			}
			if a > 0 {
				s, err := im.along(v, axis, 0, a, 1)
				if err != nil {
					return nil, err
				}
				tail = append(tail, s)
			}
		default:
			return nil, im.fail("pad mode '%s' (constant, edge, reflect or wrap)", mode)
		}
		var err error
		if v, err = im.concatValues(append(append(parts, v), tail...), int64(axis)); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// pad is Pad: pads, the fill value and (from opset 18) the axes as
// inputs from opset 11, the pads and value as attributes before.
func (im *importer) pad(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	r := len(x.shape)
	mode := "constant"
	if a := im.typedAttr(n, "mode", onnxpb.AttributeProto_STRING); a != nil {
		mode = string(a.GetS())
	}
	var pads []int64
	fill := 0.0
	if im.opset < 11 {
		a := im.typedAttr(n, "pads", onnxpb.AttributeProto_INTS)
		if a == nil {
			a = im.typedAttr(n, "paddings", onnxpb.AttributeProto_INTS)
		}
		if a == nil {
			return im.fail("no pads")
		}
		pads = a.GetInts()
		fill = im.attrFloat(n, "value", 0)
	} else {
		var ok bool
		var err error
		if pads, ok, err = im.ints(n, 1, ""); err != nil {
			return err
		} else if !ok {
			return im.fail("no pads")
		}
		if v := in[2]; v != nil {
			if v.konst == nil {
				return im.needsValue(v, "the constant value")
			}
			if len(v.konst.v()) != 1 {
				return im.fail("a constant value of shape %v", v.shape)
			}
			fill = v.konst.v()[0]
		}
	}
	axes := make([]int64, r)
	for i := range axes {
		axes[i] = int64(i)
	}
	if len(in) > 3 && in[3] != nil {
		given, _, err := im.ints(n, 3, "")
		if err != nil {
			return err
		}
		axes = given
	}
	if len(pads) != 2*len(axes) {
		return im.fail("%d pads for %d axes", len(pads), len(axes))
	}
	before, after := make([]int64, r), make([]int64, r)
	for i, a := range axes {
		k, err := im.axis(a, r)
		if err != nil {
			return err
		}
		before[k], after[k] = pads[i], pads[len(axes)+i]
	}
	v, err := im.padValue(x, before, after, mode, round(x.elem, fill))
	if err != nil {
		return err
	}
	return im.out(n, v)
}

// window is the geometry of a convolution or pooling over a rank-r input
// [N, C, spatial...]: per spatial axis the kernel extent, stride,
// dilation, padding and output extent.
type window struct {
	kernel, strides, dilations, padBefore, padAfter, out []int64
}

// offsets is the number of kernel positions.
func (w *window) offsets() int64 { return rowmajor.Elements(w.kernel) }

// windowOf reads a node's kernel_shape (or kernel, the weight's spatial
// extents), strides, dilations, pads and auto_pad for input spatial
// extents in; ceil rounds the output extent up (pooling's ceil_mode).
func (im *importer) windowOf(n *onnxpb.NodeProto, in, kernel []int64, ceil bool) (*window, error) {
	sp := len(in)
	ones := func() []int64 {
		o := make([]int64, sp)
		for i := range o {
			o[i] = 1
		}
		return o
	}
	w := &window{kernel: kernel, strides: ones(), dilations: ones(), padBefore: make([]int64, sp), padAfter: make([]int64, sp), out: make([]int64, sp)}
	if a := im.typedAttr(n, "kernel_shape", onnxpb.AttributeProto_INTS); a != nil {
		if kernel != nil && !slices.Equal(a.GetInts(), kernel) {
			return nil, im.fail("kernel_shape %v, but the weight's kernel is %v", a.GetInts(), kernel)
		}
		w.kernel = a.GetInts()
	}
	if len(w.kernel) != sp {
		return nil, im.fail("a kernel of %d dimensions for %d spatial dimensions", len(w.kernel), sp)
	}
	for name, dst := range map[string][]int64{"strides": w.strides, "dilations": w.dilations} {
		if a := im.typedAttr(n, name, onnxpb.AttributeProto_INTS); a != nil {
			if len(a.GetInts()) != sp {
				return nil, im.fail("%s %v for %d spatial dimensions", name, a.GetInts(), sp)
			}
			copy(dst, a.GetInts())
		}
	}
	if a := im.typedAttr(n, "pads", onnxpb.AttributeProto_INTS); a != nil {
		if len(a.GetInts()) != 2*sp {
			return nil, im.fail("pads %v for %d spatial dimensions", a.GetInts(), sp)
		}
		copy(w.padBefore, a.GetInts()[:sp])
		copy(w.padAfter, a.GetInts()[sp:])
	}
	autoPad := "NOTSET"
	if a := im.typedAttr(n, "auto_pad", onnxpb.AttributeProto_STRING); a != nil {
		autoPad = string(a.GetS())
	}
	for i := range sp {
		k, s, d := w.kernel[i], w.strides[i], w.dilations[i]
		if k < 1 || s < 1 || d < 1 || w.padBefore[i] < 0 || w.padAfter[i] < 0 {
			return nil, im.fail("kernel %v, strides %v, dilations %v, pads %v and %v: extents and steps are at least 1, pads at least 0", w.kernel, w.strides, w.dilations, w.padBefore, w.padAfter)
		}
		span := (k-1)*d + 1
		switch autoPad {
		case "NOTSET", "":
		case "VALID":
			w.padBefore[i], w.padAfter[i] = 0, 0
		case "SAME_UPPER", "SAME_LOWER":
			out := (in[i] + s - 1) / s
			total := max(0, (out-1)*s+span-in[i])
			w.padBefore[i], w.padAfter[i] = total/2, total-total/2
			if autoPad == "SAME_LOWER" {
				w.padBefore[i], w.padAfter[i] = total-total/2, total/2
			}
		default:
			return nil, im.fail("auto_pad '%s' (NOTSET, VALID, SAME_UPPER or SAME_LOWER)", autoPad)
		}
		padded := in[i] + w.padBefore[i] + w.padAfter[i]
		if padded < span {
			return nil, im.fail("a window of %d on a padded extent of %d", span, padded)
		}
		w.out[i] = (padded-span)/s + 1
		if ceil && (padded-span)%s != 0 {
			w.out[i]++
			// The last window must start inside the input or its left
			// padding (as PyTorch and ONNX Runtime count it).
			if (w.out[i]-1)*s >= in[i]+w.padBefore[i] {
				w.out[i]--
			}
		}
	}
	limit := w.offsets() // a conv: its decomposition slices once per kernel position
	if kernel == nil {
		limit = 0 // pooling: a slice per kernel extent, axis by axis
		for _, k := range w.kernel {
			limit += k
		}
	}
	if limit > maxKernelOffsets {
		return nil, im.fail("a kernel of %v positions (the importer takes %d)", w.kernel, maxKernelOffsets)
	}
	return w, nil
}

// conv is Conv: tensor.conv (with the bias added after it), a
// BatchNormalization alone reading it folded into its weight and bias.
func (im *importer) conv(n *onnxpb.NodeProto, in []*value) error {
	x, w, b := in[0], in[1], in[2]
	r := len(x.shape)
	if r < 3 || len(w.shape) != r {
		return im.fail("a convolution of a rank-%d input by a rank-%d weight (both [N, C, spatial...] and [M, C/group, kernel...])", r, len(w.shape))
	}
	if !x.elem.IsFloat() || w.elem != x.elem {
		return im.fail("a convolution of %v by %v", x.elem, w.elem)
	}
	g := im.attrInt(n, "group", 1)
	C, M := x.shape[1], w.shape[0]
	if g < 1 || C%g != 0 || M%g != 0 || w.shape[1] != C/g {
		return im.fail("group %d with %d input channels, a weight of %v", g, C, w.shape)
	}
	win, err := im.windowOf(n, x.shape[2:], w.shape[2:], false)
	if err != nil {
		return err
	}
	if fw, fb, ok := im.foldBatchNorm(n, w, b); ok {
		w, b = fw, fb
	}
	y, err := im.convCore(x, w, b, win, g)
	if err != nil {
		return err
	}
	return im.out(n, y)
}

// foldBatchNorm folds the BatchNormalization that alone reads a Conv's
// output into the Conv's weight w [M, ...] and bias b, when w and the
// statistics are constants: w·a per output channel and (b − mean)·a + B,
// a = scale/√(var + ε). The BatchNormalization node then passes its input
// on (foldedInto).
func (im *importer) foldBatchNorm(n *onnxpb.NodeProto, w, b *value) (*value, *value, bool) {
	if len(n.GetOutput()) == 0 || w.konst == nil || (b != nil && b.konst == nil) {
		return nil, nil, false
	}
	readers := im.consumers[n.GetOutput()[0]]
	if len(readers) != 1 || readers[0] < 0 {
		return nil, nil, false
	}
	bn := im.graph.GetNode()[readers[0]]
	if bn.GetOpType() != "BatchNormalization" || len(bn.GetInput()) < 5 || bn.GetInput()[0] != n.GetOutput()[0] {
		return nil, nil, false
	}
	for _, o := range bn.GetOutput()[1:] {
		if o != "" {
			return nil, nil, false
		}
	}
	if im.attrInt(bn, "training_mode", 0) != 0 || im.opset < 9 && im.attrInt(bn, "spatial", 1) == 0 {
		return nil, nil, false
	}
	M := w.shape[0]
	var params [4][]float64
	for i := range params {
		v := im.values[bn.GetInput()[1+i]]
		if v == nil || v.konst == nil || v.elem != w.elem || rowmajor.Elements(v.shape) != M {
			return nil, nil, false
		}
		params[i] = v.konst.v()
	}
	eps := float64(float32(im.attrFloat(bn, "epsilon", 1e-5)))
	wv := w.konst.v()
	per := int64(len(wv)) / max(M, 1)
	fw := &value{elem: w.elem, shape: w.shape, konst: &konst{vals: make([]float64, len(wv))}}
	fb := &value{elem: w.elem, shape: []int64{M}, konst: &konst{vals: make([]float64, M)}}
	for m := range M {
		a := params[0][m] / math.Sqrt(params[3][m]+eps)
		for k := range per {
			fw.konst.vals[m*per+k] = round(w.elem, wv[m*per+k]*a)
		}
		bias := 0.0
		if b != nil {
			bias = b.konst.v()[m]
		}
		fb.konst.vals[m] = round(w.elem, (bias-params[2][m])*a+params[1][m])
	}
	im.foldedInto[readers[0]] = true
	return fw, fb, true
}

// convCore is the convolution of x [N, C, s...] by w [M, C/g, k...] over
// win (whose pads may be negative: crops) in g groups, as tensor.conv,
// plus the bias b when there is one.
func (im *importer) convCore(x, w, b *value, win *window, g int64) (*value, error) {
	N, M := x.shape[0], w.shape[0]
	xs, err := im.use(x)
	if err != nil {
		return nil, err
	}
	ws, err := im.use(w)
	if err != nil {
		return nil, err
	}
	shape := append([]int64{N, M}, win.out...)
	pads := append(slices.Clone(win.padBefore), win.padAfter...)
	y := im.emit(x.elem, shape, "tensor.conv %s, %s strides = %s dilations = %s pads = %s groups = %d : %s, %s -> %s",
		xs, ws, ints(win.strides), ints(win.dilations), ints(pads), g, tensorType(x.elem, x.shape), tensorType(w.elem, w.shape), tensorType(x.elem, shape))
	if b != nil {
		r := len(x.shape)
		if rowmajor.Elements(b.shape) != M {
			return nil, im.fail("a bias of shape %v for %d output channels", b.shape, M)
		}
		bshape := make([]int64, r-1)
		for i := range bshape {
			bshape[i] = 1
		}
		bshape[0] = M
		c := &calc{im: im}
		y = c.add(y, c.reshape(b, bshape))
		return y, c.err
	}
	return y, nil
}

// convTranspose is ConvTranspose as a convolution: the input with s-1
// zeros between positions (stride s), padded by the kernel's span less
// the pads (negative: cropped), correlated at stride 1 with the kernel
// flipped and its channel axes swapped per group.
func (im *importer) convTranspose(n *onnxpb.NodeProto, in []*value) error {
	x, w, b := in[0], in[1], in[2]
	r := len(x.shape)
	if r < 3 || len(w.shape) != r {
		return im.fail("a transposed convolution of a rank-%d input by a rank-%d weight (both [N, C, spatial...] and [C, M/group, kernel...])", r, len(w.shape))
	}
	if !x.elem.IsFloat() || w.elem != x.elem {
		return im.fail("a transposed convolution of %v by %v", x.elem, w.elem)
	}
	g := im.attrInt(n, "group", 1)
	C := x.shape[1]
	if g < 1 || C%g != 0 || w.shape[0] != C {
		return im.fail("group %d with %d input channels, a weight of %v", g, C, w.shape)
	}
	sp := r - 2
	Cg := C / g
	kernel := w.shape[2:]
	get := func(name string, def int64) ([]int64, error) {
		out := make([]int64, sp)
		for i := range out {
			out[i] = def
		}
		if a := im.typedAttr(n, name, onnxpb.AttributeProto_INTS); a != nil {
			if len(a.GetInts()) != sp {
				return nil, im.fail("%s %v for %d spatial dimensions", name, a.GetInts(), sp)
			}
			copy(out, a.GetInts())
		}
		return out, nil
	}
	strides, err := get("strides", 1)
	if err != nil {
		return err
	}
	dilations, err := get("dilations", 1)
	if err != nil {
		return err
	}
	outPad, err := get("output_padding", 0)
	if err != nil {
		return err
	}
	if a := im.typedAttr(n, "kernel_shape", onnxpb.AttributeProto_INTS); a != nil && !slices.Equal(a.GetInts(), kernel) {
		return im.fail("kernel_shape %v, but the weight's kernel is %v", a.GetInts(), kernel)
	}
	pb, pe := make([]int64, sp), make([]int64, sp)
	if a := im.typedAttr(n, "pads", onnxpb.AttributeProto_INTS); a != nil {
		if len(a.GetInts()) != 2*sp {
			return im.fail("pads %v for %d spatial dimensions", a.GetInts(), sp)
		}
		copy(pb, a.GetInts()[:sp])
		copy(pe, a.GetInts()[sp:])
	}
	autoPad := "NOTSET"
	if a := im.typedAttr(n, "auto_pad", onnxpb.AttributeProto_STRING); a != nil {
		autoPad = string(a.GetS())
	}
	var outShape []int64
	if a := im.typedAttr(n, "output_shape", onnxpb.AttributeProto_INTS); a != nil {
		outShape = a.GetInts()
		if len(outShape) == r {
			outShape = outShape[2:]
		}
		if len(outShape) != sp {
			return im.fail("output_shape %v for %d spatial dimensions", a.GetInts(), sp)
		}
	}
	for i := range sp {
		if strides[i] < 1 || dilations[i] < 1 || kernel[i] < 1 || outPad[i] < 0 {
			return im.fail("kernel %v, strides %v, dilations %v, output_padding %v", kernel, strides, dilations, outPad)
		}
		full := strides[i]*(x.shape[2+i]-1) + outPad[i] + (kernel[i]-1)*dilations[i] + 1
		want := int64(-1)
		switch {
		case outShape != nil:
			want = outShape[i]
		case autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER":
			want = x.shape[2+i] * strides[i]
		case autoPad == "VALID":
			pb[i], pe[i] = 0, 0
		case autoPad != "NOTSET" && autoPad != "":
			return im.fail("auto_pad '%s' (NOTSET, VALID, SAME_UPPER or SAME_LOWER)", autoPad)
		}
		if want >= 0 {
			// A negative total extends the output past the last input
			// position (with the bias alone), as ONNX Runtime does.
			total := full - want
			pb[i], pe[i] = total-total/2, total/2
			if autoPad == "SAME_UPPER" || outShape != nil && autoPad != "SAME_LOWER" {
				pb[i], pe[i] = total/2, total-total/2
			}
		}
	}
	// x with s-1 zeros after each position but the last, per axis.
	xz := x
	for i := range sp {
		s, axis := strides[i], 2+i
		if s == 1 {
			continue
		}
		if xz, err = im.zeroInsert(xz, axis, s); err != nil {
			return err
		}
	}
	// The kernel flipped on every spatial axis, [C, M/g, k...] →
	// [M, C/g, k...] (each group's block transposed).
	wf := w
	for i := range sp {
		if wf, err = im.reverse(wf, 2+i); err != nil {
			return err
		}
	}
	swap := make([]int64, r)
	for i := range swap {
		swap[i] = int64(i)
	}
	swap[0], swap[1] = 1, 0
	var blocks []*value
	for gi := range g {
		blk, err := im.along(wf, 0, gi*Cg, Cg, 1)
		if err != nil {
			return err
		}
		if blk, err = im.transposeValue(blk, swap); err != nil {
			return err
		}
		blocks = append(blocks, blk)
	}
	wc := blocks[0]
	if g > 1 {
		if wc, err = im.concatValues(blocks, 0); err != nil {
			return err
		}
	}
	win := &window{kernel: kernel, strides: make([]int64, sp), dilations: dilations, padBefore: make([]int64, sp), padAfter: make([]int64, sp), out: make([]int64, sp)}
	for i := range sp {
		span := (kernel[i]-1)*dilations[i] + 1
		win.strides[i] = 1
		win.padBefore[i] = span - 1 - pb[i]
		win.padAfter[i] = span - 1 - pe[i] + outPad[i]
		padded := xz.shape[2+i] + win.padBefore[i] + win.padAfter[i]
		if padded < span {
			return im.fail("pads %v and %v leave no output on axis %d", pb, pe, i)
		}
		win.out[i] = padded - span + 1
	}
	if win.offsets() > maxKernelOffsets {
		return im.fail("a kernel of %v positions (the importer takes %d)", kernel, maxKernelOffsets)
	}

	y, err := im.convCore(xz, wc, b, win, g)
	if err != nil {
		return err
	}
	return im.out(n, y)
}

// zeroInsert puts s-1 zeros after each position of x along axis but the
// last: [.., I, ..] → [.., (I-1)·s+1, ..].
func (im *importer) zeroInsert(x *value, axis int, s int64) (*value, error) {
	d := x.shape[axis]
	if d == 0 {
		return x, nil
	}
	split := slices.Insert(slices.Clone(x.shape), axis+1, 1)
	u, err := im.reshapeValue(x, split)
	if err != nil {
		return nil, err
	}
	zshape := slices.Clone(split)
	zshape[axis+1] = s - 1
	if err := im.foldable(zshape, 1); err != nil {
		return nil, err
	}
	j, err := im.concatValues([]*value{u, splat(x.elem, zshape, 0)}, int64(axis+1))
	if err != nil {
		return nil, err
	}
	wide := slices.Clone(x.shape)
	wide[axis] = d * s
	if j, err = im.reshapeValue(j, wide); err != nil {
		return nil, err
	}
	return im.along(j, axis, 0, (d-1)*s+1, 1)
}

// pool is MaxPool or AveragePool (kind "max" or "avg"): the maximum or
// the sum of each kernel position's strided slice of the padded input, the
// sum divided by the count of positions each window covers (padding
// included with count_include_pad; never the positions ceil_mode adds).
func pool(kind string) func(*importer, *onnxpb.NodeProto, []*value) error {
	return func(im *importer, n *onnxpb.NodeProto, in []*value) error {
		x := in[0]
		r := len(x.shape)
		if r < 3 || !x.elem.IsFloat() {
			return im.fail("pooling of a rank-%d %v input (a float [N, C, spatial...] one)", r, x.elem)
		}
		withIndices := kind == "max" && len(n.GetOutput()) > 1 && n.GetOutput()[1] != ""
		if so := im.attrInt(n, "storage_order", 0); withIndices && so != 0 && so != 1 {
			return im.fail("storage_order = %d (0, row major, or 1, column major)", so)
		}
		if im.typedAttr(n, "kernel_shape", onnxpb.AttributeProto_INTS) == nil {
			return im.fail("no kernel_shape")
		}
		win, err := im.windowOf(n, x.shape[2:], nil, im.attrInt(n, "ceil_mode", 0) != 0)
		if err != nil {
			return err
		}
		sp := r - 2
		// ceil_mode's last window may run past the padding: pad for it
		// too, with what never wins (max) or adds nothing (avg).
		before, after, extra := make([]int64, r), make([]int64, r), make([]int64, sp)
		for i := range sp {
			in := x.shape[2+i]
			extra[i] = max(0, (win.out[i]-1)*win.strides[i]+(win.kernel[i]-1)*win.dilations[i]+1-(in+win.padBefore[i]+win.padAfter[i]))
			before[2+i], after[2+i] = win.padBefore[i], win.padAfter[i]+extra[i]
		}
		fill := 0.0
		if kind == "max" {
			fill = math.Inf(-1)
		}
		xp, err := im.padValue(x, before, after, "constant", fill)
		if err != nil {
			return err
		}
		// The window is separable: a maximum (or a sum) over a box is the
		// one over each axis in turn, so a k1×k2 window is k1 + k2
		// strided slices, not k1·k2.
		c := &calc{im: im}
		if withIndices {
			return im.maxPoolWithIndices(c, n, x, xp, win)
		}
		acc := xp
		for i := range sp {
			var line *value
			for j := range win.kernel[i] {
				s, err := im.along(acc, 2+i, j*win.dilations[i], win.out[i], win.strides[i])
				if err != nil {
					return err
				}
				switch {
				case line == nil:
					line = s
				case kind == "max":
					line = c.max(line, s)
				default:
					line = c.add(line, s)
				}
			}
			if c.err != nil {
				return c.err
			}
			acc = line
		}
		if kind == "max" {
			return c.done(n, acc)
		}
		// The divisor of each output position: the window's positions
		// inside the input, or inside the padded input.
		includePad := im.attrInt(n, "count_include_pad", 0) != 0
		counts := &value{elem: x.elem, shape: append([]int64{1, 1}, win.out...), konst: &konst{vals: make([]float64, rowmajor.Elements(win.out))}}
		uniform := true
		rowmajor.ForEach(win.out, func(lin int64, o []int64) {
			count := 1.0
			for i := range sp {
				lo, hi := int64(0), x.shape[2+i]
				if includePad {
					lo, hi = -win.padBefore[i], x.shape[2+i]+win.padAfter[i]
				}
				k := 0
				for j := range win.kernel[i] {
					p := o[i]*win.strides[i] - win.padBefore[i] + j*win.dilations[i]
					if p >= lo && p < hi {
						k++
					}
				}
				count *= float64(k)
			}
			counts.konst.v()[lin] = count
			uniform = uniform && count == counts.konst.v()[0]
		})
		divisor := counts
		if uniform {
			divisor = splat(x.elem, nil, counts.konst.v()[0])
		}
		return c.done(n, c.div(acc, divisor))
	}
}

// globalPool is GlobalAveragePool or GlobalMaxPool: a reduction over the
// spatial axes, kept as 1.
func globalPool(kind string) func(*importer, *onnxpb.NodeProto, []*value) error {
	return func(im *importer, n *onnxpb.NodeProto, in []*value) error {
		x := in[0]
		if len(x.shape) < 3 {
			return im.fail("global pooling of a rank-%d input ([N, C, spatial...])", len(x.shape))
		}
		var axes []int64
		count := int64(1)
		for i := 2; i < len(x.shape); i++ {
			axes = append(axes, int64(i))
			count *= x.shape[i]
		}
		c := &calc{im: im}
		if kind == "max" {
			return c.done(n, c.reduce(x, axes, "max", true))
		}
		return c.done(n, c.mul(c.reduce(x, axes, "sum", true), c.k(x, 1/float64(max(count, 1)))))
	}
}

// channelParam is p, one value per channel of a rank-r [N, C, ...] input,
// shaped [C, 1, ...] to broadcast along the channel axis.
func (im *importer) channelParam(p *value, r int, channels int64, what string) (*value, error) {
	if rowmajor.Elements(p.shape) != channels {
		return nil, im.fail("%s of shape %v for %d channels", what, p.shape, channels)
	}
	shape := make([]int64, r-1)
	for i := range shape {
		shape[i] = 1
	}
	shape[0] = channels
	return im.reshapeValue(p, shape)
}

// batchNorm is BatchNormalization in inference: x·a + b per channel with
// a = scale/√(var+ε) and b = B - mean·a, folded when the statistics are
// constants (as exporters write them).
func (im *importer) batchNorm(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	if im.foldedInto[im.index] {
		// Folded into the Conv it reads (foldBatchNorm).
		return im.out(n, x)
	}
	if im.attrInt(n, "training_mode", 0) != 0 {
		return im.fail("training_mode = 1; the importer compiles inference")
	}
	for _, o := range n.GetOutput()[1:] {
		if o != "" && im.opset >= 9 {
			return im.fail("output '%s': running statistics are outputs of training; the importer compiles inference", o)
		}
	}
	if len(x.shape) < 2 {
		return im.fail("a rank-%d input ([N, C, ...])", len(x.shape))
	}
	eps := float64(float32(im.attrFloat(n, "epsilon", 1e-5)))
	C := x.shape[1]
	r := len(x.shape)
	params := make([]*value, 4)
	if im.opset < 9 && im.attrInt(n, "spatial", 1) == 0 {
		// Per activation, not per channel: each parameter is [C, D...].
		copy(params, in[1:5])
	} else {
		for i, what := range []string{"the scale", "the bias", "the mean", "the variance"} {
			p, err := im.channelParam(in[1+i], r, C, what)
			if err != nil {
				return err
			}
			params[i] = p
		}
	}
	scale, bias, mean, variance := params[0], params[1], params[2], params[3]
	c := &calc{im: im}
	a := c.mul(scale, c.un(c.add(variance, c.k(variance, eps)), "rsqrt"))
	v := c.add(c.mul(c.sub(x, mean), a), bias)
	if scale.konst != nil && bias.konst != nil && mean.konst != nil && variance.konst != nil {
		v = c.add(c.mul(x, a), c.sub(bias, c.mul(mean, a)))
	}
	// Before opset 9 a graph may name the training outputs; they are not
	// computed in inference (is_test), and nothing may read them.
	outs := n.GetOutput()
	if c.err != nil {
		return c.err
	}
	if len(outs) == 0 || outs[0] == "" {
		return im.fail("the node has no output")
	}
	im.values[outs[0]] = v
	return nil
}

// instanceNorm normalises each [n, c] plane over the spatial axes, then
// scales and shifts by channel.
func (im *importer) instanceNorm(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	r := len(x.shape)
	if r < 3 {
		return im.fail("a rank-%d input ([N, C, spatial...])", r)
	}
	scale, err := im.channelParam(in[1], r, x.shape[1], "the scale")
	if err != nil {
		return err
	}
	bias, err := im.channelParam(in[2], r, x.shape[1], "the bias")
	if err != nil {
		return err
	}
	var axes []int64
	for i := 2; i < r; i++ {
		axes = append(axes, int64(i))
	}
	count := float64(rowmajor.Elements(x.shape[2:]))
	eps := float64(float32(im.attrFloat(n, "epsilon", 1e-5)))
	c := &calc{im: im}
	d := c.sub(x, c.mul(c.reduce(x, axes, "sum", true), c.k(x, 1/count)))
	variance := c.mul(c.reduce(c.mul(d, d), axes, "sum", true), c.k(x, 1/count))
	return c.done(n, c.add(c.mul(c.mul(d, c.un(c.add(variance, c.k(x, eps)), "rsqrt")), scale), bias))
}

// layerNorm normalises over the axes from axis on (tensor.layer_norm on
// the input viewed as [outer, inner]); its optional Mean and InvStdDev
// outputs are the statistics, of shape [outer dims..., 1, ...].
func (im *importer) layerNorm(n *onnxpb.NodeProto, in []*value) error {
	x, scale, bias := in[0], in[1], in[2]
	r := len(x.shape)
	axis, err := im.axis(im.attrInt(n, "axis", -1), r)
	if err != nil {
		return err
	}
	inner := x.shape[axis:]
	d := rowmajor.Elements(inner)
	outer := rowmajor.Elements(x.shape[:axis])
	if bias == nil {
		bias = splat(x.elem, []int64{d}, 0)
	}
	var names [2]string
	for i, p := range []*value{scale, bias} {
		full := p
		if !slices.Equal(p.shape, inner) {
			shape, err := im.broadcastShape(inner, p.shape)
			if err != nil || !slices.Equal(shape, inner) {
				return im.fail("a scale or bias of shape %v for normalised axes %v", p.shape, inner)
			}
			s, err := im.broadcastTo(p, inner)
			if err != nil {
				return err
			}
			full = &value{ssa: s, elem: p.elem, shape: slices.Clone(inner)}
			if p.konst != nil {
				full = broadcastKonst(p, inner)
			}
		}
		flat, err := im.reshapeValue(full, []int64{d})
		if err != nil {
			return err
		}
		if names[i], err = im.use(flat); err != nil {
			return err
		}
	}
	view, err := im.reshapeValue(x, []int64{outer, d})
	if err != nil {
		return err
	}
	src, err := im.use(view)
	if err != nil {
		return err
	}
	eps := float64(float32(im.attrFloat(n, "epsilon", 1e-5)))
	pt := tensorType(x.elem, []int64{d})
	y := im.emit(x.elem, view.shape, "tensor.layer_norm %s, %s, %s epsilon = %s : %s, %s, %s -> %s",
		src, names[0], names[1], floatLiteral(eps), tensorType(x.elem, view.shape), pt, pt, tensorType(x.elem, view.shape))
	if y, err = im.reshapeValue(y, x.shape); err != nil {
		return err
	}
	outs := n.GetOutput()
	if len(outs) == 0 || outs[0] == "" {
		return im.fail("the node has no output")
	}
	im.values[outs[0]] = y
	if len(outs) > 1 && (outs[1] != "" || len(outs) > 2 && outs[2] != "") {
		stat := slices.Clone(x.shape)
		for i := axis; i < r; i++ {
			stat[i] = 1
		}
		c := &calc{im: im}
		mean := c.mul(c.reduce(view, []int64{1}, "sum", true), c.k(x, 1/float64(d)))
		dev := c.sub(view, mean)
		variance := c.mul(c.reduce(c.mul(dev, dev), []int64{1}, "sum", true), c.k(x, 1/float64(d)))
		inv := c.un(c.add(variance, c.k(x, eps)), "rsqrt")
		mean, inv = c.reshape(mean, stat), c.reshape(inv, stat)
		if c.err != nil {
			return c.err
		}
		if outs[1] != "" {
			im.values[outs[1]] = mean
		}
		if len(outs) > 2 && outs[2] != "" {
			im.values[outs[2]] = inv
		}
	}
	return nil
}

// tile repeats x along each axis, a concatenation of copies.
func (im *importer) tile(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	if im.opset < 6 {
		return im.fail("Tile before opset 6 takes a count and an axis; the importer takes Tile from opset 6")
	}
	reps, ok, err := im.ints(n, 1, "")
	if err != nil {
		return err
	}
	if !ok || len(reps) != len(x.shape) {
		return im.fail("repeats %v for a rank-%d input", reps, len(x.shape))
	}
	shape := slices.Clone(x.shape)
	for i, k := range reps {
		if k < 0 {
			return im.fail("repeats %v: counts are at least 0", reps)
		}
		shape[i] *= k
	}
	if err := checkShape(shape); err != nil {
		return im.fail("%v", err)
	}
	if x.konst != nil {
		if err := im.foldable(shape, 1); err != nil {
			return err
		}
	}
	v := x
	for axis, k := range reps {
		if k == 1 {
			continue
		}
		if k == 0 {
			s := slices.Clone(v.shape)
			s[axis] = 0
			v = splat(v.elem, s, 0)
			continue
		}
		if k > maxKernelOffsets {
			return im.fail("%d repeats (the importer takes %d)", k, maxKernelOffsets)
		}
		copies := make([]*value, k)
		for i := range copies {
			copies[i] = v
		}
		if v, err = im.concatValues(copies, int64(axis)); err != nil {
			return err
		}
	}
	return im.out(n, v)
}

// maxPoolWithIndices is MaxPool with its second output: each window's
// maximum and the index of its first occurrence in the input (over N and
// C too, as ONNX counts it; the spatial axes row major, or column major
// with storage_order = 1). The window is taken an axis at a
// time from the last, each step a chain of strict comparisons carrying the
// chosen input coordinate of every axis taken so far, so that ties go to
// the first position in row-major order, as a whole-window search would
// find it.
func (im *importer) maxPoolWithIndices(c *calc, n *onnxpb.NodeProto, x, xp *value, win *window) error {
	sp := len(x.shape) - 2
	acc := xp
	coords := make([]*value, sp) // per spatial axis, once taken: the input coordinate
	for i := sp - 1; i >= 0; i-- {
		var best *value
		var carried []*value
		for j := range win.kernel[i] {
			s, err := im.along(acc, 2+i, j*win.dilations[i], win.out[i], win.strides[i])
			if err != nil {
				return err
			}
			var taken []*value
			for a := i + 1; a < sp; a++ {
				v, err := im.along(coords[a], 2+i, j*win.dilations[i], win.out[i], win.strides[i])
				if err != nil {
					return err
				}
				taken = append(taken, v)
			}
			// This offset's coordinate along axis i, o·s − pad + j·d, at
			// every position of the slice (so that later axes slice it).
			if err := im.foldable(s.shape, 1); err != nil {
				return err
			}
			here := &value{elem: elem.I64, shape: slices.Clone(s.shape), konst: &konst{vals: make([]float64, rowmajor.Elements(s.shape))}}
			rowmajor.ForEach(s.shape, func(lin int64, pos []int64) {
				here.konst.v()[lin] = float64(pos[2+i]*win.strides[i] - win.padBefore[i] + j*win.dilations[i])
			})
			if best == nil {
				best, carried = s, append([]*value{here}, taken...)
				continue
			}
			better := c.cmp(best, s, "lt")
			best = c.sel(better, s, best)
			next := append([]*value{here}, taken...)
			for k := range carried {
				carried[k] = c.sel(better, next[k], carried[k])
			}
		}
		if c.err != nil {
			return c.err
		}
		acc = best
		coords[i] = carried[0]
		for k, v := range carried[1:] {
			coords[i+1+k] = v
		}
	}
	// The index: (n·C + c)·D1·D2... plus the spatial position, row major
	// (d1·D2 + d2 ...) or with storage_order = 1 column major (d1 +
	// d2·D1 ...).
	order := make([]int, sp)
	for k := range order {
		order[k] = sp - 1 - k
	}
	if im.attrInt(n, "storage_order", 0) == 1 {
		slices.Reverse(order)
	}
	inner := int64(1)
	var idx *value
	for _, i := range order {
		term := c.mul(coords[i], splat(elem.I64, nil, float64(inner)))
		if idx == nil {
			idx = term
		} else {
			idx = c.add(idx, term)
		}
		inner *= x.shape[2+i]
	}
	nc := &value{elem: elem.I64, shape: []int64{x.shape[0], x.shape[1], 1}, konst: &konst{vals: make([]float64, x.shape[0]*x.shape[1])}}
	for k := range nc.konst.v() {
		nc.konst.v()[k] = float64(int64(k) * inner)
	}
	nc.shape = append(append([]int64{}, x.shape[0], x.shape[1]), make([]int64, sp)...)
	for i := range sp {
		nc.shape[2+i] = 1
	}
	idx = c.add(idx, nc)
	if c.err != nil {
		return c.err
	}
	return im.outputs(n, []*value{acc, idx})
}
