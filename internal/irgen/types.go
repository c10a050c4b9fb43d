package irgen

import (
	"fmt"
	"strings"
)

// kind is the builtin type family of a typ.
type kind int

const (
	kInt kind = iota
	kIndex
	kFloat
	kComplex
	kTuple
	kNone
	kFunction
	kTensor
	kUnrankedTensor
	kMemRef
	kUnrankedMemRef
	kVector
	kOpaque
)

// typ is a generated type: its spelling at a use (an alias name or the
// text) and the structure that later choices depend on.
type typ struct {
	spell string // as written at a use
	text  string // the full text, aliases expanded one level; equal texts mean equal types
	kind  kind
	width int    // integers: bits
	sign  string // integers: "", "s" or "u"
	fk    *floatKind
	elem  *typ    // complex, tensor, vector and memref elements
	shape []int64 // tensor, vector, memref; dynamic is -1
}

func newType(k kind, text string) *typ { return &typ{spell: text, text: text, kind: k} }

// floatKind describes a float type of MLIR 19.
type floatKind struct {
	name string
	bits int
	// hex: arbitrary bit patterns round-trip through mlir-opt 19 (not so
	// for f80 and f128).
	hex bool
	// maxExp10 is the largest e with 10^(e+1) at most the largest finite
	// value, so decimal literals below 10^(maxExp10+1) stay finite.
	maxExp10 int
	// infBits and nanBits are bit patterns of +inf (0 when the type has no
	// infinity) and of a quiet NaN.
	infBits, nanBits uint64
	// overflow is a decimal literal that rounds to +inf ("" when the type
	// has no infinity or mlir-opt would not round it so).
	overflow string
	// mant is the number of mantissa bits; nans says which bit patterns
	// are NaNs.
	mant int
	nans nanEncoding
}

// nanEncoding is how a float type spells NaN.
type nanEncoding int

const (
	nanIEEE nanEncoding = iota // exponent all ones, mantissa not zero
	nanFN                      // only S.1111.111 (no infinities)
	nanFNUZ                    // only 0x80, the negative zero pattern
)

var floatKinds = []*floatKind{
	{"f16", 16, true, 3, 0x7C00, 0x7E00, "1.0e+05", 10, nanIEEE},
	{"bf16", 16, true, 37, 0x7F80, 0x7FC0, "1.0e+39", 7, nanIEEE},
	{"f32", 32, true, 37, 0x7F800000, 0x7FC00000, "1.0e+39", 23, nanIEEE},
	{"f64", 64, true, 307, 0x7FF0000000000000, 0x7FF8000000000000, "", 52, nanIEEE},
	{"f80", 80, false, 307, 0, 0, "", 63, nanIEEE},
	{"f128", 128, false, 307, 0, 0, "", 112, nanIEEE},
	{"tf32", 19, true, 37, 0x3FC00, 0x3FE00, "1.0e+39", 10, nanIEEE},
	{"f8E5M2", 8, true, 3, 0x7C, 0x7E, "1.0e+06", 2, nanIEEE},
	{"f8E4M3", 8, true, 1, 0x78, 0x7C, "1.0e+04", 3, nanIEEE},
	{"f8E4M3FN", 8, true, 1, 0, 0x7F, "", 3, nanFN},
	{"f8E5M2FNUZ", 8, true, 3, 0, 0x80, "", 2, nanFNUZ},
	{"f8E4M3FNUZ", 8, true, 1, 0, 0x80, "", 3, nanFNUZ},
	{"f8E4M3B11FNUZ", 8, true, 0, 0, 0x80, "", 3, nanFNUZ},
}

// isNaN reports whether bits encode a NaN of fk (bits < 64 wide).
func (fk *floatKind) isNaN(bits uint64) bool {
	switch fk.nans {
	case nanFN:
		return bits&0x7F == 0x7F
	case nanFNUZ:
		return bits == 0x80
	}
	exp := bits >> fk.mant & (1<<(fk.bits-1-fk.mant) - 1)
	return exp == 1<<(fk.bits-1-fk.mant)-1 && bits&(1<<fk.mant-1) != 0
}

