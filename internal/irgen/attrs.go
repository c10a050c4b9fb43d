package irgen

import (
	"fmt"
	"math/big"
	mrand "math/rand"
	"strconv"
	"strings"
)

// attrAlias is an attribute alias defined at the top of the file; kind
// says where else than a plain attribute position it may be used.
type attrAlias struct {
	name string // with #
	kind aliasKind
	dims int // affine maps: number of dims; strided layouts: rank
	// notEncoding: mlir-opt 19 prints an aliased array<T: ...> or
	// strided<...> inline and cannot read it back as a tensor encoding.
	notEncoding bool
}

type aliasKind int

const (
	aliasPlain aliasKind = iota
	aliasAffineMap
	aliasStrided
	aliasMemorySpace
)

// aliasedAttr returns, now and then, an attribute alias that fits ok.
func (g *gen) aliasedAttr(ok func(attrAlias) bool) string {
	if len(g.attrAliases) == 0 || !g.on(AttrAlias) || !g.chance(0.2) {
		return ""
	}
	var fits []string
	for _, a := range g.attrAliases {
		if ok(a) {
			fits = append(fits, a.name)
		}
	}
	if len(fits) == 0 {
		return ""
	}
	g.mark(AttrAlias)
	return pick(g, fits)
}

// attr is any attribute that mlir-opt 19 round-trips; d bounds nesting.
func (g *gen) attr(d int) string {
	if a := g.aliasedAttr(func(attrAlias) bool { return true }); a != "" {
		return a
	}
	nested := func(f func() string) func() string {
		return func() string {
			if d <= 0 {
				return g.integerAttr()
			}
			return f()
		}
	}
	return g.choose(
		alt{AttrInteger, 6, g.integerAttr},
		alt{AttrFloat, 5, g.floatAttr},
		alt{AttrString, 4, g.stringAttr},
		alt{AttrBool, 1, func() string { return pick(g, []string{"true", "false"}) }},
		alt{AttrUnit, 1, func() string { return "unit" }},
		alt{AttrArray, 3, nested(func() string { return g.arrayAttr(d - 1) })},
		alt{AttrDictionary, 2, nested(func() string { return g.dictAttr(d-1, false) })},
		alt{"", 4, g.elementsAttr},
		alt{AttrDenseArray, 2, g.denseArrayAttr},
		alt{AttrType, 3, func() string { return g.anyType(2).spell }},
		alt{AttrSymbolRef, 2, g.symbolRefAttr},
		alt{AttrAffineMap, 2, func() string { return g.affineMapAttr(g.between(0, 3)) }},
		alt{AttrIntegerSet, 1, g.integerSetAttr},
		alt{AttrStrided, 1, func() string { return g.stridedAttr(g.between(0, 3)) }},
		alt{"", 2, g.opaqueAttr},
		alt{AttrDistinct, 1, nested(func() string { return g.distinctAttr(d - 1) })},
	)
}

// scalarAttr is an attribute that no printer gives an alias.
func (g *gen) scalarAttr() string {
	return g.choose(
		alt{AttrString, 3, g.plainString},
		alt{AttrInteger, 2, g.integerAttr},
		alt{AttrFloat, 1, g.floatAttr},
		alt{AttrUnit, 1, func() string { return "unit" }},
		alt{AttrSymbolRef, 1, g.symbolRefAttr},
	)
}

// integerAttr is an integer attribute of a random integer type, written
// with or without its type.
func (g *gen) integerAttr() string {
	return g.choose(
		alt{"", 4, func() string {
			t := g.attrIntType()
			lit := g.intLiteral(t)
			if lit == "true" || lit == "false" {
				return lit // i1, typed by the keyword
			}
			return lit + " : " + t.spell
		}},
		alt{AttrIntegerDefault, 1, func() string { return g.intLiteral(g.intTypeOf(64)) }},
		alt{AttrIndex, 1, func() string { return g.intLiteral(newType(kIndex, "index")) + " : index" }},
		alt{AttrIntegerOdd, 1, func() string { return "0 : i0" }},
		alt{AttrIntegerWrap, 1, func() string {
			w := pick(g, []int{8, 16, 32})
			return fmt.Sprintf("%d : i%d", uint64(1)<<w-uint64(g.between(1, 3)), w)
		}},
	)
}

