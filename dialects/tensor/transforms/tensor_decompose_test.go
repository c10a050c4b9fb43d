package transforms_test

import (
	"strings"
	"testing"

	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/dialects/tensor/transforms"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/passes"
	"github.com/ipuir/ipuir/tests/testdialect"
)

func TestTensorDecomposePass(t *testing.T) {
	ctx := testdialect.NewContext()
	if err := tensor.Register(ctx); err != nil {
		t.Fatal(err)
	}
	b := ir.NewBuilder(ctx)
	module := ir.NewModule(ctx, ctx.FileLineCol("test.ipuir", 1, 1))
	ty := ctx.Tensor([]int64{2, 8}, ctx.F32())
	_, entry := testdialect.NewFunc(b, module, "f", "", ty)
	x := entry.Argument(0)
	s, err := tensor.Build(b, tensor.SoftmaxOpName, nil, []*ir.Value{x}, ir.NamedAttr{Name: tensor.AxisAttr, Value: tensor.I64(ctx, 1)})
	if err != nil {
		t.Fatal(err)
	}
	g, err := tensor.Build(b, tensor.GeluOpName, nil, []*ir.Value{s})
	if err != nil {
		t.Fatal(err)
	}
	testdialect.Ret(b, g)

	r := passes.NewRegistry()
	if err := r.Register(&transforms.TensorDecompose{}); err != nil {
		t.Fatal(err)
	}
	pm, err := r.ParsePipeline("builtin.module(tensor-decompose)")
	if err != nil {
		t.Fatal(err)
	}
	if err := passes.NewPassManager(ctx, pm, passes.DefaultOptions()).Run(module); err != nil {
		t.Fatal(err)
	}
	var names []string
	module.Walk(func(op *ir.Operation) ir.WalkResult {
		if strings.HasPrefix(op.Name(), "tensor.") {
			names = append(names, strings.TrimPrefix(op.Name(), "tensor."))
		}
		return ir.WalkAdvance
	})
	got := strings.Join(names, " ")
	want := "reduce_max broadcast sub exp reduce_sum broadcast div " +
		"constant mul erf constant mul constant add mul"
	if got != want {
		t.Fatalf("ops after tensor-decompose:\n%s\nwant\n%s", got, want)
	}
}