// typePred restricts where a type may go.
type typePred func(*typ) bool

func isTensorElem(t *typ) bool {
	switch t.kind {
	case kInt, kIndex, kFloat, kComplex, kVector, kOpaque:
		return true
	}
	return false
}

func isMemRefElem(t *typ) bool {
	switch t.kind {
	case kInt, kIndex, kFloat, kComplex, kVector, kMemRef, kUnrankedMemRef:
		return true
	}
	return false
}

func isVectorElem(t *typ) bool { return t.kind == kInt || t.kind == kIndex || t.kind == kFloat }

func isComplexElem(t *typ) bool { return t.kind == kInt || t.kind == kFloat }

// aliasedType returns, now and then, a type alias that fits pred.
func (g *gen) aliasedType(pred typePred) *typ {
	if len(g.typeAliases) == 0 || !g.on(TypeAlias) || !g.chance(0.25) {
		return nil
	}
	var fits []*typ
	for _, t := range g.typeAliases {
		if pred == nil || pred(t) {
			fits = append(fits, t)
		}
	}
	if len(fits) == 0 {
		return nil
	}
	g.mark(TypeAlias)
	return pick(g, fits)
}

// anyType is a type for an SSA value or a type attribute; d bounds nesting.
func (g *gen) anyType(d int) *typ {
	if t := g.aliasedType(nil); t != nil {
		return t
	}
	var t *typ
	g.choose(
		alt{"", 6, func() string { t = g.intType(true); return "" }},
		alt{"", 4, func() string { t = g.floatType(); return "" }},
		alt{TypeIndex, 2, func() string { t = newType(kIndex, "index"); return "" }},
		alt{TypeComplex, 1, func() string { t = g.complexType(); return "" }},
		alt{TypeNone, 1, func() string { t = newType(kNone, "none"); return "" }},
		alt{TypeTuple, 1, func() string { t = g.tupleType(d); return "" }},
		alt{TypeFunction, 1, func() string { t = g.functionType(d); return "" }},
		alt{TypeTensor, 3, func() string { t = g.tensorType(d); return "" }},
		alt{TypeMemRef, 2, func() string { t = g.memrefType(d); return "" }},
		alt{TypeVector, 2, func() string { t = g.vectorType(); return "" }},
		alt{"", 2, func() string { t = g.opaqueType(); return "" }},
	)
	return t
}

// simpleType is a type with no nesting, for places that need many types.
func (g *gen) simpleType() *typ {
	if t := g.aliasedType(nil); t != nil {
		return t
	}
	var t *typ
	g.choose(
		alt{"", 3, func() string { t = g.intType(true); return "" }},
		alt{"", 2, func() string { t = g.floatType(); return "" }},
		alt{TypeIndex, 1, func() string { t = newType(kIndex, "index"); return "" }},
	)
	return t
}

var (
	commonWidths = []int{1, 8, 16, 32, 64}
	oddWidths    = []int{2, 3, 5, 7, 17, 33, 65, 128, 1000}
)

// intType is an integer type. valueType allows i0 and the widest,
// i16777215, which only SSA values and type attributes use.
func (g *gen) intType(valueType bool) *typ {
	width := pick(g, commonWidths)
	if g.maybe(TypeOddWidth, 0.3) {
		width = pick(g, oddWidths)
		if valueType && g.chance(0.15) {
			width = pick(g, []int{0, 16777215})
		}
	}
	return g.intTypeOf(width)
}

// intTypeOf is an integer type of the given width, of random signedness.
func (g *gen) intTypeOf(width int) *typ {
	sign := g.choose(
		alt{TypeSignless, 6, func() string { return "" }},
		alt{TypeSigned, 1, func() string { return "s" }},
		alt{TypeUnsigned, 1, func() string { return "u" }},
	)
	if sign != "" && width == 0 {
		sign = ""
	}
	t := newType(kInt, fmt.Sprintf("%si%d", sign, width))
	t.width, t.sign = width, sign
	return t
}

