package ir

import (
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"
)

// AppendFloat appends v (a value of kind) as mlir-opt prints a float: six
// significant digits in exponent form (`1.500000e+00`) when that reads
// back to the same value, else LLVM's APFloat default rendering (enough
// digits to round-trip: `3.14159265358979`, `1.2345678901234568E+17`),
// and when that has no '.' (an integer such as `16777217`) or the value is
// not finite, the hex bit pattern of the type. The digits come from the
// exact binary value with APFloat's truncate-then-round-half-up rule, so
// that output matches byte for byte.
func AppendFloat(b []byte, v float64, kind FloatKind) []byte {
	start := len(b)
	if !math.IsInf(v, 0) && !math.IsNaN(v) {
		b = appendAPFloat(b, v, kind, 6, 0, false)
		if readsBack(string(b[start:]), v, kind) {
			return b
		}
		b = appendAPFloat(b[:start], v, kind, 0, 3, true)
		if strings.IndexByte(string(b[start:]), '.') >= 0 {
			return b
		}
		b = b[:start]
	}
	b = append(b, "0x"...)
	if kind == F80 || kind == F128 {
		return append(b, strings.ToUpper(FloatBitsBig(v, kind).Text(16))...)
	}
	bits, _ := FloatBits(v, kind)
	return append(b, strings.ToUpper(strconv.FormatUint(bits, 16))...)
}

// readsBack reports whether the decimal s parses to exactly v in kind.
func readsBack(s string, v float64, kind FloatKind) bool {
	size := 64
	if kind == F32 {
		size = 32
	}
	back, err := strconv.ParseFloat(s, size)
	if err != nil {
		return false
	}
	back = RoundFloat(back, kind)
	return back == v && math.Signbit(back) == math.Signbit(v)
}

// precisionBits is the significand width of kind, hidden bit included.
func precisionBits(kind FloatKind) int {
	// The stored mantissa plus the hidden bit; x87's f80 stores its integer
	// bit, so its 63 fraction bits also make 64.
	return floatFormats[kind].manBits + 1
}

// appendAPFloat renders v as llvm::APFloat::toString(precision, maxPadding,
// truncateZero) does for a finite value of kind.
func appendAPFloat(b []byte, v float64, kind FloatKind, precision, maxPadding int, truncateZero bool) []byte {
	if math.Signbit(v) {
		b = append(b, '-')
		v = -v
	}
	if v == 0 {
		if maxPadding != 0 {
			return append(b, '0')
		}
		if truncateZero {
			return append(b, "0.0E+0"...)
		}
		b = append(b, "0.0"...)
		for i := 1; i < precision; i++ {
			b = append(b, '0')
		}
		return append(b, "e+00"...)
	}
	if precision == 0 {
		// Enough digits to round-trip (Steele and White), as APFloat picks.
		precision = 2 + precisionBits(kind)*59/196
	}

	// v = mant * 2^exp with mant odd.
	frac, e2 := math.Frexp(v)
	mant := uint64(math.Ldexp(frac, 53))
	exp := e2 - 53
	for mant&1 == 0 {
		mant >>= 1
		exp++
	}
	// APFloat first drops whole decimal digits it is sure are beyond the
	// precision (truncating), then rounds the digit string half up.
	bitsRequired := (precision*196 + 58) / 59
	var scratch [40]byte
	digits, exp10, ok := exactDigits128(scratch[:0], mant, exp, bitsRequired)
	if !ok {
		digits, exp10 = exactDigitsBig(mant, exp, bitsRequired)
	}
	for len(digits) > 1 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		exp10++
	}
	if n := len(digits); n > precision {
		dropped := n - precision
		roundUp := digits[precision] >= '5'
		digits = digits[:precision]
		exp10 += dropped
		if roundUp {
			i := len(digits) - 1
			for i >= 0 && digits[i] == '9' {
				i--
			}
			if i < 0 {
				exp10 += len(digits)
				digits = []byte{'1'}
			} else {
				exp10 += len(digits) - 1 - i
				digits = digits[:i+1]
				digits[i]++
			}
		}
		for len(digits) > 1 && digits[len(digits)-1] == '0' {
			digits = digits[:len(digits)-1]
			exp10++
		}
	}

	n := len(digits)
	scientific := maxPadding == 0
	if !scientific {
		if exp10 >= 0 {
			scientific = exp10 > maxPadding || n+exp10 > precision
		} else if msd := exp10 + n - 1; msd < 0 {
			scientific = -msd > maxPadding
		}
	}
	switch {
	case scientific:
		e := exp10 + n - 1
		b = append(b, digits[0], '.')
		if n == 1 && truncateZero {
			b = append(b, '0')
		} else {
			b = append(b, digits[1:]...)
		}
		if !truncateZero {
			for i := n - 1; i < precision; i++ {
				b = append(b, '0')
			}
		}
		if truncateZero {
			b = append(b, 'E')
		} else {
			b = append(b, 'e')
		}
		if e < 0 {
			b = append(b, '-')
			e = -e
		} else {
			b = append(b, '+')
		}
		if !truncateZero && e < 10 {
			b = append(b, '0')
		}
		return strconv.AppendInt(b, int64(e), 10)
	case exp10 >= 0:
		b = append(b, digits...)
		for i := 0; i < exp10; i++ {
			b = append(b, '0')
		}
		return b
	}
	whole := exp10 + n
	if whole > 0 {
		b = append(b, digits[:whole]...)
		b = append(b, '.')
		return append(b, digits[whole:]...)
	}
	b = append(b, '0', '.')
	for i := 0; i < -whole; i++ {
		b = append(b, '0')
	}
	return append(b, digits...)
}

