package ir

import (
	"encoding/binary"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// DenseElementsAttr is `dense<...> : T` for integer, index, float and
// complex elements. Data holds the elements little-endian, each padded to
// whole bytes (i1 takes one byte, 0 or 1; a complex element is its two
// parts). A splat holds one element.
type DenseElementsAttr struct {
	Typ   ShapedType
	Splat bool
	Data  []byte
}

func (a *DenseElementsAttr) Type() Type { return a.Typ }

// denseElemKind describes how elements of a type are stored.
type denseElem struct {
	bytes   int // per scalar part
	complex bool
	float   *FloatType
	integer Type // integer or index type when not float
}

func denseElemOf(t Type) (denseElem, bool) {
	complex := false
	if ct, ok := t.(*ComplexType); ok {
		complex = true
		t = ct.Elem
	}
	switch et := t.(type) {
	case *IntegerType:
		return denseElem{bytes: (et.Width + 7) / 8, complex: complex, integer: et}, et.Width > 0
	case *IndexType:
		return denseElem{bytes: 8, complex: complex, integer: et}, true
	case *FloatType:
		return denseElem{bytes: floatStorageBytes(et.Kind), complex: complex, float: et}, true
	}
	return denseElem{}, false
}

// floatStorageBytes is how many bytes a float element takes in dense
// data and in its hex form: as in mlir-opt, the bytes of its APFloat
// storage, which for tf32 (19 bits) is 4, the value in the low 19 bits.
func floatStorageBytes(k FloatKind) int {
	if k == TF32 {
		return 4
	}
	return (k.Width() + 7) / 8
}

// ElementByteSize is the number of bytes one element takes in Data, or 0
// for element types that dense elements cannot hold.
func ElementByteSize(elem Type) int {
	d, ok := denseElemOf(elem)
	if !ok {
		return 0
	}
	if d.complex {
		return 2 * d.bytes
	}
	return d.bytes
}

// NumElements is the number of elements the type holds (splats included).
func (a *DenseElementsAttr) NumElements() int64 { return NumElements(a.Typ.Shape()) }

// Dense returns the elements attribute over raw little-endian data. data
// holds either one element (a splat) or all of them; runs of equal
// elements fold to a splat, as MLIR does.
func (c *Context) Dense(t ShapedType, data []byte) *DenseElementsAttr {
	size := ElementByteSize(t.ElementType())
	n := NumElements(t.Shape())
	splat := size > 0 && len(data) == size // one element is a splat too, as in MLIR
	if !splat && size > 0 && n > 1 && int64(len(data)) == n*int64(size) {
		splat = true
		for i := size; i < len(data); i += size {
			if string(data[i:i+size]) != string(data[:size]) {
				splat = false
				break
			}
		}
		if splat {
			data = data[:size]
		}
	}
	cp := make([]byte, len(data))
	copy(cp, data)
	return UniqueAttr(c, &DenseElementsAttr{Typ: t, Splat: splat, Data: cp})
}

// DenseInts builds integer or index elements from int64 values (one value
// makes a splat). Values are wrapped to the element width.
func (c *Context) DenseInts(t ShapedType, vals []int64) *DenseElementsAttr {
	size := ElementByteSize(t.ElementType())
	data := make([]byte, len(vals)*size)
	for i, v := range vals {
		PutDenseInt(data[i*size:(i+1)*size], t.ElementType(), big.NewInt(v))
	}
	return c.Dense(t, data)
}

// DenseFloats builds float elements, rounding each value to the element type.
func (c *Context) DenseFloats(t ShapedType, vals []float64) *DenseElementsAttr {
	ft := t.ElementType().(*FloatType)
	size := ElementByteSize(ft)
	data := make([]byte, len(vals)*size)
	for i, v := range vals {
		putFloat(data[i*size:(i+1)*size], v, ft.Kind)
	}
	return c.Dense(t, data)
}

// PutDenseInt stores v in dst as dense elements of integer or index type t
// hold it: the value wrapped to t's width in two's complement,
// little-endian, with the bits above the width clear. mlir-opt stores iN
// elements so, and its hex form shows those bytes: -2 : i2 is 0x02, not
// 0xFE.
func PutDenseInt(dst []byte, t Type, v *big.Int) {
	width := 64
	if it, ok := t.(*IntegerType); ok {
		width = it.Width
	}
	clear(dst)
	if width <= 64 {
		lo, _ := NormalizeInt(t, v)
		u := uint64(lo)
		if width < 64 {
			u &= 1<<width - 1
		}
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], u)
		copy(dst, b[:])
		return
	}
	m := new(big.Int).Lsh(big.NewInt(1), uint(width))
	u := new(big.Int).Mod(v, m).Bytes() // big-endian, in [0, 2^width)
	for i, b := range u {
		dst[len(u)-1-i] = b
	}
}

