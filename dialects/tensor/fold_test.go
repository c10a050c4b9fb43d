package tensor

import (
	"math"
	"testing"

	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/numeric"
)

// foldOf runs op's folder with the constant values of its operands (nil
// where an operand is not a tensor.constant), as the greedy driver does.
func foldOf(t *testing.T, v *ir.Value) (ir.FoldResult, bool) {
	t.Helper()
	op := v.DefiningOp()
	operands := make([]ir.Attribute, op.NumOperands())
	for i, o := range op.Operands() {
		if d := o.DefiningOp(); d != nil && d.Name() == ConstantOpName {
			operands[i] = d.Attr("value")
		}
	}
	rs, ok := op.Def().Fold(op, operands)
	if !ok {
		return ir.FoldResult{}, false
	}
	if len(rs) != 1 {
		t.Fatalf("%d fold results", len(rs))
	}
	return rs[0], true
}

func wantFoldValue(t *testing.T, v, want *ir.Value) {
	t.Helper()
	r, ok := foldOf(t, v)
	if !ok || r.Value != want || r.Attr != nil {
		t.Fatalf("%s: fold = %+v, %v; want the value %p", v.DefiningOp().Name(), r, ok, want)
	}
}

func wantFoldAttr(t *testing.T, v *ir.Value, want ir.Attribute) {
	t.Helper()
	r, ok := foldOf(t, v)
	if !ok || r.Attr != want {
		got := "no fold"
		if r.Attr != nil {
			got = ir.AttrString(r.Attr)
		}
		t.Fatalf("%s: fold = %s, want %s", v.DefiningOp().Name(), got, ir.AttrString(want))
	}
}

func wantNoFold(t *testing.T, v *ir.Value) {
	t.Helper()
	if r, ok := foldOf(t, v); ok {
		t.Fatalf("%s folded to %+v", v.DefiningOp().Name(), r)
	}
}

func TestAlgebraicFolds(t *testing.T) {
	f := newFixture(t)
	ty := f.tensor(f.ctx.F16(), 2, 3)
	x := f.block.AddArgument(ty, nil)
	zero := f.constant(ty, 0)
	negZero := f.constant(ty, math.Copysign(0, -1))
	one := f.constant(ty, 1)
	two := f.constant(ty, 2)
	wantFoldValue(t, f.build(AddOpName, []*ir.Value{x, zero}), x)
	wantFoldValue(t, f.build(AddOpName, []*ir.Value{zero, x}), x)
	wantFoldValue(t, f.build(AddOpName, []*ir.Value{x, negZero}), x)
	wantFoldValue(t, f.build(SubOpName, []*ir.Value{x, zero}), x)
	wantNoFold(t, f.build(SubOpName, []*ir.Value{zero, x}))
	wantFoldValue(t, f.build(MulOpName, []*ir.Value{x, one}), x)
	wantFoldValue(t, f.build(MulOpName, []*ir.Value{one, x}), x)
	wantNoFold(t, f.build(MulOpName, []*ir.Value{x, two}))
	wantFoldValue(t, f.build(DivOpName, []*ir.Value{x, one}), x)
	wantNoFold(t, f.build(DivOpName, []*ir.Value{one, x}))
	wantFoldValue(t, f.build(MaxOpName, []*ir.Value{x, x}), x)
	// A non-uniform constant with a zero in it is no identity.
	mixed := f.constant(ty, 0, 0, 0, 0, 0, 1)
	wantNoFold(t, f.build(AddOpName, []*ir.Value{x, mixed}))

	wantFoldValue(t, f.build(TransposeOpName, []*ir.Value{x}, named(PermutationAttr, I64Array(f.ctx, 0, 1))), x)
	wantNoFold(t, f.build(TransposeOpName, []*ir.Value{x}, named(PermutationAttr, I64Array(f.ctx, 1, 0))))
	wantFoldValue(t, f.buildTyped(ReshapeOpName, ty, []*ir.Value{x}), x)
	wantFoldValue(t, f.buildTyped(ConvertOpName, ty, []*ir.Value{x}), x)
	wantFoldValue(t, f.buildTyped(BroadcastOpName, ty, []*ir.Value{x}, named(DimensionsAttr, I64Array(f.ctx, 0, 1))), x)
	wantFoldValue(t, f.build(SliceOpName, []*ir.Value{x}, named(OffsetsAttr, I64Array(f.ctx, 0, 0)),
		named(SizesAttr, I64Array(f.ctx, 2, 3)), named(StridesAttr, I64Array(f.ctx, 1, 1))), x)
	wantNoFold(t, f.build(SliceOpName, []*ir.Value{x}, named(OffsetsAttr, I64Array(f.ctx, 0, 1)),
		named(SizesAttr, I64Array(f.ctx, 2, 2)), named(StridesAttr, I64Array(f.ctx, 1, 1))))
	wantFoldValue(t, f.build(ConcatOpName, []*ir.Value{x}, named(AxisAttr, I64(f.ctx, 0))), x)
}

