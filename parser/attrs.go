package parser

import (
	"math"

	"github.com/ipuir/ipuir/ir"
)

// Builtin attributes, hand-written: attribute dictionaries, dense elements
// and locations are in every op of a large file. parseAttribute looks the
// exact source text up in the per-parse cache first.

// parseAttribute parses any attribute. t, when non-nil, is the type the
// context expects (MLIR's `parseAttribute(type)`): literals then take no
// `: type` suffix.
func (p *parser) parseAttribute(t ir.Type) (ir.Attribute, error) {
	if t == nil {
		if a, ok := p.cachedAttr(); ok {
			return a, nil
		}
	}
	start := p.tok.Start
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	a, err := p.parseAttributeUncached(t)
	if err != nil {
		return nil, err
	}
	if t == nil {
		p.st.cache.putAttr(p.src[start:p.prevEnd], a)
	}
	return a, nil
}

func (p *parser) parseAttributeUncached(t ir.Type) (ir.Attribute, error) {
	switch p.tok.Kind {
	case LSquare:
		p.Next()
		var elems []ir.Attribute
		err := p.parseCommaSeparatedListUntil(RSquare, true, func() error {
			a, err := p.parseAttribute(nil)
			elems = append(elems, a)
			return err
		})
		if err != nil {
			return nil, err
		}
		return p.ctx.Array(elems...), nil
	case LBrace:
		return p.parseAttrDict()
	case HashIdent:
		return p.parseExtendedAttr(t)
	case Float:
		return p.parseFloatAttr(t, false)
	case Integer:
		return p.parseDecOrHexAttr(t, false)
	case Minus:
		p.Next()
		switch p.tok.Kind {
		case Integer:
			return p.parseDecOrHexAttr(t, true)
		case Float:
			return p.parseFloatAttr(t, true)
		}
		return nil, p.wrongToken("expected constant integer or floating point value")
	case String:
		val := p.stringValue(p.tok)
		p.Next()
		if t == nil && p.consumeIf(Colon) {
			var err error
			if t, err = p.parseType(); err != nil {
				return nil, err
			}
		}
		if t != nil {
			return p.ctx.TypedString(val, t), nil
		}
		return p.ctx.String(val), nil
	case AtIdent:
		return p.parseSymbolRef()
	case BareIdent:
		switch string(p.text(p.tok)) {
		case "true":
			p.Next()
			return p.ctx.Bool(true), nil
		case "false":
			p.Next()
			return p.ctx.Bool(false), nil
		case "unit":
			p.Next()
			return p.ctx.Unit(), nil
		case "dense":
			return p.parseDenseElementsAttr(t)
		case "dense_resource":
			return p.parseDenseResourceAttr(t)
		case "sparse":
			return p.parseSparseElementsAttr(t)
		case "array":
			return p.parseDenseArrayAttr()
		case "strided":
			return p.parseStridedLayoutAttr()
		case "affine_map":
			return p.parseAffineMapAttr()
		case "affine_set":
			return p.parseIntegerSetAttr()
		case "loc":
			p.Next()
			if err := p.expect(LParen, "expected '(' in inline location"); err != nil {
				return nil, err
			}
			l, err := p.parseLocationInstance()
			if err != nil {
				return nil, err
			}
			return l, p.expect(RParen, "expected ')' in inline location")
		case "distinct":
			return p.parseDistinctAttr(t)
		}
	}
	if !p.isTypeStart() {
		return nil, p.wrongToken("expected attribute value")
	}
	ty, err := p.parseType()
	if err != nil {
		return nil, err
	}
	return p.ctx.TypeAttr(ty), nil
}

// stringValue decodes a string token, interning short values: attribute
// names and op names repeat across a file.
func (p *parser) stringValue(t Token) string {
	text := p.text(t)
	if len(text) <= 64 {
		if s, ok := p.st.names[string(text)]; ok {
			return s
		}
		s := decodeString(text)
		p.st.names[string(text)] = s
		return s
	}
	return decodeString(text)
}

// identValue is the spelling of a bare identifier, interned.
func (p *parser) identValue(t Token) string {
	text := p.text(t)
	if s, ok := p.st.names[string(text)]; ok {
		return s
	}
	s := string(text)
	p.st.names[s] = s
	return s
}

// parseAttrDict parses `{name = value, flag, "quoted name" = value}`.
func (p *parser) parseAttrDict() (*ir.DictAttr, error) {
	if d, ok := p.cachedDict(); ok {
		return d, nil
	}
	start := p.tok.Start
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	// The entries gather on a stack shared by nested dictionaries (each
	// pops its own), not in a slice of their own: ctx.Dict copies them.
	base := len(p.st.attrStack)
	defer func() {
		clear(p.st.attrStack[base:])
		p.st.attrStack = p.st.attrStack[:base]
	}()
	err := p.parseCommaSeparatedList(LBrace, RBrace, " in attribute dictionary", func() error {
		var name string
		switch p.tok.Kind {
		case String:
			name = p.stringValue(p.tok)
		case BareIdent:
			name = p.identValue(p.tok)
		default:
			return p.wrongToken("expected attribute name")
		}
		if name == "" {
			return p.errorf("expected valid attribute name")
		}
		for _, e := range p.st.attrStack[base:] {
			if e.Name == name {
				return p.errorf("duplicate key '%s' in dictionary attribute", name)
			}
		}
		p.Next()
		if !p.consumeIf(Equal) {
			p.st.attrStack = append(p.st.attrStack, ir.NamedAttr{Name: name, Value: p.ctx.Unit()})
			return nil
		}
		a, err := p.parseAttribute(nil)
		if err != nil {
			return err
		}
		p.st.attrStack = append(p.st.attrStack, ir.NamedAttr{Name: name, Value: a})
		return nil
	})
	if err != nil {
		return nil, err
	}
	entries := p.st.attrStack[base:]
	d := p.ctx.Dict(entries)
	p.st.cache.putDict(p.src[start:p.prevEnd], d)
	return d, nil
}

