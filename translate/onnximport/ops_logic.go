package onnximport

import (
	"math"
	"slices"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/internal/rowmajor"
	"github.com/ipuir/ipuir/translate/onnximport/onnxpb"
)

// The operators of truth values and indices: comparisons into i1, logic on
// i1, where(c, a, b) as tensor.select, and the indexing operators (ArgMax,
// runtime Gather, OneHot, the losses that index by label) as chains of
// comparisons and selects, which take every value exactly as it is.

// compareOps are the comparisons by their fold, tensor op and operand
// order (Greater is Less with the operands swapped).
var compareOps = map[string]struct {
	op   string
	swap bool
	fold func(x, y float64) bool
}{
	"lt": {"tensor.less", false, func(x, y float64) bool { return x < y }},
	"le": {"tensor.less_equal", false, func(x, y float64) bool { return x <= y }},
	"gt": {"tensor.less", true, func(x, y float64) bool { return x > y }},
	"ge": {"tensor.less_equal", true, func(x, y float64) bool { return x >= y }},
	"eq": {"tensor.equal", false, func(x, y float64) bool { return x == y }},
	"ne": {"tensor.not_equal", false, func(x, y float64) bool { return x != y }},
}

// compareValues is a comparison of a and b, broadcast, into i1: folded
// when both are known.
func (im *importer) compareValues(a, b *value, pred string) (*value, error) {
	shape, err := im.pairShape(a, b)
	if err != nil {
		return nil, err
	}
	c := compareOps[pred]
	if a.konst != nil && b.konst != nil {
		return im.foldPair(a, b, shape, elem.I1, func(x, y float64) float64 {
			if c.fold(x, y) {
				return 1
			}
			return 0
		})
	}
	x, err := im.broadcastTo(a, shape)
	if err != nil {
		return nil, err
	}
	y, err := im.broadcastTo(b, shape)
	if err != nil {
		return nil, err
	}
	if c.swap {
		x, y = y, x
	}
	t := tensorType(a.elem, shape)
	return im.emit(elem.I1, shape, "%s %s, %s : %s, %s -> %s", c.op, x, y, t, t, tensorType(elem.I1, shape)), nil
}

// selectValues is where(cond, a, b), all three broadcast: folded when all
// are known.
func (im *importer) selectValues(cond, a, b *value) (*value, error) {
	if cond.elem != elem.I1 {
		return nil, im.fail("a condition of %v (Where takes bool)", cond.elem)
	}
	if a.elem != b.elem {
		return nil, im.fail("values of %v and %v", a.elem, b.elem)
	}
	shape, err := im.broadcastShape(cond.shape, a.shape)
	if err == nil {
		shape, err = im.broadcastShape(shape, b.shape)
	}
	if err != nil {
		return nil, err
	}
	if cond.konst != nil && a.konst != nil && b.konst != nil {
		if err := im.foldable(shape, 4); err != nil {
			return nil, err
		}
		c, x, y := broadcastKonst(cond, shape), broadcastKonst(a, shape), broadcastKonst(b, shape)
		out := &value{elem: a.elem, shape: shape, konst: &konst{vals: make([]float64, len(c.konst.v()))}}
		for i, t := range c.konst.v() {
			if t != 0 {
				out.konst.v()[i] = x.konst.v()[i]
			} else {
				out.konst.v()[i] = y.konst.v()[i]
			}
		}
		return out, nil
	}
	names := make([]string, 3)
	for i, v := range []*value{cond, a, b} {
		if names[i], err = im.broadcastTo(v, shape); err != nil {
			return nil, err
		}
	}
	ct, vt := tensorType(elem.I1, shape), tensorType(a.elem, shape)
	return im.emit(a.elem, shape, "tensor.select %s, %s, %s : %s, %s, %s -> %s", names[0], names[1], names[2], ct, vt, vt, vt), nil
}

func (c *calc) cmp(a, b *value, pred string) *value {
	if c.err != nil {
		return nil
	}
	v, err := c.im.compareValues(a, b, pred)
	c.err = err
	return v
}

func (c *calc) sel(cond, a, b *value) *value {
	if c.err != nil {
		return nil
	}
	v, err := c.im.selectValues(cond, a, b)
	c.err = err
	return v
}

func comparison(pred string) func(*importer, *onnxpb.NodeProto, []*value) error {
	return func(im *importer, n *onnxpb.NodeProto, in []*value) error {
		return im.pairwise(n, in, func(a, b *value) (*value, error) { return im.compareValues(a, b, pred) })
	}
}