// attrIntType is the type of an integer attribute: one whose width and
// signedness the attribute features allow.
func (g *gen) attrIntType() *typ {
	for {
		t := g.intType(false)
		wide := t.width > 64
		odd := t.width != 1 && t.width%8 != 0 || wide
		if wide && !g.on(AttrIntegerWide) || odd && !g.on(AttrIntegerOdd) ||
			t.sign == "s" && !g.on(AttrIntegerSigned) || t.sign == "u" && !g.on(AttrIntegerUnsigned) {
			continue
		}
		for _, f := range []struct {
			f  Feature
			is bool
		}{{AttrIntegerWide, wide}, {AttrIntegerOdd, odd}, {AttrIntegerSigned, t.sign == "s"}, {AttrIntegerUnsigned, t.sign == "u"}} {
			if f.is {
				g.mark(f.f)
			}
		}
		return t
	}
}

// intRange is the range MLIR accepts for a literal of type t.
func intRange(t *typ) (lo, hi *big.Int) {
	w := t.width
	if t.kind == kIndex {
		w = 64
		return new(big.Int).Neg(pow2(w - 1)), new(big.Int).Sub(pow2(w-1), big.NewInt(1))
	}
	switch t.sign {
	case "s":
		return new(big.Int).Neg(pow2(w - 1)), new(big.Int).Sub(pow2(w-1), big.NewInt(1))
	case "u":
		return big.NewInt(0), new(big.Int).Sub(pow2(w), big.NewInt(1))
	}
	if w == 0 {
		return big.NewInt(0), big.NewInt(0)
	}
	return new(big.Int).Neg(pow2(w - 1)), new(big.Int).Sub(pow2(w), big.NewInt(1))
}

func pow2(n int) *big.Int { return new(big.Int).Lsh(big.NewInt(1), uint(n)) }

// intValue is a value that a literal of type t may hold: often an edge.
func (g *gen) intValue(t *typ) *big.Int {
	lo, hi := intRange(t)
	if t.kind == kInt && t.width == 1 && t.sign == "" {
		// i1 literals are 0, 1 or -1 (true); 1 is true too.
		return big.NewInt(int64(g.between(-1, 1)))
	}
	switch g.r.IntN(6) {
	case 0:
		return lo
	case 1:
		return hi
	case 2:
		v := big.NewInt(int64(g.between(-2, 2)))
		if v.Cmp(lo) < 0 || v.Cmp(hi) > 0 {
			return big.NewInt(0)
		}
		return v
	default:
		span := new(big.Int).Sub(hi, lo)
		span.Add(span, big.NewInt(1))
		r := new(big.Int).Rand(mrand.New(randSource{g}), span)
		return r.Add(r, lo)
	}
}

// intLiteral spells a value of type t, sometimes in hex.
func (g *gen) intLiteral(t *typ) string {
	v := g.intValue(t)
	if t.kind == kInt && t.width == 1 && t.sign == "" && g.maybe(AttrBool, 0.5) {
		if v.Sign() == 0 {
			return "false"
		}
		return "true"
	}
	if g.maybe(AttrIntegerHex, 0.15) {
		if v.Sign() < 0 {
			return "-0x" + strings.ToUpper(new(big.Int).Neg(v).Text(16))
		}
		return "0x" + v.Text(16)
	}
	return v.String()
}

// randSource adapts the generator's PCG to math/big's Rand.
type randSource struct{ g *gen }

func (s randSource) Int63() int64 { return int64(s.g.r.Uint64() >> 1) }
func (s randSource) Seed(int64)   {}

// floatAttr is a float attribute of a random float type, or an untyped
// f64 literal.
func (g *gen) floatAttr() string {
	if g.maybe(AttrFloatDefault, 0.1) {
		return g.decimalFloat(floatKinds[3])
	}
	t := g.floatType()
	return g.floatLiteral(t.fk, true, true) + " : " + t.spell
}

