package onnximport

import (
	"math"
	"slices"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/internal/rowmajor"
	"github.com/ipuir/ipuir/translate/onnximport/onnxpb"
)

// calc composes tensor-dialect ops for an operator that has no op of its
// own, keeping the first error: every method is a no-op returning nil once
// one has failed, so a formula reads as a formula. Constants fold.
type calc struct {
	im  *importer
	err error
}

func (c *calc) bin(a, b *value, op string) *value {
	if c.err != nil {
		return nil
	}
	v, err := c.im.binaryValues(a, b, op)
	c.err = err
	return v
}

func (c *calc) un(x *value, op string) *value {
	if c.err != nil {
		return nil
	}
	v, err := c.im.unaryValue(x, op)
	c.err = err
	return v
}

// k is the scalar x of like's element type.
func (c *calc) k(like *value, x float64) *value {
	if c.err != nil {
		return nil
	}
	return splat(like.elem, nil, x)
}

func (c *calc) add(a, b *value) *value { return c.bin(a, b, "add") }
func (c *calc) sub(a, b *value) *value { return c.bin(a, b, "sub") }
func (c *calc) mul(a, b *value) *value { return c.bin(a, b, "mul") }
func (c *calc) div(a, b *value) *value { return c.bin(a, b, "div") }
func (c *calc) max(a, b *value) *value { return c.bin(a, b, "max") }
func (c *calc) neg(x *value) *value    { return c.sub(c.k(x, 0), x) }

// min is -max(-a, -b) for floats: exact, and the larger-magnitude NaN
// rules of max. For integers, whose negation wraps (an unsigned one, or
// the most negative signed one), it is a select.
func (c *calc) min(a, b *value) *value {
	if a != nil && !a.elem.IsFloat() {
		return c.sel(c.cmp(a, b, "lt"), a, b)
	}
	return c.neg(c.max(c.neg(a), c.neg(b)))
}

func (c *calc) relu(x *value) *value { return c.max(x, c.k(x, 0)) }

// negPart is min(x, 0), exact also at ±Inf (x - relu(x) is NaN at +Inf).
func (c *calc) negPart(x *value) *value { return c.min(x, c.k(x, 0)) }

func (c *calc) abs(x *value) *value {
	if x != nil && x.elem.IsUnsigned() {
		return x
	}
	return c.max(x, c.neg(x))
}

// reduce is x reduced over axes (normalised, sorted) by kind ("sum" or
// "max"), their extents kept as 1 when keep.
func (c *calc) reduce(x *value, axes []int64, kind string, keep bool) *value {
	if c.err != nil {
		return nil
	}
	v, err := c.im.reduceValue(x, axes, kind, keep)
	c.err = err
	return v
}

func (c *calc) reshape(x *value, shape []int64) *value {
	if c.err != nil {
		return nil
	}
	v, err := c.im.reshapeValue(x, shape)
	c.err = err
	return v
}

// done is the node's output v, or the first error.
func (c *calc) done(n *onnxpb.NodeProto, v *value) error {
	if c.err != nil {
		return c.err
	}
	return c.im.out(n, v)
}

// elementwise is a converter of one input computed by f.
func elementwise(f func(c *calc, n *onnxpb.NodeProto, x *value) *value) func(*importer, *onnxpb.NodeProto, []*value) error {
	return func(im *importer, n *onnxpb.NodeProto, in []*value) error {
		c := &calc{im: im}
		return c.done(n, f(c, n, in[0]))
	}
}