// logic is And, Or or Xor of two i1 tensors: their product, their maximum,
// their difference.
func logic(kind string) func(*importer, *onnxpb.NodeProto, []*value) error {
	return func(im *importer, n *onnxpb.NodeProto, in []*value) error {
		a, b, err := im.pair(n, in)
		if err != nil {
			return err
		}
		if a.elem != elem.I1 || b.elem != elem.I1 {
			return im.fail("%v and %v operands (the logical operators take bool)", a.elem, b.elem)
		}
		c := &calc{im: im}
		var v *value
		switch kind {
		case "and":
			v = c.mul(a, b)
		case "or":
			v = c.max(a, b)
		default:
			v = c.cmp(a, b, "ne")
		}
		return c.done(n, v)
	}
}

func (im *importer) not(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	if x.elem != elem.I1 {
		return im.fail("Not of %v (it takes bool)", x.elem)
	}
	c := &calc{im: im}
	return c.done(n, c.cmp(x, c.k(x, 0), "eq"))
}

// where is Where: tensor.select, broadcast (folded on constants).
func (im *importer) where(n *onnxpb.NodeProto, in []*value) error {
	v, err := im.selectValues(in[0], in[1], in[2])
	if err != nil {
		return err
	}
	return im.out(n, v)
}

var (
	isNaNOp = elementwise(func(c *calc, _ *onnxpb.NodeProto, x *value) *value { return c.cmp(x, x, "ne") })
	// IsInf with detect_positive and detect_negative.
	isInfOp = elementwise(func(c *calc, n *onnxpb.NodeProto, x *value) *value {
		pos, neg := c.im.attrInt(n, "detect_positive", 1) != 0, c.im.attrInt(n, "detect_negative", 1) != 0
		var v *value
		if pos {
			v = c.cmp(x, c.k(x, math.Inf(1)), "eq")
		}
		if neg {
			w := c.cmp(x, c.k(x, math.Inf(-1)), "eq")
			if v == nil {
				v = w
			} else {
				v = c.max(v, w)
			}
		}
		if v == nil {
			v = c.cmp(x, x, "ne")
			v = c.mul(v, c.k(v, 0))
		}
		return v
	})
	// ThresholdedRelu is x where x > α, else 0.
	thresholdedReluOp = elementwise(func(c *calc, n *onnxpb.NodeProto, x *value) *value {
		return c.sel(c.cmp(x, c.k(x, c.im.attrFloat(n, "alpha", 1)), "gt"), x, c.k(x, 0))
	})
	// Shrink is x + bias below -λ, x - bias above λ, else 0.
	shrinkOp = elementwise(func(c *calc, n *onnxpb.NodeProto, x *value) *value {
		lambd, bias := c.im.attrFloat(n, "lambd", 0.5), c.im.attrFloat(n, "bias", 0)
		below := c.sel(c.cmp(x, c.k(x, -lambd), "lt"), c.add(x, c.k(x, bias)), c.k(x, 0))
		return c.sel(c.cmp(x, c.k(x, lambd), "gt"), c.sub(x, c.k(x, bias)), below)
	})
)

// axisSlices are x's unit slices along axis, in order.
func (im *importer) axisSlices(x *value, axis int, what string) ([]*value, error) {
	d := x.shape[axis]
	if d > maxKernelOffsets && x.konst == nil {
		return nil, im.fail("%s along an axis of %d positions (the importer takes %d)", what, d, maxKernelOffsets)
	}
	out := make([]*value, d)
	for i := range d {
		u, err := im.along(x, axis, i, 1, 1)
		if err != nil {
			return nil, err
		}
		out[i] = u
	}
	return out, nil
}

