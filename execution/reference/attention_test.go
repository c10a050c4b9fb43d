package reference

import (
	"math"
	"testing"

	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/numeric"
)

// attentionShape is one size of the attention block of the reference
// workload: tokens×hidden activations, heads of hidden/heads.
type attentionShape struct{ tokens, hidden, heads int }

var (
	smallAttention = attentionShape{64, 128, 2}
	fullAttention  = attentionShape{729, 1152, 16}
)

// buildAttention builds, with the IR builder, @attention(x, wq, wk, wv, wo):
// Q, K and V projections, per-head scores scaled by 1/√d, softmax, the
// weighted sum of V and the output projection, all in elem. It mirrors
// examples/attention.ipuir, which the example tests check separately.
func buildAttention(t testing.TB, s attentionShape, elem func(*ir.Context) ir.Type) (*ir.Context, *ir.Operation) {
	t.Helper()
	ctx := tensorContext(t)
	ctx.AllowUnregisteredDialects = true
	e := elem(ctx)
	d := s.hidden / s.heads
	ty := func(dims ...int64) ir.Type { return ctx.Tensor(dims, e) }
	act, w := ty(int64(s.tokens), int64(s.hidden)), ty(int64(s.hidden), int64(s.hidden))
	fn := ir.NewOperation(ctx, &ir.OperationState{Name: "func.func", NumRegions: 1,
		Attrs: []ir.NamedAttr{{Name: "sym_name", Value: ctx.String("attention")}}})
	b := ir.NewBuilder(ctx)
	blk := b.CreateBlock(fn.Region(0), []ir.Type{act, w, w, w, w}, nil)
	must := func(v *ir.Value, err error) *ir.Value {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	op := func(name string, operands []*ir.Value, attrs ...ir.NamedAttr) *ir.Value {
		return must(tensor.Build(b, name, nil, operands, attrs...))
	}
	perm := func(p ...int) ir.NamedAttr {
		return ir.NamedAttr{Name: tensor.PermutationAttr, Value: tensor.I64Array(ctx, p...)}
	}
	heads := func(v *ir.Value, p ...int) *ir.Value {
		r := must(tensor.BuildTyped(b, tensor.ReshapeOpName, nil, ty(int64(s.tokens), int64(s.heads), int64(d)), []*ir.Value{v}))
		return op(tensor.TransposeOpName, []*ir.Value{r}, perm(p...))
	}
	x := blk.Argument(0)
	q := heads(op(tensor.MatmulOpName, []*ir.Value{x, blk.Argument(1)}), 1, 0, 2)
	k := heads(op(tensor.MatmulOpName, []*ir.Value{x, blk.Argument(2)}), 1, 2, 0)
	v := heads(op(tensor.MatmulOpName, []*ir.Value{x, blk.Argument(3)}), 1, 0, 2)
	scores := op(tensor.BatchMatmulOpName, []*ir.Value{q, k})
	scale := must(tensor.SplatConstant(b, nil, scores.Type(), 1/math.Sqrt(float64(d))))
	probs := op(tensor.SoftmaxOpName, []*ir.Value{op(tensor.MulOpName, []*ir.Value{scores, scale})},
		ir.NamedAttr{Name: tensor.AxisAttr, Value: tensor.I64(ctx, 2)})
	o := op(tensor.TransposeOpName, []*ir.Value{op(tensor.BatchMatmulOpName, []*ir.Value{probs, v})}, perm(1, 0, 2))
	merged := must(tensor.BuildTyped(b, tensor.ReshapeOpName, nil, act, []*ir.Value{o}))
	out := op(tensor.MatmulOpName, []*ir.Value{merged, blk.Argument(4)})
	b.Create(&ir.OperationState{Name: ReturnOp, Operands: []*ir.Value{out}})
	fn.SetAttr(ctx, "function_type", ctx.TypeAttr(ctx.Function([]ir.Type{act, w, w, w, w}, []ir.Type{out.Type()})))
	if d := ir.Verify(fn); d != nil {
		t.Fatal(d)
	}
	return ctx, fn
}

// attentionInputs draws x ~ N(0, 1) and weights ~ N(0, 1/hidden), so that
// projections, scaled scores and outputs are all of order 1.
func attentionInputs(t testing.TB, s attentionShape, kind elem.Type) []*eval.Array {
	t.Helper()
	g := func(shape []int, seed uint64, stddev float64) *eval.Array {
		n, _ := eval.NumElements(shape)
		vals, err := numeric.Gaussian(n, seed, 0, stddev)
		if err != nil {
			t.Fatal(err)
		}
		a, err := eval.FromValues(shape, kind, vals)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	ws := 1 / math.Sqrt(float64(s.hidden))
	return []*eval.Array{g([]int{s.tokens, s.hidden}, 1, 1), g([]int{s.hidden, s.hidden}, 2, ws),
		g([]int{s.hidden, s.hidden}, 3, ws), g([]int{s.hidden, s.hidden}, 4, ws), g([]int{s.hidden, s.hidden}, 5, ws)}
}

// oracleAttention computes the attention block in float64 with plain
// loops over flat slices, sharing no code with the interpreter or the eval
// kernels: projections, per-head scores with the exact 1/√d, a softmax that
// subtracts the row maximum, the weighted sum and the output projection.
func oracleAttention(s attentionShape, x, wq, wk, wv, wo []float64) []float64 {
	n, h, d := s.tokens, s.hidden, s.hidden/s.heads
	project := func(a, w []float64) []float64 {
		out := make([]float64, n*h)
		for i := 0; i < n; i++ {
			for k := 0; k < h; k++ {
				aik := a[i*h+k]
				for j := 0; j < h; j++ {
					out[i*h+j] += aik * w[k*h+j]
				}
			}
		}
		return out
	}
	q, k, v := project(x, wq), project(x, wk), project(x, wv)
	o := make([]float64, n*h)
	row := make([]float64, n)
	scale := 1 / math.Sqrt(float64(d))
	for head := 0; head < s.heads; head++ {
		c := head * d
		for i := 0; i < n; i++ {
			m := math.Inf(-1)
			for j := 0; j < n; j++ {
				dot := 0.0
				for e := 0; e < d; e++ {
					dot += q[i*h+c+e] * k[j*h+c+e]
				}
				row[j] = dot * scale
				if row[j] > m {
					m = row[j]
				}
			}
			sum := 0.0
			for j := range row {
				row[j] = math.Exp(row[j] - m)
				sum += row[j]
			}
			for j := range row {
				p := row[j] / sum
				for e := 0; e < d; e++ {
					o[i*h+c+e] += p * v[j*h+c+e]
				}
			}
		}
	}
	return project(o, wo)
}

// attentionError runs the interpreter and the oracle and returns the
// largest absolute error and the largest |oracle| value.
func attentionError(t testing.TB, s attentionShape, kind elem.Type, elem func(*ir.Context) ir.Type) (maxErr, maxRef float64) {
	_, fn := buildAttention(t, s, elem)
	in := attentionInputs(t, s, kind)
	out, err := Run(fn, in, nil)
	if err != nil {
		t.Fatal(err)
	}
	ref := oracleAttention(s, in[0].Data, in[1].Data, in[2].Data, in[3].Data, in[4].Data)
	if len(out) != 1 || len(out[0].Data) != len(ref) {
		t.Fatalf("interpreter returned %d values", len(out))
	}
	for i, r := range ref {
		maxErr = math.Max(maxErr, math.Abs(out[0].Data[i]-r))
		maxRef = math.Max(maxRef, math.Abs(r))
	}
	return maxErr, maxRef
}

// The interpreter's f16 attention output matches the float64 oracle within
// f16 tolerance; in f64 it matches to rounding noise, which shows the
// small f16 error is rounding, not a semantic difference.
func TestAttentionMatchesFloat64Oracle(t *testing.T) {
	f16 := func(c *ir.Context) ir.Type { return c.F16() }
	f64 := func(c *ir.Context) ir.Type { return c.F64() }
	errF64, refF64 := attentionError(t, smallAttention, elem.F64, f64)
	if errF64 > 1e-12*refF64 {
		t.Fatalf("f64 attention differs from the oracle by %g (max |ref| %g)", errF64, refF64)
	}
	errF16, refF16 := attentionError(t, smallAttention, elem.F16, f16)
	// A chain of f16 roundings with f32 accumulation stays within a few
	// f16 ulps of the largest output (an ulp is 2^-10 relative).
	t.Logf("f16 attention %v: max abs error %.3g, max |ref| %.3g", smallAttention, errF16, refF16)
	if errF16 > f16Tolerance(refF16) {
		t.Fatalf("f16 attention differs from the oracle by %g (max |ref| %g)", errF16, refF16)
	}
}

// f16Tolerance is four f16 ulps of the largest reference value.
func f16Tolerance(maxRef float64) float64 { return 4 * 0x1p-10 * maxRef }