var (
	absOp = elementwise(func(c *calc, _ *onnxpb.NodeProto, x *value) *value { return c.abs(x) })
	// LeakyRelu is max(x, αx) for α ≤ 1 and min(x, αx) above.
	leakyReluOp = elementwise(func(c *calc, n *onnxpb.NodeProto, x *value) *value {
		alpha := c.im.attrFloat(n, "alpha", 0.01)
		ax := c.mul(x, c.k(x, alpha))
		if alpha <= 1 {
			return c.max(x, ax)
		}
		return c.min(x, ax)
	})
	// Elu is relu(x) + α(e^min(x,0) - 1): x above 0, α(e^x - 1) below.
	eluOp = elementwise(func(c *calc, n *onnxpb.NodeProto, x *value) *value {
		alpha := c.im.attrFloat(n, "alpha", 1)
		return c.add(c.relu(x), c.mul(c.k(x, alpha), c.sub(c.un(c.negPart(x), "exp"), c.k(x, 1))))
	})
	// Selu is γ·elu_α(x).
	seluOp = elementwise(func(c *calc, n *onnxpb.NodeProto, x *value) *value {
		alpha := c.im.attrFloat(n, "alpha", 1.67326319217681884765625)
		gamma := c.im.attrFloat(n, "gamma", 1.05070102214813232421875)
		e := c.add(c.relu(x), c.mul(c.k(x, alpha), c.sub(c.un(c.negPart(x), "exp"), c.k(x, 1))))
		return c.mul(c.k(x, gamma), e)
	})
	// Celu is relu(x) + min(0, α(e^(x/α) - 1)).
	celuOp = elementwise(func(c *calc, n *onnxpb.NodeProto, x *value) *value {
		alpha := c.im.attrFloat(n, "alpha", 1)
		e := c.mul(c.k(x, alpha), c.sub(c.un(c.div(c.negPart(x), c.k(x, alpha)), "exp"), c.k(x, 1)))
		return c.add(c.relu(x), e)
	})
	// HardSigmoid is max(0, min(1, αx + β)).
	hardSigmoidOp = elementwise(func(c *calc, n *onnxpb.NodeProto, x *value) *value {
		return c.hardSigmoid(x, c.im.attrFloat(n, "alpha", 0.2), c.im.attrFloat(n, "beta", 0.5))
	})
	// HardSwish is x·hardsigmoid(x) with α = 1/6, β = 1/2.
	hardSwishOp = elementwise(func(c *calc, _ *onnxpb.NodeProto, x *value) *value {
		return c.mul(x, c.hardSigmoid(x, 1.0/6, 0.5))
	})
	// Softsign is x / (1 + |x|).
	softsignOp = elementwise(func(c *calc, _ *onnxpb.NodeProto, x *value) *value {
		return c.div(x, c.add(c.k(x, 1), c.abs(x)))
	})
	// Softplus is log(1 + e^x), as relu(x) + log(1 + e^-|x|): no overflow
	// for large x, and exact where e^-|x| vanishes.
	softplusOp = elementwise(func(c *calc, _ *onnxpb.NodeProto, x *value) *value {
		return c.softplus(x)
	})
	// Mish is x·tanh(softplus(x)).
	mishOp = elementwise(func(c *calc, _ *onnxpb.NodeProto, x *value) *value {
		return c.mul(x, c.un(c.softplus(x), "tanh"))
	})
)

// The circular and hyperbolic functions the target has no instruction
// for, from sin, cos, atan, exp and log.
var (
	tanOp  = elementwise(func(c *calc, _ *onnxpb.NodeProto, x *value) *value { return c.div(c.un(x, "sin"), c.un(x, "cos")) })
	asinOp = elementwise(func(c *calc, _ *onnxpb.NodeProto, x *value) *value { return c.asin(x) })
	acosOp = elementwise(func(c *calc, _ *onnxpb.NodeProto, x *value) *value {
		return c.sub(c.k(x, math.Pi/2), c.asin(x))
	})
	sinhOp = elementwise(func(c *calc, _ *onnxpb.NodeProto, x *value) *value {
		return c.mul(c.k(x, 0.5), c.sub(c.un(x, "exp"), c.un(c.neg(x), "exp")))
	})
	coshOp = elementwise(func(c *calc, _ *onnxpb.NodeProto, x *value) *value {
		return c.mul(c.k(x, 0.5), c.add(c.un(x, "exp"), c.un(c.neg(x), "exp")))
	})
	// asinh by |x| and the sign, so that large negative x does not cancel.
	asinhOp = elementwise(func(c *calc, _ *onnxpb.NodeProto, x *value) *value {
		a := c.abs(x)
		return c.mul(c.un(x, "sign"), c.un(c.add(a, c.sqrt(c.add(c.mul(x, x), c.k(x, 1)))), "log"))
	})
	acoshOp = elementwise(func(c *calc, _ *onnxpb.NodeProto, x *value) *value {
		return c.un(c.add(x, c.sqrt(c.sub(c.mul(x, x), c.k(x, 1)))), "log")
	})
	atanhOp = elementwise(func(c *calc, _ *onnxpb.NodeProto, x *value) *value {
		return c.mul(c.k(x, 0.5), c.un(c.div(c.add(c.k(x, 1), x), c.sub(c.k(x, 1), x)), "log"))
	})
)

