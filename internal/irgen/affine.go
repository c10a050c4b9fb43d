package irgen

import (
	"fmt"
	"strings"
)

// affineNames are the identifiers an affine map or set binds: usually
// d0.. and s0.., sometimes other names, which printing renames.
type affineNames struct{ dims, syms []string }

func (g *gen) affineNames(nd, ns int) affineNames {
	var n affineNames
	custom := g.chance(0.15)
	for i := range nd {
		if custom {
			n.dims = append(n.dims, []string{"x", "y", "z", "w"}[i])
		} else {
			n.dims = append(n.dims, fmt.Sprintf("d%d", i))
		}
	}
	for i := range ns {
		if custom {
			n.syms = append(n.syms, []string{"N", "M", "P"}[i])
		} else {
			n.syms = append(n.syms, fmt.Sprintf("s%d", i))
		}
	}
	return n
}

func (n affineNames) header() string {
	h := "(" + strings.Join(n.dims, ", ") + ")"
	if len(n.syms) > 0 {
		h += "[" + strings.Join(n.syms, ", ") + "]"
	}
	return h
}

// affineExpr is an affine expression over n; semi allows products and
// divisions by symbols (semi-affine maps).
//
// The shapes are those whose simplification mlir-opt 19 prints as a
// fixpoint: it simplifies when building, but only locally, so that
// `d0 + -d0`, `d1 * 2 + d1`, `s0 + 6 - 1` or `-(d0 + 5) + 3` print in a
// form that simplifies further when read again. So every dimension and
// symbol appears at most once, and a constant term appears only at the
// end of the outermost sum; elsewhere constants are only factors and
// divisors.
func (g *gen) affineExpr(n affineNames, depth int, semi bool) string {
	unused := &affineNames{dims: append([]string(nil), n.dims...), syms: append([]string(nil), n.syms...)}
	return g.affineSum(unused, depth, semi, true, true)
}

// take removes and returns a random name of *names.
func (g *gen) take(names *[]string) string {
	i := g.r.IntN(len(*names))
	s := (*names)[i]
	*names = append((*names)[:i:i], (*names)[i+1:]...)
	return s
}

// affineSum is `term (+|-) term ...`, with a constant term at the end
// when constOK; an expression without names left is a constant. Terms
// with dimensions come before terms of symbols only, as mlir-opt 19
// orders them: when it reorders, a sum on the right of `+` that starts
// with a negative term prints as `+ -s0`, which reads back differently.
// For the same reason only the first term may be negated (when negOK).
func (g *gen) affineSum(n *affineNames, depth int, semi, constOK, negOK bool) string {
	var withDims, symbolsOnly []string
	for range g.between(1, 3) {
		before := len(n.dims)
		t := g.affineTerm(n, depth, semi)
		if t == "" {
			break
		}
		if len(n.dims) < before {
			withDims = append(withDims, t)
		} else {
			symbolsOnly = append(symbolsOnly, t)
		}
	}
	terms := append(withDims, symbolsOnly...)
	if len(terms) == 0 {
		return fmt.Sprint(g.between(0, 9))
	}
	var b strings.Builder
	for i, t := range terms {
		switch {
		case i > 0:
			b.WriteString(pick(g, []string{" + ", " - "}))
		case negOK && !strings.ContainsAny(t, " (") && g.chance(0.2):
			b.WriteString("-")
		}
		b.WriteString(t)
	}
	if constOK && g.chance(0.4) {
		fmt.Fprintf(&b, " %s %d", pick(g, []string{"+", "-"}), g.between(1, 9))
	}
	return b.String()
}

