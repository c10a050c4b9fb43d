package asmformat_test

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ipuir/ipuir/ir"
)

// fakeParser is an ir.OpAsmParser over a token list, enough for the fmt
// dialect's custom forms: scalar and function types, symbols, strings,
// integers, unit and dictionaries, `{}` regions and ^bbN successors. It
// lets the parsing half of the engine be tested on its own.
type fakeParser struct {
	ctx    *ir.Context
	toks   []string
	pos    int
	values map[string]*ir.Value // "%0" -> value
	blocks map[string]*ir.Block
}

func tokenize(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\n':
			i++
		case strings.HasPrefix(s[i:], "->"):
			out = append(out, "->")
			i += 2
		case c == '"':
			j := strings.IndexByte(s[i+1:], '"')
			out = append(out, s[i:i+j+2])
			i += j + 2
		case strings.ContainsRune("(){}[]<>,:=;", rune(c)):
			out = append(out, string(c))
			i++
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \n(){}[]<>,:=;\"", rune(s[j])) && !strings.HasPrefix(s[j:], "->") {
				j++
			}
			out = append(out, s[i:j])
			i = j
		}
	}
	return out
}

func (p *fakeParser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return ""
}

func (p *fakeParser) next() string { t := p.peek(); p.pos++; return t }

func (p *fakeParser) Context() *ir.Context { return p.ctx }
func (p *fakeParser) Errorf(format string, args ...any) error {
	return fmt.Errorf("at token %d (%q): %s", p.pos, p.peek(), fmt.Sprintf(format, args...))
}
func (p *fakeParser) CurrentLoc() ir.Location { return p.ctx.UnknownLoc() }

func (p *fakeParser) ParseOperand() (ir.UnresolvedOperand, error) {
	op, ok, _ := p.ParseOptionalOperand()
	if !ok {
		return op, p.Errorf("expected operand")
	}
	return op, nil
}

func (p *fakeParser) ParseOptionalOperand() (ir.UnresolvedOperand, bool, error) {
	t := p.peek()
	if !strings.HasPrefix(t, "%") {
		return ir.UnresolvedOperand{}, false, nil
	}
	p.pos++
	name, num, _ := strings.Cut(t, "#")
	n, _ := strconv.Atoi(num)
	return ir.UnresolvedOperand{Name: name, Number: n}, true, nil
}

func (p *fakeParser) ParseOperandList() ([]ir.UnresolvedOperand, error) {
	var out []ir.UnresolvedOperand
	for {
		op, ok, _ := p.ParseOptionalOperand()
		if !ok {
			return out, nil
		}
		out = append(out, op)
		if !p.ParseOptionalPunct(",") {
			return out, nil
		}
	}
}

func (p *fakeParser) ResolveOperands(ops []ir.UnresolvedOperand, types []ir.Type, st *ir.OperationState) error {
	if len(ops) != len(types) {
		return p.Errorf("%d operands, %d types", len(ops), len(types))
	}
	for i, o := range ops {
		v := p.values[o.Name]
		if v == nil || v.Type() != types[i] {
			return p.Errorf("cannot resolve %s as %s", o.Name, ir.TypeString(types[i]))
		}
		st.Operands = append(st.Operands, v)
	}
	return nil
}

func (p *fakeParser) ParseType() (ir.Type, error) {
	t := p.next()
	switch {
	case t == "(":
		p.pos--
		if err := p.ParsePunct("("); err != nil {
			return nil, err
		}
		var in []ir.Type
		if !p.ParseOptionalPunct(")") {
			var err error
			if in, err = p.ParseTypeList(); err != nil {
				return nil, err
			}
			if err := p.ParsePunct(")"); err != nil {
				return nil, err
			}
		}
		if err := p.ParsePunct("->"); err != nil {
			return nil, err
		}
		out, err := p.ParseFunctionResultTypes()
		return p.ctx.Function(in, out), err
	case t == "index":
		return p.ctx.Index(), nil
	case strings.HasPrefix(t, "tensor"):
		// tensor<2xi32> arrives as tensor < 2xi32 >
		p.next()
		shapeElem := p.next()
		p.next()
		dim, elem, _ := strings.Cut(shapeElem, "x")
		n, _ := strconv.Atoi(dim)
		e, _ := (&fakeParser{ctx: p.ctx, toks: []string{elem}}).ParseType()
		return p.ctx.Tensor([]int64{int64(n)}, e), nil
	case strings.HasPrefix(t, "i"):
		w, err := strconv.Atoi(t[1:])
		if err == nil {
			return p.ctx.I(w), nil
		}
	}
	if k, ok := ir.FloatKindByName(t); ok {
		return p.ctx.Float(k), nil
	}
	return nil, p.Errorf("unknown type %q", t)
}

func (p *fakeParser) ParseColonType() (ir.Type, error) {
	if err := p.ParsePunct(":"); err != nil {
		return nil, err
	}
	return p.ParseType()
}

func (p *fakeParser) ParseColonTypeList() ([]ir.Type, error) {
	if err := p.ParsePunct(":"); err != nil {
		return nil, err
	}
	return p.ParseTypeList()
}

func (p *fakeParser) ParseTypeList() ([]ir.Type, error) {
	var out []ir.Type
	for {
		t, err := p.ParseType()
		if err != nil {
			return nil, err
		}
		out = append(out, t)
		if !p.ParseOptionalPunct(",") {
			return out, nil
		}
	}
}

