package onnximport

import (
	"slices"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/internal/rowmajor"
	"github.com/ipuir/ipuir/translate/onnximport/onnxpb"
)

// maxScatterWork bounds a scatter's writes times the data's elements:
// each write is a select over the data.
const maxScatterWork = 1 << 22

// Scatters with indices known at import (given with --input-value where
// they are graph inputs) are chains of selects: each write puts its update
// where a constant mask says, the last write winning (reduction none) or
// combined with what is there (add, mul, max, min).

// scatterWrite is one write: the mask of the data's positions it writes
// (a constant of the data's shape, or of its leading axes for ScatterND's
// slices), and the update it writes there.
type scatterWrite struct {
	mask   *value
	update *value
}

// applyWrites folds the writes into data by reduction.
func (im *importer) applyWrites(c *calc, n *onnxpb.NodeProto, data *value, writes []scatterWrite) error {
	reduction := "none"
	if a := im.typedAttr(n, "reduction", onnxpb.AttributeProto_STRING); a != nil {
		reduction = string(a.GetS())
	}
	if int64(len(writes))*rowmajor.Elements(data.shape) > maxScatterWork {
		return im.fail("%d writes into %d elements: more than the %d selections the importer unrolls", len(writes), rowmajor.Elements(data.shape), maxScatterWork)
	}
	y := data
	for _, w := range writes {
		switch reduction {
		case "none":
			y = c.sel(w.mask, w.update, y)
		case "add":
			y = c.add(y, c.sel(w.mask, w.update, c.k(y, 0)))
		case "mul":
			y = c.mul(y, c.sel(w.mask, w.update, c.k(y, 1)))
		case "max":
			y = c.sel(w.mask, c.max(y, w.update), y)
		case "min":
			y = c.sel(w.mask, c.min(y, w.update), y)
		default:
			return im.fail("reduction = '%s' (none, add, mul, max or min)", reduction)
		}
	}
	return c.done(n, y)
}

// scatterIndices is an indices input's values, known at import.
func (im *importer) scatterIndices(v *value, what string) ([]int64, error) {
	if v.konst == nil {
		return nil, im.needsValue(v, what)
	}
	out := make([]int64, len(v.konst.v()))
	for i, x := range v.konst.v() {
		out[i] = int64(x)
	}
	return out, nil
}

// scatterElements is ScatterElements (and Scatter before opset 11): each
// element of updates written at its own position with the index along axis
// replaced by indices' element.
func (im *importer) scatterElements(n *onnxpb.NodeProto, in []*value) error {
	data, ix, updates := in[0], in[1], in[2]
	idx, err := im.scatterIndices(ix, "input 1 (the indices)")
	if err != nil {
		return err
	}
	r := len(data.shape)
	axis, err := im.axis(im.attrInt(n, "axis", 0), r)
	if err != nil {
		return err
	}
	if len(ix.shape) != r || !slices.Equal(ix.shape, updates.shape) || updates.elem != data.elem {
		return im.fail("indices %v and updates %s for data %s (one shape for both, of the data's rank and type)", ix.shape, tensorType(updates.elem, updates.shape), tensorType(data.elem, data.shape))
	}
	c := &calc{im: im}
	var writes []scatterWrite
	var bad error
	rowmajor.ForEach(ix.shape, func(lin int64, pos []int64) {
		if bad != nil {
			return
		}
		at := slices.Clone(pos)
		k := idx[lin]
		if k < 0 {
			k += data.shape[axis]
		}
		if k < 0 || k >= data.shape[axis] {
			bad = im.fail("index %d at %v is outside the axis of %d", idx[lin], pos, data.shape[axis])
			return
		}
		at[axis] = k
		for i := range at {
			if at[i] >= data.shape[i] {
				bad = im.fail("update at %v falls outside the data %v", pos, data.shape)
				return
			}
		}
		mask := splat(elem.I1, data.shape, 0)
		mask.konst.v()[rowmajor.Linear(data.shape, at)] = 1
		ones := make([]int64, r)
		for i := range ones {
			ones[i] = 1
		}
		writes = append(writes, scatterWrite{mask, c.slice(updates, pos, ones)})
	})
	if bad != nil {
		return bad
	}
	return im.applyWrites(c, n, data, writes)
}

// scatterND is ScatterND: each row of indices (its last axis, k long)
// addresses a slice of data over its first k axes, which the matching
// slice of updates fills.
func (im *importer) scatterND(n *onnxpb.NodeProto, in []*value) error {
	data, ix, updates := in[0], in[1], in[2]
	idx, err := im.scatterIndices(ix, "input 1 (the indices)")
	if err != nil {
		return err
	}
	q := len(ix.shape)
	if q == 0 {
		return im.fail("indices of rank 0")
	}
	k := int(ix.shape[q-1])
	if k > len(data.shape) || updates.elem != data.elem {
		return im.fail("indices %v for data %s", ix.shape, tensorType(data.elem, data.shape))
	}
	want := append(slices.Clone(ix.shape[:q-1]), data.shape[k:]...)
	if !slices.Equal(updates.shape, want) {
		return im.fail("updates of shape %v; indices %v into data %v make them %v", updates.shape, ix.shape, data.shape, want)
	}
	c := &calc{im: im}
	rows := rowmajor.Elements(ix.shape[:q-1])
	maskShape := slices.Clone(data.shape)
	for i := k; i < len(maskShape); i++ {
		maskShape[i] = 1
	}
	sliceShape := append(make([]int64, 0, len(data.shape)), data.shape...)
	for i := range k {
		sliceShape[i] = 1
	}
	var writes []scatterWrite
	for row := range rows {
		at := make([]int64, len(data.shape))
		for j := range k {
			v := idx[row*int64(k)+int64(j)]
			if v < 0 {
				v += data.shape[j]
			}
			if v < 0 || v >= data.shape[j] {
				return im.fail("index %d of row %d is outside axis %d of %d", idx[row*int64(k)+int64(j)], row, j, data.shape[j])
			}
			at[j] = v
		}
		mask := splat(elem.I1, maskShape, 0)
		mask.konst.v()[rowmajor.Linear(maskShape, at)] = 1
		// The row's update, [1, ..., 1, data.shape[k:]...]: the row's
		// position among indices' leading axes, unravelled.
		lead := make([]int64, q-1)
		for i, rest := q-2, row; i >= 0; i-- {
			lead[i], rest = rest%ix.shape[i], rest/ix.shape[i]
		}
		offsets := append(lead, make([]int64, len(data.shape)-k)...)
		sizes := append(make([]int64, q-1), data.shape[k:]...)
		for i := range q - 1 {
			sizes[i] = 1
		}
		u := c.reshape(c.slice(updates, offsets, sizes), sliceShape)
		writes = append(writes, scatterWrite{mask, u})
	}
	return im.applyWrites(c, n, data, writes)
}
