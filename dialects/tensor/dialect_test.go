package tensor

import (
	"strings"
	"testing"

	"github.com/ipuir/ipuir/ir"
)

func TestRegistrationDeclaresEveryOp(t *testing.T) {
	ctx := ir.NewContext()
	if err := Register(ctx); err != nil {
		t.Fatal(err)
	}
	if err := Register(ctx); err == nil {
		t.Fatal("registering twice succeeded")
	}
	want := []string{"add", "batch_matmul", "broadcast", "concat", "constant", "convert", "div", "erf", "exp",
		"gelu", "layer_norm", "matmul", "max", "mul", "reduce_max", "reduce_sum", "reshape", "rsqrt", "slice",
		"softmax", "splat", "sub", "tanh", "transpose"}
	d := ctx.Dialect(Name)
	if len(d.Ops) != len(want) {
		t.Fatalf("%d ops, want %d", len(d.Ops), len(want))
	}
	for i, op := range d.SortedOps() {
		if op.Name != "tensor."+want[i] {
			t.Fatalf("op %d is %s, want tensor.%s", i, op.Name, want[i])
		}
		if op.AssemblyFormat == "" || op.Summary == "" || !strings.Contains(op.Example, op.Name) {
			t.Errorf("%s lacks a format, summary or example", op.Name)
		}
		if !Evaluates(op.Name) || op.Verify == nil || op.Fold == nil {
			t.Errorf("%s lacks an evaluator, verifier or folder", op.Name)
		}
	}
	// Two contexts get independent OpDefs.
	other := ir.NewContext()
	if err := Register(other); err != nil {
		t.Fatal(err)
	}
	if other.OpDef(MatmulOp) == ctx.OpDef(MatmulOp) {
		t.Fatal("contexts share an OpDef")
	}
}

func TestInferResultTypes(t *testing.T) {
	f := newFixture(t)
	f16 := f.ctx.F16()
	x := f.buildTyped(SplatOp, f.tensor(f16, 729, 1152), []*ir.Value{f.build(ConstantOp, nil, named("value", f.ctx.FloatAttr(f16, 1)))})
	w := f.buildTyped(SplatOp, f.tensor(f16, 1152, 64), []*ir.Value{f.build(ConstantOp, nil, named("value", f.ctx.FloatAttr(f16, 2)))})
	for _, tc := range []struct {
		name  string
		ops   []*ir.Value
		attrs []ir.NamedAttr
		want  ir.Type
	}{
		{MatmulOp, []*ir.Value{x, w}, nil, f.tensor(f16, 729, 64)},
		{AddOp, []*ir.Value{x, x}, nil, x.Type()},
		{ExpOp, []*ir.Value{x}, nil, x.Type()},
		{ReduceSumOp, []*ir.Value{x}, []ir.NamedAttr{named(AxesAttr, I64Array(f.ctx, 1))}, f.tensor(f16, 729)},
		{ReduceMaxOp, []*ir.Value{x}, []ir.NamedAttr{named(AxesAttr, I64Array(f.ctx, 0, 1))}, f.tensor(f16)},
		{TransposeOp, []*ir.Value{x}, []ir.NamedAttr{named(PermutationAttr, I64Array(f.ctx, 1, 0))}, f.tensor(f16, 1152, 729)},
		{SoftmaxOp, []*ir.Value{x}, []ir.NamedAttr{named(AxisAttr, I64(f.ctx, 1))}, x.Type()},
		{SliceOp, []*ir.Value{x}, []ir.NamedAttr{named(OffsetsAttr, I64Array(f.ctx, 1, 72)), named(SizesAttr, I64Array(f.ctx, 8, 72)),
			named(StridesAttr, I64Array(f.ctx, 2, 1))}, f.tensor(f16, 8, 72)},
		{ConcatOp, []*ir.Value{x, x}, []ir.NamedAttr{named(AxisAttr, I64(f.ctx, 0))}, f.tensor(f16, 1458, 1152)},
	} {
		got := f.build(tc.name, tc.ops, tc.attrs...)
		if got.Type() != tc.want {
			t.Errorf("%s: inferred %s, want %s", tc.name, ir.TypeString(got.Type()), ir.TypeString(tc.want))
		}
		// InferResultTypes, as a parser calls it, agrees.
		types, err := f.ctx.OpDef(tc.name).InferResultTypes(f.ctx, tc.ops, tc.attrs)
		if err != nil || len(types) != 1 || types[0] != tc.want {
			t.Errorf("%s: InferResultTypes = %v, %v", tc.name, types, err)
		}
	}
	// Ops with a free result type say so instead of guessing.
	_, err := Build(f.b, ConvertOp, nil, []*ir.Value{x})
	wantErrContains(t, err, "needs an explicit result type")
	// A failed build leaves nothing behind.
	n := f.block.NumOps()
	_, err = Build(f.b, MatmulOp, nil, []*ir.Value{w, w})
	wantErrContains(t, err, "'tensor.matmul' op contracting dimensions differ: lhs has 64 columns, rhs has 1152 rows")
	if f.block.NumOps() != n {
		t.Fatal("failed build left an op in the block")
	}
}
