package parser

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/ipuir/ipuir/ir"
)

// Elements attributes: dense<...>, sparse<...> and dense_resource<...>.
// The literal is read first as tokens (MLIR's TensorLiteralParser) and
// converted once the type after it is known.

// maxDenseBytes bounds the data of one elements attribute written as a
// literal list, so a short input with a huge element type
// (`tensor<4000xi16777215>`) fails instead of allocating gigabytes; wide
// elements, which cost far more data than text, have a lower bound. (Hex
// data is bounded by the input itself.)
const (
	maxDenseBytes     = 256 << 20
	maxWideDenseBytes = 16 << 20
	wideElementBytes  = 16
)

type literalElem struct {
	tok Token
	neg bool
}

// tensorLiteral is a parsed `dense<...>` body.
type tensorLiteral struct {
	isList bool
	shape  []int64
	elems  []literalElem
	hex    *Token
}

func (p *parser) parseTensorLiteral(allowHex bool) (*tensorLiteral, error) {
	lit := &tensorLiteral{}
	if p.st.freeElems != nil {
		// The elements of a literal are read, converted and dropped
		// before the next literal's, but for one in the type after them
		// (an encoding), which makes its own.
		lit.elems, p.st.freeElems = p.st.freeElems[:0], nil
	}
	switch {
	case allowHex && p.tok.Kind == String:
		t := p.tok
		lit.hex = &t
		p.Next()
		return lit, nil
	case p.tok.Kind == LSquare:
		lit.isList = true
		shape, err := p.parseLiteralList(lit)
		lit.shape = shape
		return lit, err
	}
	return lit, p.parseLiteralElem(lit)
}

func (p *parser) parseLiteralElem(lit *tensorLiteral) error {
	switch p.tok.Kind {
	case Float, Integer, String:
		lit.elems = append(lit.elems, literalElem{tok: p.tok})
		p.Next()
		return nil
	case Minus:
		p.Next()
		if p.tok.Kind != Float && p.tok.Kind != Integer {
			return p.errorf("expected integer or floating point literal")
		}
		lit.elems = append(lit.elems, literalElem{tok: p.tok, neg: true})
		p.Next()
		return nil
	case LParen:
		p.Next()
		if err := p.parseLiteralElem(lit); err != nil {
			return err
		}
		if err := p.expect(Comma, "expected ',' between complex elements"); err != nil {
			return err
		}
		if err := p.parseLiteralElem(lit); err != nil {
			return err
		}
		return p.expect(RParen, "expected ')' after complex elements")
	case BareIdent:
		if p.is("true") || p.is("false") {
			lit.elems = append(lit.elems, literalElem{tok: p.tok})
			p.Next()
			return nil
		}
	}
	return p.errorf("expected element literal of primitive type")
}

