package parser

import (
	"bytes"

	"github.com/ipuir/ipuir/ir"
)

// Locations: `loc(...)` bodies, built through the ir.Context constructors
// that normalise them (fused[] is unknown, "n"(unknown) is "n", ...). A
// trailing `loc(#alias)` may name an alias defined later in the file (where
// mlir-opt prints them); such references are recorded and resolved when
// the file ends.

// parseLocationInstance parses the inside of `loc(...)`.
func (p *parser) parseLocationInstance() (ir.Location, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	switch p.tok.Kind {
	case HashIdent:
		a, err := p.parseExtendedAttr(nil)
		if err != nil {
			return nil, err
		}
		l, ok := a.(ir.Location)
		if !ok {
			return nil, p.errorf("expected location attribute, but got%s", ir.AttrString(a))
		}
		return l, nil
	case String:
		return p.parseNameOrFileLineCol()
	case BareIdent:
		switch string(p.text(p.tok)) {
		case "callsite":
			return p.parseCallSiteLoc()
		case "fused":
			return p.parseFusedLoc()
		case "unknown":
			p.Next()
			return p.ctx.UnknownLoc(), nil
		}
	}
	return nil, p.wrongToken("expected location instance")
}

func (p *parser) parseNameOrFileLineCol() (ir.Location, error) {
	str := p.stringValue(p.tok)
	p.Next()
	if p.consumeIf(Colon) {
		line, ok := p.locNumber()
		if !ok {
			return nil, p.wrongToken("expected integer line number in FileLineColLoc")
		}
		p.Next()
		if err := p.expect(Colon, "expected ':' in FileLineColLoc"); err != nil {
			return nil, err
		}
		if p.tok.Kind != Integer {
			return nil, p.wrongToken("expected integer column number in FileLineColLoc")
		}
		col, ok := p.locNumber()
		if !ok {
			return nil, p.errorf("expected integer column number in FileLineColLoc")
		}
		p.Next()
		if str == "" {
			// mlir-opt-19 reads an empty file name as "-": it prints
			// loc("":1:2) as loc("-":1:2), the two are one location, and
			// diagnostics there say -:1:2.
			str = "-"
		}
		return p.ctx.FileLineCol(str, line, col), nil
	}
	if p.consumeIf(LParen) {
		child, err := p.parseLocationInstance()
		if err != nil {
			return nil, err
		}
		if err := p.expect(RParen, "expected ')' after child location of NameLoc"); err != nil {
			return nil, err
		}
		return p.ctx.NameLoc(str, child), nil
	}
	return p.ctx.NameLoc(str, nil), nil
}

// locNumber reads the current token as an unsigned 32-bit line or column.
func (p *parser) locNumber() (int, bool) {
	if p.tok.Kind != Integer {
		return 0, false
	}
	v, ok := uint64Token(p.text(p.tok))
	if !ok || v > 1<<32-1 {
		return 0, false
	}
	return int(v), true
}

func (p *parser) parseCallSiteLoc() (ir.Location, error) {
	p.Next()
	if err := p.expect(LParen, "expected '(' in callsite location"); err != nil {
		return nil, err
	}
	callee, err := p.parseLocationInstance()
	if err != nil {
		return nil, err
	}
	if !p.is("at") {
		return nil, p.wrongToken("expected 'at' in callsite location")
	}
	p.Next()
	caller, err := p.parseLocationInstance()
	if err != nil {
		return nil, err
	}
	if err := p.expect(RParen, "expected ')' in callsite location"); err != nil {
		return nil, err
	}
	return p.ctx.CallSiteLoc(callee, caller), nil
}

func (p *parser) parseFusedLoc() (ir.Location, error) {
	p.Next()
	var metadata ir.Attribute
	if p.consumeIf(Less) {
		var err error
		if metadata, err = p.parseAttribute(nil); err != nil {
			return nil, err
		}
		if err := p.expect(Greater, "expected '>' after fused location metadata"); err != nil {
			return nil, err
		}
	}
	var locs []ir.Location
	err := p.parseCommaSeparatedList(LSquare, RSquare, " in fused location", func() error {
		l, err := p.parseLocationInstance()
		locs = append(locs, l)
		return err
	})
	if err != nil {
		return nil, err
	}
	return p.ctx.FusedLoc(locs, metadata), nil
}