func putFloat(dst []byte, v float64, k FloatKind) {
	if k == F80 || k == F128 {
		u := FloatBitsBig(v, k).Bytes()
		for i := range dst {
			dst[i] = 0
		}
		for i, b := range u {
			dst[len(u)-1-i] = b
		}
		return
	}
	bits, _ := FloatBits(v, k)
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], bits)
	copy(dst, b[:len(dst)])
}

// elemAt returns element i (0 for a splat) as raw bytes.
func (a *DenseElementsAttr) elemAt(i int64) []byte {
	size := int64(ElementByteSize(a.Typ.ElementType()))
	if a.Splat {
		i = 0
	}
	return a.Data[i*size : (i+1)*size]
}

// IntAt returns integer element i as a big integer in the type's signedness.
func (a *DenseElementsAttr) IntAt(i int64) *big.Int {
	return decodeInt(a.elemAt(i), a.Typ.ElementType())
}

// Int64At returns integer element i; values wider than 64 bits are truncated.
func (a *DenseElementsAttr) Int64At(i int64) int64 {
	b := a.elemAt(i)
	var buf [8]byte
	copy(buf[:], b)
	v, _ := NormalizeInt(a.Typ.ElementType(), new(big.Int).SetUint64(binary.LittleEndian.Uint64(buf[:])))
	if len(b) > 8 {
		return decodeInt(b, a.Typ.ElementType()).Int64()
	}
	return v
}

// FloatAt returns float element i.
func (a *DenseElementsAttr) FloatAt(i int64) float64 {
	ft := a.Typ.ElementType().(*FloatType)
	return decodeFloat(a.elemAt(i), ft.Kind)
}

// Float64s returns every float element (a splat expanded).
func (a *DenseElementsAttr) Float64s() []float64 {
	n := a.NumElements()
	out := make([]float64, n)
	for i := range out {
		out[i] = a.FloatAt(int64(i))
	}
	return out
}

// Int64s returns every integer element (a splat expanded).
func (a *DenseElementsAttr) Int64s() []int64 {
	n := a.NumElements()
	out := make([]int64, n)
	for i := range out {
		out[i] = a.Int64At(int64(i))
	}
	return out
}

func decodeInt(b []byte, t Type) *big.Int {
	be := make([]byte, len(b))
	for i, x := range b {
		be[len(b)-1-i] = x
	}
	v := new(big.Int).SetBytes(be)
	lo, wide := NormalizeInt(t, v)
	if wide != nil {
		return wide
	}
	if it, ok := t.(*IntegerType); ok && it.Signedness == Unsigned {
		return new(big.Int).SetUint64(uint64(lo))
	}
	return big.NewInt(lo)
}

func decodeFloat(b []byte, k FloatKind) float64 {
	if k == F80 || k == F128 {
		be := make([]byte, len(b))
		for i, x := range b {
			be[len(b)-1-i] = x
		}
		return FloatFromBitsBig(new(big.Int).SetBytes(be), k)
	}
	var buf [8]byte
	copy(buf[:], b)
	return FloatFromBits(binary.LittleEndian.Uint64(buf[:]), k)
}

// DenseHexThreshold: element attributes with more elements than this print
// as a hex string, as mlir-opt does.
const DenseHexThreshold = 100

func (a *DenseElementsAttr) printWithoutType(p *AsmPrinter) {
	p.WriteString("dense<")
	n := a.NumElements()
	switch {
	case a.Splat:
		a.printElem(p, 0)
	case p.hexWhenLarger(n):
		p.WriteString(`"0x`)
		p.buf = appendUpperHex(p.buf, a.HexData())
		p.WriteByte('"')
	case n == 0:
		// MLIR prints no elements at all for an empty shape.
	default:
		var idx int64
		a.printNested(p, a.Typ.Shape(), &idx)
	}
	p.WriteByte('>')
}

func (a *DenseElementsAttr) printNested(p *AsmPrinter, shape []int64, idx *int64) {
	d, _ := denseElemOf(a.Typ.ElementType())
	a.printNestedOf(p, d, shape, idx)
}

func (a *DenseElementsAttr) printNestedOf(p *AsmPrinter, d denseElem, shape []int64, idx *int64) {
	if len(shape) == 0 {
		a.printElemOf(p, d, *idx)
		*idx++
		return
	}
	p.WriteByte('[')
	for i := int64(0); i < shape[0]; i++ {
		if i > 0 {
			p.WriteString(", ")
		}
		a.printNestedOf(p, d, shape[1:], idx)
	}
	p.WriteByte(']')
}

