package onnximport

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"google.golang.org/protobuf/proto"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/internal/rowmajor"
	"github.com/ipuir/ipuir/numeric"
	"github.com/ipuir/ipuir/translate/onnximport/onnxpb"
)

// tensorValue decodes an initializer or a constant's tensor.
func (im *importer) tensorValue(t *onnxpb.TensorProto) (*value, error) {
	et, err := im.elemType(t.GetDataType())
	if err != nil {
		return nil, im.fail("tensor '%s': %v", t.GetName(), err)
	}
	shape := append([]int64(nil), t.GetDims()...)
	if err := checkShape(shape); err != nil {
		return nil, im.fail("tensor '%s': %v", t.GetName(), err)
	}
	n := rowmajor.Elements(shape)
	raw := t.GetRawData()
	if t.GetDataLocation() == onnxpb.TensorProto_EXTERNAL {
		if raw, err = im.externalData(t, n*int64(et.Bytes())); err != nil {
			return nil, err
		}
	}
	var vals []float64
	switch {
	case raw != nil || t.GetDataLocation() == onnxpb.TensorProto_EXTERNAL:
		if int64(len(raw)) != n*int64(et.Bytes()) {
			return nil, im.fail("tensor '%s': %d bytes of data for %d elements of %v", t.GetName(), len(raw), n, et)
		}
		if et.IsFloat() && n > 0 {
			// Kept as the model stores it (little endian, as the
			// package's codec): weights are written out, not folded.
			return &value{elem: et, shape: shape, konst: &konst{raw: raw, rawElem: et}}, nil
		}
		c := numeric.CodecOf(et)
		for i := int64(0); i < n; i++ {
			vals = append(vals, c.Load(raw[i*int64(c.Bytes):]))
		}
	case len(t.GetFloatData()) > 0:
		if int64(len(t.GetFloatData())) != n || et != elem.F32 {
			return nil, im.fail("tensor '%s': %d float_data values for %d %v elements", t.GetName(), len(t.GetFloatData()), n, et)
		}
		for _, f := range t.GetFloatData() {
			vals = append(vals, float64(f))
		}
	case len(t.GetInt32Data()) > 0:
		if int64(len(t.GetInt32Data())) != n {
			return nil, im.fail("tensor '%s': %d int32_data values for %d elements", t.GetName(), len(t.GetInt32Data()), n)
		}
		for _, x := range t.GetInt32Data() {
			switch et {
			case elem.F16:
				vals = append(vals, numeric.F16ToFloat64(uint16(x)))
			case elem.BF16:
				vals = append(vals, numeric.BF16ToFloat64(uint16(x)))
			default:
				vals = append(vals, float64(x))
			}
		}
	case len(t.GetInt64Data()) > 0:
		if int64(len(t.GetInt64Data())) != n {
			return nil, im.fail("tensor '%s': %d int64_data values for %d elements", t.GetName(), len(t.GetInt64Data()), n)
		}
		for _, x := range t.GetInt64Data() {
			vals = append(vals, float64(x))
		}
	case len(t.GetUint64Data()) > 0:
		if int64(len(t.GetUint64Data())) != n || (et != elem.U64 && et != elem.U32) {
			return nil, im.fail("tensor '%s': %d uint64_data values for %d %v elements", t.GetName(), len(t.GetUint64Data()), n, et)
		}
		for _, x := range t.GetUint64Data() {
			vals = append(vals, float64(x))
		}
	case len(t.GetDoubleData()) > 0:
		if int64(len(t.GetDoubleData())) != n {
			return nil, im.fail("tensor '%s': %d double_data values for %d elements", t.GetName(), len(t.GetDoubleData()), n)
		}
		vals = append(vals, t.GetDoubleData()...)
	case n == 0:
	default:
		return nil, im.fail("tensor '%s' has no data", t.GetName())
	}
	return &value{elem: et, shape: shape, konst: &konst{vals: vals}}, nil
}

