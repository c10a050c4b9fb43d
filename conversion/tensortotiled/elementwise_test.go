package tensortotiled_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/kernel"
	"github.com/ipuir/ipuir/registry/registrytest"
)

// Every elementwise op of the tensor dialect (what convert-tensor-to-tiled
// lowers through tensor.ElementwiseFunction and kernel.FnFor) (each op declaring
// ir.Elementwise, in every variant its attributes select) has a kernel
// that computes it, each variant its own: an op added to the dialect
// without a row in kernel.Fns fails here, by name, rather than in a
// user's compile.
func TestEveryElementwiseOpHasAKernel(t *testing.T) {
	var body strings.Builder
	n := 0
	for _, def := range tensor.Dialect.Ops {
		if _, ok := ir.DefInterface[ir.Elementwise](def); !ok {
			continue
		}
		switch {
		case def.Name == tensor.ConvertOpName:
			fmt.Fprintf(&body, "    %%r%d = %s %%a : tensor<4xf32> -> tensor<4xf16>\n", n, def.Name)
		case def.Results[0].Type.Desc == tensor.BoolTensor.Desc:
			fmt.Fprintf(&body, "    %%r%d = %s %%a, %%a : tensor<4xf32>, tensor<4xf32> -> tensor<4xi1>\n", n, def.Name)
		case len(def.Operands) == 3:
			fmt.Fprintf(&body, "    %%r%d = %s %%c, %%a, %%a : tensor<4xi1>, tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>\n", n, def.Name)
		case len(def.Operands) == 2:
			fmt.Fprintf(&body, "    %%r%d = %s %%a, %%a : tensor<4xf32>\n", n, def.Name)
		default:
			fmt.Fprintf(&body, "    %%r%d = %s %%a : tensor<4xf32>\n", n, def.Name)
		}
		n++
		if def.Name == tensor.GeluOpName {
			fmt.Fprintf(&body, "    %%r%d = %s %%a {%s} : tensor<4xf32>\n", n, def.Name, tensor.ApproximateAttr)
			n++
		}
	}
	src := "func.func @f(%a: tensor<4xf32>, %c: tensor<4xi1>) {\n" + body.String() + "    return\n}\n"
	_, module := registrytest.Parse(t, "elementwise.ipuir", []byte(src))
	fns := map[string]string{}
	checked := 0
	module.Walk(func(op *ir.Operation) ir.WalkResult {
		f, ok := tensor.ElementwiseFunction(op)
		if !ok {
			return ir.WalkAdvance
		}
		fn, err := kernel.FnFor(f)
		if err != nil {
			t.Errorf("%s: %v", op.Name(), err)
			return ir.WalkAdvance
		}
		if other, dup := fns[fn.Name]; dup {
			t.Errorf("%s and %s both lower to %s", other, op.Name(), fn.Name)
		}
		fns[fn.Name] = op.Name() + fmt.Sprint(op.AllAttrs())
		checked++
		return ir.WalkAdvance
	})
	if checked != n || n < 12 {
		t.Fatalf("checked %d of %d elementwise ops", checked, n)
	}
}