// floatLiteral spells a value of kind fk: a decimal, or (hexOK) a bit
// pattern, including infinities and (nanOK) NaNs.
func (g *gen) floatLiteral(fk *floatKind, hexOK, nanOK bool) string {
	hexOK = hexOK && fk.hex
	return g.choose(
		alt{"", 8, func() string { return g.decimalFloat(fk) }},
		alt{AttrFloatHex, 2, func() string {
			if !hexOK {
				return g.decimalFloat(fk)
			}
			return hexBits(g.floatBits(fk, nanOK), fk.bits)
		}},
		alt{AttrFloatInf, 1, func() string {
			if !hexOK || fk.infBits == 0 {
				return g.decimalFloat(fk)
			}
			if g.chance(0.5) {
				return hexBits(fk.infBits|1<<(fk.bits-1), fk.bits) // -inf
			}
			return hexBits(fk.infBits, fk.bits)
		}},
		alt{AttrFloatNaN, 1, func() string {
			if !hexOK || !nanOK {
				return g.decimalFloat(fk)
			}
			return hexBits(fk.nanBits, fk.bits)
		}},
		alt{AttrFloatOverflow, 1, func() string {
			if fk.overflow == "" {
				return g.decimalFloat(fk)
			}
			return pick(g, []string{"", "-"}) + fk.overflow
		}},
		alt{AttrFloatNegZero, 1, func() string { return "-0.0" }},
	)
}

// floatBits is a random bit pattern of fk (which must have hex). NaNs
// other than the default one are behind AttrFloatNaNPayloadNarrow in
// types narrower than f32; no NaN at all comes out unless nanOK.
func (g *gen) floatBits(fk *floatKind, nanOK bool) uint64 {
	for {
		v := g.r.Uint64() & (1<<fk.bits - 1)
		switch {
		case !fk.isNaN(v):
			return v
		case !nanOK || !g.on(AttrFloatNaN):
			continue
		case fk.bits >= 32 || v == fk.nanBits:
			g.mark(AttrFloatNaN)
			return v
		case g.on(AttrFloatNaNPayloadNarrow):
			g.mark(AttrFloatNaNPayloadNarrow)
			return v
		}
	}
}

func hexBits(v uint64, bits int) string {
	digits := (bits + 3) / 4
	return fmt.Sprintf("0x%0*X", digits, v)
}

// decimalFloat is a decimal literal within the range of fk: a few digits
// with a '.', sometimes an exponent, sometimes many digits.
func (g *gen) decimalFloat(fk *floatKind) string {
	g.mark(AttrFloatDecimal)
	if fk.bits > 64 {
		if !g.maybe(AttrFloatWideInexact, 0.05) {
			// A binary fraction of a few digits: printed alike by all.
			v := float64(g.between(1, 9999)) / float64(int(1)<<g.between(0, 3))
			s := strconv.FormatFloat(v, 'f', -1, 64)
			if !strings.Contains(s, ".") {
				s += ".0"
			}
			return pick(g, []string{"", "-"}) + s
		}
	}
	sign := pick(g, []string{"", "", "-"})
	digits := g.between(1, 4)
	if g.maybe(AttrFloatLongDigits, 0.1) {
		digits = g.between(12, 25)
	}
	var mant strings.Builder
	mant.WriteByte(byte('1' + g.r.IntN(9)))
	for range digits - 1 {
		mant.WriteByte(byte('0' + g.r.IntN(10)))
	}
	m := mant.String()
	if g.maybe(AttrFloatExponent, 0.3) {
		exp := g.between(-8, fk.maxExp10)
		frac := m[1:]
		e := pick(g, []string{"e", "E"})
		sgn := ""
		if exp >= 0 {
			sgn = pick(g, []string{"", "+"})
		}
		return fmt.Sprintf("%s%s.%s%s%s%d", sign, m[:1], frac, e, sgn, exp)
	}
	// Fixed point: the point somewhere inside the digits, keeping the
	// integer part below 10^maxExp10.
	intDigits := g.between(0, min(len(m), fk.maxExp10+1))
	ip := m[:intDigits]
	if ip == "" {
		ip = "0"
	}
	return sign + ip + "." + m[intDigits:]
}

