package onnximport

import (
	"slices"
	"strings"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/internal/rowmajor"
	"github.com/ipuir/ipuir/translate/onnximport/onnxpb"
)

// reshapeValue gives x a new shape of as many elements.
func (im *importer) reshapeValue(x *value, shape []int64) (*value, error) {
	if rowmajor.Elements(shape) != rowmajor.Elements(x.shape) {
		return nil, im.fail("cannot reshape %v to %v", x.shape, shape)
	}
	if slices.Equal(shape, x.shape) {
		return x, nil
	}
	if x.konst != nil {
		return &value{elem: x.elem, shape: slices.Clone(shape), konst: x.konst}, nil
	}
	src, err := im.use(x)
	if err != nil {
		return nil, err
	}
	return im.emit(x.elem, shape, "tensor.reshape %s : %s -> %s", src, tensorType(x.elem, x.shape), tensorType(x.elem, shape)), nil
}

func (im *importer) reshapeOp(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	spec, ok, err := im.ints(n, 1, "shape")
	if err != nil {
		return err
	}
	if !ok {
		return im.fail("no target shape")
	}
	allowZero := im.attrInt(n, "allowzero", 0) != 0
	shape := make([]int64, len(spec))
	infer := -1
	known := int64(1)
	for i, d := range spec {
		switch {
		case d == 0 && !allowZero:
			if i >= len(x.shape) {
				return im.fail("shape %v copies dimension %d of a rank-%d input", spec, i, len(x.shape))
			}
			shape[i] = x.shape[i]
		case d == -1:
			if infer >= 0 {
				return im.fail("shape %v has two -1 dimensions", spec)
			}
			infer = i
			continue
		case d < 0:
			return im.fail("shape %v has a negative dimension", spec)
		default:
			shape[i] = d
		}
		known *= shape[i]
	}
	if infer >= 0 {
		if known == 0 || rowmajor.Elements(x.shape)%known != 0 {
			return im.fail("shape %v does not divide the input's %d elements", spec, rowmajor.Elements(x.shape))
		}
		shape[infer] = rowmajor.Elements(x.shape) / known
	}
	if err := checkShape(shape); err != nil {
		return im.fail("%v", err)
	}
	v, err := im.reshapeValue(x, shape)
	if err != nil {
		return err
	}
	return im.out(n, v)
}

func (im *importer) flatten(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	a := im.attrInt(n, "axis", 1)
	if a < 0 {
		a += int64(len(x.shape))
	}
	if a < 0 || a > int64(len(x.shape)) {
		return im.fail("axis %d of a rank-%d tensor", a, len(x.shape))
	}
	v, err := im.reshapeValue(x, []int64{rowmajor.Elements(x.shape[:a]), rowmajor.Elements(x.shape[a:])})
	if err != nil {
		return err
	}
	return im.out(n, v)
}

func (im *importer) unsqueeze(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	axes, ok, err := im.ints(n, 1, "axes")
	if err != nil {
		return err
	}
	if !ok {
		return im.fail("no axes")
	}
	r := len(x.shape) + len(axes)
	at := make([]bool, r)
	for _, a := range axes {
		k, err := im.axis(a, r)
		if err != nil {
			return err
		}
		if at[k] {
			return im.fail("axis %d given twice", a)
		}
		at[k] = true
	}
	shape := make([]int64, 0, r)
	src := 0
	for k := range r {
		if at[k] {
			shape = append(shape, 1)
		} else {
			shape = append(shape, x.shape[src])
			src++
		}
	}
	v, err := im.reshapeValue(x, shape)
	if err != nil {
		return err
	}
	return im.out(n, v)
}

func (im *importer) squeeze(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	axes, ok, err := im.ints(n, 1, "axes")
	if err != nil {
		return err
	}
	drop := make([]bool, len(x.shape))
	for i, d := range x.shape {
		drop[i] = !ok && d == 1
	}
	for _, a := range axes {
		k, err := im.axis(a, len(x.shape))
		if err != nil {
			return err
		}
		if x.shape[k] != 1 {
			return im.fail("axis %d has size %d, not 1", a, x.shape[k])
		}
		drop[k] = true
	}
	var shape []int64
	for i, d := range x.shape {
		if !drop[i] {
			shape = append(shape, d)
		}
	}
	v, err := im.reshapeValue(x, shape)
	if err != nil {
		return err
	}
	return im.out(n, v)
}

