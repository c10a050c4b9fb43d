package ir

import (
	"strconv"
	"strings"
	"testing"
)

// Affine expressions are simplified as MLIR builds them. Each case is an
// expression as written and what mlir-opt-19 prints for it in
// `affine_map<(d0, d1, d2)[s0, s1] -> (...)>`; the expression is built
// through the constructors in the order MLIR's parser calls its operators.
func TestAffineSimplificationMatchesMLIR(t *testing.T) {
	cases := []struct{ in, want string }{
		{`d0 * 2 + 3 - d0`, `d0 + 3`},
		{`(d0 + 1) * 2`, `(d0 + 1) * 2`},
		{`2 * (d0 + 1)`, `(d0 + 1) * 2`},
		{`d0 - (d0 floordiv 4) * 4`, `d0 mod 4`},
		{`d0 - (d0 floordiv s0) * s0`, `d0 mod s0`},
		{`d0 + (d0 floordiv 4) * -4`, `d0 mod 4`},
		{`(d0 * 8 + d1) floordiv 4`, `d0 * 2 + d1 floordiv 4`},
		{`(d0 * 8 + d1) floordiv -4`, `d0 * -2 + d1 floordiv -4`},
		{`(d0 * 8 + d1) ceildiv 4`, `(d0 * 8 + d1) ceildiv 4`},
		{`(d0 * 8) ceildiv -4`, `d0 * -2`},
		{`(d0 * 8 + d1) mod 4`, `d1 mod 4`},
		{`(d0 * 8 + d1 * 4) mod 4`, `0`},
		{`(d0 * 4) mod -2`, `(d0 * 4) mod -2`},
		{`d0 mod 4 mod 2`, `d0 mod 2`},
		{`(d0 mod 4) mod 8`, `(d0 mod 4) mod 8`},
		{`(((d0 * 8) mod 16) floordiv 4) mod 2`, `0`},
		{`((d0 * 6) floordiv 4) mod 2`, `((d0 * 6) floordiv 4) mod 2`},
		{`7 floordiv -2`, `-4`},
		{`-7 ceildiv -2`, `4`},
		{`-7 mod 2`, `1`},
		{`-7 mod -2`, `-7 mod -2`},
		{`5 floordiv 0`, `5 floordiv 0`},
		{`d0 floordiv 0`, `d0 floordiv 0`},
		{`(-9223372036854775807 - 1) floordiv -1`, `-9223372036854775808 floordiv -1`},
		{`9223372036854775807 + 1 + d0`, `d0 + 9223372036854775807 + 1`},
		{`9223372036854775807 * 2 + d0`, `d0 + 9223372036854775807 * 2`},
		{`(d0 * 9223372036854775807) * 2`, `d0 * -2`},
		{`d0 + -9223372036854775807 - 1`, `d0 - -9223372036854775808`},
		{`d0 + (d1 + d2)`, `d0 + d1 + d2`},
		{`d0 - (d1 + d2)`, `d0 - (d1 + d2)`},
		{`d0 - (d1 - d2)`, `d0 - (d1 - d2)`},
		{`d0 - d1 * 2`, `d0 - d1 * 2`},
		{`d0 - s0 * d1`, `d0 - d1 * s0`},
		{`s0 + d0 + 1 + d1`, `d0 + s0 + d1 + 1`},
		{`1 + s0 + d0`, `d0 + s0 + 1`},
		{`(d0 + 2) + d1`, `d0 + d1 + 2`},
		{`(d0 * 2) * s0`, `(d0 * s0) * 2`},
		{`d0 * (s0 * 2)`, `d0 * (s0 * 2)`},
		{`(d0 * s0) floordiv 4`, `(d0 * s0) floordiv 4`},
		{`-(d0 * s0)`, `-(d0 * s0)`},
		{`(-d0) floordiv 2`, `(-d0) floordiv 2`},
		{`-(d0 floordiv 2)`, `-(d0 floordiv 2)`},
		{`d0 * 2 + d0 * -2`, `0`},
		{`(d0 ceildiv 4) * 4`, `(d0 ceildiv 4) * 4`},
		{`((d0 * 4) floordiv 8) * 2`, `((d0 * 4) floordiv 8) * 2`},
	}
	for _, c := range cases {
		r := &affineReader{s: c.in}
		e := r.sum()
		if r.pos != len(r.s) {
			t.Fatalf("%s: test reader stopped at %d", c.in, r.pos)
		}
		if got := e.String(); got != c.want {
			t.Errorf("%s: got %s, want %s", c.in, got, c.want)
		}
	}
}

// affineReader reads the test expressions with MLIR's precedence: + and -
// below * floordiv ceildiv mod, unary minus tightest, left-associative.
type affineReader struct {
	s   string
	pos int
}

func (r *affineReader) skip() {
	for r.pos < len(r.s) && r.s[r.pos] == ' ' {
		r.pos++
	}
}

func (r *affineReader) accept(tok string) bool {
	r.skip()
	if strings.HasPrefix(r.s[r.pos:], tok) {
		r.pos += len(tok)
		return true
	}
	return false
}

func (r *affineReader) sum() *AffineExpr {
	x := r.product()
	for {
		switch {
		case r.accept("+"):
			x = Add(x, r.product())
		case r.accept("-"):
			x = Sub(x, r.product())
		default:
			return x
		}
	}
}

func (r *affineReader) product() *AffineExpr {
	x := r.unary()
	for {
		switch {
		case r.accept("*"):
			x = Mul(x, r.unary())
		case r.accept("floordiv"):
			x = FloorDiv(x, r.unary())
		case r.accept("ceildiv"):
			x = CeilDiv(x, r.unary())
		case r.accept("mod"):
			x = Mod(x, r.unary())
		default:
			return x
		}
	}
}

func (r *affineReader) unary() *AffineExpr {
	switch {
	case r.accept("-"):
		return Neg(r.unary())
	case r.accept("("):
		x := r.sum()
		r.accept(")")
		return x
	case r.accept("d"):
		return Dim(r.number())
	case r.accept("s"):
		return Sym(r.number())
	}
	return Const(int64(r.number()))
}

func (r *affineReader) number() int {
	start := r.pos
	for r.pos < len(r.s) && r.s[r.pos] >= '0' && r.s[r.pos] <= '9' {
		r.pos++
	}
	v, _ := strconv.ParseInt(r.s[start:r.pos], 10, 64)
	return int(v)
}