// argExtreme is ArgMax or ArgMin: the position of the first (or with
// select_last_index the last) extreme along the axis, as a chain over its
// unit slices of a comparison and two selects.
func argExtreme(kind string) func(*importer, *onnxpb.NodeProto, []*value) error {
	return func(im *importer, n *onnxpb.NodeProto, in []*value) error {
		x := in[0]
		axis, err := im.axis(im.attrInt(n, "axis", 0), len(x.shape))
		if err != nil {
			return err
		}
		if x.shape[axis] == 0 {
			return im.fail("%s of an empty axis", n.GetOpType())
		}
		parts, err := im.axisSlices(x, axis, n.GetOpType())
		if err != nil {
			return err
		}
		pred := map[string]string{"max": "lt", "min": "gt"}[kind]
		if im.attrInt(n, "select_last_index", 0) != 0 {
			pred = map[string]string{"max": "le", "min": "ge"}[kind]
		}
		c := &calc{im: im}
		best := parts[0]
		idx := splat(elem.I64, parts[0].shape, 0)
		for i, s := range parts[1:] {
			better := c.cmp(best, s, pred)
			best = c.sel(better, s, best)
			idx = c.sel(better, splat(elem.I64, nil, float64(i+1)), idx)
		}
		if im.attrInt(n, "keepdims", 1) == 0 {
			idx = c.reshape(idx, slices.Delete(slices.Clone(x.shape), axis, axis+1))
		}
		return c.done(n, idx)
	}
}

// hardmax is 1 at the first maximum along the axis (as Softmax takes the
// axis for the opset), 0 elsewhere.
func (im *importer) hardmax(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	view, axis, err := im.softmaxView(n, x)
	if err != nil {
		return err
	}
	parts, err := im.axisSlices(view, axis, "Hardmax")
	if err != nil {
		return err
	}
	c := &calc{im: im}
	best := parts[0]
	idx := splat(elem.I64, parts[0].shape, 0)
	for i, s := range parts[1:] {
		better := c.cmp(best, s, "lt")
		best = c.sel(better, s, best)
		idx = c.sel(better, splat(elem.I64, nil, float64(i+1)), idx)
	}
	ones := make([]*value, len(parts))
	for i := range parts {
		ones[i] = c.sel(c.cmp(idx, splat(elem.I64, nil, float64(i)), "eq"), splat(x.elem, parts[i].shape, 1), splat(x.elem, parts[i].shape, 0))
	}
	if c.err != nil {
		return c.err
	}
	v, err := im.concatValues(ones, int64(axis))
	if err != nil {
		return err
	}
	return c.done(n, c.reshape(v, x.shape))
}

// normIndices is idx with negative entries counted from the end of an
// axis of d positions.
func (c *calc) normIndices(idx *value, d int64) *value {
	return c.sel(c.cmp(idx, c.k(idx, 0), "lt"), c.add(idx, c.k(idx, float64(d))), idx)
}

// positions is the constant 0, 1, ..., d−1 of type et along axis of a
// rank-r tensor whose other axes are 1: what indices are compared with to
// make a one-hot mask.
func positions(et elem.Type, r, axis int, d int64) *value {
	shape := make([]int64, r)
	for i := range shape {
		shape[i] = 1
	}
	shape[axis] = d
	vals := make([]float64, d)
	for i := range vals {
		vals[i] = float64(i)
	}
	return &value{elem: et, shape: shape, konst: &konst{vals: vals}}
}

// gatherRuntime is Gather by indices known only at run time. An embedding
// lookup (data known at import, finite, of a float type the matmul
// computes exactly here) is a one-hot matmul; anything else is, for each
// position i of the axis, where the index is i, the data's slice i (a
// select chain over the axis, exact for any value).
func (im *importer) gatherRuntime(n *onnxpb.NodeProto, x, ix *value, axis int) error {
	if ix.elem.IsFloat() {
		return im.fail("indices of %v", ix.elem)
	}
	if gatherByMatmul(x, axis) {
		return im.gatherOneHot(n, x, ix, axis)
	}
	d := x.shape[axis]
	parts, err := im.axisSlices(x, axis, "Gather by indices known at run time")
	if err != nil {
		return err
	}
	// Result: x's shape with the axis replaced by the indices' shape. The
	// indices broadcast along x's other axes, each slice along the
	// indices' axes.
	q := len(ix.shape)
	shape := append(append(slices.Clone(x.shape[:axis]), ix.shape...), x.shape[axis+1:]...)
	if err := checkShape(shape); err != nil {
		return im.fail("%v", err)
	}
	idxShape := make([]int64, len(shape))
	for i := range idxShape {
		idxShape[i] = 1
	}
	copy(idxShape[axis:], ix.shape)
	c := &calc{im: im}
	idx := c.reshape(c.normIndices(ix, d), idxShape)
	sliceShape := slices.Clone(shape)
	for i := range q {
		sliceShape[axis+i] = 1
	}
	var acc *value
	for i, s := range parts {
		// s is x's slice i: [x.shape[:axis], 1, x.shape[axis+1:]] →
		// [x.shape[:axis], 1 × q, x.shape[axis+1:]].
		s = c.reshape(s, sliceShape)
		if acc == nil {
			acc = c.sel(c.cmp(idx, c.k(idx, float64(i)), "eq"), s, splat(x.elem, nil, 0))
			continue
		}
		acc = c.sel(c.cmp(idx, c.k(idx, float64(i)), "eq"), s, acc)
	}
	return c.done(n, acc)
}

