package numeric

import (
	"fmt"
	"math"

	"github.com/ipuir/ipuir/elem"
)

// Round rounds x to the nearest value representable in the float type k
// (ties to even), returned as a float64. Values too large for k become ±Inf,
// NaN stays NaN and the sign of zero is kept. For an integer type k, x is
// truncated toward zero and wrapped to k's width (two's complement, as the
// machines' integer arithmetic and ONNX's casts do; i1 is 1 for any non-zero
// x); NaN and ±Inf become 0 (the value of C's conversion is undefined
// there). i64 and u64 values are exact up to 2^53. k must be a type of
// package elem; any other is a programming error and panics.
func Round(x float64, k elem.Type) float64 {
	switch k {
	case elem.I1:
		if x != 0 && !math.IsNaN(x) {
			return 1
		}
		return 0
	case elem.I8, elem.I16, elem.I32, elem.I64, elem.U8, elem.U16, elem.U32, elem.U64:
		return WrapInt(x, k)
	case elem.F16:
		return RoundF16(x)
	case elem.BF16:
		return RoundBF16(x)
	case elem.F32:
		return RoundF32(x)
	case elem.F64:
		return x
	}
	panic(fmt.Sprintf("BUG: numeric.Round: invalid %v", k))
}

// WrapInt truncates x toward zero and wraps it to the integer type k.
func WrapInt(x float64, k elem.Type) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	x = math.Trunc(x)
	bits := k.Bits()
	if bits >= 64 {
		if k == elem.U64 && x < 0 {
			return x + (1 << 64)
		}
		return x
	}
	span := math.Ldexp(1, bits)
	x = math.Mod(x, span)
	if x < 0 {
		x += span
	}
	if !k.IsUnsigned() && x >= span/2 {
		x -= span
	}
	return x
}

// RoundSlice rounds every element of xs to kind k in place.
func RoundSlice(xs []float64, k elem.Type) {
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
func F16FromFloat32(f float32) uint16 { return f16Bits(float64(f)) }

// F16FromFloat64 returns the binary16 bit pattern nearest to x (ties to
// even), rounding once, straight from x.
func F16FromFloat64(x float64) uint16 { return f16Bits(x) }

// F16ToFloat32 returns the value of the binary16 bit pattern h; every binary16
// value is exactly representable in binary32.
func F16ToFloat32(h uint16) float32 { return float32(f16Value(h)) }

// F16ToFloat64 returns the value of the binary16 bit pattern h.
func F16ToFloat64(h uint16) float64 { return f16Value(h) }

// BF16FromFloat32 returns the bfloat16 bit pattern nearest to f (ties to
// even). NaN stays NaN: its top payload bits are kept and the quiet bit is
// set, because plain truncation could clear every payload bit and turn a NaN
// into an infinity.
func BF16FromFloat32(f float32) uint16 { return bf16Bits(float64(f)) }

// BF16FromFloat64 returns the bfloat16 bit pattern nearest to x (ties to
// even), rounding once, straight from x.
func BF16FromFloat64(x float64) uint16 { return bf16Bits(x) }

// BF16ToFloat32 returns the value of the bfloat16 bit pattern b: bfloat16 is
// the top half of a binary32, so this is a shift, exact for every pattern
// (a signalling NaN stays signalling).
func BF16ToFloat32(b uint16) float32 { return math.Float32frombits(uint32(b) << 16) }

// BF16ToFloat64 returns the value of the bfloat16 bit pattern b.
func BF16ToFloat64(b uint16) float64 { return quietNaN(float64(BF16ToFloat32(b))) }

// The binary16 and bfloat16 codecs. They are written out here rather
// than borrowed from the IR's generic minifloat encoder (ir.FloatBits), so
// that the runtime and the simulated device use numeric without the IR,
// and so that the hot path of the interpreter and the device is a few
// shifts; a test checks them against ir's encoder on every 16-bit pattern
// and on millions of float64 values, so the two cannot disagree.

// f16Bits encodes x as binary16, rounding once to nearest, ties to even;
// a value that is already a normal f16 number (what f16 arithmetic
// writes) is encoded directly.
func f16Bits(x float64) uint16 {
	b := math.Float64bits(x)
	exp, mant := int(b>>52)&0x7ff, b&(1<<52-1)
	if exp >= 1023-14 && exp <= 1023+15 && mant&(1<<42-1) == 0 {
		return uint16(b>>48)&0x8000 | uint16(exp-1023+15)<<10 | uint16(mant>>42)
	}
	return miniBits(x, 5, 10)
}

// bf16Bits encodes x as bfloat16, rounding once to nearest, ties to even.
func bf16Bits(x float64) uint16 { return miniBits(x, 8, 7) }

// miniBits encodes x in a 16-bit IEEE-style format with expBits exponent
// and fracBits fraction bits. NaN becomes a quiet NaN that keeps the top
// of x's payload.
func miniBits(x float64, expBits, fracBits uint) uint16 {
	b := math.Float64bits(x)
	sign := uint16(b>>63) << (expBits + fracBits)
	expMask := uint16(1<<expBits-1) << fracBits
	if x != x {
		payload := uint16(b>>(52-fracBits)) & (1<<fracBits - 1)
		return sign | expMask | payload | 1<<(fracBits-1)
	}
	e := int(b>>52&0x7ff) - 1023
	if e == 1024 { // infinity
		return sign | expMask
	}
	if e == -1023 { // zero or a float64 subnormal: far below any 16-bit value
		return sign
	}
	bias := 1<<(expBits-1) - 1
	emin := 1 - bias
	m := b&(1<<52-1) | 1<<52 // 53 significant bits
	shift := 52 - int(fracBits)
	if e < emin {
		shift += emin - e // a subnormal: fewer fraction bits remain
	}
	if shift > 54 {
		return sign // below half the smallest subnormal
	}
	q := m >> shift
	rem, half := m&(1<<shift-1), uint64(1)<<(shift-1)
	if rem > half || rem == half && q&1 == 1 {
		q++
	}
	if e < emin {
		// q is the subnormal's fraction; a carry into bit fracBits is the
		// smallest normal, which the same encoding spells.
		return sign | uint16(q)
	}
	if q == 1<<(fracBits+1) { // the rounding carried into a new exponent
		q >>= 1
		e++
	}
	if e+bias >= 1<<expBits-1 {
		return sign | expMask // overflow: infinity
	}
	return sign | uint16(e+bias)<<fracBits | uint16(q)&(1<<fracBits-1)
}

// f16Value decodes a binary16 pattern; NaNs come back quiet.
func f16Value(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp, frac := int(h>>10&0x1f), float64(h&0x3ff)
	switch exp {
	case 0:
		return sign * math.Ldexp(frac, -24)
	case 0x1f:
		if frac == 0 {
			return math.Inf(int(sign))
		}
		payload := uint64(h&0x3ff) << 42
		return math.Float64frombits(uint64(h&0x8000)<<48 | 0x7ff<<52 | payload | 1<<51)
	}
	return sign * math.Ldexp(1024+frac, exp-25)
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