func (a *DenseElementsAttr) printElem(p *AsmPrinter, i int64) {
	d, _ := denseElemOf(a.Typ.ElementType())
	a.printElemOf(p, d, i)
}

// printElemOf prints element i (0 for a splat) of element kind d.
func (a *DenseElementsAttr) printElemOf(p *AsmPrinter, d denseElem, i int64) {
	size := int64(d.bytes)
	if d.complex {
		size *= 2
	}
	if a.Splat {
		i = 0
	}
	b := a.Data[i*size : (i+1)*size]
	if d.complex {
		p.WriteByte('(')
		d.printPart(p, b[:d.bytes])
		p.WriteByte(',')
		d.printPart(p, b[d.bytes:])
		p.WriteByte(')')
		return
	}
	d.printPart(p, b)
}

// printPart prints one scalar (a whole element, or half of a complex one).
func (d denseElem) printPart(p *AsmPrinter, b []byte) {
	if d.float != nil {
		p.buf = AppendFloat(p.buf, decodeFloat(b, d.float.Kind), d.float.Kind)
		return
	}
	it, isInt := d.integer.(*IntegerType)
	if isInt && it.Width == 1 {
		if b[0] != 0 {
			p.WriteString("true")
		} else {
			p.WriteString("false")
		}
		return
	}
	if len(b) > 8 {
		p.WriteString(decodeInt(b, d.integer).String())
		return
	}
	// Up to 64 bits: widen the stored bytes by the type's signedness.
	var raw uint64
	for k := len(b) - 1; k >= 0; k-- {
		raw = raw<<8 | uint64(b[k])
	}
	width := 64
	if isInt {
		width = it.Width
	}
	if width < 64 {
		raw &= 1<<width - 1
	}
	if isInt && it.Signedness == Unsigned {
		p.WriteUint(raw)
		return
	}
	shift := 64 - width
	p.WriteInt(int64(raw<<shift) >> shift)
}

// HexData is the data in MLIR's hex-string encoding: i1 elements
// bit-packed, everything else as stored.
func (a *DenseElementsAttr) HexData() []byte {
	if it, ok := a.Typ.ElementType().(*IntegerType); ok && it.Width == 1 {
		if a.Splat {
			if a.Data[0] != 0 {
				return []byte{0xff}
			}
			return []byte{0}
		}
		out := make([]byte, (len(a.Data)+7)/8)
		for i, b := range a.Data {
			if b != 0 {
				out[i/8] |= 1 << (i % 8)
			}
		}
		return out
	}
	return a.Data
}

// appendUpperHex appends data as upper-case hex digits, two per byte.
func appendUpperHex(b, data []byte) []byte {
	const digits = "0123456789ABCDEF"
	b = slices.Grow(b, 2*len(data))
	for _, x := range data {
		b = append(b, digits[x>>4], digits[x&15])
	}
	return b
}

func (a *DenseElementsAttr) Print(p *AsmPrinter) {
	a.printWithoutType(p)
	p.WriteString(" : ")
	p.PrintType(a.Typ)
}

// DenseStringElementsAttr is `dense<["a", "b"]> : tensor<2x!t>`.
type DenseStringElementsAttr struct {
	Typ   ShapedType
	Splat bool
	Vals  []string
}

func (a *DenseStringElementsAttr) Type() Type { return a.Typ }
func (a *DenseStringElementsAttr) printWithoutType(p *AsmPrinter) {
	p.WriteString("dense<")
	switch {
	case a.Splat:
		p.PrintString(a.Vals[0])
	case NumElements(a.Typ.Shape()) == 0:
		// As mlir-opt: no elements print as nothing, since nested lists
		// cannot spell a shape below an empty list (tensor<0x4x!t.s>).
	default:
		idx := 0
		var rec func(shape []int64)
		rec = func(shape []int64) {
			if len(shape) == 0 {
				p.PrintString(a.Vals[idx])
				idx++
				return
			}
			p.WriteByte('[')
			for i := int64(0); i < shape[0]; i++ {
				if i > 0 {
					p.WriteString(", ")
				}
				rec(shape[1:])
			}
			p.WriteByte(']')
		}
		rec(a.Typ.Shape())
	}
	p.WriteByte('>')
}
func (a *DenseStringElementsAttr) Print(p *AsmPrinter) {
	a.printWithoutType(p)
	p.WriteString(" : ")
	p.PrintType(a.Typ)
}

// DenseStrings builds string elements; one value makes a splat, and equal
// values fold to one.
func (c *Context) DenseStrings(t ShapedType, vals []string) *DenseStringElementsAttr {
	splat := len(vals) == 1
	if len(vals) > 1 {
		splat = true
		for _, v := range vals[1:] {
			if v != vals[0] {
				splat = false
				break
			}
		}
		if splat {
			vals = vals[:1]
		}
	}
	return UniqueAttr(c, &DenseStringElementsAttr{Typ: t, Splat: splat, Vals: vals})
}