// deferredLoc is a trailing `loc(#alias)` seen before the alias: the op or
// block argument it belongs to gets the location when the file ends.
type deferredLoc struct {
	tok  Token
	name string
	op   *ir.Operation
	arg  *ir.Value
}

// parseTrailingLoc parses an optional `loc(...)` after an op or a block
// argument. It returns the location, or (nil, alias token) for an alias
// not defined yet, or (nil, zero) when there is no `loc`.
func (p *parser) parseTrailingLoc() (ir.Location, Token, bool, error) {
	if !p.is("loc") {
		return nil, Token{}, false, nil
	}
	p.Next()
	if err := p.expect(LParen, "expected '(' in location"); err != nil {
		return nil, Token{}, false, err
	}
	var loc ir.Location
	var pending Token
	if p.tok.Kind == HashIdent && bytes.IndexByte(p.text(p.tok), '.') < 0 {
		tok := p.tok
		p.Next()
		if a, ok := p.st.attrAliases[string(p.text(tok)[1:])]; ok {
			l, ok := a.(ir.Location)
			if !ok {
				return nil, Token{}, false, p.errorAt(tok, "expected location, but found '%s'", ir.AttrString(a))
			}
			loc = l
		} else {
			pending = tok
		}
	} else {
		var err error
		if loc, err = p.parseLocationInstance(); err != nil {
			return nil, Token{}, false, err
		}
	}
	if err := p.expect(RParen, "expected ')' in location"); err != nil {
		return nil, Token{}, false, err
	}
	return loc, pending, true, nil
}

// applyTrailingLoc parses an optional trailing location for op or arg
// (exactly one is non-nil); def is the location to use when none is given.
func (p *parser) applyTrailingLoc(op *ir.Operation, arg *ir.Value, def func() ir.Location) error {
	loc, pending, ok, err := p.parseTrailingLoc()
	if err != nil {
		return err
	}
	switch {
	case !ok:
		loc = def()
	case loc == nil:
		p.st.deferredLocs = append(p.st.deferredLocs, deferredLoc{tok: pending, name: string(p.text(pending)[1:]), op: op, arg: arg})
		loc = p.ctx.UnknownLoc()
	}
	if op != nil {
		op.SetLoc(loc)
	} else {
		arg.SetLoc(loc)
	}
	return nil
}

// markerLoc stands for a location alias not defined yet, returned to a
// custom op parser (ParseOptionalLocationSpecifier). It is a distinct,
// un-uniqued NameLoc that never reaches the context; when it is given to a
// region argument the argument is recorded for resolution.
func (p *parser) markerLoc(tok Token) ir.Location {
	l := &ir.NameLoc{Name: string(p.text(tok))}
	if p.st.locMarkers == nil {
		p.st.locMarkers = map[ir.Location]int{}
	}
	p.st.locMarkers[l] = len(p.st.deferredLocs)
	p.st.deferredLocs = append(p.st.deferredLocs, deferredLoc{tok: tok, name: string(p.text(tok)[1:])})
	return l
}

// setArgLoc gives a region argument its location, registering it when the
// location is a marker for a later alias.
func (p *parser) setArgLoc(v *ir.Value, l ir.Location) {
	if i, ok := p.st.locMarkers[l]; ok {
		p.st.deferredLocs[i].arg = v
		l = p.ctx.UnknownLoc()
	}
	v.SetLoc(l)
}

// resolveDeferredLocs sets the locations of ops and arguments that named an
// alias before its definition.
func (p *parser) resolveDeferredLocs() error {
	for _, d := range p.st.deferredLocs {
		if d.op == nil && d.arg == nil {
			continue
		}
		a, ok := p.st.attrAliases[d.name]
		if !ok {
			return p.errorAt(d.tok, "operation location alias was never defined")
		}
		l, ok := a.(ir.Location)
		if !ok {
			return p.errorAt(d.tok, "expected location, but found '%s'", ir.AttrString(a))
		}
		if d.op != nil {
			d.op.SetLoc(l)
		} else {
			d.arg.SetLoc(l)
		}
	}
	return nil
}
