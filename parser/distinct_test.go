package parser

import (
	"testing"

	"github.com/ipuir/ipuir/ir"
)

// Within one parse each distinct[N] is one attribute, different Ns are
// different attributes even with equal referenced attributes, and separate
// parses make separate attributes (they are not uniqued by content).
func TestParseDistinctIdentityPerParse(t *testing.T) {
	ctx := ir.NewContext()
	ctx.AllowUnregisteredDialects = true
	src := "\"t.x\"() {a = distinct[0]<[1]>, b = distinct[1]<[1]>, c = distinct[0]<[1]>, d = distinct[7]<>} : () -> ()\n" +
		"\"t.y\"() {a = distinct[1]<[1]>} : () -> ()\n"
	attrs := func() (x, y map[string]ir.Attribute) {
		m, err := ParseSourceString(ctx, []byte(src), Config{Filename: "t.mlir"})
		if err != nil {
			t.Fatal(err)
		}
		ops := ir.ModuleBody(m).Ops()
		x, y = map[string]ir.Attribute{}, map[string]ir.Attribute{}
		for _, e := range ops[0].Attrs().Entries {
			x[e.Name] = e.Value
		}
		for _, e := range ops[1].Attrs().Entries {
			y[e.Name] = e.Value
		}
		return x, y
	}
	x, y := attrs()
	a, ok := x["a"].(*ir.DistinctAttr)
	if !ok {
		t.Fatalf("a = %T, want *ir.DistinctAttr", x["a"])
	}
	if a.Referenced != ir.Attribute(ctx.Array(ctx.IntegerAttr(ctx.I(64), 1))) {
		t.Errorf("a refers to %s, want [1]", ir.AttrString(a.Referenced))
	}
	if x["c"] != x["a"] {
		t.Error("distinct[0] written twice gave two attributes")
	}
	if x["b"] == x["a"] {
		t.Error("distinct[0] and distinct[1] gave one attribute")
	}
	if y["a"] != x["b"] {
		t.Error("distinct[1] in another op gave another attribute")
	}
	if d := x["d"].(*ir.DistinctAttr); d.Referenced != ir.Attribute(ctx.Unit()) {
		t.Errorf("distinct[7]<> refers to %s, want unit", ir.AttrString(d.Referenced))
	}
	x2, _ := attrs()
	if x2["a"] == x["a"] {
		t.Error("two parses of distinct[0]<[1]> gave the same attribute")
	}
}
