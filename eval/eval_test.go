package eval

import (
	"math"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/numeric"
)

func arr(t *testing.T, shape []int, kind elem.Type, vals ...float64) *Array {
	t.Helper()
	a, err := FromValues(shape, kind, vals)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func wantData(t *testing.T, got *Array, err error, shape []int, want ...float64) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if !SameShape(got.Shape, shape) {
		t.Fatalf("shape %v, want %v", got.Shape, shape)
	}
	for i := range want {
		if got.Data[i] != want[i] && !(math.IsNaN(got.Data[i]) && math.IsNaN(want[i])) {
			t.Fatalf("data %v, want %v", got.Data, want)
		}
	}
	if len(got.Data) != len(want) {
		t.Fatalf("data %v, want %v", got.Data, want)
	}
}

func wantErr(t *testing.T, err error, substr string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), substr) {
		t.Fatalf("error %v, want one containing %q", err, substr)
	}
}

func TestMatMulSmall(t *testing.T) {
	a := arr(t, []int{2, 3}, elem.F32, 1, 2, 3, 4, 5, 6)
	b := arr(t, []int{3, 2}, elem.F32, 7, 8, 9, 10, 11, 12)
	c, err := MatMul(a, b)
	wantData(t, c, err, []int{2, 2}, 58, 64, 139, 154)
}

// naive is an independent float64 product for comparison.
func naive(a, b []float64, m, k, n int) []float64 {
	c := make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			for p := 0; p < k; p++ {
				c[i*n+j] += a[i*k+p] * b[p*n+j]
			}
		}
	}
	return c
}

// Odd sizes exercise every remainder path of the blocked kernel (rows not
// a multiple of 2 or 16, k not a multiple of 4, columns over one block);
// the f64 result must equal a plain triple loop exactly, since both sum in
// the same order.
func TestMatMulBlockingMatchesNaiveOrder(t *testing.T) {
	for _, sz := range [][3]int{{1, 1, 1}, {3, 5, 7}, {17, 9, 300}, {33, 130, 513}} {
		m, k, n := sz[0], sz[1], sz[2]
		x, _ := numeric.Gaussian(m*k, 1, 0, 1)
		y, _ := numeric.Gaussian(k*n, 2, 0, 1)
		a := arr(t, []int{m, k}, elem.F64, x...)
		b := arr(t, []int{k, n}, elem.F64, y...)
		c, err := MatMul(a, b)
		wantData(t, c, err, []int{m, n}, naive(x, y, m, k, n)...)
	}
}

// f16 inputs accumulate in f32: 2048 + 1 + ... stays exact in f32 (but not
// in f16, where 2048+1 rounds back to 2048), and only the final sum rounds
// to f16.
func TestMatMulF16AccumulatesInF32(t *testing.T) {
	k := 8
	ones := make([]float64, k)
	row := make([]float64, k)
	for i := range ones {
		ones[i], row[i] = 1, 1
	}
	row[0] = 2048
	a := arr(t, []int{1, k}, elem.F16, row...)
	b := arr(t, []int{k, 1}, elem.F16, ones...)
	c, err := MatMul(a, b)
	// 2048+7 = 2055 in f32, rounded to f16 (spacing 2 above 2048): 2056.
	wantData(t, c, err, []int{1, 1}, 2056)
}

// f32 accumulation order is sequential in k: 1e8 + 1 - 1e8 ... gives a
// different answer from a float64 sum, and the kernel must give the f32 one.
func TestMatMulF32RoundsEachStep(t *testing.T) {
	a := arr(t, []int{1, 3}, elem.F32, 1e8, 1, -1e8)
	b := arr(t, []int{3, 1}, elem.F32, 1, 1, 1)
	c, err := MatMul(a, b)
	wantData(t, c, err, []int{1, 1}, 0)
}

func TestBatchMatMul(t *testing.T) {
	a := arr(t, []int{2, 1, 2}, elem.F32, 1, 2, 3, 4)
	b := arr(t, []int{2, 2, 1}, elem.F32, 5, 6, 7, 8)
	c, err := BatchMatMul(a, b)
	wantData(t, c, err, []int{2, 1, 1}, 17, 53)
	_, err = BatchMatMul(a, arr(t, []int{3, 2, 1}, elem.F32, 1, 2, 3, 4, 5, 6))
	wantErr(t, err, "batch dimensions differ")
	_, err = MatMul(a, b)
	wantErr(t, err, "rank-2")
	_, err = MatMul(arr(t, []int{1, 2}, elem.F32, 1, 2), arr(t, []int{3, 1}, elem.F32, 1, 2, 3))
	wantErr(t, err, "contracting dimensions differ")
}

