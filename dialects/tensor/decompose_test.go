package tensor

import (
	"math"
	"slices"
	"testing"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/ir"
)

// Each fused op and its decomposition compute the same function: equal to
// within rounding of the intermediate steps (a few ulps of the element
// type), and nothing fused is left afterwards.
func TestDecomposeMatchesFusedOps(t *testing.T) {
	for _, kind := range []elem.Type{elem.F32, elem.F16} {
		// Tolerances: several roundings of intermediates, relative to values
		// of order 1 (softmax outputs, normalised values, gelu of N(0,1)).
		tol := 8 * math.Pow(2, -23)
		if kind == elem.F16 {
			tol = 8 * math.Pow(2, -10)
		}
		for _, tc := range []struct {
			name  string
			build func(f *fixture, x, g, b *ir.Value) *ir.Value
		}{
			{"softmax last axis", func(f *fixture, x, _, _ *ir.Value) *ir.Value {
				return f.build(SoftmaxOpName, []*ir.Value{x}, named(AxisAttr, I64(f.ctx, 2)))
			}},
			{"softmax middle axis", func(f *fixture, x, _, _ *ir.Value) *ir.Value {
				return f.build(SoftmaxOpName, []*ir.Value{x}, named(AxisAttr, I64(f.ctx, 1)))
			}},
			{"layer_norm", func(f *fixture, x, g, b *ir.Value) *ir.Value {
				return f.build(LayerNormOpName, []*ir.Value{x, g, b}, named(EpsilonAttr, f.ctx.FloatAttr(f.ctx.F32(), 1e-5)))
			}},
			{"gelu", func(f *fixture, x, _, _ *ir.Value) *ir.Value { return f.build(GeluOpName, []*ir.Value{x}) }},
			{"gelu approximate", func(f *fixture, x, _, _ *ir.Value) *ir.Value {
				return f.build(GeluOpName, []*ir.Value{x}, named(ApproximateAttr, f.ctx.Unit()))
			}},
		} {
			t.Run(kind.String()+" "+tc.name, func(t *testing.T) {
				f := newFixture(t)
				elem := FloatType(f.ctx, kind)
				x := f.block.AddArgument(f.tensor(elem, 2, 5, 16), nil)
				g := f.block.AddArgument(f.tensor(elem, 16), nil)
				b := f.block.AddArgument(f.tensor(elem, 16), nil)
				out := tc.build(f, x, g, b)
				// Keep the result alive through a use, as a return would.
				sink := f.raw("test.sink", nil, []*ir.Value{out})
				args := []*eval.Array{gaussian(t, []int{2, 5, 16}, kind, 1), gaussian(t, []int{16}, kind, 2), gaussian(t, []int{16}, kind, 3)}
				fused := f.run(args, out)

				n, err := Decompose(f.fn)
				if err != nil || n != 1 {
					t.Fatalf("Decompose = %d, %v", n, err)
				}
				if d := ir.Verify(f.fn); d != nil {
					t.Fatal(d)
				}
				for _, op := range f.block.Ops() {
					for _, name := range DecomposeOps {
						if op.Name() == name {
							t.Fatalf("%s left after decomposition", name)
						}
					}
				}
				decomposed := f.run(args, sink.Operand(0))
				diff, err := eval.MaxAbsDiff(fused, decomposed)
				if err != nil || diff > tol {
					t.Fatalf("fused and decomposed differ by %g (tolerance %g), %v", diff, tol, err)
				}
			})
		}
	}
}

// run evaluates the block's tensor ops in order, the arguments bound to
// args, and returns the value of v: a miniature interpreter, so that the
// dialect's tests need nothing from the runtime layer.
func (f *fixture) run(args []*eval.Array, v *ir.Value) *eval.Array {
	f.t.Helper()
	vals := map[*ir.Value]*eval.Array{}
	for i, a := range args {
		vals[f.arg(i)] = a
	}
	for _, op := range f.block.Ops() {
		if !Evaluates(op) {
			continue
		}
		in := make([]*eval.Array, op.NumOperands())
		for i, o := range op.Operands() {
			in[i] = vals[o]
		}
		out, err := Evaluate(op, in)
		if err != nil {
			f.t.Fatalf("%s: %v", op.Name(), err)
		}
		vals[op.Result(0)] = out
	}
	return vals[v]
}

func TestDecomposeRejectsInvalidOps(t *testing.T) {
	f := newFixture(t)
	x := f.block.AddArgument(f.tensor(f.ctx.F32(), 4), nil)
	bad := f.raw(SoftmaxOpName, x.Type(), []*ir.Value{x}, named(AxisAttr, I64(f.ctx, 3)))
	_, err := Decompose(f.fn)
	wantErrContains(t, err, "'tensor.softmax' op axis 3 is out of range for rank 1")
	if bad.Block() == nil {
		t.Fatal("invalid op was removed")
	}
	// The patterns decline it rather than fail half way.
	for _, p := range DecomposePatterns() {
		if p.Root() == SoftmaxOpName && p.MatchAndRewrite(bad, ir.NewRewriter(f.ctx, nil)) {
			t.Fatal("pattern rewrote an invalid op")
		}
	}
}