// parseLiteralList parses a nested list and returns its shape.
func (p *parser) parseLiteralList(lit *tensorLiteral) ([]int64, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	var inner []int64
	first := true
	size := int64(0)
	err := p.parseCommaSeparatedList(LSquare, RSquare, "", func() error {
		var dims []int64
		if p.tok.Kind == LSquare {
			var err error
			if dims, err = p.parseLiteralList(lit); err != nil {
				return err
			}
		} else if err := p.parseLiteralElem(lit); err != nil {
			return err
		}
		size++
		if first {
			inner, first = dims, false
			return nil
		}
		if !slices.Equal(inner, dims) {
			return p.errorf("tensor literal is invalid; ranks are not consistent between elements")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return append([]int64{size}, inner...), nil
}

func shapeString(s []int64) string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = fmt.Sprint(d)
	}
	return strings.Join(parts, ", ")
}

func hasStaticShape(t ir.ShapedType) bool {
	if !t.HasRank() {
		return false
	}
	for _, d := range t.Shape() {
		if d < 0 {
			return false
		}
	}
	return true
}

// parseElementsLiteralType parses the `: type` after a literal (unless the
// context gave t) and checks that it is a statically shaped type.
func (p *parser) parseElementsLiteralType(t ir.Type) (ir.ShapedType, error) {
	t, err := p.givenOrColonType(t)
	if err != nil {
		return nil, err
	}
	st, ok := t.(ir.ShapedType)
	if !ok {
		return nil, p.errorf("elements literal must be a shaped type")
	}
	if !hasStaticShape(st) {
		return nil, p.errorf("elements literal type must have static shape")
	}
	return st, nil
}

func (p *parser) parseDenseElementsAttr(t ir.Type) (ir.Attribute, error) {
	p.Next()
	if err := p.expect(Less, "expected '<' after 'dense'"); err != nil {
		return nil, err
	}
	lit := &tensorLiteral{}
	if !p.consumeIf(Greater) {
		var err error
		if lit, err = p.parseTensorLiteral(true); err != nil {
			return nil, err
		}
		if err := p.expect(Greater, "expected '>'"); err != nil {
			return nil, err
		}
	}
	loc := p.tok
	st, err := p.parseElementsLiteralType(t)
	if err != nil {
		return nil, err
	}
	a, err := p.literalAttr(lit, st, loc)
	if cap(lit.elems) <= maxFreeElems {
		p.st.freeElems = lit.elems[:0] // literalAttr keeps no element
	}
	return a, err
}

// maxFreeElems bounds the element list kept for the next literal.
const maxFreeElems = 1 << 16

// literalAttr converts a literal to elements of type st. Errors about the
// literal as a whole are reported at loc (for dense<...>, the token after
// the closing `>`, as mlir-opt 19 reports them).
func (p *parser) literalAttr(lit *tensorLiteral, st ir.ShapedType, loc Token) (ir.Attribute, error) {
	elt := st.ElementType()
	n := ir.NumElements(st.Shape())
	_, isComplex := elt.(*ir.ComplexType)
	numeric := isIntOrIndexOrFloat(elt) || isComplex
	if lit.hex != nil && numeric {
		return p.hexElementsAttr(*lit.hex, st, loc)
	}
	if lit.isList && !slices.Equal(lit.shape, st.Shape()) {
		return nil, p.errorAt(loc, "inferred shape of elements literal ([%s]) does not match type ([%s])",
			shapeString(lit.shape), shapeString(st.Shape()))
	}
	if lit.hex == nil && len(lit.elems) == 0 && n != 0 {
		return nil, p.errorAt(loc, "parsed zero elements, but type ('%s') expected at least 1", ir.TypeString(st))
	}
	if !numeric {
		return p.stringElementsAttr(lit, st, loc)
	}
	parts := int64(1)
	scalar := elt
	if ct, ok := elt.(*ir.ComplexType); ok {
		parts, scalar = 2, ct.Elem
		if !lit.isList && n != 0 && len(lit.elems) != 2 {
			return nil, p.errorAt(loc, "parsed %d elements, but type ('%s') expected 2 elements", len(lit.elems), ir.TypeString(elt))
		}
	}
	count := int64(len(lit.elems))
	if count != parts && count != n*parts {
		return nil, p.errorAt(loc, "parsed %d elements, but type ('%s') expected %d elements", count, ir.TypeString(st), n*parts)
	}
	size := int64(ir.ElementByteSize(scalar))
	limit := int64(maxDenseBytes)
	if size > wideElementBytes {
		limit = maxWideDenseBytes
	}
	if count*size > limit {
		return nil, p.errorAt(loc, "elements data of %d bytes exceeds the parser's limit of %d bytes", count*size, limit)
	}
	data := make([]byte, count*size)
	for i, e := range lit.elems {
		dst := data[int64(i)*size : int64(i+1)*size]
		var err error
		if ft, ok := scalar.(*ir.FloatType); ok {
			err = p.putFloatElem(dst, e, ft)
		} else {
			err = p.putIntElem(dst, e, scalar)
		}
		if err != nil {
			return nil, err
		}
	}
	return p.ctx.Dense(st, data), nil
}

func (p *parser) putIntElem(dst []byte, e literalElem, t ir.Type) error {
	_, _, unsigned := intWidth(t)
	if e.neg && unsigned {
		return p.errorAt(e.tok, "expected unsigned integer elements, but parsed negative value")
	}
	switch e.tok.Kind {
	case Float:
		return p.errorAt(e.tok, "expected integer elements, but parsed floating-point")
	case String:
		return p.errorAt(e.tok, "expected integer elements, but parsed string")
	case BareIdent: // true or false
		if it, ok := t.(*ir.IntegerType); !ok || it.Width != 1 {
			return p.errorAt(e.tok, "expected i1 type for 'true' or 'false' values")
		}
		if p.text(e.tok)[0] == 't' {
			dst[0] = 1
		}
		return nil
	}
	text := p.text(e.tok)
	if width, signed, _ := intWidth(t); width >= 1 && width <= 64 {
		// Most elements: a word, no big.Int.
		if u, fits := uint64Token(text); fits {
			bits, ok := smallInt(u, width, signed, e.neg)
			if !ok {
				return p.errorAt(e.tok, "integer constant out of range for type")
			}
			if width < 64 {
				bits &= 1<<width - 1
			}
			var b [8]byte
			binary.LittleEndian.PutUint64(b[:], bits)
			copy(dst, b[:])
			return nil
		}
	}
	v, ok := buildInt(t, e.neg, text)
	if !ok {
		return p.errorAt(e.tok, "integer constant out of range for type")
	}
	ir.PutDenseInt(dst, t, v)
	return nil
}

func (p *parser) putFloatElem(dst []byte, e literalElem, ft *ir.FloatType) error {
	var v float64
	switch e.tok.Kind {
	case Float:
		v = floatLiteral(p.text(e.tok))
		if e.neg {
			v = -v
		}
	case Integer:
		if !isHexLiteral(p.text(e.tok)) {
			return p.errorf("expected floating-point elements, but parsed integer")
		}
		var err error
		if v, err = p.floatFromIntLiteral(e.tok, e.neg, ft); err != nil {
			return err
		}
	default:
		return p.errorf("expected floating-point elements, but parsed %s", p.text(e.tok))
	}
	putFloatBits(dst, v, ft.Kind)
	return nil
}

func putFloatBits(dst []byte, v float64, k ir.FloatKind) {
	if k == ir.F80 || k == ir.F128 {
		u := ir.FloatBitsBig(v, k).Bytes()
		for i, b := range u {
			dst[len(u)-1-i] = b
		}
		return
	}
	bits, _ := ir.FloatBits(v, k)
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], bits)
	copy(dst, b[:len(dst)])
}

