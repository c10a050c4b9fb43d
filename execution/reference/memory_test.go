package reference

import (
	"testing"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
)

const chain = `
func.func @chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor.exp %x : tensor<4xf32>
  %1 = tensor.exp %0 : tensor<4xf32>
  %2 = tensor.exp %1 : tensor<4xf32>
  %3 = tensor.exp %2 : tensor<4xf32>
  return %3 : tensor<4xf32>
}
`

// The limit counts the values held at once: the input (32 bytes) and, as
// the chain runs, two results, since each dies at its one use. 96 bytes is
// enough; 95 is not, and the op that would cross it is named.
func TestMemoryLimitCountsLiveValues(t *testing.T) {
	ctx := tensorContext(t)
	module, err := parser.ParseSourceString(ctx, []byte(chain), parser.Config{Filename: "chain.ipuir"})
	if err != nil {
		t.Fatal(err)
	}
	fn, err := LookupFunction(module, "chain")
	if err != nil {
		t.Fatal(err)
	}
	x, err := eval.FromValues([]int{4}, elem.F32, []float64{0, 1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(fn, []*eval.Array{x}, &Options{MemoryLimit: 96}); err != nil {
		t.Fatalf("within the limit: %v", err)
	}
	_, err = Run(fn, []*eval.Array{x}, &Options{MemoryLimit: 95})
	wantError(t, err, "chain.ipuir:4:8: error: 'tensor.exp' op the result of type 'tensor<4xf32>' needs 32 B (8 bytes an element) besides the 64 B already held; the reference interpreter's memory limit is 95 B")
	_, err = Run(fn, []*eval.Array{x}, &Options{MemoryLimit: 31})
	wantError(t, err, "chain.ipuir:2:1: error: input #0 of type 'tensor<4xf32>' needs 32 B")
	if err := CheckInputsFit([]ir.Type{ctx.Tensor([]int64{1 << 40, 1 << 40}, ctx.F32())}, 0); err == nil {
		t.Fatal("a 2^80-element input fits")
	} else {
		wantError(t, err, "needs more than 2^62 bytes")
	}
}
