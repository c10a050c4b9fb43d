package ir

import (
	"math"
	"math/bits"
)

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

	// symbolic caches IsSymbolic (0 unknown, 1 yes, 2 no): the
	// constructors ask it of every operand, and walking each time made
	// building a sum of n terms take n² steps (mlir-opt-19 walks too: 6 s
	// for 20,000 terms). Expressions are not changed once built.
	symbolic uint8
}

func Dim(i int) *AffineExpr         { return &AffineExpr{Kind: AffineDim, Pos: i} }
func Sym(i int) *AffineExpr         { return &AffineExpr{Kind: AffineSymbol, Pos: i} }
func Const(v int64) *AffineExpr     { return &AffineExpr{Kind: AffineConst, Val: v} }
func (e *AffineExpr) isConst() bool { return e.Kind == AffineConst }

// IsSymbolic reports whether e uses no dims (symbols and constants only).
func (e *AffineExpr) IsSymbolic() bool {
	if e.symbolic == 0 {
		var yes bool
		switch e.Kind {
		case AffineDim:
		case AffineSymbol, AffineConst:
			yes = true
		default:
			yes = e.LHS.IsSymbolic() && e.RHS.IsSymbolic()
		}
		e.symbolic = 2
		if yes {
			e.symbolic = 1
		}
	}
	return e.symbolic == 1
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

// floorDiv and ceilDiv are numeric.FloorDiv and numeric.CeilDiv, which the
// core cannot import (it imports nothing of the project); a test in
// package tests checks that they agree.
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

// The constructors below simplify as MLIR 19's AffineExpr operators do
// when an expression is built (and so when one is parsed): constants fold,
// constants and symbolic terms move right, `c1 * x + c2 * x` merges,
// `x - (x floordiv c) * c` becomes `x mod c`, and divisions and mods by a
// positive constant fold what is known to divide evenly. Nothing is
// distributed (`(d0 + 1) * 2` stays) and terms are not sorted beyond
// that, so an expression keeps MLIR's shape and prints as mlir-opt prints
// it. Each simplify function returns nil when its rules do not apply.

// Add returns l + r, simplified.
func Add(l, r *AffineExpr) *AffineExpr {
	if e := simplifyAdd(l, r); e != nil {
		return e
	}
	return &AffineExpr{Kind: AffineAdd, LHS: l, RHS: r}
}

func simplifyAdd(l, r *AffineExpr) *AffineExpr {
	if l.isConst() && r.isConst() {
		sum, overflow := addOverflow(l.Val, r.Val)
		if overflow {
			return nil // kept as a sum of constants
		}
		return Const(sum)
	}
	// Constants go right; a symbolic operand goes right of a dim one.
	if l.isConst() || (l.IsSymbolic() && !r.IsSymbolic()) {
		return Add(r, l)
	}
	if r.isConst() && r.Val == 0 {
		return l
	}
	// (x + c1) + c2 -> x + (c1 + c2)
	if r.isConst() && l.Kind == AffineAdd && l.RHS.isConst() {
		return Add(l.LHS, Const(l.RHS.Val+r.Val))
	}
	// c1 * x + c2 * x -> x * (c1 + c2), where a term without a constant
	// factor counts as x * 1.
	lTerm, lCoef := splitConstFactor(l)
	rTerm, rCoef := splitConstFactor(r)
	if lTerm.Equal(rTerm) {
		return Mul(lTerm, Const(lCoef+rCoef))
	}
	// (x + c) + y -> (x + y) + c
	if l.Kind == AffineAdd && l.RHS.isConst() {
		return Add(Add(l.LHS, r), l.RHS)
	}
	// x + ((x floordiv q) * q) * -1 -> x mod q, and
	// x + (x floordiv c) * -c -> x mod c.
	if !r.isBinary() {
		return nil
	}
	if r.RHS.isConst() && r.RHS.Val == -1 && r.LHS.Kind == AffineMul {
		quotient, q := r.LHS.LHS, r.LHS.RHS
		if quotient.Kind != AffineFloorDiv {
			return nil
		}
		if quotient.RHS.Equal(q) && l.Equal(quotient.LHS) {
			return Mod(l, q)
		}
	}
	if r.LHS.Kind != AffineFloorDiv {
		return nil
	}
	if l.Equal(r.LHS.LHS) && r.LHS.RHS.Equal(Neg(r.RHS)) {
		return Mod(l, r.LHS.RHS)
	}
	return nil
}

// splitConstFactor splits x * c into x and c, and any other e into e and 1.
func splitConstFactor(e *AffineExpr) (*AffineExpr, int64) {
	if e.Kind == AffineMul && e.RHS.isConst() {
		return e.LHS, e.RHS.Val
	}
	return e, 1
}

func (e *AffineExpr) isBinary() bool { return e.Kind >= AffineAdd }

// Mul returns l * r, simplified. One operand must be symbolic (the parser
// rejects `d0 * d1`); such a product is built as it is.
func Mul(l, r *AffineExpr) *AffineExpr {
	if e := simplifyMul(l, r); e != nil {
		return e
	}
	return &AffineExpr{Kind: AffineMul, LHS: l, RHS: r}
}

func simplifyMul(l, r *AffineExpr) *AffineExpr {
	if l.isConst() && r.isConst() {
		product, overflow := mulOverflow(l.Val, r.Val)
		if overflow {
			return nil // kept as a product of constants
		}
		return Const(product)
	}
	if !l.IsSymbolic() && !r.IsSymbolic() {
		return nil
	}
	// The constant or symbolic operand goes right; of two symbolic ones,
	// a constant.
	if !r.IsSymbolic() || l.isConst() {
		return Mul(r, l)
	}
	if r.isConst() {
		switch r.Val {
		case 1:
			return l
		case 0:
			return r
		}
	}
	if l.Kind == AffineMul && l.RHS.isConst() {
		// (x * c1) * c2 -> x * (c1 * c2)
		if r.isConst() {
			return Mul(l.LHS, Const(l.RHS.Val*r.Val))
		}
		// (x * c) * y -> (x * y) * c
		return Mul(Mul(l.LHS, r), l.RHS)
	}
	return nil
}

// Neg returns -e (e * -1).
func Neg(e *AffineExpr) *AffineExpr { return Mul(e, Const(-1)) }

// Sub returns l - r (l + r * -1).
func Sub(l, r *AffineExpr) *AffineExpr { return Add(l, Neg(r)) }

// FloorDiv returns l floordiv r, simplified.
func FloorDiv(l, r *AffineExpr) *AffineExpr {
	if e := simplifyFloorDiv(l, r); e != nil {
		return e
	}
	return &AffineExpr{Kind: AffineFloorDiv, LHS: l, RHS: r}
}

// Division by zero stays as written, as in MLIR; so do a mod by zero or a
// negative number, and constant divisions that overflow.

// simplifyDivision applies the rules floordiv and ceildiv share: constant
// folding (with fold), division by one, and (x * k*c) / c -> x * k.
func simplifyDivision(l, r *AffineExpr, fold func(a, b int64) int64) *AffineExpr {
	if !r.isConst() || r.Val == 0 {
		return nil
	}
	c := r.Val
	switch {
	case l.isConst():
		if l.Val == math.MinInt64 && c == -1 {
			return nil
		}
		return Const(fold(l.Val, c))
	case c == 1:
		return l
	case l.Kind == AffineMul && l.RHS.isConst() && l.RHS.Val%c == 0:
		return Mul(l.LHS, Const(l.RHS.Val/c))
	}
	return nil
}

func simplifyFloorDiv(l, r *AffineExpr) *AffineExpr {
	if e := simplifyDivision(l, r, floorDiv); e != nil {
		return e
	}
	// (x + y) floordiv c, where c divides x or y, splits into a sum.
	if r.isConst() && r.Val != 0 && l.Kind == AffineAdd &&
		(l.LHS.largestKnownDivisor()%r.Val == 0 || l.RHS.largestKnownDivisor()%r.Val == 0) {
		return Add(FloorDiv(l.LHS, r), FloorDiv(l.RHS, r))
	}
	return nil
}

// CeilDiv returns l ceildiv r, simplified.
func CeilDiv(l, r *AffineExpr) *AffineExpr {
	if e := simplifyDivision(l, r, ceilDiv); e != nil {
		return e
	}
	return &AffineExpr{Kind: AffineCeilDiv, LHS: l, RHS: r}
}

// Mod returns l mod r, simplified.
func Mod(l, r *AffineExpr) *AffineExpr {
	if e := simplifyMod(l, r); e != nil {
		return e
	}
	return &AffineExpr{Kind: AffineMod, LHS: l, RHS: r}
}

func simplifyMod(l, r *AffineExpr) *AffineExpr {
	if !r.isConst() || r.Val < 1 {
		return nil
	}
	c := r.Val
	switch {
	case l.isConst():
		return Const(mod(l.Val, c))
	case l.largestKnownDivisor()%c == 0:
		return Const(0)
	case l.Kind == AffineAdd && l.LHS.largestKnownDivisor()%c == 0:
		// (x + y) mod c, where c divides x -> y mod c
		return Mod(l.RHS, r)
	case l.Kind == AffineAdd && l.RHS.largestKnownDivisor()%c == 0:
		return Mod(l.LHS, r)
	case l.Kind == AffineMod && l.RHS.isConst() && l.RHS.Val >= 1 && mod(l.RHS.Val, c) == 0:
		// (x mod k*c) mod c -> x mod c
		return Mod(l.LHS, r)
	}
	return nil
}

// largestKnownDivisor is the largest integer known to divide e, as MLIR's
// AffineExpr::getLargestKnownDivisor computes it (0 for the constant 0).
func (e *AffineExpr) largestKnownDivisor() int64 {
	switch e.Kind {
	case AffineDim, AffineSymbol:
		return 1
	case AffineConst:
		if e.Val < 0 {
			return -e.Val
		}
		return e.Val
	case AffineFloorDiv, AffineCeilDiv:
		if e.RHS.isConst() && e.RHS.Val != 0 {
			if d := e.LHS.largestKnownDivisor(); d%e.RHS.Val == 0 {
				return d / e.RHS.Val
			}
		}
		return 1
	case AffineMul:
		return e.LHS.largestKnownDivisor() * e.RHS.largestKnownDivisor()
	}
	return int64(gcd(uint64(e.LHS.largestKnownDivisor()), uint64(e.RHS.largestKnownDivisor())))
}

// addOverflow and mulOverflow are a + b and a * b, and whether the exact
// result is outside int64.
func addOverflow(a, b int64) (int64, bool) {
	sum := a + b
	return sum, (a >= 0) == (b >= 0) && (sum >= 0) != (a >= 0)
}

func mulOverflow(a, b int64) (int64, bool) {
	hi, lo := bits.Mul64(uint64(absInt64(a)), uint64(absInt64(b)))
	negative := (a < 0) != (b < 0)
	limit := uint64(math.MaxInt64)
	if negative {
		limit++
	}
	return a * b, hi != 0 || lo > limit
}

// absInt64 is |v|; MinInt64 stays MinInt64, which as uint64 is 2^63.
func absInt64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// Print writes e as MLIR does: `d0 + s0 * 2`, `d0 - 1`, `d0 floordiv 4`.
func (e *AffineExpr) Print(p *AsmPrinter) { e.print(p, false) }

func (e *AffineExpr) String() string {
	var p AsmPrinter
	e.Print(&p)
	return p.String()
}

// print writes e; strong is set where e is an operand of anything but an
// addition, which then needs parentheses around e when e is an operation
// (MLIR's BindingStrength::Strong).
func (e *AffineExpr) print(p *AsmPrinter, strong bool) {
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
	if strong {
		p.WriteByte('(')
	}
	switch {
	case e.Kind == AffineMul && e.RHS.isConst() && e.RHS.Val == -1:
		p.WriteByte('-')
		e.LHS.print(p, true)
	case e.Kind != AffineAdd:
		e.LHS.print(p, true)
		p.WriteString([...]string{AffineMul: " * ", AffineMod: " mod ", AffineFloorDiv: " floordiv ", AffineCeilDiv: " ceildiv "}[e.Kind])
		e.RHS.print(p, true)
	case e.RHS.Kind == AffineMul && e.RHS.RHS.isConst() && e.RHS.RHS.Val == -1:
		// x + y * -1 prints as x - y.
		e.LHS.print(p, false)
		p.WriteString(" - ")
		e.RHS.LHS.print(p, e.RHS.LHS.Kind == AffineAdd)
	case e.RHS.Kind == AffineMul && e.RHS.RHS.isConst() && e.RHS.RHS.Val < -1:
		// x + y * -c prints as x - y * c.
		e.LHS.print(p, false)
		p.WriteString(" - ")
		e.RHS.LHS.print(p, true)
		p.WriteString(" * ")
		p.WriteInt(-e.RHS.RHS.Val)
	case e.RHS.isConst() && e.RHS.Val < 0:
		// x + -c prints as x - c.
		e.LHS.print(p, false)
		p.WriteString(" - ")
		p.WriteInt(-e.RHS.Val)
	default:
		e.LHS.print(p, false)
		p.WriteString(" + ")
		e.RHS.print(p, false)
	}
	if strong {
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
		p.WriteByte('d')
		p.WriteInt(int64(i))
	}
	p.WriteByte(')')
	if m.NumSymbols > 0 {
		p.WriteByte('[')
		for i := 0; i < m.NumSymbols; i++ {
			if i > 0 {
				p.WriteString(", ")
			}
			p.WriteByte('s')
			p.WriteInt(int64(i))
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