// affineTerm is one term of a sum, or "" when no names are left.
func (g *gen) affineTerm(n *affineNames, depth int, semi bool) string {
	if len(n.dims)+len(n.syms) == 0 {
		return ""
	}
	name := func() string {
		if len(n.dims) > 0 && (len(n.syms) == 0 || g.chance(0.5)) {
			return g.take(&n.dims)
		}
		return g.take(&n.syms)
	}
	c := func() string { return fmt.Sprint(g.between(2, 8)) }
	if depth <= 0 {
		return name()
	}
	switch k := g.r.IntN(10); {
	case k < 3:
		return name()
	case k < 4:
		return name() + " * " + c()
	case k < 5:
		return c() + " * " + name()
	case k < 6:
		return name() + " * " + c()
	case k < 7:
		return "(" + g.affineSum(n, depth-1, semi, false, false) + ") * " + c()
	case k < 9:
		return "(" + g.affineSum(n, depth-1, semi, false, true) + ") " + pick(g, []string{"floordiv", "ceildiv", "mod"}) + " " + c()
	default:
		if !semi || len(n.syms) == 0 || len(n.dims) == 0 || !g.on(AttrSemiAffineMap) {
			return name() + " mod " + c()
		}
		g.mark(AttrSemiAffineMap)
		lhs := g.affineSum(&affineNames{dims: []string{g.take(&n.dims)}}, depth-1, false, false, false)
		return "(" + lhs + ") " + pick(g, []string{"*", "floordiv", "ceildiv", "mod"}) + " " + g.take(&n.syms)
	}
}

// affineMap is the text of an affine map with nd dims and a few results.
func (g *gen) affineMap(nd, minResults int) string {
	n := g.affineNames(nd, g.between(0, 2))
	results := g.between(minResults, 3)
	return n.header() + " -> (" + list(results, func(int) string { return g.affineExpr(n, 3, true) }) + ")"
}

func (g *gen) affineMapAttr(nd int) string {
	return "affine_map<" + g.affineMap(nd, 0) + ">"
}

// layoutMap is a memref layout: an affine map with rank dims.
func (g *gen) layoutMap(rank int) string {
	if a := g.aliasedAttr(func(a attrAlias) bool { return a.kind == aliasAffineMap && a.dims == rank }); a != "" {
		return a
	}
	return "affine_map<" + g.affineMap(rank, 1) + ">"
}

func (g *gen) integerSetAttr() string {
	n := g.affineNames(g.between(0, 3), g.between(0, 2))
	cons := list(g.between(1, 3), func(int) string {
		// Both sides of a comparison draw on one pool of names; only the
		// left one has a constant, and only a one-sided constraint may
		// start with a negation, as in affineSum.
		unused := &affineNames{dims: append([]string(nil), n.dims...), syms: append([]string(nil), n.syms...)}
		op := pick(g, []string{">= 0", "== 0", ">=", "<=", "=="})
		if len(op) > 2 {
			return g.affineSum(unused, 2, false, true, true) + " " + op
		}
		lhs := g.affineSum(unused, 2, false, true, false)
		if len(unused.dims)+len(unused.syms) == 0 {
			return lhs + " >= 0"
		}
		return lhs + " " + op + " " + g.affineSum(unused, 1, false, false, false)
	})
	return "affine_set<" + n.header() + " : (" + cons + ")>"
}

// stridedAttr is strided<[strides], offset: o> with rank strides.
func (g *gen) stridedAttr(rank int) string {
	val := func(zeroOK bool) string {
		if g.chance(0.25) {
			return "?"
		}
		v := g.between(-2, 16)
		if v == 0 && !zeroOK {
			v = 1
		}
		return fmt.Sprint(v)
	}
	s := "strided<[" + list(rank, func(int) string { return val(false) }) + "]"
	if g.chance(0.6) {
		s += ", offset: " + val(true)
	}
	return s + ">"
}

// layoutStrided is a memref layout: a strided layout of rank strides.
func (g *gen) layoutStrided(rank int) string {
	if a := g.aliasedAttr(func(a attrAlias) bool { return a.kind == aliasStrided && a.dims == rank }); a != "" {
		return a
	}
	return g.stridedAttr(rank)
}
