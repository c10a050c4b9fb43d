package ir

import "fmt"

// AffineExprKind names the node kinds of affine expressions.
type AffineExprKind uint8

const (
	AffineDim AffineExprKind = iota
	AffineSymbol
	AffineConst
	AffineAdd
	AffineMul
	AffineMod
	AffineFloorDiv
	AffineCeilDiv
)

// AffineExpr is a node of an affine expression tree. Expressions are
// plain values, simplified when built by the constructors below (as MLIR
// simplifies them), and compared structurally with Equal.
type AffineExpr struct {
	Kind     AffineExprKind
	Pos      int   // dim or symbol position
	Val      int64 // constant value
	LHS, RHS *AffineExpr
}

func Dim(i int) *AffineExpr         { return &AffineExpr{Kind: AffineDim, Pos: i} }
func Sym(i int) *AffineExpr         { return &AffineExpr{Kind: AffineSymbol, Pos: i} }
func Const(v int64) *AffineExpr     { return &AffineExpr{Kind: AffineConst, Val: v} }
func (e *AffineExpr) isConst() bool { return e.Kind == AffineConst }

// IsSymbolic reports whether e uses no dims (symbols and constants only).
func (e *AffineExpr) IsSymbolic() bool {
	switch e.Kind {
	case AffineDim:
		return false
	case AffineSymbol, AffineConst:
		return true
	}
	return e.LHS.IsSymbolic() && e.RHS.IsSymbolic()
}

// IsPureAffine reports whether e is affine in the strict sense: products
// and divisors are constants.
func (e *AffineExpr) IsPureAffine() bool {
	switch e.Kind {
	case AffineDim, AffineSymbol, AffineConst:
		return true
	case AffineAdd:
		return e.LHS.IsPureAffine() && e.RHS.IsPureAffine()
	case AffineMul:
		return e.LHS.IsPureAffine() && e.RHS.IsPureAffine() && (e.LHS.isConst() || e.RHS.isConst())
	}
	return e.LHS.IsPureAffine() && e.RHS.isConst()
}

