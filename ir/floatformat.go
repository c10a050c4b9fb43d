package ir

import (
	"math"
	"math/big"
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
	sig := new(big.Int).SetUint64(mant)
	exp10 := 0
	if exp > 0 {
		sig.Lsh(sig, uint(exp))
	} else if exp < 0 {
		sig.Mul(sig, new(big.Int).Exp(big.NewInt(5), big.NewInt(int64(-exp)), nil))
		exp10 = exp
	}

	// APFloat first drops whole decimal digits it is sure are beyond the
	// precision (truncating), then rounds the digit string half up.
	bitsRequired := (precision*196 + 58) / 59
	if bits := sig.BitLen(); bits > bitsRequired {
		if tens := (bits - bitsRequired) * 59 / 196; tens > 0 {
			exp10 += tens
			sig.Quo(sig, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(tens)), nil))
		}
	}
	digits := []byte(sig.String())
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