func (g *gen) stringAttr() string {
	s := g.stringLiteral()
	if g.maybe(AttrStringTyped, 0.15) {
		t := g.simpleType()
		if g.on(AttrStringTypedNone) && g.chance(0.15) {
			t = newType(kNone, "none")
		}
		for t.kind == kNone && !g.on(AttrStringTypedNone) {
			t = g.simpleType()
		}
		if t.kind == kNone {
			g.mark(AttrStringTypedNone)
		}
		s += " : " + t.spell
	}
	return s
}

func (g *gen) arrayAttr(d int) string {
	n := g.between(0, 4)
	return "[" + list(n, func(int) string { return g.attr(d) }) + "]"
}

// dictAttr is a dictionary with unique keys; dialectKeys prefixes every
// key with a dialect, as builtin.module requires of its attributes.
func (g *gen) dictAttr(d int, dialectKeys bool) string {
	return "{" + g.dictEntries(d, g.between(0, 4), dialectKeys) + "}"
}

// dictEntries are n unique `key = value` entries in random order; a unit
// value is sometimes written as the bare key.
func (g *gen) dictEntries(d, n int, dialectKeys bool) string {
	return strings.Join(g.dictEntryList(d, n, dialectKeys), ", ")
}

func (g *gen) dictEntryList(d, n int, dialectKeys bool) []string {
	seen := map[string]bool{}
	var parts []string
	for range n {
		var k string
		if dialectKeys {
			k = pick(g, dialectNames) + "." + g.word() + pick(g, []string{"", "_2", ".z"})
		} else {
			k = g.attrName()
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		if g.maybe(UnitShorthand, 0.1) {
			parts = append(parts, k)
			continue
		}
		parts = append(parts, k+" = "+g.attr(d))
	}
	return parts
}

func (g *gen) symbolRefAttr() string {
	s := "@" + g.symbolName(true)
	if g.maybe(AttrSymbolNested, 0.3) {
		for range g.between(1, 2) {
			s += "::@" + g.symbolName(true)
		}
	}
	return s
}

func (g *gen) opaqueAttr() string {
	dialect := pick(g, dialectNames)
	return g.choose(
		alt{AttrOpaque, 3, func() string { return "#" + dialect + "." + g.word() + "<" + g.opaqueBody() + ">" }},
		alt{AttrOpaqueBare, 1, func() string { return "#" + dialect + "." + g.word() }},
		alt{AttrOpaqueDialect, 1, func() string { return "#" + dialect + "<" + g.opaqueBody() + ">" }},
	)
}

// distinctAttr wraps a fresh id around an attribute other than unit,
// which mlir-opt 19 does not round-trip.
func (g *gen) distinctAttr(d int) string {
	inner := g.attr(d)
	if inner == "unit" {
		inner = "[]"
	}
	g.distinctIDs++
	return fmt.Sprintf("distinct[%d]<%s>", g.distinctIDs-1, inner)
}

// encodingAttr is a tensor encoding: any small attribute.
func (g *gen) encodingAttr() string {
	if a := g.aliasedAttr(func(a attrAlias) bool { return a.kind == aliasPlain && !a.notEncoding }); a != "" {
		return a
	}
	return g.choose(
		alt{AttrString, 2, g.stringAttr},
		alt{AttrInteger, 1, g.integerAttr},
		alt{AttrDictionary, 1, func() string { return g.dictAttr(0, false) }},
		alt{"", 2, g.opaqueAttr},
		alt{AttrAffineMap, 1, func() string { return g.affineMapAttr(g.between(0, 2)) }},
		alt{AttrArray, 1, func() string { return g.arrayAttr(0) }},
	)
}

// memorySpace is a memref memory space: an integer or a string.
func (g *gen) memorySpace() string {
	if a := g.aliasedAttr(func(a attrAlias) bool { return a.kind == aliasMemorySpace }); a != "" {
		return a
	}
	return g.choose(
		alt{"", 3, func() string { return fmt.Sprintf("%d", g.between(1, 7)) }},
		alt{AttrInteger, 1, func() string {
			return fmt.Sprintf("%d : %s", g.between(0, 7), pick(g, []string{"i32", "i64", "i8", "ui16"}))
		}},
		alt{AttrString, 2, g.plainString},
	)
}
