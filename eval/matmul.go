package eval

import (
	"fmt"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/numeric"
)

// MatMul returns a·b for a of shape M×K and b of shape K×N, both of one
// kind; the result has that kind. See the package comment for the
// accumulation rule.
func MatMul(a, b *Array) (*Array, error) {
	if err := checkAll(a, b); err != nil {
		return nil, err
	}
	if a.Rank() != 2 || b.Rank() != 2 {
		return nil, fmt.Errorf("matmul needs rank-2 operands, got %s and %s", a.TypeString(), b.TypeString())
	}
	return batchMatMul(a, b, nil)
}

// BatchMatMul multiplies matching matrices of two arrays of shapes
// B…×M×K and B…×K×N (the same leading batch dimensions, at least one),
// giving B…×M×N.
func BatchMatMul(a, b *Array) (*Array, error) {
	if err := checkAll(a, b); err != nil {
		return nil, err
	}
	if a.Rank() < 3 || a.Rank() != b.Rank() {
		return nil, fmt.Errorf("batch_matmul needs operands of one rank of at least 3, got %s and %s",
			a.TypeString(), b.TypeString())
	}
	batch := a.Shape[:a.Rank()-2]
	if !SameShape(batch, b.Shape[:b.Rank()-2]) {
		return nil, fmt.Errorf("batch_matmul: batch dimensions differ: %s and %s", a.TypeString(), b.TypeString())
	}
	return batchMatMul(a, b, batch)
}

func batchMatMul(a, b *Array, batch []int) (*Array, error) {
	if a.Kind != b.Kind {
		return nil, fmt.Errorf("matmul operands differ in kind: %s and %s", a.TypeString(), b.TypeString())
	}
	r := a.Rank()
	m, k, k2, n := a.Shape[r-2], a.Shape[r-1], b.Shape[r-2], b.Shape[r-1]
	if k != k2 {
		return nil, fmt.Errorf("matmul: contracting dimensions differ: %s and %s", a.TypeString(), b.TypeString())
	}
	shape := append(append([]int{}, batch...), m, n)
	out, err := New(shape, a.Kind)
	if err != nil {
		return nil, err
	}
	batches, _ := NumElements(batch)
	p := problem{batches: batches, m: m, k: k, n: n}
	if a.Kind == elem.F64 {
		mulAll(p, a.Data, b.Data, out.Data)
		return out, nil
	}
	// f16, bf16 and f32 values are exact in float32, which is the
	// accumulator; converting up front halves the memory traffic.
	a32, b32, c32 := toFloat32(a.Data), toFloat32(b.Data), make([]float32, len(out.Data))
	mulAll(p, a32, b32, c32)
	roundFromFloat32(out.Data, c32, a.Kind)
	return out, nil
}

// roundFromFloat32 rounds f32 sums to kind. Rounding a float32 to f16 or
// bf16 directly is a single correct rounding, and cheaper than the
// float64 path (which must round to odd first).
func roundFromFloat32(dst []float64, src []float32, kind elem.Type) {
	parallelFor(len(src), elementwiseGrain, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			v := src[i]
			switch kind {
			case elem.F16:
				dst[i] = numeric.F16ToFloat64(numeric.F16FromFloat32(v))
			case elem.BF16:
				dst[i] = numeric.BF16ToFloat64(numeric.BF16FromFloat32(v))
			default:
				dst[i] = float64(v)
			}
		}
	})
}

// MatMulF32 accumulates c += a·b for batches matrices of m×k and k×n
// float32 values (row major, one after another), each c element summed in
// k order with every product rounded to f32 before it is added: the
// kernel MatMul and BatchMatMul run on f16, bf16 and f32 operands, for a
// caller that holds them as float32 already (the simulated AMP).
func MatMulF32(batches, m, k, n int, a, b, c []float32) error {
	if batches < 0 || m < 0 || k < 0 || n < 0 || len(a) != batches*m*k || len(b) != batches*k*n || len(c) != batches*m*n {
		return fmt.Errorf("MatMulF32: %d×%d×%d×%d does not match %d, %d and %d values", batches, m, k, n, len(a), len(b), len(c))
	}
	mulAll(problem{batches: batches, m: m, k: k, n: n}, a, b, c)
	return nil
}

func toFloat32(xs []float64) []float32 {
	out := make([]float32, len(xs))
	for i, x := range xs {
		out[i] = float32(x)
	}
	return out
}

type problem struct{ batches, m, k, n int }

// Blocking of the product. A task is rowBlock rows of one matrix of the
// batch; within it the columns go colBlock at a time so that the rows of c
// being accumulated (rowBlock×colBlock values) stay in L1 while k runs.
const (
	rowBlock = 16
	colBlock = 256
)

