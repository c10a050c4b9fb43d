package onnximport

import (
	"slices"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/translate/onnximport/onnxpb"
)

// ONNX sequences are lists of tensors that the importer holds as lists:
// their lengths and the positions the operators take are known at import,
// so inserting, erasing and picking move values, and a sequence never
// reaches the module (a graph input or output that is one is refused as
// not a tensor).

// sequenceOps are the operators that take sequences.
var sequenceOps = map[string]bool{"SequenceEmpty": true, "SequenceConstruct": true, "SequenceInsert": true,
	"SequenceErase": true, "SequenceAt": true, "SequenceLength": true, "SplitToSequence": true, "ConcatFromSequence": true,
	// Control flow passes its values to its subgraphs, sequences too.
	"Loop": true, "Scan": true}

func seqOf(vs []*value) *value { return &value{isSeq: true, seq: vs} }

// sequenceIn is input i as a sequence.
func (im *importer) sequenceIn(n *onnxpb.NodeProto, v *value, i int) (*value, error) {
	if v == nil || !v.isSeq {
		return nil, im.fail("input %d '%s' is a tensor; %s takes a sequence", i, n.GetInput()[i], n.GetOpType())
	}
	return v, nil
}

// position is a sequence position known at import, negative from the end,
// in [0, length] when insert (one past the end), else [0, length).
func (im *importer) position(v *value, length int, insert bool) (int, error) {
	p, err := im.scalarOf(v, "the position", 0)
	if err != nil {
		return 0, err
	}
	i := int(p)
	if i < 0 {
		i += length
	}
	hi := length - 1
	if insert {
		hi = length
	}
	if i < 0 || i > hi {
		return 0, im.fail("position %d of a sequence of %d", int(p), length)
	}
	return i, nil
}

func (im *importer) sequenceEmpty(n *onnxpb.NodeProto, _ []*value) error {
	return im.out(n, seqOf(nil))
}

func (im *importer) sequenceConstruct(n *onnxpb.NodeProto, in []*value) error {
	for i, v := range in {
		if v.isSeq {
			return im.fail("input %d is a sequence; SequenceConstruct takes tensors", i)
		}
		if v.elem != in[0].elem {
			return im.fail("tensors of %v and %v: a sequence holds one type", in[0].elem, v.elem)
		}
	}
	return im.out(n, seqOf(slices.Clone(in)))
}

func (im *importer) sequenceInsert(n *onnxpb.NodeProto, in []*value) error {
	s, err := im.sequenceIn(n, in[0], 0)
	if err != nil {
		return err
	}
	t := in[1]
	if t.isSeq || len(s.seq) > 0 && t.elem != s.seq[0].elem {
		return im.fail("inserting a %v tensor into a sequence of %v", t.elem, s.seq[0].elem)
	}
	at := len(s.seq)
	if in[2] != nil {
		if at, err = im.position(in[2], len(s.seq), true); err != nil {
			return err
		}
	}
	return im.out(n, seqOf(slices.Insert(slices.Clone(s.seq), at, t)))
}

func (im *importer) sequenceErase(n *onnxpb.NodeProto, in []*value) error {
	s, err := im.sequenceIn(n, in[0], 0)
	if err != nil {
		return err
	}
	if len(s.seq) == 0 {
		return im.fail("erasing from an empty sequence")
	}
	at := len(s.seq) - 1
	if in[1] != nil {
		if at, err = im.position(in[1], len(s.seq), false); err != nil {
			return err
		}
	}
	return im.out(n, seqOf(slices.Delete(slices.Clone(s.seq), at, at+1)))
}

func (im *importer) sequenceAt(n *onnxpb.NodeProto, in []*value) error {
	s, err := im.sequenceIn(n, in[0], 0)
	if err != nil {
		return err
	}
	at, err := im.position(in[1], len(s.seq), false)
	if err != nil {
		return err
	}
	return im.out(n, s.seq[at])
}

func (im *importer) sequenceLength(n *onnxpb.NodeProto, in []*value) error {
	s, err := im.sequenceIn(n, in[0], 0)
	if err != nil {
		return err
	}
	return im.out(n, splat(elem.I64, nil, float64(len(s.seq))))
}

// splitToSequence is Split into a list: by the split input (a scalar
// chunk size, or the sizes), or into positions along the axis, squeezed
// unless keepdims.
func (im *importer) splitToSequence(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	axis, err := im.axis(im.attrInt(n, "axis", 0), len(x.shape))
	if err != nil {
		return err
	}
	d := x.shape[axis]
	var sizes []int64
	squeeze := false
	switch sp := in[1]; {
	case sp == nil:
		for range d {
			sizes = append(sizes, 1)
		}
		squeeze = im.attrInt(n, "keepdims", 1) == 0
	case sp.konst == nil:
		return im.needsValue(sp, "the split")
	case len(sp.shape) == 0:
		k := int64(sp.konst.v()[0])
		if k < 1 {
			return im.fail("a split of %d", k)
		}
		for rest := d; rest > 0; rest -= k {
			sizes = append(sizes, min(k, rest))
		}
	default:
		for _, f := range sp.konst.v() {
			sizes = append(sizes, int64(f))
		}
	}
	if int64(len(sizes)) > maxKernelOffsets*16 {
		return im.fail("a sequence of %d tensors", len(sizes))
	}
	var parts []*value
	off := int64(0)
	for _, k := range sizes {
		if k < 0 || off+k > d {
			return im.fail("sizes %v do not fit axis %d of size %d", sizes, axis, d)
		}
		p, err := im.along(x, axis, off, k, 1)
		if err != nil {
			return err
		}
		off += k
		if squeeze {
			if p, err = im.reshapeValue(p, slices.Delete(slices.Clone(p.shape), axis, axis+1)); err != nil {
				return err
			}
		}
		parts = append(parts, p)
	}
	if off != d {
		return im.fail("sizes %v do not cover axis %d of size %d", sizes, axis, d)
	}
	return im.out(n, seqOf(parts))
}

// concatFromSequence concatenates the list along the axis, or with
// new_axis stacks it along a new one.
func (im *importer) concatFromSequence(n *onnxpb.NodeProto, in []*value) error {
	s, err := im.sequenceIn(n, in[0], 0)
	if err != nil {
		return err
	}
	if len(s.seq) == 0 {
		return im.fail("concatenating an empty sequence")
	}
	a := im.attrInt(n, "axis", 0)
	parts := s.seq
	if im.attrInt(n, "new_axis", 0) != 0 {
		r := len(s.seq[0].shape) + 1
		k, err := im.axis(a, r)
		if err != nil {
			return err
		}
		parts = make([]*value, len(s.seq))
		for i, v := range s.seq {
			if parts[i], err = im.reshapeValue(v, slices.Insert(slices.Clone(v.shape), k, 1)); err != nil {
				return err
			}
		}
		a = int64(k)
	}
	v, err := im.concatValues(parts, a)
	if err != nil {
		return err
	}
	return im.out(n, v)
}