func TestBinaryAndUnary(t *testing.T) {
	a := arr(t, []int{3}, elem.F16, 1, -2, 0.5)
	b := arr(t, []int{3}, elem.F16, 3, 4, -0.5)
	for _, tc := range []struct {
		op   BinaryOp
		want []float64
	}{
		{Add, []float64{4, 2, 0}}, {Sub, []float64{-2, -6, 1}}, {Mul, []float64{3, -8, -0.25}},
		{Div, []float64{numeric.RoundF16(1.0 / 3), -0.5, -1}}, {Max, []float64{3, 4, 0.5}},
	} {
		c, err := Binary(tc.op, a, b)
		wantData(t, c, err, []int{3}, tc.want...)
	}
	e, err := Unary(Exp, a)
	wantData(t, e, err, []int{3}, numeric.RoundF16(math.E), numeric.RoundF16(math.Exp(-2)), numeric.RoundF16(math.Exp(0.5)))
	r, err := Unary(Rsqrt, arr(t, []int{2}, elem.F32, 4, 0))
	wantData(t, r, err, []int{2}, 0.5, math.Inf(1))
	x := -30.0
	g, err := Unary(Gelu, arr(t, []int{3}, elem.F64, 0, 1, x))
	wantData(t, g, err, []int{3}, 0, 0.8413447460685429, x*0.5*math.Erfc(-x/math.Sqrt2))
	gt, err := Unary(GeluTanh, arr(t, []int{1}, elem.F64, 1))
	wantData(t, gt, err, []int{1}, 0.5*(1+math.Tanh(math.Sqrt(2/math.Pi)*(1+0.044715))))
	_, err = Binary(Add, a, arr(t, []int{3}, elem.F32, 1, 2, 3))
	wantErr(t, err, "operands differ: tensor<3xf16> and tensor<3xf32>")
}

func TestConvertRounds(t *testing.T) {
	a := arr(t, []int{2}, elem.F32, 1+1.0/1024+1.0/4096, 70000)
	c, err := Convert(a, elem.F16)
	wantData(t, c, err, []int{2}, 1+1.0/1024, math.Inf(1))
	d, err := Convert(a, elem.BF16)
	wantData(t, d, err, []int{2}, 1, 70144)
}

func TestReduce(t *testing.T) {
	a := arr(t, []int{2, 3}, elem.F32, 1, 2, 3, 4, 5, 6)
	s, err := Reduce(ReduceSum, a, []int{1})
	wantData(t, s, err, []int{2}, 6, 15)
	s, err = Reduce(ReduceSum, a, []int{0})
	wantData(t, s, err, []int{3}, 5, 7, 9)
	s, err = Reduce(ReduceSum, a, []int{0, 1})
	wantData(t, s, err, []int{}, 21)
	m, err := Reduce(ReduceMax, a, []int{0})
	wantData(t, m, err, []int{3}, 4, 5, 6)
	m, err = Reduce(ReduceMax, arr(t, []int{3}, elem.F32, 1, math.NaN(), 2), []int{0})
	wantData(t, m, err, []int{}, math.NaN())
	// f16 sums accumulate in f32: 2048 + 1 + 1 = 2050 exactly.
	s, err = Reduce(ReduceSum, arr(t, []int{3}, elem.F16, 2048, 1, 1), []int{0})
	wantData(t, s, err, []int{}, 2050)
	_, err = Reduce(ReduceSum, a, []int{2})
	wantErr(t, err, "axis 2 is out of range for rank 2")
	_, err = Reduce(ReduceSum, a, []int{1, 0})
	wantErr(t, err, "strictly increasing")
}