// gatherByMatmul reports whether Gather from x along axis by indices
// known at run time may be the one-hot matmul: x is known at import, of
// f16, f32 or f64 (f64 is computed as f32), not empty along the axis, and
// holds no infinity or NaN, since 0·∞ is NaN and a one-hot row would
// spread it into every result. Then each result element is 1·x plus
// zeros, exact in any accumulation order; only a −0 comes out as +0.
func gatherByMatmul(x *value, axis int) bool {
	switch {
	case x.konst == nil || x.shape[axis] == 0:
		return false
	case x.elem != elem.F16 && x.elem != elem.F32 && x.elem != elem.F64:
		return false
	}
	return x.konst.allFinite()
}

// gatherOneHot is Gather by indices known at run time as a one-hot
// matmul: with x's axis moved to the front and the rest flattened, x is a
// [d, r] table; hot [n, d] is 1 where the index (negative ones counted
// from the end) is the position, else 0; hot·table is the n looked-up
// rows [n, r], reshaped to the indices' shape followed by x's other axes
// and moved to x's order. An index outside the axis gives a row of zeros,
// as the select chain does. The table's rows are its layout's to place,
// so an embedding of 32,000 tokens costs one matmul of n·d·r MACs on the
// AMP, not d selects over the whole result.
func (im *importer) gatherOneHot(n *onnxpb.NodeProto, x, ix *value, axis int) error {
	d := x.shape[axis]
	shape := append(append(slices.Clone(x.shape[:axis]), ix.shape...), x.shape[axis+1:]...)
	if err := checkShape(shape); err != nil {
		return im.fail("%v", err)
	}
	c := &calc{im: im}
	// The table [d, r]: the axis first.
	rest := append(slices.Clone(x.shape[:axis]), x.shape[axis+1:]...)
	table := x
	if axis != 0 {
		perm := []int64{int64(axis)}
		for i := range x.shape {
			if i != axis {
				perm = append(perm, int64(i))
			}
		}
		table = c.transpose(x, perm)
	}
	r := rowmajor.Elements(rest)
	table = c.reshape(table, []int64{d, r})
	count := rowmajor.Elements(ix.shape)
	idx := c.reshape(c.normIndices(ix, d), []int64{count, 1})
	hot := c.sel(c.cmp(idx, positions(ix.elem, 2, 1, d), "eq"), splat(x.elem, nil, 1), splat(x.elem, nil, 0))
	rows := c.matmul(hot, table)
	// [indices..., rest...], then x's other axes back around the indices'.
	v := c.reshape(rows, append(slices.Clone(ix.shape), rest...))
	if axis != 0 {
		q, perm := len(ix.shape), []int64{}
		for i := range axis {
			perm = append(perm, int64(q+i))
		}
		for i := range q {
			perm = append(perm, int64(i))
		}
		for i := axis; i < len(rest); i++ {
			perm = append(perm, int64(q+i))
		}
		v = c.transpose(v, perm)
	}
	return c.done(n, c.reshape(v, shape))
}

// gatherElements is GatherElements: out[..., j, ...] = x[..., idx[..., j,
// ...], ...] along the axis, the same select chain with the indices of
// the output's shape.
func (im *importer) gatherElements(n *onnxpb.NodeProto, in []*value) error {
	x, ix := in[0], in[1]
	axis, err := im.axis(im.attrInt(n, "axis", 0), len(x.shape))
	if err != nil {
		return err
	}
	if len(ix.shape) != len(x.shape) {
		return im.fail("indices of rank %d for data of rank %d", len(ix.shape), len(x.shape))
	}
	for i, d := range ix.shape {
		if i != axis && d > x.shape[i] {
			return im.fail("indices of shape %v for data of shape %v", ix.shape, x.shape)
		}
	}
	d := x.shape[axis]
	parts, err := im.axisSlices(x, axis, "GatherElements")
	if err != nil {
		return err
	}
	if ix.konst != nil {
		for _, v := range ix.konst.v() {
			if v < -float64(d) || v >= float64(d) {
				return im.fail("index %d of an axis of %d", int64(v), d)
			}
		}
	}
	c := &calc{im: im}
	idx := c.normIndices(ix, d)
	var acc *value
	for i, s := range parts {
		// The slice cut to the indices' extent on the other axes.
		offsets, sizes, strides := make([]int64, len(x.shape)), slices.Clone(ix.shape), make([]int64, len(x.shape))
		for k := range strides {
			strides[k] = 1
		}
		sizes[axis] = 1
		cut, err := im.sliceValue(s, offsets, sizes, strides)
		if err != nil {
			return err
		}
		if acc == nil {
			acc = c.sel(c.cmp(idx, c.k(idx, float64(i)), "eq"), cut, splat(x.elem, nil, 0))
			continue
		}
		acc = c.sel(c.cmp(idx, c.k(idx, float64(i)), "eq"), cut, acc)
	}
	return c.done(n, acc)
}

