package printer

import (
	"strings"
	"testing"

	"github.com/ipuir/ipuir/ir"
)

// OpString prints one op as MLIR's "see current operation" notes do:
// generic, local scope (numbered from the nearest isolated op, here the
// module), no aliases and no trailing newline.
func TestOpStringLocalScope(t *testing.T) {
	x := newBuilder()
	m := x.module()
	c := x.ctx
	mp := c.AffineMapAttr(&ir.AffineMap{NumDims: 1, Results: []*ir.AffineExpr{ir.Dim(0)}})
	a := x.op("test.a", nil, typs(c.I(32), c.I(32)))
	b := x.op("test.b", vals(a.Result(1)), typs(c.I(32)), attr("m", mp))
	r := x.b.Create(&ir.OperationState{Name: "test.r", NumRegions: 1, Loc: x.loc()})
	x.b.CreateBlock(r.Region(0), typs(c.F32()), nil)
	x.op("test.c", vals(b.Result(0)), nil)
	_ = m

	if got, want := OpString(b, Options{Generic: true}), `%1 = "test.b"(%0#1) {m = affine_map<(d0) -> (d0)>} : (i32) -> i32`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	want := "\"test.r\"() ({\n^bb0(%arg0: f32):\n  \"test.c\"(%1) : (i32) -> ()\n}) : () -> ()"
	if got := OpString(r, Options{Generic: true}); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := OpString(b, Options{Generic: true, DebugInfo: true}); !strings.HasSuffix(got, ` loc("t.mlir":3:3)`) {
		t.Errorf("location missing: %s", got)
	}
}

// A nested op given to Print prints alone, numbered from the top.
func TestPrintNestedOp(t *testing.T) {
	x := newBuilder()
	x.module()
	v := x.op("test.a", nil, typs(x.ctx.I(8)))
	u := x.op("test.b", vals(v.Result(0)), nil)
	if got := printString(t, u, Options{}); got != "\"test.b\"(%0) : (i8) -> ()\n" {
		t.Errorf("got %q", got)
	}
}

func TestSanitizeIdentifier(t *testing.T) {
	cases := []struct {
		in, punct  string
		trailingOK bool
		want       string
	}{
		{"arg0", "$._-", true, "arg0"},
		{"0x", "$._-", true, "_0x"},
		{"a b/c", "$._-", true, "a_b2Fc"},
		{"tile0", "$_-", false, "tile0_"},
		{"my.map", "$_-", false, "my2Emap"},
	}
	for _, c := range cases {
		if got := sanitizeIdentifier(c.in, c.punct, c.trailingOK); got != c.want {
			t.Errorf("sanitize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