func (g *gen) floatType() *typ {
	var kinds []*floatKind
	for _, fk := range floatKinds {
		if g.on(floatFeature(fk.name)) {
			kinds = append(kinds, fk)
		}
	}
	if len(kinds) == 0 {
		kinds = floatKinds[2:3] // f32
	}
	fk := pick(g, kinds)
	g.mark(floatFeature(fk.name))
	return fk.asType()
}

func (g *gen) complexType() *typ {
	var elem *typ
	if t := g.aliasedType(isComplexElem); t != nil {
		elem = t
	} else if g.chance(0.6) {
		elem = g.floatType()
	} else {
		elem = g.intType(false)
	}
	t := newType(kComplex, "complex<"+elem.spell+">")
	t.elem = elem
	return t
}

func (g *gen) tupleType(d int) *typ {
	n := g.between(0, 3)
	if d <= 0 {
		n = 0
	}
	return newType(kTuple, "tuple<"+list(n, func(int) string { return g.anyType(d - 1).spell })+">")
}

func (g *gen) functionType(d int) *typ {
	ins := g.between(0, 2)
	outs := g.between(0, 2)
	if d <= 0 {
		ins, outs = 0, 0
	}
	var in, out []*typ
	for range ins {
		in = append(in, g.anyType(d-1))
	}
	for range outs {
		out = append(out, g.anyType(d-1))
	}
	return newType(kFunction, functionText(in, out, len(out) == 1 && g.maybe(ParenthesisedResult, 0.2)))
}

// functionText spells (ins) -> outs; a single result that is itself a
// function type needs parentheses, and any other single result may have
// them (paren).
func functionText(ins, outs []*typ, paren bool) string {
	return "(" + spells(ins) + ") -> " + resultText(outs, paren)
}

func resultText(outs []*typ, paren bool) string {
	if len(outs) == 1 && !paren && outs[0].kind != kFunction {
		return outs[0].spell
	}
	return "(" + spells(outs) + ")"
}

func spells(ts []*typ) string {
	return list(len(ts), func(i int) string { return ts[i].spell })
}

// shape returns rank dimensions; dynamic ones (-1) only when dynOK.
func (g *gen) shape(rank int, dynOK bool) []int64 {
	s := make([]int64, rank)
	for i := range s {
		if dynOK && g.chance(0.25) {
			s[i] = -1
		} else {
			s[i] = int64(g.between(0, 6))
		}
	}
	return s
}

func shapePrefix(s []int64) string {
	var b strings.Builder
	for _, d := range s {
		if d < 0 {
			b.WriteString("?x")
		} else {
			fmt.Fprintf(&b, "%dx", d)
		}
	}
	return b.String()
}

func (g *gen) tensorElemType(d int) *typ {
	if t := g.aliasedType(isTensorElem); t != nil {
		return t
	}
	var t *typ
	g.choose(
		alt{"", 5, func() string { t = g.intType(true); return "" }},
		alt{"", 4, func() string { t = g.floatType(); return "" }},
		alt{TypeIndex, 1, func() string { t = newType(kIndex, "index"); return "" }},
		alt{TypeComplex, 1, func() string { t = g.complexType(); return "" }},
		alt{TypeVector, 1, func() string { t = g.vectorType(); return "" }},
		alt{"", 1, func() string { t = g.opaqueType(); return "" }},
	)
	return t
}

func (g *gen) tensorType(d int) *typ {
	elem := g.tensorElemType(d - 1)
	if g.maybe(TypeTensorUnranked, 0.15) {
		t := newType(kUnrankedTensor, "tensor<*x"+elem.spell+">")
		t.elem = elem
		return t
	}
	rank := g.between(0, 3)
	if rank == 0 && !g.on(TypeTensor0D) {
		rank = 1
	}
	if rank == 0 {
		g.mark(TypeTensor0D)
	}
	s := g.shape(rank, g.on(TypeTensorDynamic))
	for _, x := range s {
		if x < 0 {
			g.mark(TypeTensorDynamic)
			break
		}
	}
	text := "tensor<" + shapePrefix(s) + elem.spell
	if d > 0 && g.maybe(TypeTensorEncoding, 0.2) {
		text += ", " + g.encodingAttr()
	}
	t := newType(kTensor, text+">")
	t.elem, t.shape = elem, s
	return t
}

