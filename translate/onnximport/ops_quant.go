package onnximport

import (
	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/translate/onnximport/onnxpb"
)

// Linear quantization is arithmetic on the tensor dialect's types: a
// quantized tensor is a uint8 or int8 one (i32 for DequantizeLinear's
// accumulators), its scale and zero point a scalar or one value per slice
// of an axis.

// quantRange is the range of a quantized type.
func quantRange(et elem.Type) (lo, hi float64, ok bool) {
	switch et {
	case elem.U8:
		return 0, 255, true
	case elem.I8:
		return -128, 127, true
	}
	return 0, 0, false
}

// perAxis is p (a scale or zero point: a scalar, or one value per slice of
// axis) shaped to broadcast against a tensor of rank r: [C] at axis.
func (im *importer) perAxis(c *calc, n *onnxpb.NodeProto, p *value, r int) *value {
	if c.err != nil || len(p.shape) == 0 || (len(p.shape) == 1 && p.shape[0] == 1) {
		return c.reshape(p, []int64{})
	}
	axis, err := im.axis(im.attrInt(n, "axis", 1), r)
	if err != nil || len(p.shape) != 1 {
		if err == nil {
			err = im.fail("a scale or zero point of shape %v (a scalar, or one value per slice of the axis)", p.shape)
		}
		c.err = err
		return nil
	}
	shape := make([]int64, r)
	for i := range shape {
		shape[i] = 1
	}
	shape[axis] = p.shape[0]
	return c.reshape(p, shape)
}

// quantize is saturate(round(x / scale) + zero point) in to's range, as to.
func (c *calc) quantize(x, scale, zero *value, to elem.Type) *value {
	lo, hi, _ := quantRange(to)
	q := c.un(c.div(x, scale), "round")
	if zero != nil {
		q = c.add(q, c.convertTo(zero, x.elem))
	}
	return c.convertTo(c.max(c.k(q, lo), c.min(c.k(q, hi), q)), to)
}

// convertTo is x as et.
func (c *calc) convertTo(x *value, et elem.Type) *value {
	if c.err != nil {
		return nil
	}
	v, err := c.im.castValue(x, et)
	c.err = err
	return v
}

func (im *importer) quantizeLinear(n *onnxpb.NodeProto, in []*value) error {
	x, scale, zero := in[0], in[1], in[2]
	to := elem.U8
	if zero != nil {
		to = zero.elem
	}
	if _, _, ok := quantRange(to); !ok || !x.elem.IsFloat() || scale.elem != x.elem {
		return im.fail("quantizing %s by a scale of %s into %v (the importer takes f16/f32/f64 into uint8 or int8, the scale of x's type)",
			tensorType(x.elem, x.shape), tensorType(scale.elem, scale.shape), to)
	}
	c := &calc{im: im}
	s := im.perAxis(c, n, scale, len(x.shape))
	var z *value
	if zero != nil {
		z = im.perAxis(c, n, zero, len(x.shape))
	}
	return c.done(n, c.quantize(x, s, z, to))
}

func (im *importer) dequantizeLinear(n *onnxpb.NodeProto, in []*value) error {
	x, scale, zero := in[0], in[1], in[2]
	if _, _, ok := quantRange(x.elem); (!ok && x.elem != elem.I32) || !scale.elem.IsFloat() || (zero != nil && zero.elem != x.elem) {
		return im.fail("dequantizing %s by a scale of %s (the importer takes uint8, int8 or int32, and a float scale)",
			tensorType(x.elem, x.shape), tensorType(scale.elem, scale.shape))
	}
	c := &calc{im: im}
	v := c.convertTo(x, scale.elem)
	if zero != nil {
		v = c.sub(v, c.convertTo(im.perAxis(c, n, zero, len(x.shape)), scale.elem))
	}
	return c.done(n, c.mul(v, im.perAxis(c, n, scale, len(x.shape))))
}

// dynamicQuantizeLinear quantizes x into uint8 over the range of its
// values and 0: scale (max − min) / 255, zero point saturate(round(−min /
// scale)); outputs y, the scale and the zero point.
func (im *importer) dynamicQuantizeLinear(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	if x.elem != elem.F32 {
		return im.fail("DynamicQuantizeLinear of %v (it takes f32)", x.elem)
	}
	c := &calc{im: im}
	all := make([]int64, len(x.shape))
	for i := range all {
		all[i] = int64(i)
	}
	hi := c.max(c.reduce(x, all, "max", false), c.k(x, 0))
	lo := c.min(c.neg(c.reduce(c.neg(x), all, "max", false)), c.k(x, 0))
	scale := c.div(c.sub(hi, lo), c.k(x, 255))
	zq := c.un(c.sub(c.k(x, 0), c.div(lo, scale)), "round")
	zero := c.convertTo(c.max(c.k(zq, 0), c.min(c.k(zq, 255), zq)), elem.U8)
	y := c.quantize(x, scale, zero, elem.U8)
	if c.err != nil {
		return c.err
	}
	outs := []*value{y, scale, zero}
	if len(n.GetOutput()) > len(outs) {
		return im.fail("%d outputs; DynamicQuantizeLinear gives 3", len(n.GetOutput()))
	}
	for i, name := range n.GetOutput() {
		if name != "" {
			im.values[name] = outs[i]
		}
	}
	return nil
}