func TestConstantFolding(t *testing.T) {
	f := newFixture(t)
	f16 := f.ctx.F16()
	ty := f.tensor(f16, 2, 2)
	a := f.constant(ty, 1, 2, 3, 4)
	b := f.constant(ty, 0.5, 0.25, 2048, 1)
	wantFoldAttr(t, f.build(ConstantOpName, nil, named("value", f.ctx.DenseFloats(ty, []float64{1, 2, 3, 4}))),
		f.ctx.DenseFloats(ty, []float64{1, 2, 3, 4}))
	wantFoldAttr(t, f.build(AddOpName, []*ir.Value{a, b}), f.ctx.DenseFloats(ty, []float64{1.5, 2.25, 2051 + 1, 5}))
	wantFoldAttr(t, f.build(MatmulOpName, []*ir.Value{a, b}), f.ctx.DenseFloats(ty, []float64{
		0.5 + 2*2048, 0.25 + 2, 1.5 + 4*2048, 0.75 + 4}))
	// f16 sums accumulate in f32: 2048 + 1 + ... is exact before the final
	// rounding, exactly as the interpreter computes it.
	c := f.constant(f.tensor(f16, 3), 2048, 1, 1)
	wantFoldAttr(t, f.build(ReduceSumOpName, []*ir.Value{c}, named(AxesAttr, I64Array(f.ctx, 0))),
		f.ctx.DenseFloats(f.tensor(f16), []float64{2050}))
	wantFoldAttr(t, f.build(TransposeOpName, []*ir.Value{a}, named(PermutationAttr, I64Array(f.ctx, 1, 0))),
		f.ctx.DenseFloats(ty, []float64{1, 3, 2, 4}))
	wantFoldAttr(t, f.buildTyped(ConvertOpName, f.tensor(f.ctx.F32(), 2, 2), []*ir.Value{a}),
		f.ctx.DenseFloats(f.tensor(f.ctx.F32(), 2, 2), []float64{1, 2, 3, 4}))
	e := math.Exp(1)
	wantFoldAttr(t, f.build(SoftmaxOpName, []*ir.Value{f.constant(f.tensor(f.ctx.F32(), 2), 0, 1)}, named(AxisAttr, I64(f.ctx, 0))),
		f.ctx.DenseFloats(f.tensor(f.ctx.F32(), 2), []float64{1 / (1 + e), e / (1 + e)}))
	s := f.build(ConstantOpName, nil, named("value", f.ctx.FloatAttr(f16, 3)))
	wantFoldAttr(t, f.buildTyped(SplatOpName, ty, []*ir.Value{s}), f.ctx.DenseFloats(ty, []float64{3}))
}

// Splat operands fold to splats of any size at the cost of one element;
// anything else beyond FoldElementLimit elements is left alone.
func TestFoldLimits(t *testing.T) {
	f := newFixture(t)
	big := f.tensor(f.ctx.F16(), 1000, 1000)
	z := f.constant(big, 0)
	wantFoldAttr(t, f.build(ExpOpName, []*ir.Value{z}), f.ctx.DenseFloats(big, []float64{1}))
	wantFoldAttr(t, f.build(AddOpName, []*ir.Value{f.constant(big, 1), f.constant(big, 2)}), f.ctx.DenseFloats(big, []float64{3}))
	wantFoldAttr(t, f.buildTyped(ConvertOpName, f.tensor(f.ctx.F32(), 1000, 1000), []*ir.Value{f.constant(big, 0.1)}),
		f.ctx.DenseFloats(f.tensor(f.ctx.F32(), 1000, 1000), []float64{numeric.RoundF16(0.1)}))
	small := f.tensor(f.ctx.F16(), 1000)
	wantFoldAttr(t, f.buildTyped(BroadcastOpName, big, []*ir.Value{f.constant(small, 7)}, named(DimensionsAttr, I64Array(f.ctx, 1))),
		f.ctx.DenseFloats(big, []float64{7}))
	// Not splat-safe: a reduction, and a matmul of non-splat tensors.
	wantNoFold(t, f.build(ReduceSumOpName, []*ir.Value{z}, named(AxesAttr, I64Array(f.ctx, 0))))
	m := f.tensor(f.ctx.F32(), 64, 64)
	vals := make([]float64, 64*64)
	for i := range vals {
		vals[i] = float64(i % 7)
	}
	wantNoFold(t, f.build(MatmulOpName, []*ir.Value{f.constant(m, vals...), f.constant(m, vals...)}))
	// At the limit it folds.
	l := f.tensor(f.ctx.F32(), 32, 32)
	wantFoldAttr(t, f.build(ExpOpName, []*ir.Value{f.constant(l, vals[:1024]...)}), func() ir.Attribute {
		out := make([]float64, 1024)
		for i := range out {
			out[i] = numeric.RoundF32(math.Exp(vals[i]))
		}
		return f.ctx.DenseFloats(l, out)
	}())
}

