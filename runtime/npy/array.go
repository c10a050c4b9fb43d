package npy

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ipuir/ipuir/numeric"
)

// Array is an n-dimensional array as a .npy file holds it: a dtype, a shape
// and the raw element bytes, always in C (row-major) order and
// little-endian. A shape of () is a 0-d array holding one element.
//
// The typed accessors convert on demand: the reference interpreter reads
// Float64s whatever the dtype, a tool that needs exact bits reads F16Bits or
// Int64s. Data is exported so that package writers can copy bytes without a
// conversion; code that sets it must keep len(Data) == Len()*DType.Size(),
// which Write checks.
type Array struct {
	DType DType
	Shape []int
	Data  []byte
	// Width is a Unicode array's code units per element (0 otherwise).
	Width int
}

// New returns a zero-filled array of the given dtype and shape.
func New(dtype DType, shape []int) (*Array, error) {
	if dtype == Unicode {
		return nil, fmt.Errorf("npy: a string array has a width: make it with FromStrings")
	}
	n, err := checkShape(dtype, shape)
	if err != nil {
		return nil, err
	}
	return &Array{DType: dtype, Shape: slices.Clone(shape), Data: make([]byte, n*dtype.Size())}, nil
}

// Len returns the number of elements (the product of the shape).
func (a *Array) Len() int {
	n, _ := elementCount(a.Shape)
	return n
}

// String describes the array, e.g. "float32 (2, 3)".
func (a *Array) String() string { return a.DType.String() + " " + shapeString(a.Shape) }

// Validate checks that the dtype is known, the shape is non-negative and
// the data length matches them.
func (a *Array) Validate() error {
	n, err := checkShape(a.DType, a.Shape)
	if err != nil {
		return err
	}
	if a.Width < 0 || a.Width > MaxUnicodeWidth || (a.DType != Unicode && a.Width != 0) {
		return fmt.Errorf("npy: %v array with a width of %d", a, a.Width)
	}
	if want := n * elemBytes(a.DType, a.Width); len(a.Data) != want {
		return fmt.Errorf("npy: %v array has %d data bytes, want %d", a, len(a.Data), want)
	}
	return nil
}

func checkShape(dtype DType, shape []int) (int, error) {
	if !dtype.Valid() {
		return 0, fmt.Errorf("npy: invalid dtype %v", dtype)
	}
	if len(shape) > MaxDims {
		return 0, fmt.Errorf("npy: shape has %d dimensions; NumPy allows at most %d", len(shape), MaxDims)
	}
	for i, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("npy: shape %v has a negative dimension at %d", shape, i)
		}
	}
	n, ok := elementCount(shape)
	if !ok || n > math.MaxInt/dtype.Size() {
		return 0, fmt.Errorf("npy: shape %v of %v is too large to hold in memory", shape, dtype)
	}
	return n, nil
}

// FromFloat64s returns an array of the given dtype and shape holding
// values. Float dtypes round to nearest, ties to even (float16 through
// numeric.F16FromFloat64, so the result is rounded once). Integer and bool
// dtypes take only values they hold exactly: integers in range, and 0 or 1
// for bool; anything else is an error rather than a silent wrap or
// truncation.
func FromFloat64s(dtype DType, shape []int, values []float64) (*Array, error) {
	a, err := newFor(dtype, shape, len(values))
	if err != nil {
		return nil, err
	}
	c := numeric.CodecOf(dtype.Elem())
	for i, v := range values {
		if !dtype.IsFloat() {
			lo, hi := integerRange(dtype)
			if v != math.Trunc(v) || v < lo || v > hi {
				return nil, fmt.Errorf("npy: value %v at index %d is not exactly representable as %v", v, i, dtype)
			}
		}
		c.Store(a.Data[i*c.Bytes:], v)
	}
	return a, nil
}

// FromFloat32s returns a float32 array holding values.
func FromFloat32s(shape []int, values []float32) (*Array, error) {
	a, err := newFor(Float32, shape, len(values))
	if err != nil {
		return nil, err
	}
	for i, v := range values {
		binary.LittleEndian.PutUint32(a.Data[4*i:], math.Float32bits(v))
	}
	return a, nil
}

// FromF16Bits returns a float16 array holding the given binary16 bit
// patterns unchanged.
func FromF16Bits(shape []int, bits []uint16) (*Array, error) {
	a, err := newFor(Float16, shape, len(bits))
	if err != nil {
		return nil, err
	}
	for i, v := range bits {
		binary.LittleEndian.PutUint16(a.Data[2*i:], v)
	}
	return a, nil
}

