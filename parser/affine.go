package parser

import (
	"math"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/ipuir/ipuir/ir"
)

// Affine maps and integer sets (`affine_map<(d0, d1)[s0] -> (d0 + s0)>`,
// `affine_set<(d0) : (d0 - 1 >= 0)>`) are our own small expression
// language inside an attribute, rare in large files and cached by text
// when they repeat, so participle reads them: the grammar below is the
// precedence ladder of MLIR's AffineParser (+ - below * floordiv ceildiv
// mod, unary minus binding tightest, all left-associative). Building the
// expression checks what the grammar cannot: declared identifiers and
// MLIR's affinity rules, with MLIR's messages at the offending token.

type affineDecl struct {
	Dims    []*affineName   `parser:"'(' ( @@ ( ',' @@ )* )? ')'"`
	Symbols []*affineName   `parser:"( '[' ( @@ ( ',' @@ )* )? ']' )?"`
	Map     *affineResults  `parser:"( '->' @@"`
	Set     *affineSetConds `parser:"| ':' @@ )"`
}

type affineName struct {
	Pos  lexer.Position
	Name string `parser:"@Ident"`
}

type affineResults struct {
	Exprs []*affineSum `parser:"'(' ( @@ ( ',' @@ )* )? ')'"`
}

type affineSetConds struct {
	Conds []*affineConstraint `parser:"'(' ( @@ ( ',' @@ )* )? ')'"`
}

type affineConstraint struct {
	LHS *affineSum `parser:"@@"`
	GE  bool       `parser:"( @('>' '=')"`
	LE  bool       `parser:"| @('<' '=')"`
	EQ  bool       `parser:"| @('=' '=') )"`
	RHS *affineSum `parser:"@@"`
}

type affineSum struct {
	First *affineProduct `parser:"@@"`
	Rest  []*affineTerm  `parser:"@@*"`
}

type affineTerm struct {
	Op   string         `parser:"@('+' | '-')"`
	Term *affineProduct `parser:"@@"`
}

type affineProduct struct {
	First *affineUnary    `parser:"@@"`
	Rest  []*affineFactor `parser:"@@*"`
}

type affineFactor struct {
	Pos     lexer.Position
	Op      string       `parser:"@('*' | 'floordiv' | 'ceildiv' | 'mod')"`
	Operand *affineUnary `parser:"@@"`
}

// affineUnary is a primary with the unary minuses before it, read as a
// run rather than recursively, so that a long run costs no stack.
type affineUnary struct {
	Negs  []string `parser:"@'-'*"`
	Pos   lexer.Position
	Paren *affineSum `parser:"( '(' @@ ')'"`
	Int   string     `parser:"| @Int"`
	Ident string     `parser:"| @Ident )"`
}

var affineGrammar = participle.MustBuild[affineDecl](
	participle.Lexer(tokenDefinition{}),
	participle.UseLookahead(2),
)

func (p *parser) parseAffineMapAttr() (ir.Attribute, error) {
	p.Next()
	if err := p.expect(Less, "expected '<' in affine map"); err != nil {
		return nil, err
	}
	decl, names, err := p.parseAffineDecl("affine map")
	if err != nil {
		return nil, err
	}
	res := decl.Map
	if res == nil {
		return nil, p.errorf("expected '->' in affine map")
	}
	m := &ir.AffineMap{NumDims: len(decl.Dims), NumSymbols: len(decl.Symbols)}
	for _, e := range res.Exprs {
		x, err := p.buildAffineSum(e, names)
		if err != nil {
			return nil, err
		}
		m.Results = append(m.Results, x)
	}
	if err := p.expect(Greater, "expected '>' in affine map"); err != nil {
		return nil, err
	}
	return p.ctx.AffineMapAttr(m), nil
}

func (p *parser) parseIntegerSetAttr() (ir.Attribute, error) {
	p.Next()
	if err := p.expect(Less, "expected '<' in integer set"); err != nil {
		return nil, err
	}
	decl, names, err := p.parseAffineDecl("integer set")
	if err != nil {
		return nil, err
	}
	if decl.Set == nil {
		return nil, p.errorf("expected ':' in integer set")
	}
	s := &ir.IntegerSet{NumDims: len(decl.Dims), NumSymbols: len(decl.Symbols)}
	for _, c := range decl.Set.Conds {
		l, err := p.buildAffineSum(c.LHS, names)
		if err != nil {
			return nil, err
		}
		r, err := p.buildAffineSum(c.RHS, names)
		if err != nil {
			return nil, err
		}
		switch {
		case c.GE:
			s.Constraints = append(s.Constraints, ir.AffineConstraint{Expr: ir.Sub(l, r)})
		case c.LE:
			s.Constraints = append(s.Constraints, ir.AffineConstraint{Expr: ir.Sub(r, l)})
		default:
			s.Constraints = append(s.Constraints, ir.AffineConstraint{Expr: ir.Sub(l, r), Eq: true})
		}
	}
	if err := p.expect(Greater, "expected '>' in integer set"); err != nil {
		return nil, err
	}
	return p.ctx.IntegerSetAttr(s), nil
}

