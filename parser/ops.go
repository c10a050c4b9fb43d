package parser

import (
	"bytes"

	"github.com/ipuir/ipuir/ir"
)

// Operations, regions and blocks in MLIR's generic form, hand-written: this
// is the loop a 30 MB file spends its time in. Scratch stacks in the state
// (operands, successors, result groups) are reused from op to op; nested
// ops push above their parent's entries and pop back.

// opInfo is an interned op name with what the registry says about it.
type opInfo struct {
	name       string
	def        *ir.OpDef
	dialectReg bool // the name's dialect is registered
}

// resultGroup is `%name` or `%name:N` before `=`.
type resultGroup struct {
	tok   Token
	count int
}

const maxResultGroupCount = 1 << 30

// genericOpInfo interns the op name of a string token.
func (p *parser) genericOpInfo(t Token) *opInfo {
	raw := p.text(t)
	if info, ok := p.st.ops[string(raw)]; ok {
		return info
	}
	name := decodeString(raw)
	info := &opInfo{name: name, def: p.ctx.OpDef(name)}
	info.dialectReg = info.def != nil || p.ctx.Dialect(ir.DialectNamespace(name)) != nil
	p.st.ops[string(raw)] = info
	return info
}

// parseOperation parses one op, generic or custom, with its result names,
// and appends it to blk.
func (p *parser) parseOperation(blk *ir.Block) error {
	st := p.st
	base := len(st.results)
	startTok := p.tok
	numExpected := 0
	if p.tok.Kind == PercentIdent {
		for {
			nameTok := p.tok
			if err := p.expect(PercentIdent, "expected valid ssa identifier"); err != nil {
				return err
			}
			count := 1
			if p.consumeIf(Colon) {
				if p.tok.Kind != Integer {
					return p.wrongToken("expected integer number of results")
				}
				v, ok := uint64Token(p.text(p.tok))
				if !ok || v < 1 {
					return p.errorf("expected named operation to have at least 1 result")
				}
				if v > maxResultGroupCount {
					v = maxResultGroupCount
				}
				count = int(v)
				p.Next()
			}
			st.results = append(st.results, resultGroup{nameTok, count})
			numExpected += count
			if !p.consumeIf(Comma) {
				break
			}
		}
		if err := p.expect(Equal, "expected '=' after SSA name"); err != nil {
			return err
		}
	}
	var op *ir.Operation
	var err error
	switch p.tok.Kind {
	case BareIdent:
		op, err = p.parseCustomOperation(blk)
	case String:
		op, err = p.parseGenericOperation(blk)
	default:
		return p.wrongToken("expected operation name in quotes")
	}
	if err != nil {
		return err
	}
	groups := st.results[base:]
	if len(groups) > 0 {
		if op.NumResults() == 0 {
			return p.errorAt(startTok, "cannot name an operation with no results")
		}
		if numExpected != op.NumResults() {
			return p.errorAt(startTok, "operation defines %d results but was provided %d to bind", op.NumResults(), numExpected)
		}
		i := 0
		for _, g := range groups {
			name := string(p.text(g.tok))
			for k := 0; k < g.count; k++ {
				if err := p.addDefinition(g.tok, name, k, op.Result(i)); err != nil {
					return err
				}
				i++
			}
		}
	}
	st.results = st.results[:base]
	return nil
}

