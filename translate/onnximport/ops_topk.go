package onnximport

import (
	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/translate/onnximport/onnxpb"
)

// maxTopKWork bounds TopK's k · axis length: each of the k rounds is a
// chain of selects over the axis.
const maxTopKWork = 1 << 16

// topK is TopK: the k largest (or smallest) values along the axis, in
// order, and their indices, ties to the lower index. k must be known at
// import. Each round is ArgMax's chain over the axis's unit slices, the
// positions taken by earlier rounds excluded by a mask (not by a sentinel
// value, which a value of the input could equal).
func (im *importer) topK(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	var kf float64
	if im.opset < 10 {
		kf = float64(im.attrInt(n, "k", -1))
	} else {
		var err error
		if kf, err = im.scalarOf(in[1], "input 1 (k)", -1); err != nil {
			return err
		}
	}
	axis, err := im.axis(im.attrInt(n, "axis", -1), len(x.shape))
	if err != nil {
		return err
	}
	d, k := x.shape[axis], int64(kf)
	if k < 1 || k > d {
		return im.fail("k = %d of an axis of %d (the importer takes 1 to the axis's length)", k, d)
	}
	if k*d > maxTopKWork {
		return im.fail("k = %d over an axis of %d positions: more than the %d selections the importer unrolls", k, d, maxTopKWork)
	}
	parts, err := im.axisSlices(x, axis, "TopK")
	if err != nil {
		return err
	}
	pred := "lt" // best < s: s is larger
	if im.attrInt(n, "largest", 1) == 0 {
		pred = "gt"
	}
	c := &calc{im: im}
	yes, no := splat(elem.I1, nil, 1), splat(elem.I1, nil, 0)
	taken := make([]*value, d)
	for i := range taken {
		taken[i] = splat(elem.I1, parts[0].shape, 0)
	}
	var values, indices []*value
	for range k {
		best, bestTaken := parts[0], taken[0]
		idx := splat(elem.I64, parts[0].shape, 0)
		for i := int64(1); i < d; i++ {
			s := parts[i]
			// s wins when it is free, and the best so far is taken or
			// beaten by it.
			better := c.sel(taken[i], no, c.sel(bestTaken, yes, c.cmp(best, s, pred)))
			best = c.sel(better, s, best)
			bestTaken = c.sel(better, no, bestTaken)
			idx = c.sel(better, splat(elem.I64, nil, float64(i)), idx)
		}
		for i := range taken {
			taken[i] = c.sel(c.cmp(idx, splat(elem.I64, nil, float64(i)), "eq"), yes, taken[i])
		}
		values, indices = append(values, best), append(indices, idx)
	}
	if c.err != nil {
		return c.err
	}
	outs := []*value{c.concat(values, int64(axis)), c.concat(indices, int64(axis))}
	if c.err != nil {
		return c.err
	}
	return im.outputs(n, outs)
}
