package onnximport

import (
	"slices"
	"strings"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/internal/rowmajor"
	"github.com/ipuir/ipuir/translate/onnximport/onnxpb"
)

// scalarOf is input v's one value, known at import (an optional input
// absent is def).
func (im *importer) scalarOf(v *value, what string, def float64) (float64, error) {
	if v == nil {
		return def, nil
	}
	if v.konst == nil {
		return 0, im.needsValue(v, what)
	}
	if len(v.konst.v()) != 1 {
		return 0, im.fail("%s of shape %v, not a scalar", what, v.shape)
	}
	return v.konst.v()[0], nil
}

// trilu keeps the upper (j - i ≥ k) or lower (j - i ≤ k) triangle of each
// matrix in the last two axes: row by row, the kept columns of the row
// between zeros, so that every kept value is the input's exactly.
func (im *importer) trilu(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	r := len(x.shape)
	if r < 2 {
		return im.fail("a rank-%d input (Trilu takes matrices)", r)
	}
	kf, err := im.scalarOf(in[1], "k", 0)
	if err != nil {
		return err
	}
	k := int64(kf)
	upper := im.attrInt(n, "upper", 1) != 0
	rows, cols := x.shape[r-2], x.shape[r-1]
	keep := func(i int64) (lo, hi int64) { // columns [lo, hi) of row i
		if upper {
			return min(max(i+k, 0), cols), cols
		}
		return 0, min(max(i+k+1, 0), cols)
	}
	if x.konst != nil {
		out := &value{elem: x.elem, shape: x.shape, konst: &konst{vals: slices.Clone(x.konst.v())}}
		rowmajor.ForEach(x.shape, func(lin int64, idx []int64) {
			if lo, hi := keep(idx[r-2]); idx[r-1] < lo || idx[r-1] >= hi {
				out.konst.v()[lin] = 0
			}
		})
		return im.out(n, out)
	}
	if rows > maxKernelOffsets {
		return im.fail("a matrix of %d rows (the importer takes %d)", rows, maxKernelOffsets)
	}
	var parts []*value
	for i := range rows {
		row, err := im.along(x, r-2, i, 1, 1)
		if err != nil {
			return err
		}
		lo, hi := keep(i)
		var pieces []*value
		zeros := func(count int64) {
			shape := slices.Clone(row.shape)
			shape[r-1] = count
			pieces = append(pieces, splat(x.elem, shape, 0))
		}
		if lo > 0 {
			zeros(lo)
		}
		if hi > lo {
			kept, err := im.along(row, r-1, lo, hi-lo, 1)
			if err != nil {
				return err
			}
			pieces = append(pieces, kept)
		}
		if hi < cols {
			zeros(cols - hi)
		}
		if len(pieces) == 0 {
			parts = append(parts, row)
			continue
		}
		if row, err = im.concatValues(pieces, int64(r-1)); err != nil {
			return err
		}
		parts = append(parts, row)
	}
	v := x
	if len(parts) > 0 {
		if v, err = im.concatValues(parts, int64(r-2)); err != nil {
			return err
		}
	}
	return im.out(n, v)
}

// depthToSpace and spaceToDepth move blocks between the channels and the
// spatial axes of [N, C, H, W]: a reshape, a transpose, a reshape.
func (im *importer) depthToSpace(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	b := im.attrInt(n, "blocksize", 0)
	if len(x.shape) != 4 || b < 1 || x.shape[1]%(b*b) != 0 {
		return im.fail("blocksize %d of an input of shape %v ([N, C, H, W], C a multiple of blocksize²)", b, x.shape)
	}
	N, C, H, W := x.shape[0], x.shape[1], x.shape[2], x.shape[3]
	split, perm := []int64{N, b, b, C / (b * b), H, W}, []int64{0, 3, 4, 1, 5, 2}
	mode := "DCR"
	if a := im.typedAttr(n, "mode", onnxpb.AttributeProto_STRING); a != nil {
		mode = string(a.GetS())
	}
	switch mode {
	case "DCR":
	case "CRD":
		split, perm = []int64{N, C / (b * b), b, b, H, W}, []int64{0, 1, 4, 2, 5, 3}
	default:
		return im.fail("mode '%s' (DCR or CRD)", mode)
	}
	return im.reshuffle(n, x, split, perm, []int64{N, C / (b * b), H * b, W * b})
}

func (im *importer) spaceToDepth(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	b := im.attrInt(n, "blocksize", 0)
	if len(x.shape) != 4 || b < 1 || x.shape[2]%b != 0 || x.shape[3]%b != 0 {
		return im.fail("blocksize %d of an input of shape %v ([N, C, H, W], H and W multiples of blocksize)", b, x.shape)
	}
	N, C, H, W := x.shape[0], x.shape[1], x.shape[2], x.shape[3]
	return im.reshuffle(n, x, []int64{N, C, H / b, b, W / b, b}, []int64{0, 3, 5, 1, 2, 4}, []int64{N, C * b * b, H / b, W / b})
}