// externalData reads an initializer stored beside the model: location
// (relative, inside the model's folder), offset and length.
func (im *importer) externalData(t *onnxpb.TensorProto, want int64) ([]byte, error) {
	var loc string
	offset, length := int64(0), int64(-1)
	for _, kv := range t.GetExternalData() {
		var err error
		switch kv.GetKey() {
		case "location":
			loc = kv.GetValue()
		case "offset":
			offset, err = strconv.ParseInt(kv.GetValue(), 10, 64)
		case "length":
			length, err = strconv.ParseInt(kv.GetValue(), 10, 64)
		}
		if err != nil || offset < 0 {
			return nil, im.fail("tensor '%s': external data %s = %q is not a byte count", t.GetName(), kv.GetKey(), kv.GetValue())
		}
	}
	clean := filepath.Clean(loc)
	if loc == "" || filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return nil, im.fail("tensor '%s': external data location %q is not a path inside the model's folder", t.GetName(), loc)
	}
	if length < 0 {
		length = want
	}
	if length != want {
		return nil, im.fail("tensor '%s': external data of %d bytes for %d bytes of elements", t.GetName(), length, want)
	}
	f, st, err := im.openExternal(clean)
	if err != nil {
		return nil, im.fail("tensor '%s': external data %q: %v", t.GetName(), loc, err)
	}
	defer f.Close()
	if offset > st.Size() || length > st.Size()-offset {
		return nil, im.fail("tensor '%s': external data [%d, %d) runs past the end of %s (%d bytes)", t.GetName(), offset, offset+length, loc, st.Size())
	}
	buf := make([]byte, length)
	if _, err := f.ReadAt(buf, offset); err != nil && err != io.EOF {
		return nil, im.fail("tensor '%s': reading %s: %v", t.GetName(), loc, err)
	}
	return buf, nil
}

// openExternal opens external data at rel, a clean relative path in the
// model's folder. Links are resolved first: the file they reach must lie
// inside the model's folder (its real path, links resolved, too) and be a
// regular file, so that a link out of the folder, or a FIFO that would
// never end, is refused before anything is read.
func (im *importer) openExternal(rel string) (*os.File, os.FileInfo, error) {
	base := im.opts.Dir
	if base == "" {
		base = "."
	}
	dir, err := filepath.EvalSymlinks(base)
	if err != nil {
		return nil, nil, err
	}
	dir, err = filepath.Abs(dir)
	if err != nil {
		return nil, nil, err
	}
	real, err := filepath.EvalSymlinks(filepath.Join(dir, rel))
	if err != nil {
		return nil, nil, err
	}
	if real, err = filepath.Abs(real); err != nil {
		return nil, nil, err
	}
	if inside, err := filepath.Rel(dir, real); err != nil || inside == ".." || strings.HasPrefix(inside, ".."+string(filepath.Separator)) {
		return nil, nil, fmt.Errorf("its real path %s lies outside the model's folder %s", real, dir)
	}
	st, err := os.Lstat(real)
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is not a regular file (%v)", real, st.Mode().Type())
	}
	f, err := os.OpenFile(real, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	if st, err = f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s changed while it was opened", real)
	}
	return f, st, nil
}

// Tensor is a decoded ONNX tensor: its element type, shape and values, row
// major (each representable in its type).
type Tensor struct {
	Elem   elem.Type
	Shape  []int64
	Values []float64
	// Strings holds a STRING tensor's elements (Elem is then
	// elem.Invalid and Values nil).
	Strings []string
}

// ReadTensor decodes a serialized TensorProto (a conformance test's
// input_K.pb and output_K.pb, a value given with --input-value), validating
// it as an initializer is validated. file names it in messages; external
// data is read from its folder.
func ReadTensor(data []byte, file string) (*Tensor, error) {
	var t onnxpb.TensorProto
	if err := proto.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("%s: not an ONNX TensorProto: %v", file, err)
	}
	if t.GetDataType() == int32(onnxpb.TensorProto_STRING) {
		return readStrings(&t, file)
	}
	im := &importer{opts: Options{File: file, Dir: filepath.Dir(file)}}
	v, err := im.tensorValue(&t)
	if err != nil {
		return nil, err
	}
	return &Tensor{Elem: v.elem, Shape: v.shape, Values: v.konst.v()}, nil
}

// readStrings is ReadTensor of a STRING tensor: its string_data, one
// string an element (held in the message, so bounded by its size).
func readStrings(t *onnxpb.TensorProto, file string) (*Tensor, error) {
	shape := append([]int64(nil), t.GetDims()...)
	if err := checkShape(shape); err != nil {
		return nil, fmt.Errorf("%s: tensor '%s': %v", file, t.GetName(), err)
	}
	if n := rowmajor.Elements(shape); n != int64(len(t.GetStringData())) {
		return nil, fmt.Errorf("%s: tensor '%s': %d strings for %d elements", file, t.GetName(), len(t.GetStringData()), n)
	}
	out := &Tensor{Shape: shape, Strings: make([]string, len(t.GetStringData()))}
	for i, b := range t.GetStringData() {
		out.Strings[i] = string(b)
	}
	return out, nil
}
