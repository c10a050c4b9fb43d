package onnximport

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/internal/rowmajor"
	"github.com/ipuir/ipuir/numeric"
	"github.com/ipuir/ipuir/translate/onnximport/onnxpb"
)

// converter is how the importer takes one operator: its first required
// inputs must be present (all of them when variadic), and convert gets
// every input the node names, and at least required + optional, as values
// (nil for an optional one left out).
type converter struct {
	required, optional int
	variadic           bool
	convert            func(im *importer, n *onnxpb.NodeProto, in []*value) error
}

// converters are the operators the importer takes, by op_type.
var converters map[string]converter

func init() {
	binary := func(op string) converter {
		return converter{required: 2, convert: func(im *importer, n *onnxpb.NodeProto, in []*value) error { return im.binary(n, in, op) }}
	}
	unary := func(op string) converter {
		return converter{required: 1, convert: func(im *importer, n *onnxpb.NodeProto, in []*value) error { return im.unary(n, in, op) }}
	}
	takes := func(required int, f func(*importer, *onnxpb.NodeProto, []*value) error) converter {
		return converter{required: required, convert: f}
	}
	converters = map[string]converter{
		"Add": binary("add"), "Sub": binary("sub"), "Mul": binary("mul"), "Div": binary("div"),
		"Max": {required: 1, variadic: true, convert: (*importer).maxOf},
		"Exp": unary("exp"), "Tanh": unary("tanh"), "Erf": unary("erf"),
		"Sqrt": takes(1, (*importer).sqrt), "Reciprocal": takes(1, (*importer).reciprocal), "Neg": takes(1, (*importer).neg),
		"Relu": takes(1, (*importer).relu), "Sigmoid": takes(1, (*importer).sigmoid), "Pow": takes(2, (*importer).pow),
		"MatMul": takes(2, (*importer).matmul), "Gemm": {required: 2, optional: 1, convert: (*importer).gemm},
		"Softmax": takes(1, (*importer).softmax), "LayerNormalization": {required: 2, optional: 1, convert: (*importer).layerNorm},
		"Gelu":      takes(1, (*importer).gelu),
		"Transpose": takes(1, (*importer).transpose), "Reshape": takes(1, (*importer).reshapeOp), "Flatten": takes(1, (*importer).flatten),
		"Unsqueeze": takes(1, (*importer).unsqueeze), "Squeeze": takes(1, (*importer).squeeze),
		"Concat": {variadic: true, convert: (*importer).concat},
		"Slice":  takes(1, (*importer).slice), "Split": takes(1, (*importer).split), "Expand": takes(1, (*importer).expand),
		"Cast": takes(1, (*importer).cast), "Identity": takes(1, (*importer).identity), "Constant": takes(0, (*importer).constant),
		"ConstantOfShape": takes(0, (*importer).constantOfShape), "Shape": takes(1, (*importer).shapeOp), "Gather": takes(2, (*importer).gather),
		"ReduceSum": reduce("sum"), "ReduceMean": reduce("mean"), "ReduceMax": reduce("max"),
		"Where": takes(3, (*importer).where),
	}
}

func (im *importer) convert(n *onnxpb.NodeProto) error {
	c, ok := converters[n.GetOpType()]
	if !ok {
		names := make([]string, 0, len(converters))
		for k := range converters {
			names = append(names, k)
		}
		slices.Sort(names)
		return im.fail("operator '%s' is not supported (the importer takes %s)", n.GetOpType(), strings.Join(names, ", "))
	}
	for i, out := range n.GetOutput() {
		if _, dup := im.values[out]; dup && out != "" {
			return im.fail("output %d '%s' is defined twice", i, out)
		}
	}
	in := make([]*value, max(len(n.GetInput()), c.required+c.optional))
	for i := range in {
		var err error
		if i < c.required || c.variadic {
			in[i], err = im.need(n, i)
		} else {
			in[i], err = im.in(n, i)
		}
		if err != nil {
			return err
		}
	}
	im.attrErr = nil
	err := c.convert(im, n, in)
	if im.attrErr != nil {
		return im.attrErr
	}
	return err
}

// in returns input i (nil when absent, as optional inputs may be).
func (im *importer) in(n *onnxpb.NodeProto, i int) (*value, error) {
	if i >= len(n.GetInput()) || n.GetInput()[i] == "" {
		return nil, nil
	}
	v, ok := im.values[n.GetInput()[i]]
	if !ok {
		return nil, im.fail("input %d '%s' is defined by no earlier node, input or initializer", i, n.GetInput()[i])
	}
	return v, nil
}