// sqrt is 1 / rsqrt(x), exact at 0.
func (c *calc) sqrt(x *value) *value { return c.div(c.k(x, 1), c.un(x, "rsqrt")) }

// asin is atan(x / √(1 − x²)): ±π/2 at ±1, NaN beyond.
func (c *calc) asin(x *value) *value {
	return c.un(c.div(x, c.sqrt(c.sub(c.k(x, 1), c.mul(x, x)))), "atan")
}

func (c *calc) hardSigmoid(x *value, alpha, beta float64) *value {
	return c.max(c.k(x, 0), c.min(c.k(x, 1), c.add(c.mul(x, c.k(x, alpha)), c.k(x, beta))))
}

func (c *calc) softplus(x *value) *value {
	return c.add(c.relu(x), c.un(c.add(c.k(x, 1), c.un(c.neg(c.abs(x)), "exp")), "log"))
}

// prelu is relu(x) + slope·min(x, 0), the slope broadcast to x (a slope of
// shape [C] before opset 7 is one per channel, axis 1).
func (im *importer) prelu(n *onnxpb.NodeProto, in []*value) error {
	x, slope := in[0], in[1]
	if im.opset < 7 && len(slope.shape) == 1 && len(x.shape) > 2 && slope.shape[0] == x.shape[1] && slope.shape[0] != 1 {
		shape := make([]int64, len(x.shape)-1)
		for i := range shape {
			shape[i] = 1
		}
		shape[0] = slope.shape[0]
		var err error
		if slope, err = im.reshapeValue(slope, shape); err != nil {
			return err
		}
	}
	c := &calc{im: im}
	return c.done(n, c.add(c.relu(x), c.mul(slope, c.negPart(x))))
}

// clip is min(max(x, lo), hi): the bounds are inputs from opset 11 and
// attributes before; an absent bound does not clip.
func (im *importer) clip(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	lo, hi := in[1], in[2]
	if im.opset < 11 {
		lo, hi = nil, nil
		if a := attr(n, "min"); a != nil {
			lo = splat(x.elem, nil, im.attrFloat(n, "min", 0))
		}
		if a := attr(n, "max"); a != nil {
			hi = splat(x.elem, nil, im.attrFloat(n, "max", 0))
		}
	}
	for _, b := range []*value{lo, hi} {
		if b != nil && rowmajor.Elements(b.shape) != 1 {
			return im.fail("a bound of shape %v; Clip's bounds are scalars", b.shape)
		}
	}
	c := &calc{im: im}
	v := x
	if lo != nil {
		v = c.max(v, c.reshape(lo, nil))
	}
	if hi != nil {
		v = c.min(v, c.reshape(hi, nil))
	}
	return c.done(n, v)
}

// variadic is Max, Min, Sum or Mean of one or more inputs, broadcast
// together (from opset 8; before, they have one shape, which numpy's rules
// take too).
func variadic(kind string) func(*importer, *onnxpb.NodeProto, []*value) error {
	return func(im *importer, n *onnxpb.NodeProto, in []*value) error {
		c := &calc{im: im}
		v := in[0]
		for _, x := range in[1:] {
			switch kind {
			case "max":
				v = c.max(v, x)
			case "min":
				v = c.min(v, x)
			default:
				v = c.add(v, x)
			}
		}
		if kind == "mean" && len(in) > 1 {
			v = c.div(v, c.k(v, float64(len(in))))
		}
		return c.done(n, v)
	}
}