// maxAffineTokens bounds the body of one affine map or set. Expressions
// are trees that printing, comparing and simplifying walk recursively, and
// a sum of n terms is n levels deep; the bound keeps those walks within
// the stack (and far above any map a compiler writes).
const maxAffineTokens = 1 << 18

// parseAffineDecl reads the body up to the closing `>` with participle and
// returns it with the dimension and symbol names in scope.
func (p *parser) parseAffineDecl(what string) (*affineDecl, map[string]*ir.AffineExpr, error) {
	toks, err := p.collectUntil(Greater, maxAffineTokens, what)
	if err != nil {
		return nil, nil, err
	}
	decl, err := affineGrammar.ParseFromLexer(toks)
	if err != nil {
		return nil, nil, p.participleError(err)
	}
	names := map[string]*ir.AffineExpr{}
	for i, d := range decl.Dims {
		if _, dup := names[d.Name]; dup {
			return nil, nil, p.locErr(d.Pos.Line, d.Pos.Column, "redefinition of identifier '"+d.Name+"'")
		}
		names[d.Name] = ir.Dim(i)
	}
	for i, s := range decl.Symbols {
		if _, dup := names[s.Name]; dup {
			return nil, nil, p.locErr(s.Pos.Line, s.Pos.Column, "redefinition of identifier '"+s.Name+"'")
		}
		names[s.Name] = ir.Sym(i)
	}
	return decl, names, nil
}

func (p *parser) buildAffineSum(s *affineSum, names map[string]*ir.AffineExpr) (*ir.AffineExpr, error) {
	x, err := p.buildAffineProduct(s.First, names)
	if err != nil {
		return nil, err
	}
	for _, t := range s.Rest {
		y, err := p.buildAffineProduct(t.Term, names)
		if err != nil {
			return nil, err
		}
		if t.Op == "+" {
			x = ir.Add(x, y)
		} else {
			x = ir.Sub(x, y)
		}
	}
	return x, nil
}

func (p *parser) buildAffineProduct(s *affineProduct, names map[string]*ir.AffineExpr) (*ir.AffineExpr, error) {
	x, err := p.buildAffineUnary(s.First, names)
	if err != nil {
		return nil, err
	}
	for _, f := range s.Rest {
		y, err := p.buildAffineUnary(f.Operand, names)
		if err != nil {
			return nil, err
		}
		if !y.IsSymbolic() && (f.Op != "*" || !x.IsSymbolic()) {
			msg := "non-affine expression: at least one of the multiply operands has to be either a constant or symbolic"
			if f.Op != "*" {
				msg = "non-affine expression: right operand of " + f.Op + " has to be either a constant or symbolic"
			}
			return nil, p.locErr(f.Pos.Line, f.Pos.Column, msg)
		}
		switch f.Op {
		case "*":
			x = ir.Mul(x, y)
		case "floordiv":
			x = ir.FloorDiv(x, y)
		case "ceildiv":
			x = ir.CeilDiv(x, y)
		default:
			x = ir.Mod(x, y)
		}
	}
	return x, nil
}

func (p *parser) buildAffineUnary(u *affineUnary, names map[string]*ir.AffineExpr) (*ir.AffineExpr, error) {
	x, err := p.buildAffinePrimary(u, names)
	if err != nil {
		return nil, err
	}
	// -(-x) simplifies to x, so only the parity of the run matters.
	if len(u.Negs)%2 == 1 {
		x = ir.Neg(x)
	}
	return x, nil
}

func (p *parser) buildAffinePrimary(u *affineUnary, names map[string]*ir.AffineExpr) (*ir.AffineExpr, error) {
	switch {
	case u.Paren != nil:
		return p.buildAffineSum(u.Paren, names)
	case u.Ident != "":
		x, ok := names[u.Ident]
		if !ok {
			return nil, p.locErr(u.Pos.Line, u.Pos.Column, "use of undeclared identifier")
		}
		return x, nil
	}
	v, ok := uint64Token([]byte(u.Int))
	// 2^63 is rejected too, as mlir-opt-19 does, although it prints
	// INT64_MIN as `- -9223372036854775808` (it cannot read that back).
	if !ok || v > math.MaxInt64 {
		return nil, p.locErr(u.Pos.Line, u.Pos.Column, "constant too large for index")
	}
	return ir.Const(int64(v)), nil
}
