package parser

import (
	"errors"
	"fmt"
	"strings"
	"unsafe"

	"github.com/ipuir/ipuir/asmformat"
	"github.com/ipuir/ipuir/internal/nearest"
	"github.com/ipuir/ipuir/ir"
)

// Custom (pretty) op forms. The op name is resolved as MLIR resolves it:
// as written, else prefixed with the default dialect of the enclosing ops
// (builtin at the top level; an op's OpDef.DefaultDialect for its regions).
// The op's OpDef.Parse hook or, for a declarative AssemblyFormat, the
// shared engine in package asmformat reads the rest through opAsmParser,
// this package's ir.OpAsmParser. As in MLIR, errors the custom parser
// reports itself (Errorf, keywords, integers, strings, symbol names,
// operand counts) are prefixed `custom op 'name' `; errors from the
// builtin type and attribute parsers are not.

func (p *parser) parseCustomOperation(blk *ir.Block) (*ir.Operation, error) {
	nameTok := p.tok
	written := string(p.text(nameTok))
	p.Next()
	def, err := p.resolveCustomOp(nameTok, written)
	if err != nil {
		return nil, err
	}
	var hook func(ir.OpAsmParser, *ir.OperationState) error
	switch {
	case def.Parse != nil:
		hook = def.Parse
	case def.AssemblyFormat != "":
		hook = func(ap ir.OpAsmParser, st *ir.OperationState) error { return asmformat.Parse(def, ap, st) }
	default:
		return nil, p.errorAt(nameTok, "custom op '%s' has no custom assembly form", written)
	}
	dd := p.st.defaultDialects
	next := dd[len(dd)-1]
	if def.DefaultDialect != "" {
		next = def.DefaultDialect
	}
	p.st.defaultDialects = append(dd, next)
	ap := &opAsmParser{p: p, def: def, nameTok: nameTok}
	st := &ir.OperationState{Name: def.Name}
	err = hook(ap, st)
	p.st.defaultDialects = p.st.defaultDialects[:len(p.st.defaultDialects)-1]
	if err != nil {
		return nil, p.customError(ap, err)
	}
	if dup, ok := ir.FindDuplicateName(st.Attrs); ok {
		return nil, p.errorAt(nameTok, "custom op '%s' attribute '%s' occurs more than once in the attribute list", def.Name, dup)
	}
	hasLoc := p.is("loc")
	if !hasLoc {
		st.Loc = p.tokLoc(nameTok)
	}
	op := ir.NewOperationIn(&p.st.arena, p.ctx, st)
	blk.Append(op)
	if hasLoc {
		if err := p.applyTrailingLoc(op, nil, func() ir.Location { return p.tokLoc(nameTok) }); err != nil {
			return nil, err
		}
	}
	return op, nil
}

// customError turns what a custom parser returned into a diagnostic.
func (p *parser) customError(ap *opAsmParser, err error) error {
	var d *ir.Diagnostic
	if errors.As(err, &d) {
		return d
	}
	return ap.errorf("%s", err.Error())
}

// resolveCustomOp finds the definition of a custom op name.
func (p *parser) resolveCustomOp(nameTok Token, written string) (*ir.OpDef, error) {
	if def := p.ctx.OpDef(written); def != nil {
		return def, nil
	}
	full, dialect := written, ir.DialectNamespace(written)
	if !strings.Contains(written, ".") {
		dialect = p.st.defaultDialects[len(p.st.defaultDialects)-1]
		full = dialect + "." + written
		if def := p.ctx.OpDef(full); def != nil {
			return def, nil
		}
	}
	tried := ""
	if full != written {
		tried = fmt.Sprintf(" (tried '%s' as well)", full)
	}
	if p.ctx.Dialect(dialect) == nil {
		d := p.errorAt(nameTok, "Dialect `%s' not found for custom op '%s' %s", dialect, written, tried)
		var names []string
		for _, r := range p.ctx.Dialects() {
			names = append(names, r.Name)
		}
		d.AttachNote(nil, "Registered dialects: %s ; for more info on dialect registration see "+
			"https://mlir.llvm.org/getting_started/Faq/#registered-loaded-dependent-whats-up-with-dialects-management",
			strings.Join(names, ", "))
		return nil, d
	}
	d := p.errorAt(nameTok, "custom op '%s' is unknown%s", written, tried)
	// A typo of an op of the dialect: its name nearest the one written,
	// compared without the dialect's prefix, which every candidate shares.
	var names []string
	for _, def := range p.ctx.Dialect(dialect).Ops {
		names = append(names, strings.TrimPrefix(def.Name, dialect+"."))
	}
	if n := nearest.Name(strings.TrimPrefix(full, dialect+"."), names); n != "" {
		d.AttachNote(nil, "did you mean '%s.%s'?", dialect, n)
	}
	return nil, d
}

// opAsmParser is the ir.OpAsmParser handed to custom op parsers.
type opAsmParser struct {
	p       *parser
	def     *ir.OpDef
	nameTok Token
}

var _ ir.OpAsmParser = (*opAsmParser)(nil)