func (g *gen) memrefElemType(d int) *typ {
	if t := g.aliasedType(isMemRefElem); t != nil {
		return t
	}
	var t *typ
	g.choose(
		alt{"", 5, func() string { t = g.intType(true); return "" }},
		alt{"", 4, func() string { t = g.floatType(); return "" }},
		alt{TypeIndex, 1, func() string { t = newType(kIndex, "index"); return "" }},
		alt{TypeComplex, 1, func() string { t = g.complexType(); return "" }},
		alt{TypeVector, 1, func() string { t = g.vectorType(); return "" }},
		alt{TypeMemRef, 1, func() string {
			if d <= 0 {
				t = g.intType(false)
			} else {
				t = g.memrefType(d - 1)
			}
			return ""
		}},
	)
	return t
}

func (g *gen) memrefType(d int) *typ {
	elem := g.memrefElemType(d - 1)
	if g.maybe(TypeMemRefUnranked, 0.15) {
		text := "memref<*x" + elem.spell
		if g.maybe(TypeMemRefSpace, 0.4) {
			text += ", " + g.memorySpace()
		}
		t := newType(kUnrankedMemRef, text+">")
		t.elem = elem
		return t
	}
	rank := g.between(0, 3)
	s := g.shape(rank, true)
	text := "memref<" + shapePrefix(s) + elem.spell
	if rank > 0 {
		text += g.choose(
			alt{"", 4, func() string { return "" }},
			alt{TypeMemRefAffine, 2, func() string { return ", " + g.layoutMap(rank) }},
			alt{TypeMemRefStrided, 2, func() string { return ", " + g.layoutStrided(rank) }},
		)
	}
	if g.maybe(TypeMemRefSpace, 0.25) {
		text += ", " + g.memorySpace()
	}
	t := newType(kMemRef, text+">")
	t.elem, t.shape = elem, s
	return t
}

func (g *gen) vectorElemType() *typ {
	if t := g.aliasedType(isVectorElem); t != nil {
		return t
	}
	var t *typ
	g.choose(
		alt{"", 5, func() string { t = g.intType(false); return "" }},
		alt{"", 4, func() string { t = g.floatType(); return "" }},
		alt{TypeIndex, 1, func() string { t = newType(kIndex, "index"); return "" }},
	)
	return t
}

func (g *gen) vectorType() *typ {
	elem := g.vectorElemType()
	rank := g.between(1, 3)
	if g.maybe(TypeVector0D, 0.1) {
		rank = 0
	}
	s := make([]int64, rank)
	var b strings.Builder
	for i := range s {
		s[i] = int64(g.between(1, 6))
		if g.maybe(TypeVectorScalable, 0.15) {
			fmt.Fprintf(&b, "[%d]x", s[i])
		} else {
			fmt.Fprintf(&b, "%dx", s[i])
		}
	}
	t := newType(kVector, "vector<"+b.String()+elem.spell+">")
	t.elem, t.shape = elem, s
	return t
}

// dialectNames are namespaces that mlir-opt 19 does not register, so
// their types, attributes and ops stay opaque in both tools.
var dialectNames = []string{"t", "u2", "x_y", "irgen"}

func (g *gen) opaqueType() *typ {
	dialect := pick(g, dialectNames)
	text := g.choose(
		alt{TypeOpaque, 3, func() string { return "!" + dialect + "." + g.word() + "<" + g.opaqueBody() + ">" }},
		alt{TypeOpaqueBare, 2, func() string { return "!" + dialect + "." + g.word() }},
		alt{TypeOpaqueDialect, 1, func() string { return "!" + dialect + "<" + g.opaqueBody() + ">" }},
	)
	return newType(kOpaque, text)
}