func (im *importer) transpose(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	r := len(x.shape)
	perm := make([]int64, r)
	for i := range perm {
		perm[i] = int64(r - 1 - i)
	}
	if a := im.typedAttr(n, "perm", onnxpb.AttributeProto_INTS); a != nil {
		perm = a.GetInts()
	}
	seen := make([]bool, r)
	if len(perm) != r {
		return im.fail("permutation %v of a rank-%d tensor", perm, r)
	}
	shape := make([]int64, r)
	for i, p := range perm {
		if p < 0 || p >= int64(r) || seen[p] {
			return im.fail("permutation %v of a rank-%d tensor", perm, r)
		}
		seen[p] = true
		shape[i] = x.shape[p]
	}
	if x.konst != nil {
		out := &value{elem: x.elem, shape: shape, konst: &konst{vals: make([]float64, len(x.konst.v()))}}
		rowmajor.ForEach(shape, func(lin int64, idx []int64) {
			src := make([]int64, r)
			for i, p := range perm {
				src[p] = idx[i]
			}
			out.konst.v()[lin] = x.konst.v()[rowmajor.Linear(x.shape, src)]
		})
		return im.out(n, out)
	}
	src, err := im.use(x)
	if err != nil {
		return err
	}
	return im.out(n, im.emit(x.elem, shape, "tensor.transpose %s permutation = %s : %s -> %s", src, ints(perm), tensorType(x.elem, x.shape), tensorType(x.elem, shape)))
}

// concatValues joins vs along axis.
func (im *importer) concatValues(vs []*value, a int64) (*value, error) {
	if len(vs) == 0 {
		return nil, im.fail("nothing to concatenate")
	}
	r := len(vs[0].shape)
	axis, err := im.axis(a, r)
	if err != nil {
		return nil, err
	}
	shape := slices.Clone(vs[0].shape)
	shape[axis] = 0
	allKnown := true
	for _, v := range vs {
		if len(v.shape) != r || v.elem != vs[0].elem {
			return nil, im.fail("concatenating %v %v with %v %v", vs[0].elem, vs[0].shape, v.elem, v.shape)
		}
		for i := range r {
			if i != axis && v.shape[i] != vs[0].shape[i] {
				return nil, im.fail("concatenating %v with %v along axis %d", vs[0].shape, v.shape, axis)
			}
		}
		shape[axis] += v.shape[axis]
		allKnown = allKnown && v.konst != nil
	}
	if allKnown {
		out := &value{elem: vs[0].elem, shape: shape, konst: &konst{vals: make([]float64, rowmajor.Elements(shape))}}
		rowmajor.ForEach(shape, func(lin int64, idx []int64) {
			src := slices.Clone(idx)
			for _, v := range vs {
				if src[axis] < v.shape[axis] {
					out.konst.v()[lin] = v.konst.v()[rowmajor.Linear(v.shape, src)]
					return
				}
				src[axis] -= v.shape[axis]
			}
		})
		return out, nil
	}
	names := make([]string, len(vs))
	types := make([]string, len(vs))
	for i, v := range vs {
		if names[i], err = im.use(v); err != nil {
			return nil, err
		}
		types[i] = tensorType(v.elem, v.shape)
	}
	return im.emit(vs[0].elem, shape, "tensor.concat %s axis = %d : %s -> %s", strings.Join(names, ", "), axis, strings.Join(types, ", "), tensorType(vs[0].elem, shape)), nil
}

func (im *importer) concat(n *onnxpb.NodeProto, in []*value) error {
	var vs []*value
	for _, v := range in {
		if rowmajor.Elements(v.shape) == 0 && len(in) > 1 {
			continue // an empty tensor adds nothing
		}
		vs = append(vs, v)
	}
	// The axis is required from opset 4; before, it is 1 by default.
	if a := attr(n, "axis"); a == nil && im.opset >= 4 {
		return im.fail("no axis")
	}
	v, err := im.concatValues(vs, im.attrInt(n, "axis", 1))
	if err != nil {
		return err
	}
	return im.out(n, v)
}