// oneHot is OneHot: on where the index equals the position along the new
// axis, off elsewhere (negative indices count from the end; others
// outside the depth give off everywhere).
func (im *importer) oneHot(n *onnxpb.NodeProto, in []*value) error {
	ix, depth, vals := in[0], in[1], in[2]
	df, err := im.scalarOf(depth, "the depth", 0)
	if err != nil {
		return err
	}
	d := int64(df)
	if d < 1 || d > maxKernelOffsets*16 {
		return im.fail("depth %d", d)
	}
	if rowmajor.Elements(vals.shape) != 2 || len(vals.shape) != 1 {
		return im.fail("values of shape %v; OneHot takes [off, on]", vals.shape)
	}
	r := len(ix.shape) + 1
	axis, err := im.axis(im.attrInt(n, "axis", -1), r)
	if err != nil {
		return err
	}
	c := &calc{im: im}
	idx := c.normIndices(ix, d)
	idx = c.reshape(idx, slices.Insert(slices.Clone(ix.shape), axis, 1))
	hot := c.cmp(idx, positions(ix.elem, r, axis, d), "eq")
	// off and on as scalars (known or not), broadcast by the select.
	off, err := im.along(vals, 0, 0, 1, 1)
	if err != nil {
		return err
	}
	on, err := im.along(vals, 0, 1, 1, 1)
	if err != nil {
		return err
	}
	return c.done(n, c.sel(hot, c.reshape(on, nil), c.reshape(off, nil)))
}

// nll computes NegativeLogLikelihoodLoss of log-probabilities x [N, C,
// d...] for labels t [N, d...]: -x[n, t, d]·w[t], 0 where t is
// ignore_index, then reduced (none, sum, or the mean by the weights that
// count).
func (im *importer) nll(x, t, w *value, ignore *int64, reduction string) (*value, error) {
	if len(x.shape) < 2 || len(t.shape) != len(x.shape)-1 {
		return nil, im.fail("inputs of shapes %v and %v ([N, C, d...] and [N, d...])", x.shape, t.shape)
	}
	if t.elem.IsFloat() {
		return nil, im.fail("labels of %v", t.elem)
	}
	C := x.shape[1]
	if C > maxKernelOffsets*16 {
		return nil, im.fail("%d classes", C)
	}
	c := &calc{im: im}
	// hot [N, C, d...]: the label's class.
	lab := c.reshape(t, slices.Insert(slices.Clone(t.shape), 1, 1))
	classes := positions(t.elem, len(x.shape), 1, C)
	hot := c.cmp(lab, classes, "eq")
	picked := c.reduce(c.sel(hot, x, c.k(x, 0)), []int64{1}, "sum", false)
	var weight *value
	if w != nil {
		weight = c.reduce(c.sel(hot, c.reshape(w, classes.shape), c.k(x, 0)), []int64{1}, "sum", false)
	} else if c.err == nil {
		weight = splat(x.elem, t.shape, 1)
	}
	if ignore != nil {
		valid := c.cmp(t, c.k(t, float64(*ignore)), "ne")
		weight = c.sel(valid, weight, c.k(x, 0))
	}
	loss := c.neg(c.mul(picked, weight))
	if ignore != nil {
		// An ignored label may name no class: its loss is 0 whatever
		// was picked (-0 by the product with a zero weight).
		loss = c.sel(c.cmp(t, c.k(t, float64(*ignore)), "ne"), loss, c.k(x, 0))
	}
	if c.err != nil {
		return nil, c.err
	}
	all := make([]int64, len(t.shape))
	for i := range all {
		all[i] = int64(i)
	}
	switch reduction {
	case "none":
		return loss, nil
	case "sum":
		return c.reduce(loss, all, "sum", false), c.err
	case "mean":
		return c.div(c.reduce(loss, all, "sum", false), c.reduce(weight, all, "sum", false)), c.err
	}
	return nil, im.fail("reduction '%s' (none, sum or mean)", reduction)
}

