package pkgemit

import (
	"testing"

	"github.com/ipuir/ipuir/ir"
)

// An instruction is named after what the user calls its op: a name
// location's name, the SSA names written before the op, a block argument
// its location points at, every part of a fused location; else the op and
// its place. Positions past the source are no names, not panics.
func TestLocNames(t *testing.T) {
	ctx := ir.NewContext()
	src := []byte("func.func @f(%x: tensor<4xf16>) {\n" +
		"  %q = tensor.matmul %x, %x\n" +
		"  %a, %b:2 = \"test.op\"(%q)\n" +
		"  tensor.print %q\n")
	lines := sourceLines(src)
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
		{ctx.NameLoc("/q_proj/MatMul", at(2, 8)), "/q_proj/MatMul"},
		{ctx.FusedLoc([]ir.Location{at(2, 8), ctx.NameLoc("k", nil), at(3, 15)}, nil), "%q, k, %a, %b:2"},
	} {
		got := ""
		for i, n := range locNames(c.loc, lines, 0) {
			if i > 0 {
				got += ", "
			}
			got += n
		}
		if got != c.want {
			t.Errorf("locNames(%s) = %q, want %q", ir.AttrString(c.loc), got, c.want)
		}
	}
	if got := opNameAt(lines, 2, 8); got != "tensor.matmul" {
		t.Errorf("opNameAt = %q", got)
	}
	if got := opNameAt(lines, 3, 14); got != "test.op" {
		t.Errorf("opNameAt in the generic form = %q", got)
	}
	// Nesting deeper than the bound names nothing rather than recursing on
	// (fused locations flatten; call sites nest).
	deep := ir.Location(ctx.NameLoc("inner", nil))
	for range maxLocDepth + 2 {
		deep = ctx.CallSiteLoc(deep, at(9, 1))
	}
	if got := locNames(deep, lines, 0); len(got) != 0 {
		t.Errorf("locNames of a location nested past the bound = %q", got)
	}
}
