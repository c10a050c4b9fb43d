package tensor

import (
	"math"
	"testing"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/ir"
)

// Attention reassociated (the score scale onto q, softmax's division onto
// the context) computes what it computed before, within a few roundings
// of the element type, and both rewrites apply.
func TestReassociateKeepsAttention(t *testing.T) {
	for _, kind := range []elem.Type{elem.F32, elem.F16} {
		tol := 16 * math.Pow(2, -23)
		if kind == elem.F16 {
			tol = 16 * math.Pow(2, -10)
		}
		t.Run(kind.String(), func(t *testing.T) {
			f := newFixture(t)
			et := FloatType(f.ctx, kind)
			const heads, tokens, dim = 2, 12, 8
			q := f.block.AddArgument(f.tensor(et, heads, tokens, dim), nil)
			k := f.block.AddArgument(f.tensor(et, heads, dim, tokens), nil)
			v := f.block.AddArgument(f.tensor(et, heads, tokens, dim), nil)
			scores := f.build(BatchMatmulOpName, []*ir.Value{q, k})
			scale := f.constant(scores.Type(), 1/math.Sqrt(dim))
			probs := f.build(SoftmaxOpName, []*ir.Value{f.build(MulOpName, []*ir.Value{scores, scale})}, named(AxisAttr, I64(f.ctx, 2)))
			out := f.build(BatchMatmulOpName, []*ir.Value{probs, v})
			sink := f.raw("test.sink", nil, []*ir.Value{out})
			args := []*eval.Array{gaussian(t, []int{heads, tokens, dim}, kind, 1), gaussian(t, []int{heads, dim, tokens}, kind, 2), gaussian(t, []int{heads, tokens, dim}, kind, 3)}
			before := f.run(args, out)
			if _, err := DecomposeIf(f.fn, func(op *ir.Operation) bool { return op.Is(SoftmaxOp) }); err != nil {
				t.Fatal(err)
			}
			n, err := Reassociate(f.fn)
			if err != nil || n != 2 {
				t.Fatalf("Reassociate = %d, %v; want both rewrites", n, err)
			}
			if d := ir.Verify(f.fn); d != nil {
				t.Fatal(d)
			}
			// The scale multiplies q's elements, the division the context's.
			for _, op := range f.block.Ops() {
				if op.Is(MulOp, DivOp) && elements(op.Result(0).Type()) != heads*tokens*dim {
					t.Errorf("%s of %s left", op.Name(), ir.TypeString(op.Result(0).Type()))
				}
			}
			after := f.run(args, sink.Operand(0))
			diff, err := eval.MaxAbsDiff(before, after)
			if err != nil || diff > tol {
				t.Fatalf("before and after differ by %g (tolerance %g), %v", diff, tol, err)
			}
		})
	}
}