func (im *importer) need(n *onnxpb.NodeProto, i int) (*value, error) {
	v, err := im.in(n, i)
	if err == nil && v == nil {
		err = im.fail("input %d is missing", i)
	}
	return v, err
}

func (im *importer) out(n *onnxpb.NodeProto, v *value) error {
	if len(n.GetOutput()) == 0 || n.GetOutput()[0] == "" {
		return im.fail("the node has no output")
	}
	for _, extra := range n.GetOutput()[1:] {
		if extra != "" {
			return im.fail("output '%s': the importer computes only the first output of %s", extra, n.GetOpType())
		}
	}
	im.values[n.GetOutput()[0]] = v
	if v.konst != nil {
		im.folded += 8 * int64(len(v.konst.vals))
	}
	return nil
}

func attr(n *onnxpb.NodeProto, name string) *onnxpb.AttributeProto {
	for _, a := range n.GetAttribute() {
		if a.GetName() == name {
			return a
		}
	}
	return nil
}

// typedAttr is attribute name of n when it has the type the operator
// reads; one of another type is remembered as the node's error (an
// attribute of undefined type, as the oldest exporters wrote them, is
// taken as it is).
func (im *importer) typedAttr(n *onnxpb.NodeProto, name string, want onnxpb.AttributeProto_AttributeType) *onnxpb.AttributeProto {
	a := attr(n, name)
	if a == nil || a.GetType() == want || a.GetType() == onnxpb.AttributeProto_UNDEFINED {
		return a
	}
	if im.attrErr == nil {
		im.attrErr = im.fail("attribute '%s' is %v, but %s takes %v", name, a.GetType(), n.GetOpType(), want)
	}
	return nil
}

func (im *importer) attrInt(n *onnxpb.NodeProto, name string, def int64) int64 {
	if a := im.typedAttr(n, name, onnxpb.AttributeProto_INT); a != nil {
		return a.GetI()
	}
	return def
}

func (im *importer) attrFloat(n *onnxpb.NodeProto, name string, def float64) float64 {
	if a := im.typedAttr(n, name, onnxpb.AttributeProto_FLOAT); a != nil {
		return float64(a.GetF())
	}
	return def
}

// ints reads an integer list from input i (a constant) or, failing that,
// from attribute name; ok is false when neither is there.
func (im *importer) ints(n *onnxpb.NodeProto, i int, name string) ([]int64, bool, error) {
	v, err := im.in(n, i)
	if err != nil {
		return nil, false, err
	}
	if v != nil {
		if v.konst == nil {
			return nil, false, im.needsValue(v, fmt.Sprintf("input %d", i))
		}
		out := make([]int64, len(v.konst.vals))
		for k, x := range v.konst.vals {
			out[k] = int64(x)
		}
		return out, true, nil
	}
	if a := im.typedAttr(n, name, onnxpb.AttributeProto_INTS); a != nil {
		return a.GetInts(), true, nil
	}
	return nil, false, nil
}

// axis normalises a possibly negative axis of a rank-r tensor.
func (im *importer) axis(a int64, r int) (int, error) {
	if a < 0 {
		a += int64(r)
	}
	if a < 0 || a >= int64(r) {
		return 0, im.fail("axis %d of a rank-%d tensor", a, r)
	}
	return int(a), nil
}

