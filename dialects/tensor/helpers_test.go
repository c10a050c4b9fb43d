package tensor

import (
	"strings"
	"testing"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/numeric"
)

// fixture is a context with the dialect registered and a function-like
// container op whose entry block takes the given arguments; the builder
// inserts at the block's end.
type fixture struct {
	t     *testing.T
	ctx   *ir.Context
	fn    *ir.Operation
	block *ir.Block
	b     *ir.Builder
}

func newFixture(t *testing.T, args ...ir.Type) *fixture {
	t.Helper()
	ctx := ir.NewContext()
	ctx.AllowUnregisteredDialects = true
	if err := Register(ctx); err != nil {
		t.Fatal(err)
	}
	fn := ir.NewOperation(ctx, &ir.OperationState{Name: "test.func", NumRegions: 1})
	b := ir.NewBuilder(ctx)
	blk := b.CreateBlock(fn.Region(0), args, nil)
	return &fixture{t: t, ctx: ctx, fn: fn, block: blk, b: b}
}

func (f *fixture) tensor(elem ir.Type, dims ...int64) *ir.RankedTensorType {
	return f.ctx.Tensor(dims, elem)
}

func (f *fixture) arg(i int) *ir.Value { return f.block.Argument(i) }

// raw creates an op without inference or verification, as a parser would;
// a nil result type makes an op without results.
func (f *fixture) raw(name string, result ir.Type, operands []*ir.Value, attrs ...ir.NamedAttr) *ir.Operation {
	var results []ir.Type
	if result != nil {
		results = []ir.Type{result}
	}
	op := ir.NewOperation(f.ctx, &ir.OperationState{Name: name, Operands: operands, ResultTypes: results, Attrs: attrs})
	f.b.Insert(op)
	return op
}

func (f *fixture) build(name string, operands []*ir.Value, attrs ...ir.NamedAttr) *ir.Value {
	f.t.Helper()
	v, err := Build(f.b, name, nil, operands, attrs...)
	if err != nil {
		f.t.Fatal(err)
	}
	return v
}

func (f *fixture) buildTyped(name string, result ir.Type, operands []*ir.Value, attrs ...ir.NamedAttr) *ir.Value {
	f.t.Helper()
	v, err := BuildTyped(f.b, name, nil, result, operands, attrs...)
	if err != nil {
		f.t.Fatal(err)
	}
	return v
}

func (f *fixture) constant(t ir.Type, vals ...float64) *ir.Value {
	f.t.Helper()
	v, err := Constant(f.b, nil, f.ctx.DenseFloats(t.(ir.ShapedType), vals))
	if err != nil {
		f.t.Fatal(err)
	}
	return v
}

func named(name string, a ir.Attribute) ir.NamedAttr { return ir.NamedAttr{Name: name, Value: a} }

// wantVerifyError checks that op fails verification with exactly msg
// (after the "'name' op " prefix).
func wantVerifyError(t *testing.T, op *ir.Operation, msg string) {
	t.Helper()
	d := ir.VerifyOne(op)
	if d == nil {
		t.Fatalf("%s verified, want error %q", op.Name(), msg)
	}
	want := "'" + op.Name() + "' op " + msg
	if d.Message != want {
		t.Fatalf("error %q\nwant      %q", d.Message, want)
	}
}

func gaussian(t *testing.T, shape []int, kind elem.Type, seed uint64) *eval.Array {
	t.Helper()
	n, _ := eval.NumElements(shape)
	x, err := numeric.Gaussian(n, seed, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	a, err := eval.FromValues(shape, kind, x)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func wantErrContains(t *testing.T, err error, substr string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), substr) {
		t.Fatalf("error %v, want one containing %q", err, substr)
	}
}