// softmaxAxes is the axis Softmax, LogSoftmax and Hardmax normalise over:
// from opset 13 one axis (default -1); before, the input is coerced to 2-D
// at axis (default 1), its trailing dimensions normalised together, so
// the result is computed on that view and reshaped back.
func (im *importer) softmaxView(n *onnxpb.NodeProto, x *value) (view *value, axis int, err error) {
	r := len(x.shape)
	if im.opset >= 13 {
		axis, err = im.axis(im.attrInt(n, "axis", -1), r)
		return x, axis, err
	}
	a := im.attrInt(n, "axis", 1)
	if a < 0 {
		a += int64(r)
	}
	if a < 0 || a > int64(r) || r == 0 {
		return nil, 0, im.fail("axis %d of a rank-%d tensor", im.attrInt(n, "axis", 1), r)
	}
	view, err = im.reshapeValue(x, []int64{rowmajor.Elements(x.shape[:a]), rowmajor.Elements(x.shape[a:])})
	return view, 1, err
}

func (im *importer) softmax(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	view, axis, err := im.softmaxView(n, x)
	if err != nil {
		return err
	}
	src, err := im.use(view)
	if err != nil {
		return err
	}
	v := im.emit(x.elem, view.shape, "tensor.softmax %s axis = %d : %s", src, axis, tensorType(x.elem, view.shape))
	if v, err = im.reshapeValue(v, x.shape); err != nil {
		return err
	}
	return im.out(n, v)
}

// logSoftmax is d - log(Σ e^d) with d = x - max(x): no overflow, and
// exact -Inf nowhere a softmax would underflow to 0.
func (im *importer) logSoftmax(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	view, axis, err := im.softmaxView(n, x)
	if err != nil {
		return err
	}
	c := &calc{im: im}
	ax := []int64{int64(axis)}
	d := c.sub(view, c.reduce(view, ax, "max", true))
	v := c.sub(d, c.un(c.reduce(c.un(d, "exp"), ax, "sum", true), "log"))
	return c.done(n, c.reshape(v, x.shape))
}

// dropout is the identity in inference, and in training with a ratio of
// 0 (torch.onnx.export writes training_mode = true with ratio 0 for some
// models; nothing is dropped and the scale 1/(1 − 0) is 1, so ONNX Runtime
// returns the input); its mask, when asked for, is all true (all ones
// before opset 10, where it has the data's type).
func (im *importer) dropout(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	if t := in[2]; t != nil {
		if t.konst == nil {
			return im.needsValue(t, "training_mode")
		}
		if len(t.konst.v()) == 1 && t.konst.v()[0] != 0 {
			ratio := in[1]
			switch {
			case ratio == nil:
				return im.fail("training_mode is true with the default ratio 0.5: the importer compiles inference, where only a ratio of 0 keeps Dropout the identity")
			case ratio.konst == nil:
				return im.needsValue(ratio, "ratio")
			case len(ratio.konst.v()) != 1 || ratio.konst.v()[0] != 0:
				return im.fail("training_mode is true with ratio %v: the importer compiles inference, where only a ratio of 0 keeps Dropout the identity", ratio.konst.v())
			}
		}
	}
	if im.opset < 7 && im.attrInt(n, "is_test", 0) == 0 {
		// Before opset 7 a Dropout is in training unless is_test says so;
		// exporters of inference graphs set it (PyTorch's do), and a mask
		// asked for is what training would return.
		if len(n.GetOutput()) > 1 && n.GetOutput()[1] != "" {
			return im.fail("is_test = 0 with a mask output: a Dropout in training")
		}
	}
	outs := n.GetOutput()
	if len(outs) == 0 || outs[0] == "" {
		return im.fail("the node has no output")
	}
	im.values[outs[0]] = x
	if len(outs) > 1 && outs[1] != "" {
		et := elem.I1
		if im.opset < 10 {
			et = x.elem
		}
		if err := im.foldable(x.shape, 1); err != nil {
			return err
		}
		im.values[outs[1]] = splat(et, x.shape, 1)
	}
	return nil
}