// errorf reports a `custom op 'name' ...` error at the current token.
func (c *opAsmParser) errorf(format string, args ...any) *ir.Diagnostic {
	return c.p.errorf("custom op '%s' %s", c.def.Name, fmt.Sprintf(format, args...))
}

func (c *opAsmParser) errorAt(t Token, format string, args ...any) *ir.Diagnostic {
	return c.p.errorAt(t, "custom op '%s' %s", c.def.Name, fmt.Sprintf(format, args...))
}

func (c *opAsmParser) Context() *ir.Context { return c.p.ctx }

func (c *opAsmParser) Errorf(format string, args ...any) error { return c.errorf(format, args...) }

func (c *opAsmParser) CurrentLoc() ir.Location { return c.p.tokLoc(c.p.tok) }

// operandOf converts a parsed use. Its Loc records the use's position for
// diagnostics; it is a plain, un-uniqued value, made without the cost of
// uniquing one location per operand.
func (c *opAsmParser) operandOf(u useRef) ir.UnresolvedOperand {
	p := c.p
	return ir.UnresolvedOperand{
		Name:   string(p.text(u.tok)),
		Number: u.number,
		Loc:    &ir.FileLineColLoc{File: p.file, Line: u.tok.Line + p.lineOffset, Col: p.column(u.tok)},
	}
}

func (c *opAsmParser) ParseOperand() (ir.UnresolvedOperand, error) {
	u, err := c.p.parseSSAUse(true)
	if err != nil {
		return ir.UnresolvedOperand{}, err
	}
	return c.operandOf(u), nil
}

func (c *opAsmParser) ParseOptionalOperand() (ir.UnresolvedOperand, bool, error) {
	if c.p.tok.Kind != PercentIdent {
		return ir.UnresolvedOperand{}, false, nil
	}
	u, err := c.ParseOperand()
	return u, err == nil, err
}

func (c *opAsmParser) ParseOperandList() ([]ir.UnresolvedOperand, error) {
	var out []ir.UnresolvedOperand
	if c.p.tok.Kind != PercentIdent {
		return nil, nil
	}
	for {
		u, err := c.ParseOperand()
		if err != nil {
			return nil, err
		}
		out = append(out, u)
		if !c.p.consumeIf(Comma) {
			return out, nil
		}
	}
}

func (c *opAsmParser) ResolveOperands(ops []ir.UnresolvedOperand, types []ir.Type, st *ir.OperationState) error {
	p := c.p
	if len(ops) != len(types) {
		at := p.tok
		if len(ops) > 0 {
			at = p.tokOfLoc(ops[0].Loc)
		}
		return c.errorAt(at, "%d operands present, but expected %d", len(ops), len(types))
	}
	for i, o := range ops {
		v, err := p.resolveUseNamed(unsafe.Slice(unsafe.StringData(o.Name), len(o.Name)),
			useRef{tok: p.tokOfLoc(o.Loc), number: o.Number}, types[i])
		if err != nil {
			return err
		}
		st.Operands = append(st.Operands, v)
	}
	return nil
}

func (c *opAsmParser) ParseType() (ir.Type, error) { return c.p.parseType() }

func (c *opAsmParser) ParseColonType() (ir.Type, error) {
	if err := c.p.expect(Colon, "expected ':'"); err != nil {
		return nil, err
	}
	return c.p.parseType()
}

func (c *opAsmParser) ParseColonTypeList() ([]ir.Type, error) {
	if err := c.p.expect(Colon, "expected ':'"); err != nil {
		return nil, err
	}
	return c.p.parseTypeListNoParens()
}

func (c *opAsmParser) ParseTypeList() ([]ir.Type, error) { return c.p.parseTypeListNoParens() }

func (c *opAsmParser) ParseArrowTypeList() ([]ir.Type, error) {
	if err := c.p.expect(Arrow, "expected '->'"); err != nil {
		return nil, err
	}
	return c.p.parseFunctionResultTypes()
}

func (c *opAsmParser) ParseOptionalArrowTypeList() ([]ir.Type, bool, error) {
	if c.p.tok.Kind != Arrow {
		return nil, false, nil
	}
	ts, err := c.ParseArrowTypeList()
	return ts, err == nil, err
}

func (c *opAsmParser) ParseFunctionResultTypes() ([]ir.Type, error) {
	return c.p.parseFunctionResultTypes()
}

func (c *opAsmParser) ParseAttribute(t ir.Type) (ir.Attribute, error) { return c.p.parseAttribute(t) }

func (c *opAsmParser) ParseOptionalAttrDict(st *ir.OperationState) error {
	if c.p.tok.Kind != LBrace {
		return nil
	}
	d, err := c.p.parseAttrDict()
	if err != nil {
		return err
	}
	st.Attrs = append(st.Attrs, d.Entries...)
	return nil
}

func (c *opAsmParser) ParseOptionalAttrDictWithKeyword(st *ir.OperationState) error {
	if !c.p.is("attributes") {
		return nil
	}
	c.p.Next()
	d, err := c.p.parseAttrDict()
	if err != nil {
		return err
	}
	st.Attrs = append(st.Attrs, d.Entries...)
	return nil
}