// hexBytes decodes the value of a `"0x..."` string token.
func (p *parser) hexBytes(t Token) ([]byte, bool) {
	s := p.text(t)
	if len(s) < 4 || s[1] != '0' || s[2] != 'x' {
		return nil, false
	}
	digits := s[3 : len(s)-1]
	if len(digits)%2 != 0 {
		return nil, false
	}
	out := make([]byte, len(digits)/2)
	for i := range out {
		a, b := digits[2*i], digits[2*i+1]
		if !isHexDigit(a) || !isHexDigit(b) {
			return nil, false
		}
		out[i] = hexVal(a)<<4 | hexVal(b)
	}
	return out, true
}

func (p *parser) hexElementsAttr(hexTok Token, st ir.ShapedType, loc Token) (ir.Attribute, error) {
	raw, ok := p.hexBytes(hexTok)
	if !ok {
		return nil, p.errorAt(hexTok, "expected string containing hex digits starting with `0x`")
	}
	n := ir.NumElements(st.Shape())
	invalid := func() error {
		return p.errorAt(loc, "elements hex data size is invalid for provided type: '%s'", ir.TypeString(st))
	}
	if it, ok := st.ElementType().(*ir.IntegerType); ok && it.Width == 1 {
		switch {
		case int64(len(raw)) == (n+7)/8:
			data := make([]byte, n)
			for i := range data {
				data[i] = raw[i/8] >> (i % 8) & 1
			}
			return p.ctx.Dense(st, data), nil
		case len(raw) == 1 && (raw[0] == 0 || raw[0] == 0xff):
			return p.ctx.Dense(st, []byte{raw[0] & 1}), nil
		}
		return nil, invalid()
	}
	size := int64(ir.ElementByteSize(st.ElementType()))
	if int64(len(raw)) != size*n && !(int64(len(raw)) == size && n > 0) {
		return nil, invalid()
	}
	return p.ctx.Dense(st, raw), nil
}

func (p *parser) stringElementsAttr(lit *tensorLiteral, st ir.ShapedType, loc Token) (ir.Attribute, error) {
	if lit.hex != nil {
		return p.ctx.DenseStrings(st, []string{decodeString(p.text(*lit.hex))}), nil
	}
	vals := make([]string, len(lit.elems))
	for i, e := range lit.elems {
		if e.tok.Kind != String {
			return nil, p.errorAt(loc, "expected string token, got %s", p.text(e.tok))
		}
		vals[i] = decodeString(p.text(e.tok))
	}
	n := ir.NumElements(st.Shape())
	if int64(len(vals)) != n && len(vals) != 1 {
		return nil, p.errorAt(loc, "parsed %d elements, but type ('%s') expected %d elements", len(vals), ir.TypeString(st), n)
	}
	return p.ctx.DenseStrings(st, vals), nil
}

func (p *parser) parseDenseResourceAttr(t ir.Type) (ir.Attribute, error) {
	kw := p.tok
	p.Next()
	if err := p.expect(Less, "expected '<' after 'dense_resource'"); err != nil {
		return nil, err
	}
	if p.tok.Kind != BareIdent {
		return nil, p.errorf("expected identifier key for 'resource' entry")
	}
	name := p.identValue(p.tok)
	p.Next()
	if err := p.expect(Greater, "expected '>'"); err != nil {
		return nil, err
	}
	typeTok := kw
	if t == nil {
		typeTok = p.tok
	}
	t, err := p.givenOrColonType(t)
	if err != nil {
		return nil, err
	}
	st, ok := t.(ir.ShapedType)
	if !ok {
		return nil, p.errorAt(typeTok, "`dense_resource` expected a shaped type")
	}
	return p.ctx.DenseResource(st, name), nil
}

