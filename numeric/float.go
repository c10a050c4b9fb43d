package numeric

import (
	"fmt"
	"math"

	"github.com/ipuir/ipuir/ir"
)

// Kind is a floating-point element kind that values can be rounded to.
// The zero Kind is invalid, so that a forgotten field is caught rather than
// silently meaning one of the kinds.
type Kind uint8

const (
	F16  Kind = iota + 1 // IEEE 754 binary16: 1 sign, 5 exponent, 10 fraction bits
	BF16                 // bfloat16: the top 16 bits of a binary32 (8 exponent, 7 fraction bits)
	F32                  // IEEE 754 binary32
	F64                  // IEEE 754 binary64; rounding to it is the identity
)

var kindNames = [...]string{F16: "f16", BF16: "bf16", F32: "f32", F64: "f64"}

// String returns the kind's name as MLIR spells the element type ("f16", ...).
func (k Kind) String() string {
	if k.Valid() {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Valid reports whether k is one of the declared kinds.
func (k Kind) Valid() bool { return k >= F16 && k <= F64 }

// Bytes returns the storage size of one element of kind k.
func (k Kind) Bytes() int {
	switch k {
	case F16, BF16:
		return 2
	case F32:
		return 4
	case F64:
		return 8
	}
	panic(fmt.Sprintf("BUG: numeric: Bytes of invalid %v", k))
}

// ParseKind maps an MLIR element-type spelling ("f16", "bf16", "f32", "f64")
// to its Kind.
func ParseKind(name string) (Kind, error) {
	for k, n := range kindNames {
		if n != "" && n == name {
			return Kind(k), nil
		}
	}
	return 0, fmt.Errorf("numeric: unknown float kind %q (known: f16, bf16, f32, f64)", name)
}

// Round rounds x to the nearest value representable in kind k (ties to even),
// returned as a float64. Values too large for k become ±Inf, NaN stays NaN and
// the sign of zero is kept. k must be valid; an invalid kind is a programming
// error and panics.
func Round(x float64, k Kind) float64 {
	switch k {
	case F16:
		return RoundF16(x)
	case BF16:
		return RoundBF16(x)
	case F32:
		return RoundF32(x)
	case F64:
		return x
	}
	panic(fmt.Sprintf("BUG: numeric.Round: invalid %v", k))
}

// RoundSlice rounds every element of xs to kind k in place.
func RoundSlice(xs []float64, k Kind) {
	if !k.Valid() {
		panic(fmt.Sprintf("BUG: numeric.RoundSlice: invalid %v", k))
	}
	for i, x := range xs {
		xs[i] = Round(x, k)
	}
}

// RoundF16 rounds x to the nearest IEEE binary16 value (ties to even).
// Magnitudes from 65520 up become ±Inf; magnitudes up to 2^-25 become ±0.
func RoundF16(x float64) float64 { return F16ToFloat64(F16FromFloat64(x)) }

// RoundBF16 rounds x to the nearest bfloat16 value (ties to even).
func RoundBF16(x float64) float64 { return BF16ToFloat64(BF16FromFloat64(x)) }

// RoundF32 rounds x to the nearest binary32 value (ties to even); Go's
// float64-to-float32 conversion already does exactly that.
func RoundF32(x float64) float64 { return float64(float32(x)) }

// F16FromFloat32 returns the binary16 bit pattern nearest to f (ties to even).
// NaN becomes a quiet NaN that keeps the top of f's payload.
func F16FromFloat32(f float32) uint16 { return bitsOf(float64(f), ir.F16) }

// F16FromFloat64 returns the binary16 bit pattern nearest to x (ties to
// even), rounding once, straight from x.
func F16FromFloat64(x float64) uint16 { return bitsOf(x, ir.F16) }

// F16ToFloat32 returns the value of the binary16 bit pattern h; every binary16
// value is exactly representable in binary32.
func F16ToFloat32(h uint16) float32 { return float32(valueOf(h, ir.F16)) }

// F16ToFloat64 returns the value of the binary16 bit pattern h.
func F16ToFloat64(h uint16) float64 { return valueOf(h, ir.F16) }

// BF16FromFloat32 returns the bfloat16 bit pattern nearest to f (ties to
// even). NaN stays NaN: its top payload bits are kept and the quiet bit is
// set, because plain truncation could clear every payload bit and turn a NaN
// into an infinity.
func BF16FromFloat32(f float32) uint16 { return bitsOf(float64(f), ir.BF16) }

// BF16FromFloat64 returns the bfloat16 bit pattern nearest to x (ties to
// even), rounding once, straight from x.
func BF16FromFloat64(x float64) uint16 { return bitsOf(x, ir.BF16) }

// BF16ToFloat32 returns the value of the bfloat16 bit pattern b: bfloat16 is
// the top half of a binary32, so this is a shift, exact for every pattern
// (a signalling NaN stays signalling).
func BF16ToFloat32(b uint16) float32 { return math.Float32frombits(uint32(b) << 16) }

// BF16ToFloat64 returns the value of the bfloat16 bit pattern b.
func BF16ToFloat64(b uint16) float64 { return valueOf(b, ir.BF16) }

// bitsOf encodes x in the 16-bit kind with ir's encoder, the one the parser
// and printer use, so that the interpreter and the IR never disagree about a
// value's bits.
func bitsOf(x float64, kind ir.FloatKind) uint16 {
	b, _ := ir.FloatBits(quietNaN(x), kind)
	return uint16(b)
}

// valueOf decodes the 16-bit pattern b of kind with ir's decoder.
func valueOf(b uint16, kind ir.FloatKind) float64 {
	return quietNaN(ir.FloatFromBits(uint64(b), kind))
}

// quietNaN sets the quiet bit of a NaN (the top fraction bit, which ir's
// encoder carries over to the narrow kind) and returns other values as they
// are. numeric hands out only quiet NaNs, as hardware conversions do, while
// ir keeps signalling NaNs because mlir-opt prints NaN bits back verbatim.
func quietNaN(x float64) float64 {
	if x != x {
		return math.Float64frombits(math.Float64bits(x) | 1<<51)
	}
	return x
}
