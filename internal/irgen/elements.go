package irgen

import (
	"fmt"
	"math/big"
	"slices"
	"strings"
)

// elemKind is the element family of a dense or sparse elements attribute.
type elemKind int

const (
	eInt elemKind = iota
	eBool
	eIndex
	eFloat
	eComplex
	eString
)

// elemSpec is the element type of an elements attribute with what its
// literals need.
type elemSpec struct {
	kind elemKind
	t    *typ // the element type (for complex: the complex type)
	part *typ // complex: the int or float part type
}

// elementsAttr is a dense, sparse or resource elements attribute.
func (g *gen) elementsAttr() string {
	return g.choose(
		alt{"", 6, g.denseAttr},
		alt{AttrSparse, 1, g.sparseAttr},
		alt{AttrDenseResource, 1, g.denseResourceAttr},
	)
}

func (g *gen) denseElem(vector bool) elemSpec {
	var e elemSpec
	alts := []alt{
		{"", 4, func() string {
			t := g.intType(false)
			for t.width == 1 {
				t = g.intType(false)
			}
			e = elemSpec{kind: eInt, t: t}
			return ""
		}},
		{AttrDenseBool, 1, func() string { e = elemSpec{kind: eBool, t: boolType()}; return "" }},
		{AttrDenseIndex, 1, func() string { e = elemSpec{kind: eIndex, t: newType(kIndex, "index")}; return "" }},
		{AttrDenseFloat, 3, func() string { e = elemSpec{kind: eFloat, t: g.floatType()}; return "" }},
	}
	if !vector {
		alts = append(alts,
			alt{AttrDenseComplex, 1, func() string {
				var part *typ
				if g.chance(0.5) {
					part = g.floatType()
				} else {
					part = g.intType(false)
					for part.width == 1 {
						part = g.intType(false)
					}
				}
				c := newType(kComplex, "complex<"+part.spell+">")
				c.elem = part
				e = elemSpec{kind: eComplex, t: c, part: part}
				return ""
			}},
			alt{AttrDenseString, 1, func() string { e = elemSpec{kind: eString, t: g.opaqueType()}; return "" }},
		)
	}
	g.choose(alts...)
	return e
}

// oddWidth reports integer elements whose width is not a multiple of 8.
func (e elemSpec) oddWidth() bool {
	t := e.t
	if e.kind == eComplex {
		t = e.part
	}
	return t.kind == kInt && t.width%8 != 0 && e.kind != eBool
}

// tf32 reports tf32 or complex<tf32> elements.
func (e elemSpec) tf32() bool {
	t := e.t
	if e.kind == eComplex {
		t = e.part
	}
	return t.kind == kFloat && t.fk.name == "tf32"
}

// elemLiteral spells one element of e.
func (g *gen) elemLiteral(e elemSpec) string {
	switch e.kind {
	case eInt, eIndex:
		return g.intLiteral(e.t)
	case eBool:
		return pick(g, []string{"true", "false"})
	case eFloat:
		return g.floatLiteral(e.t.fk, true, true)
	case eComplex:
		part := func() string {
			if e.part.kind == kFloat {
				return g.floatLiteral(e.part.fk, true, true)
			}
			return g.intLiteral(e.part)
		}
		return "(" + part() + ", " + part() + ")"
	case eString:
		return g.stringLiteral()
	}
	panic("BUG: irgen elemLiteral")
}

func numElements(s []int64) int {
	n := 1
	for _, d := range s {
		n *= int(d)
	}
	return n
}

