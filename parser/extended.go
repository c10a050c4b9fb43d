package parser

import (
	"bytes"
	"errors"

	"github.com/ipuir/ipuir/ir"
)

// Extended attributes and types: `#alias`, `!alias`, and dialect symbols
// `#d.name<...>`, `#d<...>`, `!d.name<...>`, `!d<...>`. The body of a
// dialect symbol is found by balancing `<>[](){}` over the raw bytes, with
// strings respected and `->` not closing a `<` (MLIR's
// parseDialectSymbolBody); it goes to the registered dialect's hook, or is
// kept verbatim in an opaque attribute or type.

// dialectSymbol is a lexed dialect attribute or type reference.
type dialectSymbol struct {
	dialect string
	// data is what MLIR calls the symbol data: `name<...>` for the pretty
	// form, the text between the brackets for `d<...>`.
	data []byte
	// hookBody is what ir.Dialect hooks receive: `name<...>`, or `<...>`.
	hookBody      []byte
	hookBodyStart int // offset of hookBody in the source
	loc           Token
}

// scanExtended lexes the current `#...` or `!...` token. alias is true for
// a plain alias reference, whose name is returned in sym.dialect.
func (p *parser) scanExtended() (sym dialectSymbol, alias bool, err error) {
	tok := p.tok
	ident := p.text(tok)[1:]
	dialect, name, pretty := bytes.Cut(ident, []byte{'.'})
	trailing := tok.End < len(p.src) && p.src[tok.End] == '<'
	p.Next()
	if !trailing && !pretty {
		return dialectSymbol{dialect: string(ident), loc: tok}, true, nil
	}
	sym = dialectSymbol{dialect: string(dialect), loc: tok}
	end := tok.End
	if trailing {
		if end, err = p.scanDialectBody(tok.End); err != nil {
			return sym, false, err
		}
		p.ResetTo(end)
	}
	if pretty {
		start := tok.Start + 1 + len(dialect) + 1
		sym.data = p.src[start:end]
		sym.hookBody, sym.hookBodyStart = sym.data, start
		sym.loc = Token{Kind: BareIdent, Start: start, End: start + len(name), Line: tok.Line, Col: tok.Col + (start - tok.Start)}
	} else {
		sym.data = p.src[tok.End+1 : end-1]
		sym.hookBody, sym.hookBodyStart = p.src[tok.End:end], tok.End
	}
	return sym, false, nil
}

// scanDialectBody returns the offset just past the `>` matching the `<` at
// start.
func (p *parser) scanDialectBody(start int) (int, error) {
	var stack []byte
	errPos := start // MLIR reports at its current token: the `<` or the last string
	unbalanced := func() error {
		return p.errorAtOffset(errPos, "unbalanced '%c' character in pretty dialect name", stack[len(stack)-1])
	}
	closeWith := func(open byte) error {
		if stack[len(stack)-1] != open {
			return unbalanced()
		}
		stack = stack[:len(stack)-1]
		return nil
	}
	src := p.src
	i := start
	for {
		var c byte
		if i < len(src) {
			c = src[i]
		}
		i++
		var err error
		switch c {
		case 0:
			if len(stack) > 0 {
				return 0, unbalanced()
			}
			return 0, p.errorAtOffset(errPos, "unexpected nul or EOF in pretty dialect name")
		case '<', '[', '(', '{':
			stack = append(stack, c)
			continue
		case '-':
			if i < len(src) && src[i] == '>' {
				i++
			}
			continue
		case '>':
			err = closeWith('<')
		case ']':
			err = closeWith('[')
		case ')':
			err = closeWith('(')
		case '}':
			err = closeWith('{')
		case '"':
			sub := p.Lexer
			t := sub.lexString(i - 1)
			if t.Kind == Error {
				msg, et := sub.Err()
				return 0, p.errorAtOffset(et.Start, "%s", msg)
			}
			errPos = i - 1
			i = t.End
		default:
			continue
		}
		if err != nil {
			return 0, err
		}
		if len(stack) == 0 {
			return i, nil
		}
	}
}

// hookError turns an error from a dialect hook into a diagnostic located
// in the body the hook was given.
func (p *parser) hookError(err error, sym dialectSymbol) error {
	var d *ir.Diagnostic
	if errors.As(err, &d) {
		return d
	}
	var be *BodyError
	if errors.As(err, &be) {
		return p.errorAtOffset(sym.hookBodyStart+be.Offset, "%s", be.Message)
	}
	return p.errorAtOffset(sym.hookBodyStart, "%s", err.Error())
}