// Equal compares expressions structurally.
func (e *AffineExpr) Equal(o *AffineExpr) bool {
	if e.Kind != o.Kind {
		return false
	}
	switch e.Kind {
	case AffineDim, AffineSymbol:
		return e.Pos == o.Pos
	case AffineConst:
		return e.Val == o.Val
	}
	return e.LHS.Equal(o.LHS) && e.RHS.Equal(o.RHS)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func ceilDiv(a, b int64) int64 { return -floorDiv(-a, b) }

func mod(a, b int64) int64 {
	m := a % b
	if m < 0 {
		if b < 0 {
			m -= b
		} else {
			m += b
		}
	}
	return m
}

// Add returns l + r, simplified.
func Add(l, r *AffineExpr) *AffineExpr {
	if l.isConst() && r.isConst() {
		return Const(l.Val + r.Val)
	}
	// Constants go right; a symbolic operand goes right of a dim one.
	if l.isConst() || (l.IsSymbolic() && !r.IsSymbolic()) {
		l, r = r, l
	}
	if r.isConst() && r.Val == 0 {
		return l
	}
	// (x + c1) + c2 -> x + (c1 + c2)
	if r.isConst() && l.Kind == AffineAdd && l.RHS.isConst() {
		return Add(l.LHS, Const(l.RHS.Val+r.Val))
	}
	return &AffineExpr{Kind: AffineAdd, LHS: l, RHS: r}
}

// Mul returns l * r, simplified.
func Mul(l, r *AffineExpr) *AffineExpr {
	if l.isConst() && r.isConst() {
		return Const(l.Val * r.Val)
	}
	if l.isConst() || (l.IsSymbolic() && !r.IsSymbolic()) {
		l, r = r, l
	}
	if r.isConst() {
		switch r.Val {
		case 1:
			return l
		case 0:
			return r
		}
		// (x * c1) * c2 -> x * (c1 * c2)
		if l.Kind == AffineMul && l.RHS.isConst() {
			return Mul(l.LHS, Const(l.RHS.Val*r.Val))
		}
	}
	return &AffineExpr{Kind: AffineMul, LHS: l, RHS: r}
}

// Neg returns -e (e * -1).
func Neg(e *AffineExpr) *AffineExpr { return Mul(e, Const(-1)) }

// Sub returns l - r.
func Sub(l, r *AffineExpr) *AffineExpr { return Add(l, Neg(r)) }

func divLike(kind AffineExprKind, l, r *AffineExpr) *AffineExpr {
	if l.isConst() && r.isConst() && r.Val != 0 {
		switch kind {
		case AffineMod:
			return Const(mod(l.Val, r.Val))
		case AffineFloorDiv:
			return Const(floorDiv(l.Val, r.Val))
		case AffineCeilDiv:
			return Const(ceilDiv(l.Val, r.Val))
		}
	}
	if r.isConst() && r.Val == 1 {
		if kind == AffineMod {
			return Const(0)
		}
		return l
	}
	return &AffineExpr{Kind: kind, LHS: l, RHS: r}
}

func Mod(l, r *AffineExpr) *AffineExpr      { return divLike(AffineMod, l, r) }
func FloorDiv(l, r *AffineExpr) *AffineExpr { return divLike(AffineFloorDiv, l, r) }
func CeilDiv(l, r *AffineExpr) *AffineExpr  { return divLike(AffineCeilDiv, l, r) }

// Print writes e as MLIR does: `d0 + s0 * 2`, `d0 - 1`, `d0 floordiv 4`.
func (e *AffineExpr) Print(p *AsmPrinter) { e.print(p, false) }

func (e *AffineExpr) String() string {
	var p AsmPrinter
	e.Print(&p)
	return p.String()
}

func (e *AffineExpr) print(p *AsmPrinter, parens bool) {
	switch e.Kind {
	case AffineDim:
		p.WriteByte('d')
		p.WriteInt(int64(e.Pos))
		return
	case AffineSymbol:
		p.WriteByte('s')
		p.WriteInt(int64(e.Pos))
		return
	case AffineConst:
		p.WriteInt(e.Val)
		return
	}
	if parens {
		p.WriteByte('(')
	}
	switch e.Kind {
	case AffineAdd:
		e.LHS.print(p, false)
		// x + y * -1 prints as x - y; x + -c as x - c.
		if e.RHS.Kind == AffineMul && e.RHS.RHS.isConst() && e.RHS.RHS.Val == -1 {
			p.WriteString(" - ")
			e.RHS.LHS.print(p, e.RHS.LHS.Kind == AffineAdd)
		} else if e.RHS.isConst() && e.RHS.Val < 0 {
			p.WriteString(" - ")
			p.WriteUint(uint64(-e.RHS.Val))
		} else {
			p.WriteString(" + ")
			e.RHS.print(p, e.RHS.Kind == AffineAdd)
		}
	case AffineMul:
		if e.RHS.isConst() && e.RHS.Val == -1 {
			p.WriteByte('-')
			e.LHS.print(p, e.LHS.Kind >= AffineAdd)
		} else {
			e.LHS.print(p, e.LHS.Kind == AffineAdd)
			p.WriteString(" * ")
			e.RHS.print(p, e.RHS.Kind >= AffineAdd)
		}
	default:
		e.LHS.print(p, e.LHS.Kind == AffineAdd)
		p.WriteString([...]string{AffineMod: " mod ", AffineFloorDiv: " floordiv ", AffineCeilDiv: " ceildiv "}[e.Kind])
		e.RHS.print(p, e.RHS.Kind >= AffineAdd)
	}
	if parens {
		p.WriteByte(')')
	}
}

// AffineMap is `(d0, d1)[s0] -> (exprs)`.
type AffineMap struct {
	NumDims, NumSymbols int
	Results             []*AffineExpr
}

func (m *AffineMap) printHeader(p *AsmPrinter) {
	p.WriteByte('(')
	for i := 0; i < m.NumDims; i++ {
		if i > 0 {
			p.WriteString(", ")
		}
		p.WriteString(fmt.Sprintf("d%d", i))
	}
	p.WriteByte(')')
	if m.NumSymbols > 0 {
		p.WriteByte('[')
		for i := 0; i < m.NumSymbols; i++ {
			if i > 0 {
				p.WriteString(", ")
			}
			p.WriteString(fmt.Sprintf("s%d", i))
		}
		p.WriteByte(']')
	}
}

// Print writes the map body without the `affine_map<>` wrapper.
func (m *AffineMap) Print(p *AsmPrinter) {
	m.printHeader(p)
	p.WriteString(" -> (")
	for i, r := range m.Results {
		if i > 0 {
			p.WriteString(", ")
		}
		r.Print(p)
	}
	p.WriteByte(')')
}

// IsIdentity reports whether m is (d0..dn) -> (d0..dn).
func (m *AffineMap) IsIdentity() bool {
	if m.NumSymbols != 0 || len(m.Results) != m.NumDims {
		return false
	}
	for i, r := range m.Results {
		if r.Kind != AffineDim || r.Pos != i {
			return false
		}
	}
	return true
}

// AffineMapAttr is `affine_map<...>`.
type AffineMapAttr struct{ Map *AffineMap }

func (a *AffineMapAttr) Print(p *AsmPrinter) {
	p.WriteString("affine_map<")
	a.Map.Print(p)
	p.WriteByte('>')
}

func (c *Context) AffineMapAttr(m *AffineMap) *AffineMapAttr {
	return UniqueAttr(c, &AffineMapAttr{Map: m})
}

// AffineConstraint is `expr >= 0` or `expr == 0` of an integer set.
type AffineConstraint struct {
	Expr *AffineExpr
	Eq   bool
}

// IntegerSet is `(d0)[s0] : (constraints)`.
type IntegerSet struct {
	NumDims, NumSymbols int
	Constraints         []AffineConstraint
}

func (s *IntegerSet) Print(p *AsmPrinter) {
	(&AffineMap{NumDims: s.NumDims, NumSymbols: s.NumSymbols}).printHeader(p)
	p.WriteString(" : (")
	for i, c := range s.Constraints {
		if i > 0 {
			p.WriteString(", ")
		}
		c.Expr.Print(p)
		if c.Eq {
			p.WriteString(" == 0")
		} else {
			p.WriteString(" >= 0")
		}
	}
	p.WriteByte(')')
}

// IntegerSetAttr is `affine_set<...>`.
type IntegerSetAttr struct{ Set *IntegerSet }

func (a *IntegerSetAttr) Print(p *AsmPrinter) {
	p.WriteString("affine_set<")
	a.Set.Print(p)
	p.WriteByte('>')
}

func (c *Context) IntegerSetAttr(s *IntegerSet) *IntegerSetAttr {
	return UniqueAttr(c, &IntegerSetAttr{Set: s})
}