func (im *importer) lossOptions(n *onnxpb.NodeProto) (*int64, string) {
	var ignore *int64
	if a := attr(n, "ignore_index"); a != nil {
		v := im.attrInt(n, "ignore_index", 0)
		ignore = &v
	}
	reduction := "mean"
	if a := im.typedAttr(n, "reduction", onnxpb.AttributeProto_STRING); a != nil {
		reduction = string(a.GetS())
	}
	return ignore, reduction
}

func (im *importer) negativeLogLikelihood(n *onnxpb.NodeProto, in []*value) error {
	ignore, reduction := im.lossOptions(n)
	v, err := im.nll(in[0], in[1], in[2], ignore, reduction)
	if err != nil {
		return err
	}
	return im.out(n, v)
}

// softmaxCrossEntropy is SoftmaxCrossEntropyLoss: the log-softmax of the
// scores over the classes (axis 1), then the negative log-likelihood; the
// log-probabilities are the optional second output.
func (im *importer) softmaxCrossEntropy(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	if len(x.shape) < 2 {
		return im.fail("scores of shape %v ([N, C, d...])", x.shape)
	}
	c := &calc{im: im}
	ax := []int64{1}
	d := c.sub(x, c.reduce(x, ax, "max", true))
	logp := c.sub(d, c.un(c.reduce(c.un(d, "exp"), ax, "sum", true), "log"))
	if c.err != nil {
		return c.err
	}
	ignore, reduction := im.lossOptions(n)
	v, err := im.nll(logp, in[1], in[2], ignore, reduction)
	if err != nil {
		return err
	}
	outs := n.GetOutput()
	if len(outs) == 0 || outs[0] == "" {
		return im.fail("the node has no output")
	}
	im.values[outs[0]] = v
	if len(outs) > 1 && outs[1] != "" {
		im.values[outs[1]] = logp
	}
	return nil
}

// mod is Mod: with fmod = 1 C's fmod (the sign of the dividend), else the
// remainder with the divisor's sign (Python's %), on floats and integers.
func (im *importer) mod(n *onnxpb.NodeProto, in []*value) error {
	a, b := in[0], in[1]
	c := &calc{im: im}
	var q *value
	if a.elem.IsFloat() {
		// trunc(a/b) = sign(a/b)·floor(|a/b|)
		r := c.div(a, b)
		q = c.mul(c.un(r, "sign"), c.un(c.abs(r), "floor"))
	} else {
		q = c.div(a, b) // integer division truncates
	}
	rem := c.sub(a, c.mul(q, b))
	if im.attrInt(n, "fmod", 0) == 0 {
		// Move a remainder whose sign differs from the divisor's by one
		// divisor.
		zero := c.k(a, 0)
		differ := c.cmp(c.cmp(rem, zero, "lt"), c.cmp(b, zero, "lt"), "ne")
		rem = c.sel(c.mul(differ, c.cmp(rem, zero, "ne")), c.add(rem, b), rem)
	}
	return c.done(n, rem)
}

// castLike is Cast to the second input's element type.
func (im *importer) castLike(n *onnxpb.NodeProto, in []*value) error {
	return im.castTo(n, in[0], in[1].elem)
}

// rangeOp is Range of constant start, limit and delta: folded.
func (im *importer) rangeOp(n *onnxpb.NodeProto, in []*value) error {
	var v [3]float64
	for i, what := range []string{"the start", "the limit", "the delta"} {
		x, err := im.scalarOf(in[i], what, 0)
		if err != nil {
			return err
		}
		v[i] = x
	}
	if v[2] == 0 {
		return im.fail("a delta of 0")
	}
	count := int64(max(math.Ceil((v[1]-v[0])/v[2]), 0))
	if err := im.foldable([]int64{count}, 1); err != nil {
		return err
	}
	out := &value{elem: in[0].elem, shape: []int64{count}, konst: &konst{vals: make([]float64, count)}}
	for i := range out.konst.v() {
		out.konst.v()[i] = round(in[0].elem, v[0]+float64(i)*v[2])
	}
	return im.out(n, out)
}
