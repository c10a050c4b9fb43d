package parser

import "github.com/ipuir/ipuir/ir"

// parseDistinctAttr parses `distinct[N]<attr>` (`distinct[N]<>` for unit),
// as MLIR's Parser::parseDistinctAttr. N names an identity within the file:
// every `distinct[N]` of one parse is the same ir.DistinctAttr, made on its
// first occurrence, and a later one must refer to the same attribute. N is
// not kept; the printer numbers distinct attributes afresh.
func (p *parser) parseDistinctAttr(t ir.Type) (ir.Attribute, error) {
	start := p.tok
	p.Next()
	if err := p.expect(LSquare, "expected '[' after 'distinct'"); err != nil {
		return nil, err
	}
	idTok := p.tok
	if err := p.expect(Integer, "expected distinct ID"); err != nil {
		return nil, err
	}
	id, ok := uint64Token(p.text(idTok))
	if !ok {
		return nil, p.errorf("expected an unsigned 64-bit integer")
	}
	if err := p.expect(RSquare, "expected ']' to close distinct ID"); err != nil {
		return nil, err
	}
	if err := p.expect(Less, "expected '<' after distinct ID"); err != nil {
		return nil, err
	}
	var referenced ir.Attribute = p.ctx.Unit()
	if !p.consumeIf(Greater) {
		var err error
		if referenced, err = p.parseAttribute(t); err != nil {
			return nil, err
		}
		if err := p.expect(Greater, "expected '>' to close distinct attribute"); err != nil {
			return nil, err
		}
	}
	if d, ok := p.st.distinct[id]; ok {
		if d.Referenced != referenced {
			return nil, p.errorAt(start, "referenced attribute does not match previous definition: %s",
				ir.AttrString(d.Referenced))
		}
		return d, nil
	}
	if p.st.distinct == nil {
		p.st.distinct = map[uint64]*ir.DistinctAttr{}
	}
	d := p.ctx.NewDistinct(referenced)
	p.st.distinct[id] = d
	return d, nil
}