func ints(xs []int64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatInt(x, 10)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// splat is a constant of shape filled with x.
func splat(et elem.Type, shape []int64, x float64) *value {
	vals := make([]float64, rowmajor.Elements(shape))
	for i := range vals {
		vals[i] = x
	}
	return &value{elem: et, shape: slices.Clone(shape), konst: &konst{vals: vals}}
}

func round(et elem.Type, x float64) float64 {
	switch {
	case et.IsFloat():
		return numeric.Round(x, et)
	case et == elem.I1:
		if x != 0 {
			return 1
		}
		return 0
	}
	return math.Trunc(x)
}

// broadcastShape is numpy's broadcast of two shapes.
func (im *importer) broadcastShape(a, b []int64) ([]int64, error) {
	r := max(len(a), len(b))
	out := make([]int64, r)
	for i := range r {
		x, y := int64(1), int64(1)
		if j := i - (r - len(a)); j >= 0 {
			x = a[j]
		}
		if j := i - (r - len(b)); j >= 0 {
			y = b[j]
		}
		switch {
		case x == y || y == 1:
			out[i] = x
		case x == 1:
			out[i] = y
		default:
			return nil, im.fail("shapes %v and %v do not broadcast", a, b)
		}
	}
	return out, nil
}

// broadcastTo returns v as a tensor of shape (numpy's rules), emitting a
// reshape that drops the broadcast unit axes and a tensor.broadcast.
func (im *importer) broadcastTo(v *value, shape []int64) (string, error) {
	if slices.Equal(v.shape, shape) {
		return im.use(v)
	}
	if v.konst != nil {
		if err := im.foldable(shape, 1); err != nil {
			return "", err
		}
		return im.use(broadcastKonst(v, shape))
	}
	src, err := im.use(v)
	if err != nil {
		return "", err
	}
	off := len(shape) - len(v.shape)
	var kept, dims []int64
	for i, d := range v.shape {
		if d == shape[off+i] {
			kept = append(kept, d)
			dims = append(dims, int64(off+i))
		}
	}
	if len(kept) != len(v.shape) {
		r := im.emit(v.elem, kept, "tensor.reshape %s : %s -> %s", src, tensorType(v.elem, v.shape), tensorType(v.elem, kept))
		src = r.ssa
	}
	b := im.emit(v.elem, shape, "tensor.broadcast %s dimensions = %s : %s -> %s", src, ints(dims), tensorType(v.elem, kept), tensorType(v.elem, shape))
	return b.ssa, nil
}

func broadcastKonst(v *value, shape []int64) *value {
	out := &value{elem: v.elem, shape: slices.Clone(shape), konst: &konst{vals: make([]float64, rowmajor.Elements(shape))}}
	off := len(shape) - len(v.shape)
	idx := make([]int64, len(shape))
	for lin := range out.konst.vals {
		rowmajor.Unravel(int64(lin), shape, idx)
		src := int64(0)
		for i, d := range v.shape {
			k := idx[off+i]
			if d == 1 {
				k = 0
			}
			src = src*d + k
		}
		out.konst.vals[lin] = v.konst.vals[src]
	}
	return out
}

var binaryFold = map[string]func(x, y float64) float64{
	"add": func(x, y float64) float64 { return x + y }, "sub": func(x, y float64) float64 { return x - y },
	"mul": func(x, y float64) float64 { return x * y }, "div": func(x, y float64) float64 { return x / y },
	"max": math.Max,
}

// binaryValues applies an elementwise op to a and b, broadcast: folded
// when both are known, emitted otherwise.
func (im *importer) binaryValues(a, b *value, op string) (*value, error) {
	if a.elem != b.elem {
		return nil, im.fail("operands of %v and %v", a.elem, b.elem)
	}
	shape, err := im.broadcastShape(a.shape, b.shape)
	if err != nil {
		return nil, err
	}
	if a.konst != nil && b.konst != nil {
		if err := im.foldable(shape, 3); err != nil {
			return nil, err
		}
		x, y := broadcastKonst(a, shape), broadcastKonst(b, shape)
		out := &value{elem: a.elem, shape: shape, konst: &konst{vals: make([]float64, len(x.konst.vals))}}
		f := binaryFold[op]
		for i := range out.konst.vals {
			out.konst.vals[i] = round(a.elem, f(x.konst.vals[i], y.konst.vals[i]))
		}
		if !a.elem.IsFloat() && op == "div" {
			for i := range out.konst.vals {
				out.konst.vals[i] = math.Trunc(x.konst.vals[i] / y.konst.vals[i])
			}
		}
		return out, nil
	}
	if !a.elem.IsFloat() {
		return nil, im.fail("%s of %v tensors known only at run time: the tensor dialect computes on floats (integer arithmetic folds when its inputs are constants)", op, a.elem)
	}
	if err := checkShape(shape); err != nil {
		return nil, im.fail("%v", err)
	}
	x, err := im.broadcastTo(a, shape)
	if err != nil {
		return nil, err
	}
	y, err := im.broadcastTo(b, shape)
	if err != nil {
		return nil, err
	}
	return im.emit(a.elem, shape, "tensor.%s %s, %s : %s", op, x, y, tensorType(a.elem, shape)), nil
}

// maxOf is Max of one or more inputs, broadcast together.
func (im *importer) maxOf(n *onnxpb.NodeProto, in []*value) error {
	v := in[0]
	for _, x := range in[1:] {
		var err error
		if v, err = im.binaryValues(v, x, "max"); err != nil {
			return err
		}
	}
	return im.out(n, v)
}

func (im *importer) binary(n *onnxpb.NodeProto, in []*value, op string) error {
	a, b := in[0], in[1]
	v, err := im.binaryValues(a, b, op)
	if err != nil {
		return err
	}
	return im.out(n, v)
}

var unaryFold = map[string]func(float64) float64{"exp": math.Exp, "tanh": math.Tanh, "erf": math.Erf, "rsqrt": func(x float64) float64 { return 1 / math.Sqrt(x) }}

func (im *importer) unaryValue(x *value, op string) (*value, error) {
	if !x.elem.IsFloat() {
		return nil, im.fail("%s of an %v tensor", op, x.elem)
	}
	if x.konst != nil {
		out := &value{elem: x.elem, shape: x.shape, konst: &konst{vals: make([]float64, len(x.konst.vals))}}
		for i, v := range x.konst.vals {
			out.konst.vals[i] = round(x.elem, unaryFold[op](v))
		}
		return out, nil
	}
	src, err := im.use(x)
	if err != nil {
		return nil, err
	}
	return im.emit(x.elem, x.shape, "tensor.%s %s : %s", op, src, tensorType(x.elem, x.shape)), nil
}

func (im *importer) unary(n *onnxpb.NodeProto, in []*value, op string) error {
	x := in[0]
	v, err := im.unaryValue(x, op)
	if err != nil {
		return err
	}
	return im.out(n, v)
}

// sqrt is 1 / rsqrt(x) (exact at 0, where x · rsqrt(x) is not).
func (im *importer) sqrt(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	r, err := im.unaryValue(x, "rsqrt")
	if err != nil {
		return err
	}
	v, err := im.binaryValues(splat(x.elem, nil, 1), r, "div")
	if err != nil {
		return err
	}
	return im.out(n, v)
}

func (im *importer) reciprocal(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	v, err := im.binaryValues(splat(x.elem, nil, 1), x, "div")
	if err != nil {
		return err
	}
	return im.out(n, v)
}

func (im *importer) neg(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	v, err := im.binaryValues(splat(x.elem, nil, 0), x, "sub")
	if err != nil {
		return err
	}
	return im.out(n, v)
}

func (im *importer) relu(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	v, err := im.binaryValues(x, splat(x.elem, nil, 0), "max")
	if err != nil {
		return err
	}
	return im.out(n, v)
}

// sigmoid is 1 / (1 + exp(0 - x)).
func (im *importer) sigmoid(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	m, err := im.binaryValues(splat(x.elem, nil, 0), x, "sub")
	if err == nil {
		m, err = im.unaryValue(m, "exp")
	}
	if err == nil {
		m, err = im.binaryValues(splat(x.elem, nil, 1), m, "add")
	}
	if err == nil {
		m, err = im.binaryValues(splat(x.elem, nil, 1), m, "div")
	}
	if err != nil {
		return err
	}
	return im.out(n, m)
}

// pow takes a constant scalar exponent of 1, 2, 3, 0.5 or -1.
func (im *importer) pow(n *onnxpb.NodeProto, in []*value) error {
	x, e := in[0], in[1]
	if e.konst == nil || len(e.konst.vals) != 1 {
		return im.fail("the exponent must be a constant scalar")
	}
	var v *value
	var err error
	switch p := e.konst.vals[0]; p {
	case 1:
		v = x
	case 2:
		v, err = im.binaryValues(x, x, "mul")
	case 3:
		if v, err = im.binaryValues(x, x, "mul"); err == nil {
			v, err = im.binaryValues(v, x, "mul")
		}
	case 0.5:
		if v, err = im.unaryValue(x, "rsqrt"); err == nil {
			v, err = im.binaryValues(splat(x.elem, nil, 1), v, "div")
		}
	case -1:
		v, err = im.binaryValues(splat(x.elem, nil, 1), x, "div")
	default:
		return im.fail("exponent %g: the importer takes 1, 2, 3, 0.5 and -1", p)
	}
	if err != nil {
		return err
	}
	return im.out(n, v)
}