func TestSoftmaxAndLayerNorm(t *testing.T) {
	a := arr(t, []int{2, 2}, elem.F64, 0, 0, 1, 3)
	s, err := Softmax(a, 1)
	e := math.Exp(-2)
	wantData(t, s, err, []int{2, 2}, 0.5, 0.5, e/(1+e), 1/(1+e))
	s, err = Softmax(a, 0)
	// Column 0 holds 0 and 1, column 1 holds 0 and 3; the kernel subtracts
	// each column's max first.
	e1, e3 := math.Exp(-1), math.Exp(-3)
	wantData(t, s, err, []int{2, 2}, e1/(e1+1), e3/(e3+1), 1/(e1+1), 1/(e3+1))
	// Large inputs do not overflow thanks to max subtraction.
	s, err = Softmax(arr(t, []int{2}, elem.F16, 60000, 60000), 0)
	wantData(t, s, err, []int{2}, 0.5, 0.5)

	x := arr(t, []int{1, 4}, elem.F64, 1, 2, 3, 4)
	g := arr(t, []int{4}, elem.F64, 1, 1, 2, 2)
	bb := arr(t, []int{4}, elem.F64, 0, 0, 0, 1)
	y, err := LayerNorm(x, g, bb, 0)
	sd := math.Sqrt(1.25)
	wantData(t, y, err, []int{1, 4}, -1.5/sd, -0.5/sd, 2*0.5/sd, 2*1.5/sd+1)
	_, err = LayerNorm(x, arr(t, []int{3}, elem.F64, 1, 1, 1), bb, 0)
	wantErr(t, err, "scale and bias must be tensor<4xf64>")
}

func TestTransposeBroadcastSliceConcat(t *testing.T) {
	a := arr(t, []int{2, 3}, elem.F32, 1, 2, 3, 4, 5, 6)
	tr, err := Transpose(a, []int{1, 0})
	wantData(t, tr, err, []int{3, 2}, 1, 4, 2, 5, 3, 6)
	_, err = Transpose(a, []int{0, 0})
	wantErr(t, err, "0 repeats")
	_, err = Transpose(a, []int{0})
	wantErr(t, err, "has 1 entries, expected 2")

	b3 := arr(t, []int{2, 3, 2}, elem.F32, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)
	tr, err = Transpose(b3, []int{2, 0, 1})
	wantData(t, tr, err, []int{2, 2, 3}, 0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11)

	bc, err := Broadcast(arr(t, []int{2}, elem.F32, 1, 2), []int{2, 3}, []int{0})
	wantData(t, bc, err, []int{2, 3}, 1, 1, 1, 2, 2, 2)
	bc, err = Broadcast(arr(t, []int{1, 3}, elem.F32, 1, 2, 3), []int{2, 3}, []int{0, 1})
	wantData(t, bc, err, []int{2, 3}, 1, 2, 3, 1, 2, 3)
	bc, err = Broadcast(arr(t, nil, elem.F32, 7), []int{2}, nil)
	wantData(t, bc, err, []int{2}, 7, 7)
	_, err = Broadcast(arr(t, []int{2}, elem.F32, 1, 2), []int{2, 3}, []int{1})
	wantErr(t, err, "operand dimension 0 (size 2) cannot be broadcast to result dimension 1 (size 3)")

	sl, err := Slice(a, []int{0, 1}, []int{2, 2}, []int{1, 1})
	wantData(t, sl, err, []int{2, 2}, 2, 3, 5, 6)
	sl, err = Slice(a, []int{1, 0}, []int{1, 2}, []int{1, 2})
	wantData(t, sl, err, []int{1, 2}, 4, 6)
	_, err = Slice(a, []int{0, 1}, []int{2, 2}, []int{1, 2})
	wantErr(t, err, "runs past the dimension size 3")

	c, err := Concat([]*Array{a, arr(t, []int{2, 1}, elem.F32, 7, 8)}, 1)
	wantData(t, c, err, []int{2, 4}, 1, 2, 3, 7, 4, 5, 6, 8)
	c, err = Concat([]*Array{a, a}, 0)
	wantData(t, c, err, []int{4, 3}, 1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6)
	_, err = Concat([]*Array{a, arr(t, []int{1, 2}, elem.F32, 7, 8)}, 0)
	wantErr(t, err, "differs from tensor<2x3xf32> outside axis 0")

	r, err := Reshape(a, []int{3, 2})
	wantData(t, r, err, []int{3, 2}, 1, 2, 3, 4, 5, 6)
	_, err = Reshape(a, []int{4})
	wantErr(t, err, "has 6 elements, shape 4 has 4")
}

func TestMalformedArraysAreErrors(t *testing.T) {
	bad := &Array{Shape: []int{2, 2}, Kind: elem.F32, Data: []float64{1}}
	_, err := Unary(Exp, bad)
	wantErr(t, err, "holds 1 values, want 4")
	_, err = MatMul(nil, bad)
	wantErr(t, err, "missing array")
	_, err = New([]int{1 << 20, 1 << 20}, elem.F32)
	wantErr(t, err, "more than")
	_, err = New([]int{-1}, elem.F32)
	wantErr(t, err, "negative dimension")
}