// A convolution and its decomposition (im2col matmuls per group, or the
// depthwise products and sums) compute the same values exactly, in f32
// and f16: the decomposition sums in eval.Conv's order. A constant weight
// (an imported model's) is rearranged at compile time: no op reads it
// but the matmul or the broadcast it feeds, and the declared constant is
// gone.
func TestDecomposeConvIsExact(t *testing.T) {
	type window struct {
		strides, dilations, pads []int
		groups                   int
	}
	cases := []struct {
		name       string
		in, w      []int
		win        window
		matmuls    int
		multiplies int
	}{
		{"3x3 pad 1", []int{1, 3, 9, 9}, []int{4, 3, 3, 3}, window{[]int{1, 1}, []int{1, 1}, []int{1, 1, 1, 1}, 1}, 1, 0},
		{"7x7 stride 2 pad 3", []int{2, 3, 12, 12}, []int{8, 3, 7, 7}, window{[]int{2, 2}, []int{1, 1}, []int{3, 3, 3, 3}, 1}, 1, 0},
		{"1x1", []int{1, 8, 5, 5}, []int{16, 8, 1, 1}, window{[]int{1, 1}, []int{1, 1}, []int{0, 0, 0, 0}, 1}, 1, 0},
		{"grouped dilated", []int{1, 4, 11, 7}, []int{6, 2, 3, 2}, window{[]int{2, 1}, []int{1, 2}, []int{0, 2, 1, 0}, 2}, 2, 0},
		{"depthwise 3x3 stride 2", []int{1, 6, 8, 8}, []int{6, 1, 3, 3}, window{[]int{2, 2}, []int{1, 1}, []int{1, 1, 1, 1}, 6}, 0, 9},
		{"1-D cropped", []int{1, 2, 10}, []int{3, 2, 4}, window{[]int{3}, []int{2}, []int{-1, 2}, 1}, 1, 0},
		{"patches 4x4", []int{1, 3, 8, 8}, []int{5, 3, 4, 4}, window{[]int{4, 4}, []int{1, 1}, []int{0, 0, 0, 0}, 1}, 1, 0},
	}
	compared := 0
	for _, constWeight := range []bool{false, true} {
		for _, kind := range []elem.Type{elem.F32, elem.F16} {
			for _, tc := range cases {
				name := kind.String() + " " + tc.name
				if constWeight {
					name += ", constant weight"
				}
				t.Run(name, func(t *testing.T) {
					compared += checkConvDecomposition(t, kind, tc.in, tc.w, tc.win.strides, tc.win.dilations, tc.win.pads, tc.win.groups, constWeight, tc.matmuls, tc.multiplies)
				})
			}
		}
	}
	t.Logf("%d elements equal", compared)
}

// checkConvDecomposition builds one conv, decomposes it and compares,
// returning the number of elements compared.
func checkConvDecomposition(t *testing.T, kind elem.Type, in, ws, strides, dilations, pads []int, groups int, constWeight bool, wantMatmuls, wantMultiplies int) int {
	f := newFixture(t)
	et := FloatType(f.ctx, kind)
	x := f.block.AddArgument(f.tensor(et, dims64(in)...), nil)
	args := []*eval.Array{gaussian(t, in, kind, 1), gaussian(t, ws, kind, 2)}
	var w *ir.Value
	if constWeight {
		w = f.constant(f.tensor(et, dims64(ws)...), args[1].Data...)
		args = args[:1]
	} else {
		w = f.block.AddArgument(f.tensor(et, dims64(ws)...), nil)
	}
	out := f.build(ConvOpName, []*ir.Value{x, w},
		named(StridesAttr, I64Array(f.ctx, strides...)), named(DilationsAttr, I64Array(f.ctx, dilations...)),
		named(PadsAttr, I64Array(f.ctx, pads...)), named(GroupsAttr, I64(f.ctx, groups)))
	sink := f.raw("test.sink", nil, []*ir.Value{out})
	fused := f.run(args, out)
	if n, err := Decompose(f.fn); err != nil || n != 1 {
		t.Fatalf("Decompose = %d, %v", n, err)
	}
	if d := ir.Verify(f.fn); d != nil {
		t.Fatal(d)
	}
	matmuls, multiplies := 0, 0
	for _, op := range f.block.Ops() {
		switch {
		case op.Is(ConvOp):
			t.Fatal("tensor.conv left after decomposition")
		case op.Is(MatmulOp):
			matmuls++
		case op.Is(MulOp):
			multiplies++
		case op.Is(ConstantOp) && slices.Equal(shapeOf(op.Result(0).Type()), ws):
			t.Error("the weight's constant as declared is left in the program")
		}
		for _, v := range op.Operands() {
			if def := v.DefiningOp(); constWeight && def != nil && def.Is(ConstantOp) && !op.Is(MatmulOp, BroadcastOp, ConcatOp) {
				t.Errorf("%s reads a constant: the weight was not rearranged at compile time", op.Name())
			}
		}
	}
	if matmuls != wantMatmuls || multiplies != wantMultiplies {
		t.Errorf("%d matmuls and %d multiplies, want %d and %d", matmuls, multiplies, wantMatmuls, wantMultiplies)
	}
	decomposed := f.run(args, sink.Operand(0))
	if diff, err := eval.MaxAbsDiff(fused, decomposed); err != nil || diff != 0 {
		t.Fatalf("the conv and its decomposition differ by %g, %v", diff, err)
	}
	return len(fused.Data)
}