// exactDigitsBig returns the decimal digits of mant * 2^exp, less the
// whole trailing digits beyond bitsRequired bits (dropped, not rounded),
// and the power of ten they stand at.
func exactDigitsBig(mant uint64, exp, bitsRequired int) ([]byte, int) {
	sig := new(big.Int).SetUint64(mant)
	exp10 := 0
	if exp > 0 {
		sig.Lsh(sig, uint(exp))
	} else if exp < 0 {
		sig.Mul(sig, new(big.Int).Exp(big.NewInt(5), big.NewInt(int64(-exp)), nil))
		exp10 = exp
	}
	if bits := sig.BitLen(); bits > bitsRequired {
		if tens := (bits - bitsRequired) * 59 / 196; tens > 0 {
			exp10 += tens
			sig.Quo(sig, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(tens)), nil))
		}
	}
	return []byte(sig.String()), exp10
}

// exactDigits128 is exactDigitsBig in 128-bit arithmetic, appending the
// digits to dst, for the values where mant * 2^exp (scaled by 10^-exp when
// exp < 0) fits: most floats of up to 32 bits and many of 64. It reports
// false for the others. Printing dense float data thus allocates nothing.
func exactDigits128(dst []byte, mant uint64, exp, bitsRequired int) ([]byte, int, bool) {
	var sig u128
	exp10 := 0
	switch {
	case exp >= 0:
		if bits.Len64(mant)+exp > 128 {
			return nil, 0, false
		}
		sig = u128{lo: mant}.shl(uint(exp))
	default:
		k := -exp
		if k >= len(pow5) {
			return nil, 0, false
		}
		var overflow bool
		sig, overflow = pow5[k].mul64(mant)
		if overflow {
			return nil, 0, false
		}
		exp10 = exp
	}
	if n := sig.bitLen(); n > bitsRequired {
		if tens := (n - bitsRequired) * 59 / 196; tens > 0 {
			exp10 += tens
			for ; tens > 19; tens -= 19 {
				sig, _ = sig.divmod64(pow10[19])
			}
			sig, _ = sig.divmod64(pow10[tens])
		}
	}
	return sig.appendDecimal(dst), exp10, true
}

// u128 is an unsigned 128-bit integer.
type u128 struct{ hi, lo uint64 }

func (x u128) shl(n uint) u128 {
	switch {
	case n == 0:
		return x
	case n >= 64:
		return u128{hi: x.lo << (n - 64)}
	}
	return u128{hi: x.hi<<n | x.lo>>(64-n), lo: x.lo << n}
}

func (x u128) bitLen() int {
	if x.hi != 0 {
		return 64 + bits.Len64(x.hi)
	}
	return bits.Len64(x.lo)
}

// mul64 is x * y and whether it overflows 128 bits.
func (x u128) mul64(y uint64) (u128, bool) {
	hiHi, hiLo := bits.Mul64(x.hi, y)
	loHi, loLo := bits.Mul64(x.lo, y)
	hi, carry := bits.Add64(hiLo, loHi, 0)
	return u128{hi: hi, lo: loLo}, hiHi != 0 || carry != 0
}

// divmod64 is x / d and x % d.
func (x u128) divmod64(d uint64) (u128, uint64) {
	qHi := x.hi / d
	qLo, r := bits.Div64(x.hi%d, x.lo, d)
	return u128{hi: qHi, lo: qLo}, r
}

// appendDecimal appends x in decimal.
func (x u128) appendDecimal(dst []byte) []byte {
	if x.hi == 0 {
		return strconv.AppendUint(dst, x.lo, 10)
	}
	// 10^38 < 2^128 < 10^39: a top part and one or two 19-digit chunks.
	q, low := x.divmod64(pow10[19])
	if q.hi == 0 {
		dst = strconv.AppendUint(dst, q.lo, 10)
	} else {
		top, mid := q.divmod64(pow10[19])
		dst = strconv.AppendUint(dst, top.lo, 10)
		dst = appendPadded19(dst, mid)
	}
	return appendPadded19(dst, low)
}

// appendPadded19 appends v as exactly 19 decimal digits.
func appendPadded19(dst []byte, v uint64) []byte {
	var buf [19]byte
	for i := 18; i >= 0; i-- {
		buf[i] = byte('0' + v%10)
		v /= 10
	}
	return append(dst, buf[:]...)
}

// pow5[k] is 5^k for each k whose power fits in 128 bits; pow10[k] is 10^k.
var pow5, pow10 = func() ([]u128, [20]uint64) {
	p5 := []u128{{lo: 1}}
	for {
		next, overflow := p5[len(p5)-1].mul64(5)
		if overflow {
			break
		}
		p5 = append(p5, next)
	}
	var p10 [20]uint64
	p10[0] = 1
	for i := 1; i < len(p10); i++ {
		p10[i] = p10[i-1] * 10
	}
	return p5, p10
}()
