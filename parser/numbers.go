package parser

import (
	"math"
	"math/big"
	"strconv"

	"github.com/ipuir/ipuir/ir"
)

// Integer and float literals follow MLIR's rules: an integer literal is
// decimal or `0x` hex and is checked against its type's width (signless
// types accept the unsigned range too: `255 : i8` is -1); a float literal
// needs a '.'; a hex integer written for a float type is its bit pattern.

// parseUint parses digits in base 10 or 16 into a uint64.
func parseUint(digits []byte, base uint64) (uint64, bool) {
	if len(digits) == 0 {
		return 0, false
	}
	var v uint64
	for _, c := range digits {
		var d uint64
		switch {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case base == 16 && c >= 'a' && c <= 'f':
			d = uint64(c-'a') + 10
		case base == 16 && c >= 'A' && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return 0, false
		}
		if v > (math.MaxUint64-d)/base {
			return 0, false
		}
		v = v*base + d
	}
	return v, true
}

// isHexLiteral reports whether an integer token is written `0x...`.
func isHexLiteral(text []byte) bool { return len(text) > 1 && text[1] == 'x' }

// literalWiderThan reports whether an integer token's value certainly
// needs more than width bits, from its digits alone: a decimal literal of
// n significant digits is at least 10^(n−1), more than 3.32·(n−1) bits; a
// hex one of n significant digits more than 4·(n−1). It lets a literal too
// wide for its type be refused before it is converted, which for decimal
// takes time quadratic in its length (4 MB of digits took 23 s).
func literalWiderThan(text []byte, width int) bool {
	digits, bitsPerDigit := text, 3.3219280948873623
	if isHexLiteral(text) {
		digits, bitsPerDigit = text[2:], 4
	}
	for len(digits) > 1 && digits[0] == '0' {
		digits = digits[1:]
	}
	return float64(len(digits)-1)*bitsPerDigit > float64(width)
}

// maxLiteralBits bounds the integer literals converted where no type
// bounds them (an op's integer operand of a custom form, an untyped
// attribute): the widest integer type MLIR has, i16777215.
const maxLiteralBits = 1<<24 - 1

// intLiteralValue is the unsigned value of an integer token, of any size
// up to maxLiteralBits (nil beyond: refused before it is converted).
func intLiteralValue(text []byte) *big.Int {
	if literalWiderThan(text, maxLiteralBits) {
		return nil
	}
	if isHexLiteral(text) {
		if v, ok := parseUint(text[2:], 16); ok {
			return new(big.Int).SetUint64(v)
		}
		v, _ := new(big.Int).SetString(string(text[2:]), 16)
		return v
	}
	if v, ok := parseUint(text, 10); ok {
		return new(big.Int).SetUint64(v)
	}
	v, _ := new(big.Int).SetString(string(text), 10)
	return v
}

// uint64Token is the value of an integer token when it fits in 64 bits.
func uint64Token(text []byte) (uint64, bool) {
	if isHexLiteral(text) {
		return parseUint(text[2:], 16)
	}
	return parseUint(text, 10)
}

// intWidth is the storage width of an integer or index type.
func intWidth(t ir.Type) (width int, signed, unsigned bool) {
	switch t := t.(type) {
	case *ir.IndexType:
		return 64, true, false
	case *ir.IntegerType:
		return t.Width, t.Signedness == ir.Signed, t.Signedness == ir.Unsigned
	}
	return 0, false, false
}

// buildInt checks an integer literal against type t and returns its value
// (negated when negative), as MLIR's buildAttributeAPInt does; ok is false
// when the literal does not fit.
func buildInt(t ir.Type, negative bool, text []byte) (*big.Int, bool) {
	width, signed, _ := intWidth(t)
	// Fast path: small decimal or hex values.
	if u, fits := uint64Token(text); fits && width >= 1 && width <= 64 {
		return buildSmallInt(u, width, signed, negative)
	}
	if width > 0 && literalWiderThan(text, width) {
		return nil, false
	}
	v := intLiteralValue(text)
	if v == nil {
		return nil, false
	}
	if v.BitLen() > width {
		return nil, false
	}
	if width == 0 {
		return v, !negative
	}
	if negative {
		// The negation must have its sign bit set in `width` bits: values in
		// [1, 2^(width-1)]. (Like MLIR, `-0` is rejected.)
		limit := new(big.Int).Lsh(big.NewInt(1), uint(width-1))
		if v.Sign() == 0 || v.Cmp(limit) > 0 {
			return nil, false
		}
		return v.Neg(v), true
	}
	if signed && v.BitLen() == width {
		return nil, false
	}
	return v, true
}

func buildSmallInt(u uint64, width int, signed, negative bool) (*big.Int, bool) {
	bits, ok := smallInt(u, width, signed, negative)
	if !ok {
		return nil, false
	}
	if negative {
		return big.NewInt(int64(bits)), true
	}
	return new(big.Int).SetUint64(bits), true
}

// smallInt checks a literal of magnitude u (negated when negative)
// against an integer type of width 1 to 64, as buildInt does, and returns
// its value's two's-complement bits.
func smallInt(u uint64, width int, signed, negative bool) (uint64, bool) {
	if width < 64 && u>>uint(width) != 0 {
		return 0, false
	}
	top := uint64(1) << uint(width-1)
	if negative {
		if u == 0 || u > top {
			return 0, false
		}
		return -u, true
	}
	if signed && u&top != 0 {
		return 0, false
	}
	return u, true
}

// floatLiteral is the value of a float token, rounded to a double first as
// MLIR does; overflow gives an infinity.
func floatLiteral(text []byte) float64 {
	v, err := strconv.ParseFloat(string(text), 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return v // ±Inf or 0
		}
	}
	return v
}

// hexFloatBits decodes a hex integer literal as the bit pattern of a float
// type; ok is false when it has more bits than the type.
func hexFloatBits(text []byte, k ir.FloatKind) (float64, bool) {
	if literalWiderThan(text, k.Width()) {
		return 0, false
	}
	v := intLiteralValue(text)
	if v == nil || v.BitLen() > k.Width() {
		return 0, false
	}
	if k == ir.F80 || k == ir.F128 {
		return ir.FloatFromBitsBig(v, k), true
	}
	return ir.FloatFromBits(v.Uint64(), k), true
}