// SparseElementsAttr is `sparse<indices, values> : T`.
type SparseElementsAttr struct {
	Typ     ShapedType
	Indices *DenseElementsAttr // i64 elements of shape [nnz, rank] (or splat/empty)
	Values  Attribute          // *DenseElementsAttr or *DenseStringElementsAttr
}

func (a *SparseElementsAttr) Type() Type { return a.Typ }
func (a *SparseElementsAttr) printWithoutType(p *AsmPrinter) {
	p.WriteString("sparse<")
	if a.Indices.NumElements() > 0 || a.valuesLen() > 0 {
		start := len(p.buf)
		p.PrintAttrWithoutType(a.Indices)
		trimDense(p, start)
		p.WriteString(", ")
		start = len(p.buf)
		p.PrintAttrWithoutType(a.Values)
		trimDense(p, start)
	}
	p.WriteByte('>')
}

func (a *SparseElementsAttr) valuesLen() int64 {
	switch v := a.Values.(type) {
	case *DenseElementsAttr:
		return v.NumElements()
	case *DenseStringElementsAttr:
		return NumElements(v.Typ.Shape())
	}
	return 0
}

// trimDense rewrites the `dense<X>` printed from start on as `X`.
func trimDense(p *AsmPrinter, start int) {
	const prefix = "dense<"
	printed := p.buf[start:]
	if !strings.HasPrefix(string(printed), prefix) || printed[len(printed)-1] != '>' {
		return // an alias or an elided value
	}
	n := copy(printed, printed[len(prefix):len(printed)-1])
	p.buf = p.buf[:start+n]
}

func (a *SparseElementsAttr) Print(p *AsmPrinter) {
	a.printWithoutType(p)
	p.WriteString(" : ")
	p.PrintType(a.Typ)
}

func (c *Context) Sparse(t ShapedType, indices *DenseElementsAttr, values Attribute) *SparseElementsAttr {
	return UniqueAttr(c, &SparseElementsAttr{Typ: t, Indices: indices, Values: values})
}

// DenseArrayAttr is `array<i32: 1, 2>`: a flat array of i1, i8, i16, i32,
// i64, f32 or f64 values.
type DenseArrayAttr struct {
	Elem   Type
	Ints   []int64   // for integer element types
	Floats []float64 // for float element types
}

func (a *DenseArrayAttr) Len() int {
	if IsFloat(a.Elem) {
		return len(a.Floats)
	}
	return len(a.Ints)
}

func (a *DenseArrayAttr) Print(p *AsmPrinter) {
	p.WriteString("array<")
	p.PrintType(a.Elem)
	if a.Len() > 0 {
		p.WriteString(": ")
	}
	for i := 0; i < a.Len(); i++ {
		if i > 0 {
			p.WriteString(", ")
		}
		switch {
		case IsFloat(a.Elem):
			p.buf = AppendFloat(p.buf, a.Floats[i], a.Elem.(*FloatType).Kind)
		case BitWidth(a.Elem) == 1:
			p.WriteString(strconv.FormatBool(a.Ints[i] != 0))
		default:
			p.WriteInt(a.Ints[i])
		}
	}
	p.WriteByte('>')
}

// DenseArrayElementAllowed reports whether t may be a dense array element.
func DenseArrayElementAllowed(t Type) bool {
	switch t := t.(type) {
	case *IntegerType:
		if t.Signedness != Signless {
			return false
		}
		switch t.Width {
		case 1, 8, 16, 32, 64:
			return true
		}
	case *FloatType:
		return t.Kind == F32 || t.Kind == F64
	}
	return false
}

func (c *Context) DenseI64Array(vals ...int64) *DenseArrayAttr {
	return c.DenseIntArray(c.I(64), vals)
}

// DenseIntArray builds an integer dense array, wrapping values to the width.
func (c *Context) DenseIntArray(elem Type, vals []int64) *DenseArrayAttr {
	norm := make([]int64, len(vals))
	for i, v := range vals {
		norm[i], _ = NormalizeInt(elem, big.NewInt(v))
	}
	return UniqueAttr(c, &DenseArrayAttr{Elem: elem, Ints: norm})
}

// DenseFloatArray builds a float dense array, rounding to the element type.
func (c *Context) DenseFloatArray(elem *FloatType, vals []float64) *DenseArrayAttr {
	r := make([]float64, len(vals))
	for i, v := range vals {
		r[i] = RoundFloat(v, elem.Kind) // NaNs keep their bits, as in MLIR
	}
	return UniqueAttr(c, &DenseArrayAttr{Elem: elem, Floats: r})
}