func (p *parser) parseExtendedAttr(t ir.Type) (ir.Attribute, error) {
	sym, alias, err := p.scanExtended()
	if err != nil {
		return nil, err
	}
	var a ir.Attribute
	if alias {
		var ok bool
		if a, ok = p.st.attrAliases[sym.dialect]; !ok {
			return nil, p.wrongToken("undefined symbol alias id '%s'", sym.dialect)
		}
	} else {
		attrType := t
		if p.consumeIf(Colon) {
			if attrType, err = p.parseType(); err != nil {
				return nil, err
			}
		}
		if a, err = p.dialectAttr(sym, attrType); err != nil {
			return nil, err
		}
	}
	if ta, ok := a.(ir.TypedAttr); ok && t != nil && ta.Type() != t {
		return nil, p.errorf("attribute type different than expected: expected '%s', but got '%s'",
			ir.TypeString(t), ir.TypeString(ta.Type()))
	}
	return a, nil
}

func (p *parser) dialectAttr(sym dialectSymbol, attrType ir.Type) (ir.Attribute, error) {
	if d := p.ctx.Dialect(sym.dialect); d != nil {
		if len(d.Attrs) == 0 {
			return nil, p.errorAt(sym.loc, "dialect '%s' provides no attribute parsing hook", sym.dialect)
		}
		a, err := d.ParseAttrBody(p.ctx, string(sym.hookBody), attrType)
		if err != nil {
			return nil, p.hookError(err, sym)
		}
		return a, nil
	}
	shown := "none"
	if attrType != nil {
		shown = ir.TypeString(attrType)
	}
	if !p.ctx.AllowUnregisteredDialects {
		return nil, p.errorAt(sym.loc, "#%s<%s> : '%s' attribute created with unregistered dialect. If this is intended, "+
			"please call allowUnregisteredDialects() on the MLIRContext, or use -allow-unregistered-dialect with the MLIR opt tool used",
			ir.AppendQuoted(nil, sym.dialect), ir.AppendQuoted(nil, string(sym.data)), shown)
	}
	if attrType != nil {
		return nil, p.errorAt(sym.loc, "opaque attributes with a type ('#%s<...> : %s') are not supported", sym.dialect, shown)
	}
	return p.ctx.OpaqueAttr(sym.dialect, string(sym.data)), nil
}

func (p *parser) parseExtendedType() (ir.Type, error) {
	sym, alias, err := p.scanExtended()
	if err != nil {
		return nil, err
	}
	if alias {
		t, ok := p.st.typeAliases[sym.dialect]
		if !ok {
			return nil, p.wrongToken("undefined symbol alias id '%s'", sym.dialect)
		}
		return t, nil
	}
	if d := p.ctx.Dialect(sym.dialect); d != nil {
		if len(d.Types) == 0 {
			return nil, p.errorAt(sym.loc, "dialect '%s' provides no type parsing hook", sym.dialect)
		}
		t, err := d.ParseTypeBody(p.ctx, string(sym.hookBody))
		if err != nil {
			return nil, p.hookError(err, sym)
		}
		return t, nil
	}
	if !p.ctx.AllowUnregisteredDialects {
		return nil, p.errorAt(sym.loc, "`!%s<%s>` type created with unregistered dialect. If this is intended, "+
			"please call allowUnregisteredDialects() on the MLIRContext, or use -allow-unregistered-dialect with the MLIR opt tool used",
			ir.AppendQuoted(nil, sym.dialect), ir.AppendQuoted(nil, string(sym.data)))
	}
	return p.ctx.Opaque(sym.dialect, string(sym.data)), nil
}

// parseAttributeAliasDef parses `#name = attribute` at the top level.
func (p *parser) parseAttributeAliasDef() error {
	tok := p.tok
	name := string(p.text(tok)[1:])
	if _, dup := p.st.attrAliases[name]; dup {
		return p.errorAt(tok, "redefinition of attribute alias id '%s'", name)
	}
	if bytes.IndexByte([]byte(name), '.') >= 0 {
		return p.errorAt(tok, "attribute names with a '.' are reserved for dialect-defined names")
	}
	p.Next()
	if err := p.expect(Equal, "expected '=' in attribute alias definition"); err != nil {
		return err
	}
	a, err := p.parseAttribute(nil)
	if err != nil {
		return err
	}
	p.st.attrAliases[name] = a
	return nil
}

// parseTypeAliasDef parses `!name = type` at the top level.
func (p *parser) parseTypeAliasDef() error {
	tok := p.tok
	name := string(p.text(tok)[1:])
	if _, dup := p.st.typeAliases[name]; dup {
		return p.errorAt(tok, "redefinition of type alias id '%s'", name)
	}
	if bytes.IndexByte([]byte(name), '.') >= 0 {
		return p.errorAt(tok, "type names with a '.' are reserved for dialect-defined names")
	}
	p.Next()
	if err := p.expect(Equal, "expected '=' in type alias definition"); err != nil {
		return err
	}
	t, err := p.parseType()
	if err != nil {
		return err
	}
	p.st.typeAliases[name] = t
	return nil
}