func (p *parser) parseSparseElementsAttr(t ir.Type) (ir.Attribute, error) {
	kw := p.tok
	p.Next()
	if err := p.expect(Less, "Expected '<' after 'sparse'"); err != nil {
		return nil, err
	}
	i64 := p.ctx.I(64)
	if p.consumeIf(Greater) {
		st, err := p.parseElementsLiteralType(t)
		if err != nil {
			return nil, err
		}
		rank := int64(len(st.Shape()))
		indices := p.ctx.Dense(p.ctx.Tensor([]int64{0, rank}, i64), nil)
		valuesType := p.ctx.Tensor([]int64{0}, st.ElementType())
		var values ir.Attribute
		if isIntOrIndexOrFloat(st.ElementType()) || isComplex(st.ElementType()) {
			values = p.ctx.Dense(valuesType, nil)
		} else {
			values = p.ctx.DenseStrings(valuesType, nil)
		}
		return p.ctx.Sparse(st, indices, values), nil
	}
	indicesLoc := p.tok
	indicesLit, err := p.parseTensorLiteral(false)
	if err != nil {
		return nil, err
	}
	if err := p.expect(Comma, "expected ','"); err != nil {
		return nil, err
	}
	valuesLoc := p.tok
	valuesLit, err := p.parseTensorLiteral(true)
	if err != nil {
		return nil, err
	}
	if err := p.expect(Greater, "expected '>'"); err != nil {
		return nil, err
	}
	st, err := p.parseElementsLiteralType(t)
	if err != nil {
		return nil, err
	}
	rank := int64(len(st.Shape()))
	indicesShape := []int64{1, rank}
	if indicesLit.isList {
		indicesShape = indicesLit.shape
	}
	indicesAttr, err := p.literalAttr(indicesLit, p.ctx.Tensor(indicesShape, i64), indicesLoc)
	if err != nil {
		return nil, err
	}
	valuesShape := []int64{indicesShape[0]}
	if valuesLit.isList {
		valuesShape = valuesLit.shape
	}
	values, err := p.literalAttr(valuesLit, p.ctx.Tensor(valuesShape, st.ElementType()), valuesLoc)
	if err != nil {
		return nil, err
	}
	indices := indicesAttr.(*ir.DenseElementsAttr)
	if err := p.verifySparse(kw, st, indices, indicesShape, valuesShape); err != nil {
		return nil, err
	}
	return p.ctx.Sparse(st, indices, values), nil
}

func isComplex(t ir.Type) bool { _, ok := t.(*ir.ComplexType); return ok }

func (p *parser) verifySparse(kw Token, st ir.ShapedType, indices *ir.DenseElementsAttr, ishape, vshape []int64) error {
	shape := st.Shape()
	rank := int64(len(shape))
	shapeErr := func() error {
		return p.errorAt(kw, "expected shape ([%s]); inferred shape of indices literal ([%s]); inferred shape of values literal ([%s])",
			shapeString(shape), shapeString(ishape), shapeString(vshape))
	}
	if len(ishape) == 2 {
		if ishape[1] != rank {
			return shapeErr()
		}
	} else if len(ishape) != 1 || rank != 1 {
		return shapeErr()
	}
	if len(vshape) == 0 || ishape[0] != vshape[0] {
		return shapeErr()
	}
	valid := func(index []uint64) bool {
		for i, v := range index {
			if v >= uint64(shape[i]) {
				return false
			}
		}
		return true
	}
	indexErr := func(k int64, index []uint64) error {
		parts := make([]string, len(index))
		for i, v := range index {
			parts[i] = fmt.Sprint(v)
		}
		return p.errorAt(kw, "sparse index #%d is not contained within the value shape, with index=[%s], and type='%s'",
			k, strings.Join(parts, ", "), ir.TypeString(st))
	}
	index := make([]uint64, rank)
	if indices.Splat {
		for i := range index {
			index[i] = uint64(indices.Int64At(0))
		}
		if !valid(index) {
			return indexErr(0, index)
		}
		return nil
	}
	for k := int64(0); k < ishape[0]; k++ {
		for i := range index {
			index[i] = uint64(indices.Int64At(k*rank + int64(i)))
		}
		if !valid(index) {
			return indexErr(k, index)
		}
	}
	return nil
}
