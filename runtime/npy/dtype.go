package npy

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ipuir/ipuir/elem"
)

// DType is an element type a .npy file can hold: a type of the shared
// vocabulary (package elem) that NumPy has, named as NumPy names it: bool,
// signed and unsigned integers of 1 to 8 bytes, and float16/32/64 (NumPy
// has no bfloat16). Byte order is not part of a DType: Array data is
// always little-endian.
type DType elem.Type

// The dtypes, as the element types they are.
const (
	Bool    = DType(elem.I1)
	Int8    = DType(elem.I8)
	Int16   = DType(elem.I16)
	Int32   = DType(elem.I32)
	Int64   = DType(elem.I64)
	Uint8   = DType(elem.U8)
	Uint16  = DType(elem.U16)
	Uint32  = DType(elem.U32)
	Uint64  = DType(elem.U64)
	Float16 = DType(elem.F16)
	Float32 = DType(elem.F32)
	Float64 = DType(elem.F64)
)

// Unicode is NumPy's fixed-width string dtype, '<U{n}': each element n
// UTF-32 code units, NUL-padded (np.array(["monday"]) is '<U6'). Its width
// is the array's (Array.Width, Header.Width), not the dtype's; the numeric
// accessors refuse it, and Strings and FromStrings convert.
const Unicode = DType(0xFF)

// MaxUnicodeWidth bounds a string dtype's width in code units, so that a
// header cannot promise elements of gigabytes.
const MaxUnicodeWidth = 1 << 20

// elemBytes is the bytes one element of d takes: width UTF-32 code units
// for Unicode.
func elemBytes(d DType, width int) int {
	if d == Unicode {
		return 4 * width
	}
	return d.Size()
}

// descrOf is the descr NumPy writes for d (of width code units, for
// Unicode).
func descrOf(d DType, width int) string {
	if d == Unicode {
		return fmt.Sprintf("<U%d", width)
	}
	return d.Descr()
}

type dtypeInfo struct {
	name string // NumPy's name, e.g. "float32"
	kind byte   // NumPy's kind character in a descr: b, i, u, f
}

// dtypes gives NumPy's spelling of the element types it has; the size is
// the element type's.
var dtypes = map[DType]dtypeInfo{
	Bool:    {"bool", 'b'},
	Int8:    {"int8", 'i'},
	Int16:   {"int16", 'i'},
	Int32:   {"int32", 'i'},
	Int64:   {"int64", 'i'},
	Uint8:   {"uint8", 'u'},
	Uint16:  {"uint16", 'u'},
	Uint32:  {"uint32", 'u'},
	Uint64:  {"uint64", 'u'},
	Float16: {"float16", 'f'},
	Float32: {"float32", 'f'},
	Float64: {"float64", 'f'},
}

// allDTypes lists the dtypes in the order of the element types.
func allDTypes() []DType {
	var out []DType
	for _, e := range elem.All() {
		if _, ok := dtypes[DType(e)]; ok {
			out = append(out, DType(e))
		}
	}
	return out
}

// Elem is the element type d holds.
func (d DType) Elem() elem.Type { return elem.Type(d) }

// DTypeOf returns the dtype that holds elements of type e, if NumPy has one.
func DTypeOf(e elem.Type) (DType, bool) {
	_, ok := dtypes[DType(e)]
	return DType(e), ok
}

// Valid reports whether d is one of the declared dtypes.
func (d DType) Valid() bool { _, ok := dtypes[d]; return ok || d == Unicode }

// String returns NumPy's name for the dtype ("float32", "bool", ...).
func (d DType) String() string {
	if d == Unicode {
		return "str"
	}
	if d.Valid() {
		return dtypes[d].name
	}
	return fmt.Sprintf("DType(%d)", uint8(d))
}

// Size returns the bytes per element (for Unicode, per code unit: an
// element is Width of them), or 0 for an invalid DType.
func (d DType) Size() int {
	if d == Unicode {
		return 4
	}
	if d.Valid() {
		return d.Elem().Bytes()
	}
	return 0
}

// IsFloat reports whether d is a floating-point dtype.
func (d DType) IsFloat() bool { return d.Valid() && dtypes[d].kind == 'f' }

// Descr returns the descr string NumPy writes for the little-endian dtype:
// "|b1", "|i1", "|u1" for one-byte types (byte order does not apply) and
// "<i2", "<f4", ... otherwise.
func (d DType) Descr() string {
	if !d.Valid() {
		return d.String()
	}
	info, size := dtypes[d], d.Size()
	order := byte('<')
	if size == 1 {
		order = '|'
	}
	return fmt.Sprintf("%c%c%d", order, info.kind, size)
}

// parseDescr maps a descr string to its dtype and whether the data is
// big-endian. It accepts '<' and '>' for every type and '|' (byte order not
// applicable) for one-byte types, which is what NumPy writes for them; '='
// (native order) is rejected, since a file must not depend on the machine
// that reads it.
func parseDescr(descr string) (DType, int, bool, error) {
	if len(descr) < 3 {
		return 0, 0, false, formatErrorf("unsupported dtype descr %q (supported: %s)", descr, supportedDescrs())
	}
	order, rest := descr[0], descr[1:]
	if rest[0] == 'U' {
		width, err := strconv.Atoi(rest[1:])
		switch {
		case err != nil || rest[1] == '+' || rest[1] == '-' || width < 0:
			return 0, 0, false, formatErrorf("dtype descr %q: a string dtype is U and a width in code units, as in '<U6'", descr)
		case width > MaxUnicodeWidth:
			return 0, 0, false, formatErrorf("dtype descr %q: strings of %d code units, more than the %d read here", descr, width, MaxUnicodeWidth)
		case order != '<' && order != '>':
			return 0, 0, false, formatErrorf("dtype descr %q: unsupported byte order %q for a string dtype (want '<' or '>')", descr, order)
		}
		return Unicode, width, order == '>', nil
	}
	for _, d := range allDTypes() {
		info, size := dtypes[d], d.Size()
		if rest != fmt.Sprintf("%c%d", info.kind, size) {
			continue
		}
		switch {
		case order == '<':
			return d, 0, false, nil
		case order == '>':
			return d, 0, size > 1, nil
		case order == '|' && size == 1:
			return d, 0, false, nil
		case order == '|':
			return 0, 0, false, formatErrorf("dtype descr %q: byte order '|' is only for one-byte types; a %d-byte type needs '<' or '>'", descr, size)
		}
		return 0, 0, false, formatErrorf("dtype descr %q: unsupported byte order %q (want '<', '>' or, for one-byte types, '|')", descr, order)
	}
	return 0, 0, false, formatErrorf("unsupported dtype descr %q (supported: %s)", descr, supportedDescrs())
}

func supportedDescrs() string {
	var names []string
	for _, d := range allDTypes() {
		names = append(names, d.Descr())
	}
	return strings.Join(names, " ") + ", <U{n} for strings, and '>' for big-endian"
}
