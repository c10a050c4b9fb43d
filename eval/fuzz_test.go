package eval

import (
	"testing"

	"github.com/ipuir/ipuir/elem"
)

// FuzzKernels feeds every kernel shapes, axes, permutations and slices
// derived from arbitrary bytes. Kernels may refuse (an error), never panic,
// and what they return is well formed.
func FuzzKernels(f *testing.F) {
	f.Add([]byte{2, 3, 1, 0, 1, 0, 2})
	f.Add([]byte{3, 2, 2, 2, 2, 1, 0, 1, 1, 1})
	f.Add([]byte{0})
	f.Add([]byte{1, 0, 0, 0, 255, 128, 7})
	f.Fuzz(func(t *testing.T, data []byte) {
		next := func() int {
			if len(data) == 0 {
				return 0
			}
			b := data[0]
			data = data[1:]
			return int(int8(b))
		}
		rank := next() & 3
		shape := make([]int, rank)
		for i := range shape {
			shape[i] = next() & 7
		}
		kinds := []elem.Type{elem.F16, elem.BF16, elem.F32, elem.F64}
		kind := kinds[next()&3]
		n, err := NumElements(shape)
		if err != nil {
			return
		}
		vals := make([]float64, n)
		for i := range vals {
			vals[i] = float64(i%5) - 2
		}
		a, err := FromValues(shape, kind, vals)
		if err != nil {
			t.Fatal(err)
		}
		ints := func() []int {
			out := make([]int, next()&3)
			for i := range out {
				out[i] = next()
			}
			return out
		}
		check := func(r *Array, err error) {
			if err == nil {
				if cerr := r.Check(); cerr != nil {
					t.Fatalf("kernel returned a malformed array: %v", cerr)
				}
			}
		}
		check(Transpose(a, ints()))
		check(Reduce(ReduceSum, a, ints()))
		check(Reduce(ReduceMax, a, ints()))
		check(Softmax(a, next()))
		check(Broadcast(a, ints(), ints()))
		check(Slice(a, ints(), ints(), ints()))
		check(Reshape(a, ints()))
		check(Concat([]*Array{a, a}, next()))
		check(MatMul(a, a))
		check(BatchMatMul(a, a))
		check(Binary(Add, a, a))
		check(Unary(Gelu, a))
		check(Convert(a, kinds[next()&3]))
		s, _ := FromValues(ints(), kind, nil)
		check(LayerNorm(a, s, s, 1e-5))
	})
}