// denseAttr is dense<...> in every form: splat, nested lists, hex, empty
// and over 100 elements, on tensors and vectors.
func (g *gen) denseAttr() string {
	vector := g.maybe(AttrDenseVector, 0.2)
	e := g.denseElem(vector)
	var s []int64
	if vector {
		s = make([]int64, g.between(1, 2))
		for i := range s {
			s[i] = int64(g.between(1, 4))
		}
	} else {
		s = make([]int64, g.between(0, 3))
		for i := range s {
			s[i] = int64(g.between(0, 4))
		}
	}
	large := g.chance(0.05) && g.on(AttrDenseLarge) &&
		(!e.oddWidth() || g.on(AttrDenseOddWidthHex)) && (!e.tf32() || g.on(AttrDenseTF32Hex))
	if large {
		g.mark(AttrDenseLarge)
		if e.oddWidth() {
			g.mark(AttrDenseOddWidthHex)
		}
		if e.tf32() {
			g.mark(AttrDenseTF32Hex)
		}
		s = []int64{int64(g.between(101, 130))}
		if g.chance(0.5) {
			s = []int64{8, int64(g.between(13, 16))}
		}
	}
	if e.kind == eString && !g.on(AttrDenseStringEmpty) {
		for i := range s {
			s[i] = max(s[i], 1)
		}
	}
	// Nested lists infer no shape below an empty list, so only when the
	// last dimension is the first zero one can they spell no elements;
	// otherwise only dense<> can.
	firstZero := slices.Index(s, 0)
	if firstZero >= 0 && firstZero < len(s)-1 && e.kind == eString {
		if g.on(AttrDenseStringEmptyInner) {
			g.mark(AttrDenseStringEmptyInner)
		} else {
			for i := range s[:len(s)-1] {
				s[i] = max(s[i], 1)
			}
			s[len(s)-1] = 0
			firstZero = len(s) - 1
		}
	}
	container := "tensor<"
	if vector {
		container = "vector<"
	}
	typeText := container + shapePrefix(s) + e.t.spell + ">"
	n := numElements(s)
	if n == 0 && !g.on(AttrDenseEmpty) {
		for i := range s {
			s[i] = max(s[i], 1)
		}
		typeText = container + shapePrefix(s) + e.t.spell + ">"
		n = numElements(s)
	}
	if n == 0 {
		g.mark(AttrDenseEmpty)
		if e.kind == eString {
			g.mark(AttrDenseStringEmpty)
		}
		if firstZero != len(s)-1 || g.chance(0.4) {
			return "dense<> : " + typeText
		}
		return "dense<" + g.nested(e, s, nil) + "> : " + typeText
	}
	body := g.choose(
		alt{AttrDenseSplat, 2, func() string { return g.elemLiteral(e) }},
		alt{AttrDenseNested, 4, func() string {
			if g.chance(0.15) {
				same := g.elemLiteral(e)
				return g.nested(e, s, &same)
			}
			return g.nested(e, s, nil)
		}},
		alt{AttrDenseHex, 2, func() string {
			if e.tf32() && !g.on(AttrDenseTF32Hex) || e.oddWidth() && !g.on(AttrDenseOddWidthHex) {
				return g.nested(e, s, nil)
			}
			if h, ok := g.denseHex(e, n); ok {
				if e.tf32() {
					g.mark(AttrDenseTF32Hex)
				}
				if e.oddWidth() {
					g.mark(AttrDenseOddWidthHex)
				}
				return h
			}
			return g.nested(e, s, nil)
		}},
	)
	return "dense<" + body + "> : " + typeText
}

// nested spells elements as nested lists of shape s; same, when set, is
// every element.
func (g *gen) nested(e elemSpec, s []int64, same *string) string {
	if len(s) == 0 {
		if same != nil {
			return *same
		}
		return g.elemLiteral(e)
	}
	return "[" + list(int(s[0]), func(int) string { return g.nested(e, s[1:], same) }) + "]"
}

// storageBytes is the bytes one element takes in the hex form, rounded
// up to whole bytes (i1 is bit-packed and handled apart).
func storageBytes(t *typ) int {
	switch t.kind {
	case kIndex:
		return 8
	case kComplex:
		return 2 * storageBytes(t.elem)
	}
	if t.kind == kFloat && t.fk.name == "tf32" {
		return 4 // stored as an f32
	}
	return (t.width + 7) / 8
}

// denseHex spells n elements (or a splat) as a little-endian hex string.
func (g *gen) denseHex(e elemSpec, n int) (string, bool) {
	switch e.kind {
	case eString:
		return "", false
	case eFloat:
		if !e.t.fk.hex {
			return "", false
		}
	case eComplex:
		if e.part.kind == kFloat && !e.part.fk.hex {
			return "", false
		}
	}
	if e.kind == eBool {
		if g.chance(0.3) {
			return `"0x` + pick(g, []string{"00", "FF"}) + `"`, true
		}
		bits := make([]byte, (n+7)/8)
		for i := range n {
			if g.chance(0.5) {
				bits[i/8] |= 1 << (i % 8)
			}
		}
		return fmt.Sprintf(`"0x%X"`, bits), true
	}
	count := n
	if g.chance(0.3) {
		count = 1 // a splat
	}
	var b strings.Builder
	b.WriteString(`"0x`)
	for range count {
		b.WriteString(g.elemHex(e))
	}
	b.WriteString(`"`)
	return b.String(), true
}

// elemHex is one element's little-endian bytes in hex: integers from the
// values a literal could hold, in two's complement of their width with
// the bits above it clear (as mlir-opt stores them: other bits would be
// kept as written but print as the same value), floats as random bit
// patterns.
func (g *gen) elemHex(e elemSpec) string {
	switch e.kind {
	case eComplex:
		part := elemSpec{kind: eInt, t: e.part}
		if e.part.kind == kFloat {
			part.kind = eFloat
		}
		return g.elemHex(part) + g.elemHex(part)
	case eFloat:
		return leHex(new(big.Int).SetUint64(g.floatBits(e.t.fk, true)), storageBytes(e.t))
	}
	v := g.intValue(e.t)
	width := e.t.width
	if e.t.kind == kIndex {
		width = 64
	}
	if v.Sign() < 0 {
		v = new(big.Int).Add(v, pow2(width))
	}
	return leHex(v, storageBytes(e.t))
}

