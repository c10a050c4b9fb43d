package ir_test

import (
	"strings"
	"testing"

	"github.com/ipuir/ipuir/ir"
)

// What was made at a location is named as the user calls it: a name
// location's name, the SSA names written before the op, a block argument
// its location points at, every part of a fused location. Positions past
// the source, and files it does not hold, are no names, not panics.
func TestSourceNames(t *testing.T) {
	ctx := ir.NewContext()
	sources := ir.NewSourceMgr()
	sources.Add("f.ipuir", []byte("func.func @f(%x: tensor<4xf16>) {\n"+
		"  %q = tensor.matmul %x, %x\n"+
		"  %a, %b:2 = \"test.op\"(%q)\n"+
		"  tensor.print %q\n"))
	at := func(line, col int) ir.Location { return ctx.FileLineCol("f.ipuir", line, col) }
	for _, c := range []struct {
		loc  ir.Location
		want string
	}{
		{at(2, 8), "%q"},
		{at(3, 15), "%a, %b:2"},
		{at(1, 14), "%x"},
		{at(4, 3), ""},
		{at(9, 1), ""},
		{at(2, 99), ""},
		{ctx.FileLineCol("other.ipuir", 2, 8), ""},
		{ctx.NameLoc("/q_proj/MatMul", at(2, 8)), "/q_proj/MatMul"},
		{ctx.FusedLoc([]ir.Location{at(2, 8), ctx.NameLoc("k", nil), at(3, 15), at(2, 8)}, nil), "%q, k, %a, %b:2"},
	} {
		if got := strings.Join(ir.SourceNames(c.loc, sources), ", "); got != c.want {
			t.Errorf("SourceNames(%s) = %q, want %q", ir.AttrString(c.loc), got, c.want)
		}
	}
	if got := ir.OpNameAt(at(2, 8), sources); got != "tensor.matmul" {
		t.Errorf("OpNameAt = %q", got)
	}
	if got := ir.OpNameAt(at(3, 14), sources); got != "test.op" {
		t.Errorf("OpNameAt in the generic form = %q", got)
	}
	if got := ir.SourceNames(at(2, 8), nil); len(got) != 0 {
		t.Errorf("SourceNames without sources = %q", got)
	}
	// Nesting deeper than the bound names nothing rather than recursing on
	// (fused locations flatten; call sites nest).
	deep := ir.Location(ctx.NameLoc("inner", nil))
	for range 18 {
		deep = ctx.CallSiteLoc(deep, at(9, 1))
	}
	if got := ir.SourceNames(deep, sources); len(got) != 0 {
		t.Errorf("SourceNames of a location nested past the bound = %q", got)
	}
	// The context answers from the sources it was given.
	ctx.SetSources(sources)
	if got := ctx.SourceName(at(3, 15)); got != "%a, %b:2" {
		t.Errorf("Context.SourceName = %q", got)
	}
}