// size is the element count of its input, an i64 scalar.
func (im *importer) size(n *onnxpb.NodeProto, in []*value) error {
	return im.out(n, splat(elem.I64, nil, float64(rowmajor.Elements(in[0].shape))))
}

// reduceKinds are the reductions that are a sum or a maximum of a
// function of the input, followed by a function of the result.
var reduceKinds = map[string]struct {
	base        string                         // "sum" or "max"
	pre, post   func(c *calc, x *value) *value // nil is the identity
	mean, negat bool
}{
	"sum":        {base: "sum"},
	"mean":       {base: "sum", mean: true},
	"max":        {base: "max"},
	"min":        {base: "max", negat: true},
	"sum_square": {base: "sum", pre: func(c *calc, x *value) *value { return c.mul(x, x) }},
	"l1":         {base: "sum", pre: func(c *calc, x *value) *value { return c.abs(x) }},
	"l2": {base: "sum", pre: func(c *calc, x *value) *value { return c.mul(x, x) },
		post: func(c *calc, x *value) *value { return c.div(c.k(x, 1), c.un(x, "rsqrt")) }},
	"log_sum": {base: "sum", post: func(c *calc, x *value) *value { return c.un(x, "log") }},
}

// reduceValue reduces x over axes (normalised) by base, "sum" or "max",
// keeping their extents as 1 when keep.
func (im *importer) reduceValue(x *value, axes []int64, base string, keep bool) (*value, error) {
	set := make([]bool, len(x.shape))
	for _, a := range axes {
		set[a] = true
	}
	var reduced, kept []int64
	for i, d := range x.shape {
		if set[i] {
			kept = append(kept, 1)
		} else {
			reduced = append(reduced, d)
			kept = append(kept, d)
		}
	}
	norm := slices.Clone(axes)
	slices.Sort(norm)
	if x.konst != nil {
		out := &value{elem: x.elem, shape: kept, konst: &konst{vals: make([]float64, rowmajor.Elements(kept))}}
		init := 0.0
		if base == "max" {
			init = math.Inf(-1)
		}
		for i := range out.konst.v() {
			out.konst.v()[i] = init
		}
		idx := make([]int64, len(x.shape))
		rowmajor.ForEach(x.shape, func(lin int64, src []int64) {
			copy(idx, src)
			for _, a := range norm {
				idx[a] = 0
			}
			o := rowmajor.Linear(kept, idx)
			if base == "max" {
				out.konst.v()[o] = math.Max(out.konst.v()[o], x.konst.v()[lin])
			} else {
				out.konst.v()[o] += x.konst.v()[lin]
			}
		})
		for i, v := range out.konst.v() {
			out.konst.v()[i] = round(x.elem, v)
		}
		if !keep {
			out.shape = reduced
		}
		return out, nil
	}
	src, err := im.use(x)
	if err != nil {
		return nil, err
	}
	op := "reduce_sum"
	if base == "max" {
		op = "reduce_max"
	}
	v := im.emit(x.elem, reduced, "tensor.%s %s axes = %s : %s -> %s", op, src, ints(norm), tensorType(x.elem, x.shape), tensorType(x.elem, reduced))
	if keep {
		return im.reshapeValue(v, kept)
	}
	return v, nil
}

