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
	want := []string{"add", "atan", "batch_matmul", "broadcast", "ceil", "concat", "constant", "conv", "convert", "cos", "div", "equal", "erf", "exp",
		"floor", "gelu", "layer_norm", "less", "less_equal", "log", "matmul", "max", "mul", "not_equal", "pow", "reduce_max", "reduce_sum", "reshape", "round", "rsqrt", "select", "sign", "silu", "sin", "slice",
		"softmax", "splat", "string_format", "string_normalize", "string_parse", "sub", "tanh", "transpose"}
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
		if specs[op.Name] == nil || specs[op.Name].evaluate == nil || op.Verify == nil || op.Fold == nil {
			t.Errorf("%s lacks an evaluator, verifier or folder", op.Name)
		}
	}
	// Every context shares the one declaration of each op, which is how
	// passes recognise ops (op.Is(MatmulOp)).
	other := ir.NewContext()
	if err := Register(other); err != nil {
		t.Fatal(err)
	}
	if other.OpDef(MatmulOpName) != MatmulOp || ctx.OpDef(MatmulOpName) != MatmulOp || MatmulOp.Dialect() != Dialect {
		t.Fatal("contexts do not share the declaration of tensor.matmul")
	}
}

func TestInferResultTypes(t *testing.T) {
	f := newFixture(t)
	f16 := f.ctx.F16()
	x := f.buildTyped(SplatOpName, f.tensor(f16, 729, 1152), []*ir.Value{f.build(ConstantOpName, nil, named("value", f.ctx.FloatAttr(f16, 1)))})
	w := f.buildTyped(SplatOpName, f.tensor(f16, 1152, 64), []*ir.Value{f.build(ConstantOpName, nil, named("value", f.ctx.FloatAttr(f16, 2)))})
	for _, tc := range []struct {
		name  string
		ops   []*ir.Value
		attrs []ir.NamedAttr
		want  ir.Type
	}{
		{MatmulOpName, []*ir.Value{x, w}, nil, f.tensor(f16, 729, 64)},
		{AddOpName, []*ir.Value{x, x}, nil, x.Type()},
		{ExpOpName, []*ir.Value{x}, nil, x.Type()},
		{ReduceSumOpName, []*ir.Value{x}, []ir.NamedAttr{named(AxesAttr, I64Array(f.ctx, 1))}, f.tensor(f16, 729)},
		{ReduceMaxOpName, []*ir.Value{x}, []ir.NamedAttr{named(AxesAttr, I64Array(f.ctx, 0, 1))}, f.tensor(f16)},
		{TransposeOpName, []*ir.Value{x}, []ir.NamedAttr{named(PermutationAttr, I64Array(f.ctx, 1, 0))}, f.tensor(f16, 1152, 729)},
		{SoftmaxOpName, []*ir.Value{x}, []ir.NamedAttr{named(AxisAttr, I64(f.ctx, 1))}, x.Type()},
		{SliceOpName, []*ir.Value{x}, []ir.NamedAttr{named(OffsetsAttr, I64Array(f.ctx, 1, 72)), named(SizesAttr, I64Array(f.ctx, 8, 72)),
			named(StridesAttr, I64Array(f.ctx, 2, 1))}, f.tensor(f16, 8, 72)},
		{ConcatOpName, []*ir.Value{x, x}, []ir.NamedAttr{named(AxisAttr, I64(f.ctx, 0))}, f.tensor(f16, 1458, 1152)},
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
	_, err := Build(f.b, ConvertOpName, nil, []*ir.Value{x})
	wantErrContains(t, err, "needs an explicit result type")
	// A failed build leaves nothing behind.
	n := f.block.NumOps()
	_, err = Build(f.b, MatmulOpName, nil, []*ir.Value{w, w})
	wantErrContains(t, err, "'tensor.matmul' op contracting dimensions differ: lhs has 64 columns, rhs has 1152 rows")
	if f.block.NumOps() != n {
		t.Fatal("failed build left an op in the block")
	}
}
