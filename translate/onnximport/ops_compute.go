package onnximport

import (
	"slices"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/internal/rowmajor"
	"github.com/ipuir/ipuir/translate/onnximport/onnxpb"
)

// matmulValues multiplies a [..., M, K] by b [..., K, N] (numpy's matmul:
// a rank-2 right operand applies to every matrix of a stacked left one).
func (im *importer) matmulValues(a, b *value) (*value, error) {
	if a.elem != b.elem || !a.elem.IsFloat() {
		return nil, im.fail("matmul of %v and %v", a.elem, b.elem)
	}
	ra, rb := len(a.shape), len(b.shape)
	if ra < 2 || rb < 2 {
		return nil, im.fail("matmul of ranks %d and %d (the importer takes rank 2 and more)", ra, rb)
	}
	m, k, k2, nn := a.shape[ra-2], a.shape[ra-1], b.shape[rb-2], b.shape[rb-1]
	if k != k2 {
		return nil, im.fail("matmul of %v by %v: inner sizes %d and %d", a.shape, b.shape, k, k2)
	}
	mm := func(x, y *value, shape []int64, op string) (*value, error) {
		xs, err := im.use(x)
		if err != nil {
			return nil, err
		}
		ys, err := im.use(y)
		if err != nil {
			return nil, err
		}
		return im.emit(a.elem, shape, "tensor.%s %s, %s : %s, %s -> %s", op, xs, ys, tensorType(x.elem, x.shape), tensorType(y.elem, y.shape), tensorType(a.elem, shape)), nil
	}
	switch {
	case ra == 2 && rb == 2:
		return mm(a, b, []int64{m, nn}, "matmul")
	case rb == 2:
		// Stack the left operand's matrices into one.
		batch := a.shape[:ra-2]
		flat, err := im.reshapeValue(a, []int64{rowmajor.Elements(batch) * m, k})
		if err != nil {
			return nil, err
		}
		p, err := mm(flat, b, []int64{rowmajor.Elements(batch) * m, nn}, "matmul")
		if err != nil {
			return nil, err
		}
		return im.reshapeValue(p, append(slices.Clone(batch), m, nn))
	default:
		batch, err := im.broadcastShape(a.shape[:ra-2], b.shape[:rb-2])
		if err != nil {
			return nil, err
		}
		x, y := a, b
		if !slices.Equal(a.shape[:ra-2], batch) {
			s, err := im.broadcastTo(a, append(slices.Clone(batch), m, k))
			if err != nil {
				return nil, err
			}
			x = &value{ssa: s, elem: a.elem, shape: append(slices.Clone(batch), m, k)}
		}
		if !slices.Equal(b.shape[:rb-2], batch) {
			s, err := im.broadcastTo(b, append(slices.Clone(batch), k, nn))
			if err != nil {
				return nil, err
			}
			y = &value{ssa: s, elem: b.elem, shape: append(slices.Clone(batch), k, nn)}
		}
		return mm(x, y, append(slices.Clone(batch), m, nn), "batch_matmul")
	}
}

func (im *importer) matmul(n *onnxpb.NodeProto, in []*value) error {
	a, b := in[0], in[1]
	v, err := im.matmulValues(a, b)
	if err != nil {
		return err
	}
	return im.out(n, v)
}

// transposed swaps a rank-2 value's axes.
func (im *importer) transposed(x *value) (*value, error) {
	if len(x.shape) != 2 {
		return nil, im.fail("a transposed Gemm operand of rank %d", len(x.shape))
	}
	// A constant (a Linear layer's weight, which torch.onnx.export writes
	// as Gemm with transB = 1) is transposed here, so that the program
	// holds it once, in the order the matmul reads it, and a weight that
	// must be stored once (tiled.home) can be.
	return im.transposeValue(x, []int64{1, 0})
}

// gemm is alpha·A'·B' + beta·C.
func (im *importer) gemm(n *onnxpb.NodeProto, in []*value) error {
	a, b, c := in[0], in[1], in[2]
	var err error
	if im.attrInt(n, "transA", 0) != 0 {
		if a, err = im.transposed(a); err != nil {
			return err
		}
	}
	if im.attrInt(n, "transB", 0) != 0 {
		if b, err = im.transposed(b); err != nil {
			return err
		}
	}
	if len(a.shape) != 2 || len(b.shape) != 2 {
		return im.fail("Gemm of ranks %d and %d", len(a.shape), len(b.shape))
	}
	v, err := im.matmulValues(a, b)
	if err != nil {
		return err
	}
	if alpha := im.attrFloat(n, "alpha", 1); alpha != 1 {
		if v, err = im.binaryValues(v, splat(v.elem, nil, alpha), "mul"); err != nil {
			return err
		}
	}
	if c != nil {
		if beta := im.attrFloat(n, "beta", 1); beta != 1 {
			if c, err = im.binaryValues(c, splat(c.elem, nil, beta), "mul"); err != nil {
				return err
			}
		}
		if v, err = im.binaryValues(v, c, "add"); err != nil {
			return err
		}
	}
	return im.out(n, v)
}