func (c *opAsmParser) ParseSymbolName() (string, error) {
	if c.p.tok.Kind != AtIdent {
		return "", c.errorf("expected valid '@'-identifier for symbol name")
	}
	s := c.p.symbolName(c.p.tok)
	c.p.Next()
	return s, nil
}

func (c *opAsmParser) ParseOptionalSymbolName() (string, bool, error) {
	if c.p.tok.Kind != AtIdent {
		return "", false, nil
	}
	s, err := c.ParseSymbolName()
	return s, err == nil, err
}

func (c *opAsmParser) ParseKeyword(kw string) error {
	if !c.p.is(kw) {
		return c.errorAt(c.p.tok, "expected '%s'", kw)
	}
	c.p.Next()
	return nil
}

func (c *opAsmParser) ParseOptionalKeyword(kw string) bool {
	if !c.p.is(kw) {
		return false
	}
	c.p.Next()
	return true
}

func (c *opAsmParser) ParseKeywordAny() (string, error) {
	kw, ok := c.ParseOptionalKeywordAny()
	if !ok {
		return "", c.errorAt(c.p.tok, "expected valid keyword")
	}
	return kw, nil
}

func (c *opAsmParser) ParseOptionalKeywordAny() (string, bool) {
	if c.p.tok.Kind != BareIdent {
		return "", false
	}
	kw := c.p.identValue(c.p.tok)
	c.p.Next()
	return kw, true
}

func (c *opAsmParser) ParsePunct(s string) error {
	k, ok := punctKinds[s]
	if !ok {
		return c.errorf("expects unknown punctuation '%s' (a bug in its parser)", s)
	}
	return c.p.expect(k, "expected '"+s+"'")
}

func (c *opAsmParser) ParseOptionalPunct(s string) bool {
	k, ok := punctKinds[s]
	return ok && c.p.consumeIf(k)
}

func (c *opAsmParser) ParseInteger() (int64, error) {
	p := c.p
	at := p.tok
	switch {
	case p.is("true"):
		p.Next()
		return 1, nil
	case p.is("false"):
		p.Next()
		return 0, nil
	}
	if p.tok.Kind != Integer && p.tok.Kind != Minus {
		return 0, c.errorAt(at, "expected integer value")
	}
	neg := p.consumeIf(Minus)
	if p.tok.Kind != Integer {
		return 0, p.wrongToken("expected integer value")
	}
	if literalWiderThan(p.text(p.tok), 64) {
		p.Next()
		return 0, c.errorAt(at, "integer value too large")
	}
	v := intLiteralValue(p.text(p.tok))
	p.Next()
	if v == nil {
		return 0, c.errorAt(at, "integer value too large")
	}
	if neg {
		v.Neg(v)
	}
	if !v.IsInt64() {
		return 0, c.errorAt(at, "integer value too large")
	}
	return v.Int64(), nil
}

func (c *opAsmParser) ParseString() (string, error) {
	if c.p.tok.Kind != String {
		return "", c.errorAt(c.p.tok, "expected string")
	}
	s := c.p.stringValue(c.p.tok)
	c.p.Next()
	return s, nil
}

func (c *opAsmParser) ParseArgument(allowType, allowAttrs bool) (ir.Argument, error) {
	var a ir.Argument
	u, err := c.p.parseSSAUse(false)
	if err != nil {
		return a, err
	}
	a.Name = c.operandOf(u)
	if allowType {
		if a.Type, err = c.ParseColonType(); err != nil {
			return a, err
		}
	}
	if allowAttrs && c.p.tok.Kind == LBrace {
		if a.Attrs, err = c.p.parseAttrDict(); err != nil {
			return a, err
		}
		if a.Attrs.Len() == 0 {
			a.Attrs = nil
		}
	}
	l, _, err := c.ParseOptionalLocationSpecifier()
	a.Loc = l
	return a, err
}

func (c *opAsmParser) ParseOptionalArgument(allowType, allowAttrs bool) (ir.Argument, bool, error) {
	if c.p.tok.Kind != PercentIdent {
		return ir.Argument{}, false, nil
	}
	a, err := c.ParseArgument(allowType, allowAttrs)
	return a, err == nil, err
}

func (c *opAsmParser) ParseRegion(r *ir.Region, args []ir.Argument) error {
	return c.p.parseRegion(r, args)
}

func (c *opAsmParser) ParseOptionalRegion(r *ir.Region, args []ir.Argument) (bool, error) {
	if c.p.tok.Kind != LBrace {
		return false, nil
	}
	err := c.p.parseRegion(r, args)
	return err == nil, err
}

func (c *opAsmParser) ParseSuccessor() (*ir.Block, error) { return c.p.parseSuccessor() }

func (c *opAsmParser) ParseOptionalLocationSpecifier() (ir.Location, bool, error) {
	loc, pending, ok, err := c.p.parseTrailingLoc()
	if err != nil || !ok {
		return nil, false, err
	}
	if loc == nil {
		loc = c.p.markerLoc(pending)
	}
	return loc, true, nil
}