// symbolName is the name of an @-identifier token.
func (p *parser) symbolName(t Token) string {
	text := p.text(t)
	if len(text) > 1 && text[1] == '"' {
		return decodeString(text[1:])
	}
	return string(text[1:])
}

// parseSymbolRef parses `@a`, `@"a b"` and nested `@a::@b::@c`.
func (p *parser) parseSymbolRef() (ir.Attribute, error) {
	root := p.symbolName(p.tok)
	p.Next()
	var nested []string
	for p.tok.Kind == Colon {
		saved := p.Lexer
		p.Next()
		if !p.consumeIf(Colon) {
			p.Lexer = saved
			break
		}
		if p.tok.Kind != AtIdent {
			return nil, p.errorAt(p.tok, "expected nested symbol reference identifier")
		}
		nested = append(nested, p.symbolName(p.tok))
		p.Next()
	}
	return p.ctx.SymbolRef(root, nested...), nil
}

// givenOrColonType is the type of a literal: the one its context gave
// (given, when not nil), else the `: type` that must follow it.
func (p *parser) givenOrColonType(given ir.Type) (ir.Type, error) {
	if given != nil {
		return given, nil
	}
	if err := p.expect(Colon, "expected ':'"); err != nil {
		return nil, err
	}
	return p.parseType()
}

// givenOrOptionalColonType is givenOrColonType for literals whose `: type`
// may be left out, meaning dflt (f64 for floats, i64 for integers).
func (p *parser) givenOrOptionalColonType(given, dflt ir.Type) (ir.Type, error) {
	if given == nil && p.tok.Kind != Colon {
		return dflt, nil
	}
	return p.givenOrColonType(given)
}

func (p *parser) parseFloatAttr(t ir.Type, negative bool) (ir.Attribute, error) {
	lit := p.tok
	p.Next()
	t, err := p.givenOrOptionalColonType(t, p.ctx.F64())
	if err != nil {
		return nil, err
	}
	ft, ok := t.(*ir.FloatType)
	if !ok {
		return nil, p.errorf("floating point value not valid for specified type")
	}
	v := floatLiteral(p.text(lit))
	if negative {
		v = -v
	}
	return p.ctx.FloatAttr(ft, v), nil
}

// floatFromIntLiteral interprets an integer token written for a float type:
// only hex bit patterns are allowed.
func (p *parser) floatFromIntLiteral(lit Token, negative bool, ft *ir.FloatType) (float64, error) {
	text := p.text(lit)
	if !isHexLiteral(text) {
		d := p.errorAt(lit, "unexpected decimal integer literal for a floating point value")
		d.AttachNote(nil, "add a trailing dot to make the literal a float")
		return 0, d
	}
	if negative {
		return 0, p.errorAt(lit, "hexadecimal float literal should not have a leading minus")
	}
	v, ok := hexFloatBits(text, ft.Kind)
	if !ok {
		return 0, p.errorAt(lit, "hexadecimal float constant out of range for type")
	}
	return v, nil
}

func (p *parser) parseDecOrHexAttr(t ir.Type, negative bool) (ir.Attribute, error) {
	lit := p.tok
	p.Next()
	t, err := p.givenOrOptionalColonType(t, p.ctx.I(64))
	if err != nil {
		return nil, err
	}
	if ft, ok := t.(*ir.FloatType); ok {
		v, err := p.floatFromIntLiteral(lit, negative, ft)
		if err != nil {
			return nil, err
		}
		return p.ctx.FloatAttr(ft, v), nil
	}
	if !ir.IsIntOrIndex(t) {
		return nil, p.errorAt(lit, "integer literal not valid for specified type")
	}
	if _, _, unsigned := intWidth(t); unsigned && negative {
		return nil, p.errorAt(lit, "negative integer literal not valid for unsigned integer type")
	}
	v, ok := buildInt(t, negative, p.text(lit))
	if !ok {
		return nil, p.errorAt(lit, "integer constant out of range for attribute")
	}
	return p.ctx.IntegerAttrBig(t, v), nil
}