func (p *parser) parseGenericOperation(blk *ir.Block) (*ir.Operation, error) {
	nameTok := p.tok
	info := p.genericOpInfo(nameTok)
	if info.name == "" {
		return nil, p.errorAt(nameTok, "empty operation name is invalid")
	}
	if bytes.IndexByte([]byte(info.name), 0) >= 0 {
		return nil, p.errorAt(nameTok, "null character not allowed in operation name")
	}
	p.Next()
	if !info.dialectReg && !p.ctx.AllowUnregisteredDialects {
		return nil, p.errorf("operation being parsed with an unregistered dialect. If this is intended, " +
			"please use -allow-unregistered-dialect with the MLIR tool used")
	}
	st := p.st
	opBase, succBase := len(st.operands), len(st.succs)
	defer func() {
		st.operands = st.operands[:opBase]
		st.succs = st.succs[:succBase]
	}()

	if err := p.expect(LParen, "expected '(' to start operand list"); err != nil {
		return nil, err
	}
	if p.tok.Kind == PercentIdent {
		for {
			u, err := p.parseSSAUse(true)
			if err != nil {
				return nil, err
			}
			st.operands = append(st.operands, u)
			if !p.consumeIf(Comma) {
				break
			}
		}
	}
	if err := p.expect(RParen, "expected ')' to end operand list"); err != nil {
		return nil, err
	}
	if p.tok.Kind == LSquare {
		if info.def != nil && info.def.Traits&ir.TraitTerminator == 0 {
			return nil, p.errorf("successors in non-terminator")
		}
		if err := p.parseSuccessors(); err != nil {
			return nil, err
		}
	}
	var props ir.Attribute
	if p.consumeIf(Less) {
		var err error
		if props, err = p.parseAttribute(nil); err != nil {
			return nil, err
		}
		if err := p.expect(Greater, "expected '>' to close properties"); err != nil {
			return nil, err
		}
	}
	var regions []*ir.Region
	if p.consumeIf(LParen) {
		for {
			r := &ir.Region{}
			regions = append(regions, r)
			if err := p.parseRegion(r, nil); err != nil {
				return nil, err
			}
			if !p.consumeIf(Comma) {
				break
			}
		}
		if err := p.expect(RParen, "expected ')' to end region list"); err != nil {
			return nil, err
		}
	}
	var attrs *ir.DictAttr
	if p.tok.Kind == LBrace {
		var err error
		if attrs, err = p.parseAttrDict(); err != nil {
			return nil, err
		}
	}
	if err := p.expect(Colon, "expected ':' followed by operation type"); err != nil {
		return nil, err
	}
	typeTok := p.tok
	t, err := p.parseType()
	if err != nil {
		return nil, err
	}
	fn, ok := t.(*ir.FunctionType)
	if !ok {
		return nil, p.errorAt(typeTok, "expected function type")
	}
	uses := st.operands[opBase:]
	if len(fn.Inputs) != len(uses) {
		s := "s"
		if len(uses) == 1 {
			s = ""
		}
		return nil, p.errorAt(typeTok, "expected %d operand type%s but had %d", len(uses), s, len(fn.Inputs))
	}
	// NewOperation copies operands and successors, so one scratch slice and
	// one state serve every op (nothing is parsed between here and there).
	operands := st.operandVals[:0]
	for i, u := range uses {
		v, err := p.resolveUse(u, fn.Inputs[i])
		if err != nil {
			return nil, err
		}
		operands = append(operands, v)
	}
	st.operandVals = operands
	state := &st.opState
	*state = ir.OperationState{
		Name:        info.name,
		Operands:    operands,
		ResultTypes: fn.Results,
		Successors:  st.succs[succBase:],
		Props:       props,
		Regions:     regions,
	}
	if attrs != nil && info.def != nil {
		state.Attrs = attrs.Entries
	}
	if !p.is("loc") {
		state.Loc = p.tokLoc(nameTok)
	}
	op := ir.NewOperationIn(&p.st.arena, p.ctx, state)
	if attrs != nil && info.def == nil {
		op.SetAttrs(attrs)
	}
	blk.Append(op)
	if state.Loc == nil {
		if err := p.applyTrailingLoc(op, nil, nil); err != nil {
			return nil, err
		}
	}
	return op, nil
}

// parseSSAUse parses `%name` or `%name#N`.
func (p *parser) parseSSAUse(allowResultNumber bool) (useRef, error) {
	u := useRef{tok: p.tok}
	if err := p.expect(PercentIdent, "expected SSA operand"); err != nil {
		return u, err
	}
	if p.tok.Kind == HashIdent {
		if !allowResultNumber {
			return u, p.errorf("result number not allowed in argument list")
		}
		v, ok := parseUint(p.text(p.tok)[1:], 10)
		if !ok || v > 1<<32-1 {
			return u, p.errorf("invalid SSA value result number")
		}
		u.number = int(v)
		p.Next()
	}
	return u, nil
}

// parseSuccessors parses `[^bb1, ^bb2]` onto the successor stack.
func (p *parser) parseSuccessors() error {
	if err := p.expect(LSquare, "expected '['"); err != nil {
		return err
	}
	return p.parseCommaSeparatedListUntil(RSquare, false, func() error {
		b, err := p.parseSuccessor()
		p.st.succs = append(p.st.succs, b)
		return err
	})
}

func (p *parser) parseSuccessor() (*ir.Block, error) {
	if p.tok.Kind != CaretIdent {
		return nil, p.wrongToken("expected block name")
	}
	b := p.blockNamed(p.tok)
	p.Next()
	return b, nil
}