// Rounding f32 sums straight to f16 or bf16 agrees with the float64 path
// (numeric.Round), ties included.
func TestRoundFromFloat32MatchesRound(t *testing.T) {
	vals, _ := numeric.Gaussian(1<<16, 11, 0, 100)
	src := make([]float32, 0, len(vals)+4)
	for _, v := range vals {
		src = append(src, float32(v))
	}
	// Exact ties: halfway between f16 neighbours 1 and 1+2^-10, and
	// between bf16 neighbours 1 and 1+2^-7.
	src = append(src, 1+0x1p-11, 1+3*0x1p-11, 1+0x1p-8, 1+3*0x1p-8)
	for _, k := range []elem.Type{elem.F16, elem.BF16, elem.F32} {
		dst := make([]float64, len(src))
		roundFromFloat32(dst, src, k)
		for i, v := range src {
			if want := numeric.Round(float64(v), k); dst[i] != want {
				t.Fatalf("%v: %v rounds to %v, want %v", k, v, dst[i], want)
			}
		}
	}
}

// The tanh form of gelu keeps its precision for negative x, where
// 1+tanh(z) cancels: at x = -8 the value is about -3e-21, which f32 and
// bf16 hold, not -0.
func TestGeluTanhWithoutCancellation(t *testing.T) {
	for _, x := range []float64{-8, -6, -12, -3, -0.5, 0.5, 3, 8} {
		z := math.Sqrt(2/math.Pi) * (x + GeluTanhCoefficient*x*x*x)
		// An independent form: x·e^(2z)/(1+e^(2z)).
		want := x * math.Exp(2*z) / (1 + math.Exp(2*z))
		if x > 0 {
			want = 0.5 * x * (1 + math.Tanh(z)) // no cancellation here
		}
		for _, k := range []elem.Type{elem.F32, elem.BF16, elem.F64} {
			a := arr(t, []int{1}, k, x)
			got, err := Unary(GeluTanh, a)
			if err != nil {
				t.Fatal(err)
			}
			w := numeric.Round(want, k)
			if d := math.Abs(got.Data[0] - w); d > 1e-2*math.Abs(w) {
				t.Errorf("gelu_tanh(%v) in %v = %v, want %v", x, k, got.Data[0], w)
			}
			if x <= -6 && w != 0 && (got.Data[0] == 0 || !math.Signbit(got.Data[0])) {
				t.Errorf("gelu_tanh(%v) in %v = %v: lost to cancellation", x, k, got.Data[0])
			}
		}
	}
}

// MatMulF32 is BatchMatMul's kernel: on f16 operands its f32 sums, rounded
// to f16, are BatchMatMul's results bit for bit; lengths that do not
// match the shape are refused.
func TestMatMulF32IsBatchMatMul(t *testing.T) {
	const nb, m, k, n = 3, 5, 37, 9
	av, bv := make([]float64, nb*m*k), make([]float64, nb*k*n)
	for i := range av {
		av[i] = numeric.RoundF16(math.Sin(float64(i)) * 3)
	}
	for i := range bv {
		bv[i] = numeric.RoundF16(math.Cos(float64(i)*0.7) / 2)
	}
	want, err := BatchMatMul(arr(t, []int{nb, m, k}, elem.F16, av...), arr(t, []int{nb, k, n}, elem.F16, bv...))
	if err != nil {
		t.Fatal(err)
	}
	a32, b32, c32 := make([]float32, len(av)), make([]float32, len(bv)), make([]float32, nb*m*n)
	for i, v := range av {
		a32[i] = float32(v)
	}
	for i, v := range bv {
		b32[i] = float32(v)
	}
	if err := MatMulF32(nb, m, k, n, a32, b32, c32); err != nil {
		t.Fatal(err)
	}
	for i, v := range c32 {
		if got := numeric.F16ToFloat64(numeric.F16FromFloat32(v)); got != want.Data[i] {
			t.Fatalf("element %d: %v, BatchMatMul %v", i, got, want.Data[i])
		}
	}
	if err := MatMulF32(nb, m, k, n, a32[1:], b32, c32); err == nil {
		t.Error("a short operand is accepted")
	}
}
