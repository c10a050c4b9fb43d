package tensor

import (
	"strings"
	"testing"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/ir"
)

// ChoosePartials: auto takes f16 exactly where F16PartialsError of the
// matmul's k is within the budget; a declared type stays; f32 matmuls keep
// f32 partials; an unknown choice is an error.
func TestChoosePartials(t *testing.T) {
	f := withArgs(newFixture(t), func(f *fixture) []ir.Type {
		return []ir.Type{f16(f, 4, 32), f16(f, 32, 4), f16(f, 4, 48), f16(f, 48, 4), f.tensor(f.ctx.F32(), 4, 32), f.tensor(f.ctx.F32(), 32, 4)}
	})
	small := f.build(MatmulOpName, []*ir.Value{f.arg(0), f.arg(1)}).DefiningOp() // k = 32: two blocks
	large := f.build(MatmulOpName, []*ir.Value{f.arg(2), f.arg(3)}).DefiningOp() // k = 48: three
	wide := f.build(MatmulOpName, []*ir.Value{f.arg(4), f.arg(5)}).DefiningOp()  // f32
	declared := f.build(MatmulOpName, []*ir.Value{f.arg(0), f.arg(1)}, named(PartialsTypeAttr, f.ctx.TypeAttr(f.ctx.F32()))).DefiningOp()
	budget := F16PartialsError(32)
	if !(budget < F16PartialsError(48)) {
		t.Fatalf("F16PartialsError does not grow with k: %g, %g", budget, F16PartialsError(48))
	}
	n, err := ChoosePartials(f.fn, "auto", budget)
	if err != nil || n != 1 {
		t.Fatalf("ChoosePartials(auto) = %d, %v; want 1", n, err)
	}
	for _, c := range []struct {
		op   *ir.Operation
		want elem.Type
		ok   bool
	}{{small, elem.F16, true}, {large, elem.F32, true}, {wide, elem.Invalid, false}, {declared, elem.F32, true}} {
		if got, ok := PartialsOf(c.op); got != c.want || ok != c.ok {
			t.Errorf("%s: partials %v, %v; want %v, %v", ir.DescribeOp(c.op), got, ok, c.want, c.ok)
		}
	}
	if _, err := ChoosePartials(f.fn, "f8", 0); err == nil || !strings.Contains(err.Error(), "want f32, f16 or auto") {
		t.Errorf("an unknown choice: %v", err)
	}
	if _, err := ChoosePartials(f.fn, "auto", -1); err == nil {
		t.Error("a negative budget was taken")
	}
}