func (p *fakeParser) ParseArrowTypeList() ([]ir.Type, error) {
	if err := p.ParsePunct("->"); err != nil {
		return nil, err
	}
	return p.ParseFunctionResultTypes()
}

func (p *fakeParser) ParseOptionalArrowTypeList() ([]ir.Type, bool, error) {
	if p.peek() != "->" {
		return nil, false, nil
	}
	ts, err := p.ParseArrowTypeList()
	return ts, true, err
}

func (p *fakeParser) ParseFunctionResultTypes() ([]ir.Type, error) {
	if !p.ParseOptionalPunct("(") {
		t, err := p.ParseType()
		return []ir.Type{t}, err
	}
	if p.ParseOptionalPunct(")") {
		return nil, nil
	}
	ts, err := p.ParseTypeList()
	if err != nil {
		return nil, err
	}
	return ts, p.ParsePunct(")")
}

func (p *fakeParser) ParseAttribute(t ir.Type) (ir.Attribute, error) {
	tok := p.next()
	switch {
	case tok == "unit":
		return p.ctx.Unit(), nil
	case strings.HasPrefix(tok, "@"):
		return p.ctx.SymbolRef(tok[1:]), nil
	case strings.HasPrefix(tok, `"`):
		return p.ctx.String(strings.Trim(tok, `"`)), nil
	}
	n, err := strconv.ParseInt(tok, 10, 64)
	if err != nil {
		return nil, p.Errorf("unknown attribute %q", tok)
	}
	typ := ir.Type(p.ctx.I(64))
	if p.ParseOptionalPunct(":") {
		if typ, err = p.ParseType(); err != nil {
			return nil, err
		}
	}
	return p.ctx.IntegerAttr(typ, n), nil
}

func (p *fakeParser) ParseOptionalAttrDict(st *ir.OperationState) error {
	if !p.ParseOptionalPunct("{") {
		return nil
	}
	for {
		name := p.next()
		var a ir.Attribute = p.ctx.Unit()
		if p.ParseOptionalPunct("=") {
			var err error
			if a, err = p.ParseAttribute(nil); err != nil {
				return err
			}
		}
		st.AddAttr(name, a)
		if p.ParseOptionalPunct("}") {
			return nil
		}
		if err := p.ParsePunct(","); err != nil {
			return err
		}
	}
}

func (p *fakeParser) ParseOptionalAttrDictWithKeyword(st *ir.OperationState) error {
	if p.ParseOptionalKeyword("attributes") {
		if p.peek() != "{" {
			return p.Errorf("expected '{'")
		}
	}
	return p.ParseOptionalAttrDict(st)
}

func (p *fakeParser) ParseSymbolName() (string, error) {
	s, ok, _ := p.ParseOptionalSymbolName()
	if !ok {
		return "", p.Errorf("expected symbol")
	}
	return s, nil
}

func (p *fakeParser) ParseOptionalSymbolName() (string, bool, error) {
	if t := p.peek(); strings.HasPrefix(t, "@") {
		p.pos++
		return t[1:], true, nil
	}
	return "", false, nil
}

func (p *fakeParser) ParseKeyword(kw string) error {
	if !p.ParseOptionalKeyword(kw) {
		return p.Errorf("expected '%s'", kw)
	}
	return nil
}

func (p *fakeParser) ParseOptionalKeyword(kw string) bool {
	if p.peek() == kw {
		p.pos++
		return true
	}
	return false
}

func (p *fakeParser) ParseKeywordAny() (string, error) { return p.next(), nil }
func (p *fakeParser) ParseOptionalKeywordAny() (string, bool) {
	return p.next(), true
}

func (p *fakeParser) ParsePunct(s string) error {
	if !p.ParseOptionalPunct(s) {
		return p.Errorf("expected '%s'", s)
	}
	return nil
}

func (p *fakeParser) ParseOptionalPunct(s string) bool {
	if p.peek() == s {
		p.pos++
		return true
	}
	return false
}

func (p *fakeParser) ParseInteger() (int64, error) {
	return strconv.ParseInt(p.next(), 10, 64)
}

func (p *fakeParser) ParseString() (string, error) { return strings.Trim(p.next(), `"`), nil }

func (p *fakeParser) ParseArgument(bool, bool) (ir.Argument, error) {
	return ir.Argument{}, p.Errorf("no arguments in the fmt dialect")
}

func (p *fakeParser) ParseOptionalArgument(bool, bool) (ir.Argument, bool, error) {
	return ir.Argument{}, false, nil
}

// ParseRegion reads `{` `}` as a region with one empty block.
func (p *fakeParser) ParseRegion(r *ir.Region, args []ir.Argument) error {
	ok, err := p.ParseOptionalRegion(r, args)
	if !ok && err == nil {
		return p.Errorf("expected region")
	}
	return err
}

func (p *fakeParser) ParseOptionalRegion(r *ir.Region, args []ir.Argument) (bool, error) {
	if !p.ParseOptionalPunct("{") {
		return false, nil
	}
	r.AppendBlock(ir.NewBlock(nil, nil))
	return true, p.ParsePunct("}")
}

func (p *fakeParser) ParseSuccessor() (*ir.Block, error) {
	b := p.blocks[p.next()]
	if b == nil {
		return nil, p.Errorf("unknown block")
	}
	return b, nil
}

func (p *fakeParser) ParseOptionalLocationSpecifier() (ir.Location, bool, error) {
	return nil, false, nil
}