func (im *importer) reshuffle(n *onnxpb.NodeProto, x *value, split, perm, shape []int64) error {
	v, err := im.reshapeValue(x, split)
	if err == nil {
		v, err = im.transposeValue(v, perm)
	}
	if err == nil {
		v, err = im.reshapeValue(v, shape)
	}
	if err != nil {
		return err
	}
	return im.out(n, v)
}

// cumSum adds along the axis one position after another (numpy's order,
// so its rounding), exclusive or reversed as asked: unit slices, a chain
// of additions and one concatenation.
func (im *importer) cumSum(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	af, err := im.scalarOf(in[1], "the axis", 0)
	if err != nil {
		return err
	}
	axis, err := im.axis(int64(af), len(x.shape))
	if err != nil {
		return err
	}
	exclusive, reverse := im.attrInt(n, "exclusive", 0) != 0, im.attrInt(n, "reverse", 0) != 0
	d := x.shape[axis]
	if d > maxKernelOffsets && x.konst == nil {
		return im.fail("a cumulative sum along an axis of %d (the importer takes %d)", d, maxKernelOffsets)
	}
	c := &calc{im: im}
	parts := make([]*value, d)
	var acc *value
	for s := range d {
		i := s
		if reverse {
			i = d - 1 - s
		}
		u, err := im.along(x, axis, i, 1, 1)
		if err != nil {
			return err
		}
		if exclusive {
			if acc == nil {
				shape := slices.Clone(u.shape)
				parts[i] = splat(x.elem, shape, 0)
			} else {
				parts[i] = acc
			}
		}
		if acc == nil {
			acc = u
		} else {
			acc = c.add(acc, u)
		}
		if !exclusive {
			parts[i] = acc
		}
		if c.err != nil {
			return c.err
		}
	}
	if d == 0 {
		return im.out(n, x)
	}
	v, err := im.concatValues(parts, int64(axis))
	if err != nil {
		return err
	}
	return im.out(n, v)
}

// eyeLike is a constant of the input's shape with ones on diagonal k.
func (im *importer) eyeLike(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	if len(x.shape) != 2 {
		return im.fail("a rank-%d input (EyeLike takes matrices)", len(x.shape))
	}
	et := x.elem
	if a := attr(n, "dtype"); a != nil {
		var err error
		if et, err = im.elemType(int32(im.attrInt(n, "dtype", 0))); err != nil {
			return im.fail("%v", err)
		}
	}
	k := im.attrInt(n, "k", 0)
	if err := im.foldable(x.shape, 1); err != nil {
		return err
	}
	out := splat(et, x.shape, 0)
	for i := range x.shape[0] {
		if j := i + k; j >= 0 && j < x.shape[1] {
			out.konst.v()[i*x.shape[1]+j] = 1
		}
	}
	return im.out(n, out)
}

// lrn is local response normalisation across channels: x / (bias +
// α/size · Σ x²)^β, the sum over a window of channels (zeros past the
// ends), the power as exp(β·log(·)) of a positive base.
func (im *importer) lrn(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	r := len(x.shape)
	size := im.attrInt(n, "size", 0)
	if r < 3 || size < 1 || size > maxKernelOffsets {
		return im.fail("size %d on a rank-%d input ([N, C, spatial...])", size, r)
	}
	alpha, beta, bias := im.attrFloat(n, "alpha", 1e-4), im.attrFloat(n, "beta", 0.75), im.attrFloat(n, "bias", 1)
	c := &calc{im: im}
	sq := c.mul(x, x)
	if c.err != nil {
		return c.err
	}
	before, after := make([]int64, r), make([]int64, r)
	before[1], after[1] = (size-1)/2, size-1-(size-1)/2
	padded, err := im.padValue(sq, before, after, "constant", 0)
	if err != nil {
		return err
	}
	var sum *value
	for j := range size {
		u, err := im.along(padded, 1, j, x.shape[1], 1)
		if err != nil {
			return err
		}
		if sum == nil {
			sum = u
		} else {
			sum = c.add(sum, u)
		}
	}
	base := c.add(c.k(x, bias), c.mul(c.k(x, alpha/float64(size)), sum))
	return c.done(n, c.div(x, c.un(c.mul(c.k(x, beta), c.un(base, "log")), "exp")))
}