// reduceAxes are a ReduceX node's axes, normalised and each once: from the
// second input (ReduceSum from opset 13, the others from 18) or the
// attribute, all of them when none is given; noop when none is given and
// noop_with_empty_axes says the input passes. count is the reduced
// elements per result.
func (im *importer) reduceAxes(n *onnxpb.NodeProto, x *value) (norm []int64, count int64, noop bool, err error) {
	axes, ok, err := im.ints(n, 1, "axes")
	if err != nil {
		return nil, 0, false, err
	}
	r := len(x.shape)
	if !ok || len(axes) == 0 {
		if im.attrInt(n, "noop_with_empty_axes", 0) != 0 {
			return nil, 0, true, nil
		}
		axes = make([]int64, r)
		for i := range axes {
			axes[i] = int64(i)
		}
	}
	set := make([]bool, r)
	count = 1
	for _, a := range axes {
		k, err := im.axis(a, r)
		if err != nil {
			return nil, 0, false, err
		}
		if !set[k] {
			set[k] = true
			norm = append(norm, int64(k))
			count *= x.shape[k]
		}
	}
	return norm, count, false, nil
}

// reduce is a ReduceX operator: the axes from the second input (ReduceSum
// from opset 13, the others from 18) or the attribute, all of them when
// none is given (unless noop_with_empty_axes).
func reduce(kind string) func(*importer, *onnxpb.NodeProto, []*value) error {
	return func(im *importer, n *onnxpb.NodeProto, in []*value) error {
		x := in[0]
		norm, count, noop, err := im.reduceAxes(n, x)
		if err != nil || noop {
			if err == nil {
				err = im.out(n, x)
			}
			return err
		}
		keep := im.attrInt(n, "keepdims", 1) != 0
		if count == 0 {
			return im.fail("a reduction over an empty axis")
		}
		if kind == "prod" {
			return im.reduceProd(n, x, norm, keep)
		}
		spec := reduceKinds[kind]
		c := &calc{im: im}
		v := x
		if spec.pre != nil {
			v = spec.pre(c, v)
		}
		if spec.negat {
			v = c.neg(v)
		}
		v = c.reduce(v, norm, spec.base, keep)
		if spec.negat {
			v = c.neg(v)
		}
		if spec.mean {
			v = c.mul(v, c.k(v, 1/float64(count)))
		}
		if spec.post != nil {
			v = spec.post(c, v)
		}
		return c.done(n, v)
	}
}

// reduceLogSumExp is m + log(Σ e^(x - m)) with m the maximum (kept), so
// that nothing overflows.
func (im *importer) reduceLogSumExp(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	norm, _, noop, err := im.reduceAxes(n, x)
	if err != nil || noop {
		if err == nil {
			err = im.out(n, x)
		}
		return err
	}
	set := make([]bool, len(x.shape))
	for _, a := range norm {
		set[a] = true
	}
	c := &calc{im: im}
	m := c.reduce(x, norm, "max", true)
	v := c.add(m, c.un(c.reduce(c.un(c.sub(x, m), "exp"), norm, "sum", true), "log"))
	if im.attrInt(n, "keepdims", 1) == 0 {
		var shape []int64
		for i, d := range x.shape {
			if !set[i] {
				shape = append(shape, d)
			}
		}
		v = c.reshape(v, shape)
	}
	return c.done(n, v)
}

// reduceProd is ReduceProd: the product along each axis in turn, its unit
// slices multiplied one after another (the target has no product
// reduction; up to 4,096 positions an axis).
func (im *importer) reduceProd(n *onnxpb.NodeProto, x *value, axes []int64, keep bool) error {
	c := &calc{im: im}
	v := x
	for _, a := range axes {
		parts, err := im.axisSlices(v, int(a), "ReduceProd")
		if err != nil {
			return err
		}
		if len(parts) == 0 {
			return im.fail("a product over an empty axis")
		}
		acc := parts[0]
		for _, p := range parts[1:] {
			acc = c.mul(acc, p)
		}
		v = acc
	}
	if !keep {
		var shape []int64
		for i, d := range x.shape {
			if !slices.Contains(axes, int64(i)) {
				shape = append(shape, d)
			}
		}
		v = c.reshape(v, shape)
	}
	return c.done(n, v)
}