// sliceValue takes x[offsets + strides·i] for i < sizes.
func (im *importer) sliceValue(x *value, offsets, sizes, strides []int64) (*value, error) {
	if x.konst != nil {
		out := &value{elem: x.elem, shape: slices.Clone(sizes), konst: &konst{vals: make([]float64, rowmajor.Elements(sizes))}}
		rowmajor.ForEach(sizes, func(lin int64, idx []int64) {
			src := make([]int64, len(idx))
			for i := range idx {
				src[i] = offsets[i] + strides[i]*idx[i]
			}
			out.konst.v()[lin] = x.konst.v()[rowmajor.Linear(x.shape, src)]
		})
		return out, nil
	}
	if slices.Equal(sizes, x.shape) {
		return x, nil
	}
	src, err := im.use(x)
	if err != nil {
		return nil, err
	}
	return im.emit(x.elem, sizes, "tensor.slice %s offsets = %s sizes = %s strides = %s : %s -> %s", src, ints(offsets), ints(sizes), ints(strides),
		tensorType(x.elem, x.shape), tensorType(x.elem, sizes)), nil
}

func (im *importer) slice(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	starts, ok1, err := im.ints(n, 1, "starts")
	if err != nil {
		return err
	}
	ends, ok2, err := im.ints(n, 2, "ends")
	if err != nil {
		return err
	}
	if !ok1 || !ok2 || len(starts) != len(ends) {
		return im.fail("starts and ends must be constants of one length")
	}
	axes, ok, err := im.ints(n, 3, "axes")
	if err != nil {
		return err
	}
	if !ok {
		axes = make([]int64, len(starts))
		for i := range axes {
			axes[i] = int64(i)
		}
	}
	steps, ok, err := im.ints(n, 4, "steps")
	if err != nil {
		return err
	}
	if !ok {
		steps = make([]int64, len(starts))
		for i := range steps {
			steps[i] = 1
		}
	}
	if len(axes) != len(starts) || len(steps) != len(starts) {
		return im.fail("starts, ends, axes and steps of different lengths")
	}
	r := len(x.shape)
	offsets, sizes, strides := make([]int64, r), slices.Clone(x.shape), make([]int64, r)
	for i := range strides {
		strides[i] = 1
	}
	reversed := make([]bool, r)
	for k, a := range axes {
		axis, err := im.axis(a, r)
		if err != nil {
			return err
		}
		d := x.shape[axis]
		step := steps[k]
		if step == 0 {
			return im.fail("a step of 0")
		}
		if step < 0 {
			// Backwards from start (clamped to [-1, d-1]) down to end,
			// exclusive: the positions are taken forwards from the last
			// one and reversed after.
			// (ONNX clamps a backward start to [0, d-1], its end to
			// [-1, d-1].)
			clamp := func(v, lo int64) int64 {
				if v < 0 {
					v += d
				}
				return min(max(v, lo), d-1)
			}
			s, e := clamp(starts[k], 0), clamp(ends[k], -1)
			count, first := int64(0), int64(0)
			if s > e && d > 0 {
				count = (s - e - step - 1) / -step
				first = s - (count-1)*-step
			}
			offsets[axis], sizes[axis], strides[axis] = first, count, -step
			reversed[axis] = true
			continue
		}
		clamp := func(v int64) int64 {
			if v < 0 {
				v += d
			}
			return min(max(v, 0), d)
		}
		s, e := clamp(starts[k]), clamp(ends[k])
		offsets[axis], strides[axis] = s, step
		sizes[axis] = 0
		if e > s {
			sizes[axis] = (e - s + step - 1) / step
		}
	}
	v, err := im.sliceValue(x, offsets, sizes, strides)
	if err != nil {
		return err
	}
	for axis, rev := range reversed {
		if rev {
			if v, err = im.reverse(v, axis); err != nil {
				return err
			}
		}
	}
	return im.out(n, v)
}

// reverse reverses x along axis: folded when x is known, else a
// concatenation of its unit slices, last first.
func (im *importer) reverse(x *value, axis int) (*value, error) {
	d := x.shape[axis]
	if d <= 1 {
		return x, nil
	}
	if x.konst == nil && d > maxKernelOffsets {
		return nil, im.fail("reversing an axis of %d (the importer takes %d)", d, maxKernelOffsets)
	}
	parts := make([]*value, d)
	for i := range d {
		u, err := im.along(x, axis, d-1-i, 1, 1)
		if err != nil {
			return nil, err
		}
		parts[i] = u
	}
	return im.concatValues(parts, int64(axis))
}