// meanVarianceNorm is (x − E[x]) / (√E[(x − E[x])²] + 1e-9) over the axes
// (default [0, 2, 3]), as ONNX's function body computes it.
func (im *importer) meanVarianceNorm(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	axes := []int64{0, 2, 3}
	if a := im.typedAttr(n, "axes", onnxpb.AttributeProto_INTS); a != nil {
		axes = a.GetInts()
	}
	var norm []int64
	count := int64(1)
	for _, a := range axes {
		k, err := im.axis(a, len(x.shape))
		if err != nil {
			return err
		}
		if !slices.Contains(norm, int64(k)) {
			norm = append(norm, int64(k))
			count *= x.shape[k]
		}
	}
	c := &calc{im: im}
	inv := c.k(x, 1/float64(max(count, 1)))
	d := c.sub(x, c.mul(c.reduce(x, norm, "sum", true), inv))
	std := c.sqrt(c.mul(c.reduce(c.mul(d, d), norm, "sum", true), inv))
	return c.done(n, c.div(d, c.add(std, c.k(x, 1e-9))))
}

// einsum takes one or two operands: an ellipsis becomes fresh letters, a
// letter repeated in one operand its diagonal; letters only one operand
// has and the output lacks are summed first; the two are then one batched
// matmul over the letters they share (batch letters in the output,
// contracted ones not), transposed into the output's order.
func (im *importer) einsum(n *onnxpb.NodeProto, in []*value) error {
	a := im.typedAttr(n, "equation", onnxpb.AttributeProto_STRING)
	if a == nil {
		return im.fail("no equation")
	}
	eq := strings.ReplaceAll(string(a.GetS()), " ", "")
	lhs, out, explicit := strings.Cut(eq, "->")
	terms := strings.Split(lhs, ",")
	if len(terms) != len(in) || len(in) < 1 || len(in) > 2 {
		return im.fail("equation '%s' for %d operands (the importer takes one or two)", eq, len(in))
	}
	// An ellipsis stands for the operand's other axes, the same letters
	// (fresh ones) in every operand, aligned from the right.
	ell, err := im.einsumEllipsis(eq, terms, in)
	if err != nil {
		return err
	}
	if explicit {
		out = strings.Replace(out, "...", ell, 1)
	}
	ops := slices.Clone(in)
	c := &calc{im: im}
	count := map[rune]int{}
	for i, t := range terms {
		if len(t) != len(in[i].shape) || strings.Contains(t, ".") {
			return im.fail("equation '%s': operand %d has rank %d", eq, i, len(in[i].shape))
		}
		// A letter repeated in one operand takes its diagonal.
		ops[i], terms[i] = c.diagonals(ops[i], t)
		for _, ch := range terms[i] {
			count[ch]++
		}
	}
	if c.err != nil {
		return c.err
	}
	if !explicit {
		// Implicit output: the ellipsis's letters, then the letters
		// appearing once, in order.
		var letters []rune
		for ch, k := range count {
			if k == 1 && !strings.ContainsRune(ell, ch) {
				letters = append(letters, ch)
			}
		}
		slices.Sort(letters)
		out = ell + string(letters)
	}
	dims := map[rune]int64{}
	for i, t := range terms {
		for j, ch := range t {
			if d, seen := dims[ch]; seen && d != ops[i].shape[j] {
				return im.fail("equation '%s': letter '%c' is %d and %d", eq, ch, d, ops[i].shape[j])
			}
			dims[ch] = ops[i].shape[j]
		}
	}
	for _, ch := range out {
		if _, ok := dims[ch]; !ok || strings.Count(out, string(ch)) > 1 {
			return im.fail("equation '%s': output letter '%c'", eq, ch)
		}
	}
	// Sum the letters an operand alone has that the output lacks.
	for i, t := range terms {
		var axes []int64
		kept := ""
		for j, ch := range t {
			if !strings.ContainsRune(out, ch) && (len(terms) == 1 || !strings.ContainsRune(terms[1-i], ch)) {
				axes = append(axes, int64(j))
			} else {
				kept += string(ch)
			}
		}
		if len(axes) > 0 {
			ops[i] = c.reduce(ops[i], axes, "sum", false)
			terms[i] = kept
		}
	}
	if c.err != nil {
		return c.err
	}
	permute := func(v *value, from, to string) (*value, error) {
		perm := make([]int64, len(to))
		for i, ch := range to {
			perm[i] = int64(strings.IndexRune(from, ch))
		}
		return im.transposeValue(v, perm)
	}
	if len(ops) == 1 {
		v, err := permute(ops[0], terms[0], out)
		if err != nil {
			return err
		}
		return im.out(n, v)
	}
	var batch, left, right, inner string
	for _, ch := range terms[0] {
		switch {
		case strings.ContainsRune(terms[1], ch) && strings.ContainsRune(out, ch):
			batch += string(ch)
		case strings.ContainsRune(terms[1], ch):
			inner += string(ch)
		default:
			left += string(ch)
		}
	}
	for _, ch := range terms[1] {
		if !strings.ContainsRune(terms[0], ch) {
			right += string(ch)
		}
	}
	ext := func(s string) int64 {
		p := int64(1)
		for _, ch := range s {
			p *= dims[ch]
		}
		return p
	}
	B, M, K, N := ext(batch), ext(left), ext(inner), ext(right)
	x, err := permute(ops[0], terms[0], batch+left+inner)
	if err == nil {
		x, err = im.reshapeValue(x, []int64{B, M, K})
	}
	var y *value
	if err == nil {
		y, err = permute(ops[1], terms[1], batch+inner+right)
	}
	if err == nil {
		y, err = im.reshapeValue(y, []int64{B, K, N})
	}
	var p *value
	if err == nil {
		p, err = im.matmulValues(x, y)
	}
	if err != nil {
		return err
	}
	var shape []int64
	for _, ch := range batch + left + right {
		shape = append(shape, dims[ch])
	}
	if p, err = im.reshapeValue(p, shape); err != nil {
		return err
	}
	if p, err = permute(p, batch+left+right, out); err != nil {
		return err
	}
	return im.out(n, p)
}