// leHex spells v in nb little-endian bytes.
func leHex(v *big.Int, nb int) string {
	be := v.FillBytes(make([]byte, nb))
	var b strings.Builder
	for i := nb - 1; i >= 0; i-- {
		fmt.Fprintf(&b, "%02X", be[i])
	}
	return b.String()
}

// sparseAttr is sparse<indices, values> on a static tensor of ints or
// floats.
func (g *gen) sparseAttr() string {
	var e elemSpec
	if g.chance(0.5) {
		e = elemSpec{kind: eFloat, t: g.floatType()}
	} else {
		t := g.intType(false)
		for t.width == 1 {
			t = g.intType(false)
		}
		e = elemSpec{kind: eInt, t: t}
	}
	s := make([]int64, g.between(1, 2))
	for i := range s {
		s[i] = int64(g.between(1, 5))
	}
	nnz := g.between(0, 3)
	if nnz == 0 && len(s) > 1 {
		// sparse<[], []> infers indices of rank 1.
		return fmt.Sprintf("sparse<> : tensor<%s%s>", shapePrefix(s), e.t.spell)
	}
	// Indices are distinct: mlir-opt 19 prints repeated ones in a form
	// it cannot read back.
	seen := map[string]bool{}
	var idxs []string
	for range nnz {
		ix := "[" + list(len(s), func(i int) string { return fmt.Sprint(g.r.Int64N(s[i])) }) + "]"
		if !seen[ix] {
			seen[ix] = true
			idxs = append(idxs, ix)
		}
	}
	nnz = len(idxs)
	idx := strings.Join(idxs, ", ")
	vals := "[" + list(nnz, func(int) string { return g.elemLiteral(e) }) + "]"
	if nnz > 0 && g.chance(0.3) {
		vals = g.elemLiteral(e)
	}
	return fmt.Sprintf("sparse<[%s], %s> : tensor<%s%s>", idx, vals, shapePrefix(s), e.t.spell)
}

// denseArrayElems are the element types array<T: ...> accepts.
var denseArrayElems = []string{"i1", "i8", "i16", "i32", "i64", "f32", "f64"}

func (g *gen) denseArrayAttr() string {
	var elems []string
	for _, e := range denseArrayElems {
		if g.on(denseArrayFeature(e)) {
			elems = append(elems, e)
		}
	}
	if len(elems) == 0 {
		elems = denseArrayElems[3:4]
	}
	elem := pick(g, elems)
	g.mark(denseArrayFeature(elem))
	n := g.between(1, 4)
	if g.maybe(AttrDenseArrayEmpty, 0.15) {
		return "array<" + elem + ">"
	}
	var lit func() string
	switch elem {
	case "i1":
		lit = func() string { return pick(g, []string{"true", "false"}) }
	case "f32", "f64":
		fk := floatKinds[2]
		if elem == "f64" {
			fk = floatKinds[3]
		}
		nanOK := g.on(AttrDenseArrayNaN)
		lit = func() string {
			l := g.floatLiteral(fk, true, nanOK)
			if nanOK && strings.HasPrefix(l, "0x") && fk.isNaN(hexValue(l)) {
				g.mark(AttrDenseArrayNaN)
			}
			return l
		}
	default:
		t := newType(kInt, elem)
		fmt.Sscanf(elem, "i%d", &t.width)
		t.sign = "s"
		lit = func() string { return g.intValue(t).String() }
	}
	return "array<" + elem + ": " + list(n, func(int) string { return lit() }) + ">"
}

// denseResourceAttr refers to a blob of the file's builtin resource
// section, which the footer writes.
func (g *gen) denseResourceAttr() string {
	var t *typ
	if g.chance(0.3) {
		t = floatKinds[2].asType()
	} else {
		t = g.intTypeOf(pick(g, []int{8, 16, 32, 64}))
	}
	s := []int64{int64(g.between(1, 4))}
	if g.chance(0.3) {
		s = append(s, int64(g.between(1, 3)))
	}
	name := fmt.Sprintf("blob%d", g.next())
	nb := storageBytes(t)
	var data strings.Builder
	fmt.Fprintf(&data, "0x%02X000000", max(nb, 1))
	for range numElements(s) {
		data.WriteString(leHex(new(big.Int).SetUint64(g.r.Uint64()&(1<<(8*nb)-1)), nb))
	}
	g.resources = append(g.resources, fmt.Sprintf("%s: \"%s\"", name, data.String()))
	return fmt.Sprintf("dense_resource<%s> : tensor<%s%s>", name, shapePrefix(s), t.spell)
}

func (fk *floatKind) asType() *typ {
	t := newType(kFloat, fk.name)
	t.fk, t.width = fk, fk.bits
	return t
}

func boolType() *typ {
	t := newType(kInt, "i1")
	t.width = 1
	return t
}

// hexValue is the value of a 0x literal of at most 64 bits.
func hexValue(lit string) uint64 {
	v, _ := new(big.Int).SetString(lit[2:], 16)
	return v.Uint64()
}