// mulAll computes c = a·b for each matrix of the batch, in parallel over
// row blocks. Every c element is summed over k in increasing order by one
// goroutine, so the split never changes a result.
func mulAll[F float32 | float64](p problem, a, b, c []F) {
	rowTasks := (p.m + rowBlock - 1) / rowBlock
	tasks := p.batches * rowTasks
	if tasks == 0 || p.n == 0 {
		return
	}
	run := func(t int) {
		bi, rb := t/rowTasks, t%rowTasks
		i0, i1 := rb*rowBlock, min(rb*rowBlock+rowBlock, p.m)
		am := a[bi*p.m*p.k : (bi+1)*p.m*p.k]
		bm := b[bi*p.k*p.n : (bi+1)*p.k*p.n]
		cm := c[bi*p.m*p.n : (bi+1)*p.m*p.n]
		mulBlock(am, bm, cm, p.k, p.n, i0, i1)
	}
	// Small products are not worth a goroutine: one chunk of every task.
	grain := 1
	if p.batches*p.m*p.k*p.n < 1<<16 {
		grain = tasks
	}
	parallelFor(tasks, grain, func(lo, hi int) {
		for t := lo; t < hi; t++ {
			run(t)
		}
	})
}

// mulBlock accumulates rows [i0, i1) of c = a·b (a is m×k, b is k×n, both
// row major). For each column block it walks k four at a time; each c
// element is loaded once per four k and updated in k order, the products
// rounded to F before each addition (the explicit conversions forbid the
// compiler from fusing multiply and add, which would round differently).
func mulBlock[F float32 | float64](a, b, c []F, k, n, i0, i1 int) {
	for j0 := 0; j0 < n; j0 += colBlock {
		j1 := min(j0+colBlock, n)
		w := j1 - j0
		kk := 0
		for ; kk+4 <= k; kk += 4 {
			b0 := b[kk*n+j0 : kk*n+j1]
			b1 := b[(kk+1)*n+j0 : (kk+1)*n+j1][:w]
			b2 := b[(kk+2)*n+j0 : (kk+2)*n+j1][:w]
			b3 := b[(kk+3)*n+j0 : (kk+3)*n+j1][:w]
			i := i0
			for ; i+2 <= i1; i += 2 {
				ar0, ar1 := a[i*k+kk:i*k+kk+4], a[(i+1)*k+kk:(i+1)*k+kk+4]
				x0, x1, x2, x3 := ar0[0], ar0[1], ar0[2], ar0[3]
				y0, y1, y2, y3 := ar1[0], ar1[1], ar1[2], ar1[3]
				c0 := c[i*n+j0 : i*n+j1][:w]
				c1 := c[(i+1)*n+j0 : (i+1)*n+j1][:w]
				for j := range b0 {
					p0, p1, p2, p3 := b0[j], b1[j], b2[j], b3[j]
					s := c0[j]
					s += F(x0 * p0)
					s += F(x1 * p1)
					s += F(x2 * p2)
					s += F(x3 * p3)
					c0[j] = s
					t := c1[j]
					t += F(y0 * p0)
					t += F(y1 * p1)
					t += F(y2 * p2)
					t += F(y3 * p3)
					c1[j] = t
				}
			}
			for ; i < i1; i++ {
				ar := a[i*k+kk : i*k+kk+4]
				x0, x1, x2, x3 := ar[0], ar[1], ar[2], ar[3]
				c0 := c[i*n+j0 : i*n+j1][:w]
				for j := range b0 {
					s := c0[j]
					s += F(x0 * b0[j])
					s += F(x1 * b1[j])
					s += F(x2 * b2[j])
					s += F(x3 * b3[j])
					c0[j] = s
				}
			}
		}
		for ; kk < k; kk++ {
			br := b[kk*n+j0 : kk*n+j1]
			for i := i0; i < i1; i++ {
				x := a[i*k+kk]
				cr := c[i*n+j0 : i*n+j1][:w]
				for j := range br {
					cr[j] += F(x * br[j])
				}
			}
		}
	}
}

// MatMulF16Partials is MatMulF32 with f16 partial sums: each block of
// block products is summed in f32, in increasing k, and added to the
// partial sum, which is rounded to f16 after every block (an AMP keeping
// f16 partials between passes of its input channels). c holds the final
// partial sums, f16 values as float32.
func MatMulF16Partials(batches, m, k, n, block int, a, b, c []float32) error {
	if batches < 0 || m < 0 || k < 0 || n < 0 || block < 1 || len(a) != batches*m*k || len(b) != batches*k*n || len(c) != batches*m*n {
		return fmt.Errorf("MatMulF16Partials: %d×%d×%d×%d in blocks of %d does not match %d, %d and %d values", batches, m, k, n, block, len(a), len(b), len(c))
	}
	for bt := range batches {
		A, B, C := a[bt*m*k:(bt+1)*m*k], b[bt*k*n:(bt+1)*k*n], c[bt*m*n:(bt+1)*m*n]
		for i := range m {
			for j := range n {
				var p float32
				for lo := 0; lo < k; lo += block {
					var s float32
					for kk := lo; kk < min(lo+block, k); kk++ {
						s += A[i*k+kk] * B[kk*n+j]
					}
					p = numeric.F16ToFloat32(numeric.F16FromFloat32(p + s))
				}
				C[i*n+j] = p
			}
		}
	}
	return nil
}