func (im *importer) gelu(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	src, err := im.use(x)
	if err != nil {
		return err
	}
	approx := ""
	switch s := "none"; {
	case im.typedAttr(n, "approximate", onnxpb.AttributeProto_STRING) != nil && string(im.typedAttr(n, "approximate", onnxpb.AttributeProto_STRING).GetS()) == "tanh":
		approx = " {approximate}"
	case im.typedAttr(n, "approximate", onnxpb.AttributeProto_STRING) != nil && string(im.typedAttr(n, "approximate", onnxpb.AttributeProto_STRING).GetS()) != s:
		return im.fail("approximate = '%s' (none or tanh)", im.typedAttr(n, "approximate", onnxpb.AttributeProto_STRING).GetS())
	}
	return im.out(n, im.emit(x.elem, x.shape, "tensor.gelu %s%s : %s", src, approx, tensorType(x.elem, x.shape)))
}

func (im *importer) cast(n *onnxpb.NodeProto, in []*value) error {
	code := int32(im.attrInt(n, "to", 0))
	if im.opset < 6 {
		// Before opset 6, `to` names the type: "FLOAT", "INT64", ...
		if a := im.typedAttr(n, "to", onnxpb.AttributeProto_STRING); a != nil {
			c, ok := onnxpb.TensorProto_DataType_value[string(a.GetS())]
			if !ok {
				return im.fail("to = '%s' names no ONNX type", a.GetS())
			}
			code = c
		}
	}
	to, err := im.elemOrString(code)
	if err != nil {
		return im.fail("%v", err)
	}
	return im.castTo(n, in[0], to)
}

// castTo converts x to the element type to: folded on constants,
// tensor.convert otherwise.
func (im *importer) castTo(n *onnxpb.NodeProto, x *value, to elem.Type) error {
	v, err := im.castValue(x, to)
	if err != nil {
		return err
	}
	return im.out(n, v)
}

// castValue is x converted to to: folded when x is known.
func (im *importer) castValue(x *value, to elem.Type) (*value, error) {
	if x.elem == to {
		return x, nil
	}
	if x.elem == stringElem || to == stringElem {
		// Numbers written as strings and strings read as numbers, on the
		// reference interpreter (a constant is written out first: the
		// module holds no string constants).
		src, err := im.use(x)
		if err != nil {
			return nil, err
		}
		op := "string_format"
		if x.elem == stringElem {
			op = "string_parse"
		}
		return im.emit(to, x.shape, "tensor.%s %s : %s -> %s", op, src, tensorType(x.elem, x.shape), tensorType(to, x.shape)), nil
	}
	if x.konst != nil {
		out := &value{elem: to, shape: x.shape, konst: &konst{vals: make([]float64, len(x.konst.v()))}}
		for i, v := range x.konst.v() {
			out.konst.v()[i] = round(to, v)
		}
		return out, nil
	}
	src, err := im.use(x)
	if err != nil {
		return nil, err
	}
	return im.emit(to, x.shape, "tensor.convert %s : %s -> %s", src, tensorType(x.elem, x.shape), tensorType(to, x.shape)), nil
}

func (im *importer) identity(n *onnxpb.NodeProto, in []*value) error {
	x := in[0]
	return im.out(n, x)
}

func (im *importer) constant(n *onnxpb.NodeProto, in []*value) error {
	if len(n.GetAttribute()) != 1 {
		return im.fail("a Constant has one value attribute, this one has %d", len(n.GetAttribute()))
	}
	a := n.GetAttribute()[0]
	switch a.GetName() {
	case "value":
		v, err := im.tensorValue(a.GetT())
		if err != nil {
			return err
		}
		return im.out(n, v)
	case "value_float":
		return im.out(n, splat(elem.F32, nil, float64(a.GetF())))
	case "value_int":
		return im.out(n, splat(elem.I64, nil, float64(a.GetI())))
	case "value_floats":
		vals := make([]float64, len(a.GetFloats()))
		for i, f := range a.GetFloats() {
			vals[i] = float64(f)
		}
		return im.out(n, &value{elem: elem.F32, shape: []int64{int64(len(vals))}, konst: &konst{vals: vals}})
	case "value_ints":
		vals := make([]float64, len(a.GetInts()))
		for i, x := range a.GetInts() {
			vals[i] = float64(x)
		}
		return im.out(n, &value{elem: elem.I64, shape: []int64{int64(len(vals))}, konst: &konst{vals: vals}})
	}
	return im.fail("a Constant's '%s' is not supported", a.GetName())
}

func (im *importer) constantOfShape(n *onnxpb.NodeProto, in []*value) error {
	spec, ok, err := im.ints(n, 0, "")
	if err != nil {
		return err
	}
	if !ok {
		return im.fail("no shape")
	}
	if err := checkShape(spec); err != nil {
		return im.fail("%v", err)
	}
	et, x := elem.F32, 0.0
	if a := attr(n, "value"); a != nil {
		v, err := im.tensorValue(a.GetT())
		if err != nil {
			return err
		}
		if len(v.konst.v()) != 1 {
			return im.fail("a value of %d elements, not one", len(v.konst.v()))
		}
		et, x = v.elem, v.konst.v()[0]
	}
	if err := im.foldable(spec, 1); err != nil {
		return err
	}
	return im.out(n, splat(et, spec, x))
}