func applyPattern(t *testing.T, f *fixture, p ir.RewritePattern, v *ir.Value) bool {
	t.Helper()
	rw := ir.NewRewriter(f.ctx, nil)
	return p.MatchAndRewrite(v.DefiningOp(), rw)
}

func TestCanonicalizationPatterns(t *testing.T) {
	f := newFixture(t)
	x := f.block.AddArgument(f.tensor(f.ctx.F16(), 2, 3, 4), nil)
	t1 := f.build(TransposeOpName, []*ir.Value{x}, named(PermutationAttr, I64Array(f.ctx, 1, 2, 0)))
	t2 := f.build(TransposeOpName, []*ir.Value{t1}, named(PermutationAttr, I64Array(f.ctx, 0, 2, 1)))
	user := f.build(ExpOpName, []*ir.Value{t2})
	if !applyPattern(t, f, transposeOfTranspose, t2) {
		t.Fatal("transpose of transpose did not match")
	}
	merged := user.DefiningOp().Operand(0).DefiningOp()
	perm, _ := opAttrs(merged).ints(PermutationAttr)
	// Result axis i of the pair is x's axis p[q[i]]: q = [0, 2, 1] over
	// p = [1, 2, 0] gives [1, 0, 2].
	if merged.Operand(0) != x || eval.FormatInts(perm) != "[1, 0, 2]" || merged.Result(0).Type() != user.Type() {
		t.Fatalf("merged transpose: operand %v, permutation %v", merged.Operand(0) == x, perm)
	}
	if applyPattern(t, f, transposeOfTranspose, t1) {
		t.Fatal("transpose of an argument matched")
	}

	r1 := f.buildTyped(ReshapeOpName, f.tensor(f.ctx.F16(), 6, 4), []*ir.Value{x})
	r2 := f.buildTyped(ReshapeOpName, f.tensor(f.ctx.F16(), 24), []*ir.Value{r1})
	if !applyPattern(t, f, reshapeOfReshape, r2) || r2.DefiningOp().Operand(0) != x {
		t.Fatal("reshape of reshape did not bypass the inner reshape")
	}

	h := f.block.AddArgument(f.tensor(f.ctx.F16(), 4), nil)
	up := f.buildTyped(ConvertOpName, f.tensor(f.ctx.F32(), 4), []*ir.Value{h})
	up2 := f.buildTyped(ConvertOpName, f.tensor(f.ctx.F64(), 4), []*ir.Value{up})
	if !applyPattern(t, f, convertOfConvert, up2) || up2.DefiningOp().Operand(0) != h {
		t.Fatal("f16→f32→f64 did not become f16→f64")
	}
	s := f.block.AddArgument(f.tensor(f.ctx.F32(), 4), nil)
	down := f.buildTyped(ConvertOpName, f.tensor(f.ctx.F16(), 4), []*ir.Value{s})
	back := f.buildTyped(ConvertOpName, f.tensor(f.ctx.F32(), 4), []*ir.Value{down})
	if applyPattern(t, f, convertOfConvert, back) {
		t.Fatal("f32→f16→f32 was merged, which would skip a rounding")
	}
	b16 := f.buildTyped(ConvertOpName, f.tensor(f.ctx.BF16(), 4), []*ir.Value{up})
	if applyPattern(t, f, convertOfConvert, b16) != true {
		t.Fatal("f16→f32→bf16 should merge into f16→bf16")
	}
}

func TestMaterializeConstant(t *testing.T) {
	f := newFixture(t)
	ty := f.tensor(f.ctx.BF16(), 2)
	a := f.ctx.DenseFloats(ty, []float64{1, 2})
	op := f.ctx.Dialect(Name).MaterializeConstant(f.b, a, ty, f.ctx.UnknownLoc())
	if op == nil || op.Name() != ConstantOpName || op.Attr("value") != a || op.Result(0).Type() != ty {
		t.Fatalf("materialised %v", op)
	}
	if d := ir.VerifyOne(op); d != nil {
		t.Fatal(d)
	}
	if f.ctx.Dialect(Name).MaterializeConstant(f.b, f.ctx.String("x"), ty, nil) != nil {
		t.Fatal("materialised a string")
	}
	if f.ctx.Dialect(Name).MaterializeConstant(f.b, a, f.tensor(f.ctx.BF16(), 3), nil) != nil {
		t.Fatal("materialised a value of the wrong type")
	}
}