// FromInt64s returns an array of an integer or bool dtype holding values,
// each of which must be in the dtype's range (0 or 1 for bool).
func FromInt64s(dtype DType, shape []int, values []int64) (*Array, error) {
	if dtype.IsFloat() {
		return nil, fmt.Errorf("npy: FromInt64s cannot make a %v array; use FromFloat64s", dtype)
	}
	a, err := newFor(dtype, shape, len(values))
	if err != nil {
		return nil, err
	}
	size := dtype.Size()
	for i, v := range values {
		if !intFits(dtype, v) {
			return nil, fmt.Errorf("npy: value %d at index %d does not fit %v", v, i, dtype)
		}
		putUint(a.Data[i*size:(i+1)*size], uint64(v))
	}
	return a, nil
}

// FromBools returns a bool array holding values.
func FromBools(shape []int, values []bool) (*Array, error) {
	a, err := newFor(Bool, shape, len(values))
	if err != nil {
		return nil, err
	}
	for i, v := range values {
		if v {
			a.Data[i] = 1
		}
	}
	return a, nil
}

// newFor allocates an array for count values, which must match the shape.
func newFor(dtype DType, shape []int, count int) (*Array, error) {
	if dtype == Unicode {
		return nil, fmt.Errorf("npy: numbers cannot make a string array")
	}
	n, err := checkShape(dtype, shape)
	if err != nil {
		return nil, err
	}
	if n != count {
		return nil, fmt.Errorf("npy: shape %s holds %d elements, but %d values were given", shapeString(shape), n, count)
	}
	return &Array{DType: dtype, Shape: slices.Clone(shape), Data: make([]byte, n*dtype.Size())}, nil
}

// Float64s returns the elements converted to float64. Every dtype converts:
// bool gives 0 or 1, and 64-bit integers beyond 2^53 are rounded to the
// nearest float64. The array must be valid (see Validate).
func (a *Array) Float64s() []float64 {
	out := make([]float64, a.Len())
	if a.DType == Unicode {
		for i := range out { // strings are no numbers: see Strings
			out[i] = math.NaN()
		}
		return out
	}
	for i := range out {
		out[i] = a.float64At(i)
	}
	return out
}

// Float32s returns the elements converted to float32 (float64 values and
// large integers are rounded to nearest; strings are NaN).
func (a *Array) Float32s() []float32 {
	out := make([]float32, a.Len())
	for i := range out {
		if a.DType == Unicode {
			out[i] = float32(math.NaN())
		} else if a.DType == Float32 {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(a.Data[4*i:]))
		} else {
			out[i] = float32(a.float64At(i))
		}
	}
	return out
}

// F16Bits returns the binary16 bit patterns of a float16 array.
func (a *Array) F16Bits() ([]uint16, error) {
	if a.DType != Float16 {
		return nil, fmt.Errorf("npy: F16Bits of a %v array", a.DType)
	}
	out := make([]uint16, a.Len())
	for i := range out {
		out[i] = binary.LittleEndian.Uint16(a.Data[2*i:])
	}
	return out, nil
}

// Int64s returns the elements of an integer or bool array as int64. A
// uint64 element above math.MaxInt64 is an error, not a wrap.
func (a *Array) Int64s() ([]int64, error) {
	if a.DType.IsFloat() || !a.DType.Valid() || a.DType == Unicode {
		return nil, fmt.Errorf("npy: Int64s of a %v array", a.DType)
	}
	out := make([]int64, a.Len())
	size := a.DType.Size()
	for i := range out {
		u := getUint(a.Data[i*size : (i+1)*size])
		switch a.DType {
		case Int8, Int16, Int32, Int64:
			out[i] = signExtend(u, size)
		case Bool:
			out[i] = int64(min(u, 1))
		default:
			if u > math.MaxInt64 {
				return nil, fmt.Errorf("npy: uint64 element %d at index %d does not fit int64", u, i)
			}
			out[i] = int64(u)
		}
	}
	return out, nil
}

// Bools returns the elements of a bool array; like NumPy, any nonzero byte
// is true.
func (a *Array) Bools() ([]bool, error) {
	if a.DType != Bool {
		return nil, fmt.Errorf("npy: Bools of a %v array", a.DType)
	}
	out := make([]bool, a.Len())
	for i := range out {
		out[i] = a.Data[i] != 0
	}
	return out, nil
}

func (a *Array) float64At(i int) float64 {
	c := numeric.CodecOf(a.DType.Elem())
	return c.Load(a.Data[i*c.Bytes:])
}