// intPower is x^p for an integer p by squaring (exact products; 1/x^-p
// for negative p).
func (c *calc) intPower(x *value, p int64) *value {
	if p == 0 {
		// x^0 is 1 for every x, NaN too (C's pow, numpy's).
		if c.err == nil {
			c.err = c.im.foldable(x.shape, 1)
		}
		if c.err != nil {
			return nil
		}
		return splat(x.elem, x.shape, 1)
	}
	neg := p < 0
	if neg {
		p = -p
	}
	var acc *value
	base := x
	for p > 0 {
		if p&1 == 1 {
			if acc == nil {
				acc = base
			} else {
				acc = c.mul(acc, base)
			}
		}
		p >>= 1
		if p > 0 {
			base = c.mul(base, base)
		}
	}
	if neg {
		return c.div(c.k(x, 1), acc)
	}
	return acc
}

// einsumEllipsis replaces each term's "..." by fresh letters for the
// operand's axes it stands for, aligned from the right across operands,
// and returns the letters of the widest.
func (im *importer) einsumEllipsis(eq string, terms []string, in []*value) (string, error) {
	var fresh []rune
	for ch := 'A'; ch <= 'Z' && len(fresh) < maxRank; ch++ {
		if !strings.ContainsRune(eq, ch) {
			fresh = append(fresh, ch)
		}
	}
	widest := 0
	for i, t := range terms {
		if k := strings.Count(t, "..."); k > 1 || (k == 0 && strings.Contains(t, ".")) {
			return "", im.fail("equation '%s': operand %d's subscripts '%s'", eq, i, t)
		} else if k == 1 {
			widest = max(widest, len(in[i].shape)-(len(t)-3))
		}
	}
	if widest < 0 || widest > len(fresh) {
		return "", im.fail("equation '%s': an ellipsis of %d axes", eq, widest)
	}
	all := string(fresh[len(fresh)-widest:])
	for i, t := range terms {
		if strings.Contains(t, "...") {
			k := len(in[i].shape) - (len(t) - 3)
			if k < 0 {
				return "", im.fail("equation '%s': operand %d has rank %d", eq, i, len(in[i].shape))
			}
			terms[i] = strings.Replace(t, "...", all[len(all)-k:], 1)
		}
	}
	return all, nil
}

// diagonals takes, for each letter t repeats, x's diagonal over those
// axes (select then sum, so that what lies off the diagonal, an infinity
// included, adds nothing), and returns it with its subscripts.
func (c *calc) diagonals(x *value, t string) (*value, string) {
	for c.err == nil {
		p, q := -1, -1
		for j, ch := range t {
			if k := strings.IndexRune(t[j+1:], ch); k >= 0 {
				p, q = j, j+1+k
				break
			}
		}
		if p < 0 {
			return x, t
		}
		if x.shape[p] != x.shape[q] {
			c.err = c.im.fail("a diagonal of axes of %d and %d", x.shape[p], x.shape[q])
			return nil, t
		}
		d := x.shape[p]
		eyeShape := make([]int64, len(x.shape))
		for i := range eyeShape {
			eyeShape[i] = 1
		}
		eyeShape[p], eyeShape[q] = d, d
		eye := &value{elem: elem.I1, shape: eyeShape, konst: &konst{vals: make([]float64, d*d)}}
		for i := range d {
			eye.konst.v()[i*d+i] = 1
		}
		x = c.reduce(c.sel(eye, x, c.k(x, 0)), []int64{int64(q)}, "sum", false)
		t = t[:q] + t[q+1:]
	}
	return nil, t
}