// parseStridedLayoutAttr parses `strided<[s0, s1], offset: o>`.
func (p *parser) parseStridedLayoutAttr() (ir.Attribute, error) {
	kw := p.tok
	p.Next()
	if err := p.expect(Less, "expected '<' after 'strided'"); err != nil {
		return nil, err
	}
	if err := p.expect(LSquare, "expected '['"); err != nil {
		return nil, err
	}
	value := func() (int64, error) {
		if p.consumeIf(Question) {
			return ir.Dynamic, nil
		}
		at := p.tok
		neg := p.consumeIf(Minus)
		if p.tok.Kind == Integer {
			if v, ok := uint64Token(p.text(p.tok)); ok && v <= math.MaxInt64 {
				p.Next()
				if neg {
					return -int64(v), nil
				}
				return int64(v), nil
			}
		}
		return 0, p.errorAt(at, "expected a 64-bit signed integer or '?'")
	}
	strides := []int64{}
	if p.tok.Kind != RSquare {
		for {
			s, err := value()
			if err != nil {
				return nil, err
			}
			strides = append(strides, s)
			if !p.consumeIf(Comma) {
				break
			}
		}
	}
	if err := p.expect(RSquare, "expected ']'"); err != nil {
		return nil, err
	}
	var offset int64
	if !p.consumeIf(Greater) {
		if err := p.expect(Comma, "expected ','"); err != nil {
			return nil, err
		}
		if !p.is("offset") {
			return nil, p.wrongToken("expected 'offset' after comma")
		}
		p.Next()
		if err := p.expect(Colon, "expected ':' after 'offset'"); err != nil {
			return nil, err
		}
		var err error
		if offset, err = value(); err != nil {
			return nil, err
		}
		if err := p.expect(Greater, "expected '>'"); err != nil {
			return nil, err
		}
	}
	for _, s := range strides {
		if s == 0 {
			return nil, p.errorAt(kw, "strides must not be zero")
		}
	}
	return p.ctx.StridedLayout(offset, strides), nil
}

// parseDenseArrayAttr parses `array<i32: 1, 2>`.
func (p *parser) parseDenseArrayAttr() (ir.Attribute, error) {
	p.Next()
	if err := p.expect(Less, "expected '<' after 'array'"); err != nil {
		return nil, err
	}
	typeTok := p.tok
	elem, err := p.parseType()
	if err != nil {
		return nil, err
	}
	it, isInt := elem.(*ir.IntegerType)
	ft, isFloat := elem.(*ir.FloatType)
	if !isInt && !isFloat {
		return nil, p.errorAt(typeTok, "expected integer or float type, got: '%s'", ir.TypeString(elem))
	}
	if w := ir.BitWidth(elem); w != 1 && w%8 != 0 {
		return nil, p.errorAt(typeTok, "element type bitwidth must be a multiple of 8")
	}
	if !ir.DenseArrayElementAllowed(elem) {
		return nil, p.errorAt(typeTok, "dense array elements must be i1, i8, i16, i32, i64, f32 or f64, got: '%s'",
			ir.TypeString(elem))
	}
	var ints []int64
	var floats []float64
	if !p.consumeIf(Greater) {
		if err := p.expect(Colon, "expected ':' after dense array type"); err != nil {
			return nil, err
		}
		for {
			neg := p.consumeIf(Minus)
			if isInt {
				v, err := p.denseArrayInt(it, neg)
				if err != nil {
					return nil, err
				}
				ints = append(ints, v)
			} else {
				lit := p.tok
				v, err := p.floatElement(lit, neg, ft)
				if err != nil {
					return nil, err
				}
				p.Next()
				floats = append(floats, v)
			}
			if !p.consumeIf(Comma) {
				break
			}
		}
		if err := p.expect(Greater, "expected '>' to close an array attribute"); err != nil {
			return nil, err
		}
	}
	if isInt {
		return p.ctx.DenseIntArray(elem, ints), nil
	}
	return p.ctx.DenseFloatArray(ft, floats), nil
}

func (p *parser) denseArrayInt(it *ir.IntegerType, neg bool) (int64, error) {
	if p.is("true") || p.is("false") {
		if it.Width != 1 {
			return 0, p.errorf("expected i1 type for 'true' or 'false' values")
		}
		v := int64(0)
		if p.is("true") {
			v = 1
		}
		p.Next()
		return v, nil
	}
	if p.tok.Kind != Integer {
		return 0, p.errorf("expected integer literal")
	}
	if it.Width == 1 {
		return 0, p.errorf("expected 'true' or 'false' values for i1 type")
	}
	text := p.text(p.tok)
	p.Next()
	v, ok := buildInt(it, neg, text)
	if !ok {
		return 0, p.errorf("integer constant out of range")
	}
	lo, _ := ir.NormalizeInt(it, v)
	return lo, nil
}

// floatElement reads a float literal token (decimal, or hex bit pattern)
// as a value of ft, without consuming it.
func (p *parser) floatElement(lit Token, neg bool, ft *ir.FloatType) (float64, error) {
	switch lit.Kind {
	case Float:
		v := floatLiteral(p.text(lit))
		if neg {
			v = -v
		}
		return ir.RoundFloat(v, ft.Kind), nil
	case Integer:
		return p.floatFromIntLiteral(lit, neg, ft)
	}
	return 0, p.errorAt(lit, "expected integer or floating point literal")
}