// integerRange returns the float64 bounds that convert exactly into an
// integer dtype. For 64-bit types the upper bound is the largest float64
// below 2^63 (or 2^64), since those powers themselves are out of range.
func integerRange(d DType) (lo, hi float64) {
	switch d {
	case Bool:
		return 0, 1
	case Int8:
		return math.MinInt8, math.MaxInt8
	case Int16:
		return math.MinInt16, math.MaxInt16
	case Int32:
		return math.MinInt32, math.MaxInt32
	case Int64:
		return math.MinInt64, math.Nextafter(1<<63, 0)
	case Uint8:
		return 0, math.MaxUint8
	case Uint16:
		return 0, math.MaxUint16
	case Uint32:
		return 0, math.MaxUint32
	case Uint64:
		return 0, math.Nextafter(1<<64, 0)
	}
	panic(fmt.Sprintf("BUG: npy: integerRange of %v", d))
}

func intFits(d DType, v int64) bool {
	switch d {
	case Bool:
		return v == 0 || v == 1
	case Int8:
		return v >= math.MinInt8 && v <= math.MaxInt8
	case Int16:
		return v >= math.MinInt16 && v <= math.MaxInt16
	case Int32:
		return v >= math.MinInt32 && v <= math.MaxInt32
	case Int64:
		return true
	case Uint8:
		return v >= 0 && v <= math.MaxUint8
	case Uint16:
		return v >= 0 && v <= math.MaxUint16
	case Uint32:
		return v >= 0 && v <= math.MaxUint32
	case Uint64:
		return v >= 0
	}
	return false
}

// putUint stores the low len(b) bytes of u little-endian.
func putUint(b []byte, u uint64) {
	for i := range b {
		b[i] = byte(u >> (8 * i))
	}
}

// getUint reads len(b) little-endian bytes.
func getUint(b []byte) uint64 {
	var u uint64
	for i := range b {
		u |= uint64(b[i]) << (8 * i)
	}
	return u
}

func signExtend(u uint64, size int) int64 {
	shift := 64 - 8*size
	return int64(u<<shift) >> shift
}

// FromStrings returns a Unicode array holding vals, as NumPy stores
// strings: each element as many UTF-32 code units as the longest string
// has code points (at least one), padded with NULs. A string with a NUL
// or invalid UTF-8 is refused: NumPy could not read it back the same.
func FromStrings(shape []int, vals []string) (*Array, error) {
	n, err := checkShape(Unicode, shape)
	if err != nil {
		return nil, err
	}
	if n != len(vals) {
		return nil, fmt.Errorf("npy: shape %s holds %d elements, but %d strings were given", shapeString(shape), n, len(vals))
	}
	width := 1
	for i, v := range vals {
		if !utf8.ValidString(v) || strings.IndexByte(v, 0) >= 0 {
			return nil, fmt.Errorf("npy: string %d is not NUL-free UTF-8", i)
		}
		width = max(width, utf8.RuneCountInString(v))
	}
	if width > MaxUnicodeWidth || n > math.MaxInt/(4*width) {
		return nil, fmt.Errorf("npy: %d strings of %d code units are too large", n, width)
	}
	a := &Array{DType: Unicode, Width: width, Shape: slices.Clone(shape), Data: make([]byte, n*4*width)}
	for i, v := range vals {
		off := i * 4 * width
		for _, r := range v {
			binary.LittleEndian.PutUint32(a.Data[off:], uint32(r))
			off += 4
		}
	}
	return a, nil
}

// Strings returns the elements of a Unicode array, their trailing NULs
// dropped as NumPy drops them; a code unit that is no Unicode scalar
// value (a surrogate, or beyond U+10FFFF) is an error naming the element.
func (a *Array) Strings() ([]string, error) {
	if a.DType != Unicode {
		return nil, fmt.Errorf("npy: Strings of a %v array", a.DType)
	}
	if err := a.Validate(); err != nil {
		return nil, err
	}
	out := make([]string, a.Len())
	var b strings.Builder
	for i := range out {
		b.Reset()
		elemData := a.Data[i*4*a.Width : (i+1)*4*a.Width]
		end := a.Width
		for end > 0 && binary.LittleEndian.Uint32(elemData[4*(end-1):]) == 0 {
			end--
		}
		for k := range end {
			r := binary.LittleEndian.Uint32(elemData[4*k:])
			if r > unicode.MaxRune || (r >= 0xD800 && r <= 0xDFFF) {
				return nil, fmt.Errorf("npy: string element %d holds code unit %#x, which is no Unicode character", i, r)
			}
			b.WriteRune(rune(r))
		}
		out[i] = b.String()
	}
	return out, nil
}