func (im *importer) split(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	axis, err := im.axis(im.attrInt(n, "axis", 0), len(x.shape))
	if err != nil {
		return err
	}
	parts, ok, err := im.ints(n, 1, "split")
	if err != nil {
		return err
	}
	outs := len(n.GetOutput())
	if !ok {
		if k := im.attrInt(n, "num_outputs", int64(outs)); k > 0 {
			size := (x.shape[axis] + k - 1) / k
			for rest := x.shape[axis]; rest > 0; rest -= size {
				parts = append(parts, min(size, rest))
			}
		}
	}
	if len(parts) != outs {
		return im.fail("%d parts for %d outputs", len(parts), outs)
	}
	off := int64(0)
	for i, p := range parts {
		offsets, sizes, strides := make([]int64, len(x.shape)), slices.Clone(x.shape), make([]int64, len(x.shape))
		for k := range strides {
			strides[k] = 1
		}
		offsets[axis], sizes[axis] = off, p
		off += p
		if p < 0 || off > x.shape[axis] {
			return im.fail("parts %v do not fit axis %d of size %d", parts, axis, x.shape[axis])
		}
		v, err := im.sliceValue(x, offsets, sizes, strides)
		if err != nil {
			return err
		}
		if name := n.GetOutput()[i]; name != "" {
			im.values[name] = v
		}
	}
	if off != x.shape[axis] {
		// ONNX: the parts' lengths sum to the axis (ONNX Runtime refuses
		// a split that leaves some of it out).
		return im.fail("parts %v sum to %d, but axis %d has %d", parts, off, axis, x.shape[axis])
	}
	return nil
}

func (im *importer) expand(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	spec, ok, err := im.ints(n, 1, "shape")
	if err != nil {
		return err
	}
	if !ok {
		return im.fail("no shape")
	}
	shape, err := im.broadcastShape(x.shape, spec)
	if err != nil {
		return err
	}
	if err := checkShape(shape); err != nil {
		return im.fail("%v", err)
	}
	if x.konst != nil {
		if err := im.foldable(shape, 1); err != nil {
			return err
		}
		return im.out(n, broadcastKonst(x, shape))
	}
	ssa, err := im.broadcastTo(x, shape)
	if err != nil {
		return err
	}
	return im.out(n, &value{ssa: ssa, elem: x.elem, shape: shape})
}

func (im *importer) shapeOp(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	r := int64(len(x.shape))
	start, end := im.attrInt(n, "start", 0), im.attrInt(n, "end", r)
	if start < 0 {
		start += r
	}
	if end < 0 {
		end += r
	}
	start, end = min(max(start, 0), r), min(max(end, 0), r)
	vals := []float64{}
	for _, d := range x.shape[start:max(start, end)] {
		vals = append(vals, float64(d))
	}
	return im.out(n, &value{elem: elem.I64, shape: []int64{int64(len(vals))}, konst: &konst{vals: vals}})
}

// gather takes constant indices: folded when the data is known too, else
// slices of the data along the axis (one index drops the axis).
func (im *importer) gather(n *onnxpb.NodeProto, in []*value) error {
	x, ix := in[0], in[1]
	axis, err := im.axis(im.attrInt(n, "axis", 0), len(x.shape))
	if err != nil {
		return err
	}
	if ix.konst == nil {
		return im.gatherRuntime(n, x, ix, axis)
	}
	d := x.shape[axis]
	idx := make([]int64, len(ix.konst.v()))
	for k, f := range ix.konst.v() {
		i := int64(f)
		if i < 0 {
			i += d
		}
		if i < 0 || i >= d {
			return im.fail("index %d of an axis of size %d", int64(f), d)
		}
		idx[k] = i
	}
	// The result's shape: x's with the axis replaced by the indices' shape.
	shape := append(append(slices.Clone(x.shape[:axis]), ix.shape...), x.shape[axis+1:]...)
	if err := checkShape(shape); err != nil {
		return im.fail("%v", err)
	}
	v, err := im.pick(x, axis, idx)
	if err != nil {
		return err
	}
	if v, err = im.reshapeValue(v, shape); err != nil {
		return err
	}
	return im.out(n, v)
}