// parseRegion parses `{ blocks }` into r. entryArgs, when named, become the
// entry block's arguments (custom op syntax such as func.func).
func (p *parser) parseRegion(r *ir.Region, entryArgs []ir.Argument) error {
	if err := p.enter(); err != nil {
		return err
	}
	defer p.leave()
	if err := p.expect(LBrace, "expected '{' to begin a region"); err != nil {
		return err
	}
	if len(entryArgs) > 0 || p.tok.Kind != RBrace {
		if err := p.parseRegionBody(r, entryArgs); err != nil {
			return err
		}
	}
	p.Next() // the '}'
	return nil
}

func (p *parser) parseRegionBody(r *ir.Region, entryArgs []ir.Argument) error {
	p.pushScope()
	entry := &ir.Block{}
	if len(entryArgs) > 0 && entryArgs[0].Name.Name != "" {
		if p.tok.Kind == CaretIdent {
			return p.errorf("invalid block name in region with named arguments")
		}
		for _, a := range entryArgs {
			tok := p.tokOfLoc(a.Name.Loc)
			if prev, ok := p.referenceTok(a.Name.Name, a.Name.Number); ok {
				d := p.errorAt(tok, "region entry argument '%s' is already in use", a.Name.Name)
				d.AttachNote(p.tokLoc(prev), "previously referenced here")
				return d
			}
			v := entry.AddArgumentIn(&p.st.arena, a.Type, nil)
			if a.Loc != nil {
				p.setArgLoc(v, a.Loc)
			} else {
				v.SetLoc(p.tokLoc(tok))
			}
			if err := p.addDefinition(tok, a.Name.Name, a.Name.Number, v); err != nil {
				return err
			}
		}
	}
	b, err := p.parseBlock(entry)
	if err != nil {
		return err
	}
	if len(entryArgs) > 0 && b.NumArguments() > len(entryArgs) {
		return p.errorf("entry block arguments were already defined")
	}
	r.AppendBlock(b)
	for p.tok.Kind != RBrace {
		b, err := p.parseBlock(nil)
		if err != nil {
			return err
		}
		r.AppendBlock(b)
	}
	return p.popScope()
}

// parseBlock parses a block: the entry block (which may be unlabelled) when
// entry is non-nil, else a labelled one.
func (p *parser) parseBlock(entry *ir.Block) (*ir.Block, error) {
	if entry != nil && p.tok.Kind != CaretIdent {
		return entry, p.parseBlockBody(entry)
	}
	nameTok := p.tok
	if err := p.expect(CaretIdent, "expected block name"); err != nil {
		return nil, err
	}
	b, err := p.defineBlock(nameTok, entry)
	if err != nil {
		return nil, err
	}
	if p.tok.Kind == LParen {
		if err := p.parseBlockArgList(b); err != nil {
			return nil, err
		}
	}
	if err := p.expect(Colon, "expected ':' after block name"); err != nil {
		return nil, err
	}
	return b, p.parseBlockBody(b)
}

func (p *parser) parseBlockBody(b *ir.Block) error {
	for p.tok.Kind != CaretIdent && p.tok.Kind != RBrace {
		if err := p.parseOperation(b); err != nil {
			return err
		}
	}
	return nil
}

// parseBlockArgList parses `(%a: type loc(...), ...)`.
func (p *parser) parseBlockArgList(b *ir.Block) error {
	existing := b.NumArguments() != 0
	next := 0
	return p.parseCommaSeparatedList(LParen, RParen, "", func() error {
		u, err := p.parseSSAUse(true)
		if err != nil {
			return err
		}
		if err := p.expect(Colon, "expected ':' and type for SSA operand"); err != nil {
			return err
		}
		t, err := p.parseType()
		if err != nil {
			return err
		}
		var v *ir.Value
		if existing {
			if next >= b.NumArguments() {
				return p.errorf("too many arguments specified in argument list")
			}
			v = b.Argument(next)
			next++
			if v.Type() != t {
				return p.errorf("argument and block argument type mismatch")
			}
		} else {
			v = b.AddArgumentIn(&p.st.arena, t, nil)
		}
		if err := p.applyTrailingLoc(nil, v, func() ir.Location { return p.tokLoc(u.tok) }); err != nil {
			return err
		}
		return p.addDefinition(u.tok, string(p.text(u.tok)), u.number, v)
	})
}

// tokOfLoc rebuilds a token position from a location made by this parser
// (custom op operands carry their position as a location).
func (p *parser) tokOfLoc(l ir.Location) Token {
	if f, ok := l.(*ir.FileLineColLoc); ok {
		t := Token{Kind: PercentIdent, Start: -1, Line: f.Line - p.lineOffset, Col: f.Col}
		if t.Line == 1 {
			t.Col -= p.colOffset
		}
		return t
	}
	return p.tok
}
