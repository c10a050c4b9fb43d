package npy

import (
	"fmt"
	"strings"
)

// DType is an element type a .npy file can hold here: NumPy's bool, signed
// and unsigned integers of 1 to 8 bytes, and float16/32/64. Byte order is not
// part of a DType: Array data is always little-endian.
type DType uint8

const (
	Bool DType = iota + 1
	Int8
	Int16
	Int32
	Int64
	Uint8
	Uint16
	Uint32
	Uint64
	Float16
	Float32
	Float64
)

type dtypeInfo struct {
	name string // NumPy's name, e.g. "float32"
	kind byte   // NumPy's kind character in a descr: b, i, u, f
	size int    // bytes per element
}

var dtypes = [...]dtypeInfo{
	Bool:    {"bool", 'b', 1},
	Int8:    {"int8", 'i', 1},
	Int16:   {"int16", 'i', 2},
	Int32:   {"int32", 'i', 4},
	Int64:   {"int64", 'i', 8},
	Uint8:   {"uint8", 'u', 1},
	Uint16:  {"uint16", 'u', 2},
	Uint32:  {"uint32", 'u', 4},
	Uint64:  {"uint64", 'u', 8},
	Float16: {"float16", 'f', 2},
	Float32: {"float32", 'f', 4},
	Float64: {"float64", 'f', 8},
}

// Valid reports whether d is one of the declared dtypes.
func (d DType) Valid() bool { return d >= Bool && d <= Float64 }

// String returns NumPy's name for the dtype ("float32", "bool", ...).
func (d DType) String() string {
	if d.Valid() {
		return dtypes[d].name
	}
	return fmt.Sprintf("DType(%d)", uint8(d))
}

// Size returns the bytes per element, or 0 for an invalid DType.
func (d DType) Size() int {
	if d.Valid() {
		return dtypes[d].size
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
	info := dtypes[d]
	order := byte('<')
	if info.size == 1 {
		order = '|'
	}
	return fmt.Sprintf("%c%c%d", order, info.kind, info.size)
}

// parseDescr maps a descr string to its dtype and whether the data is
// big-endian. It accepts '<' and '>' for every type and '|' (byte order not
// applicable) for one-byte types, which is what NumPy writes for them; '='
// (native order) is rejected, since a file must not depend on the machine
// that reads it.
func parseDescr(descr string) (DType, bool, error) {
	if len(descr) < 3 {
		return 0, false, formatErrorf("unsupported dtype descr %q (supported: %s)", descr, supportedDescrs())
	}
	order, rest := descr[0], descr[1:]
	for d := Bool; d <= Float64; d++ {
		info := dtypes[d]
		if rest != fmt.Sprintf("%c%d", info.kind, info.size) {
			continue
		}
		switch {
		case order == '<':
			return d, false, nil
		case order == '>':
			return d, info.size > 1, nil
		case order == '|' && info.size == 1:
			return d, false, nil
		case order == '|':
			return 0, false, formatErrorf("dtype descr %q: byte order '|' is only for one-byte types; a %d-byte type needs '<' or '>'", descr, info.size)
		}
		return 0, false, formatErrorf("dtype descr %q: unsupported byte order %q (want '<', '>' or, for one-byte types, '|')", descr, order)
	}
	return 0, false, formatErrorf("unsupported dtype descr %q (supported: %s)", descr, supportedDescrs())
}

func supportedDescrs() string {
	var names []string
	for d := Bool; d <= Float64; d++ {
		names = append(names, d.Descr())
	}
	return strings.Join(names, " ") + ", and '>' for big-endian"
}
