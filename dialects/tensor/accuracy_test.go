package tensor

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/numeric"
)

// boundCase builds one op on fresh arguments of the given types.
type boundCase struct {
	name     string
	args     func(f *fixture) []ir.Type
	build    func(f *fixture) *ir.Operation
	positive bool // the inputs must be positive (rsqrt)
}

// withArgs gives f's block arguments of the types args makes in f's
// context.
func withArgs(f *fixture, args func(*fixture) []ir.Type) *fixture {
	for _, t := range args(f) {
		f.block.AddArgument(t, nil)
	}
	return f
}

func f16(f *fixture, dims ...int64) *ir.RankedTensorType { return f.tensor(f.ctx.F16(), dims...) }
func f32(f *fixture, dims ...int64) *ir.RankedTensorType { return f.tensor(f.ctx.F32(), dims...) }

func boundCases() []boundCase {
	unary := func(name string, approximate bool) boundCase {
		return boundCase{name: name, args: func(f *fixture) []ir.Type { return []ir.Type{f16(f, 4, 16)} },
			build: func(f *fixture) *ir.Operation {
				var attrs []ir.NamedAttr
				if approximate {
					attrs = append(attrs, ir.NamedAttr{Name: ApproximateAttr, Value: f.ctx.Unit()})
				}
				return f.build(name, []*ir.Value{f.arg(0)}, attrs...).DefiningOp()
			}}
	}
	binary := func(name string) boundCase {
		return boundCase{name: name, args: func(f *fixture) []ir.Type { return []ir.Type{f16(f, 4, 16), f16(f, 4, 16)} },
			build: func(f *fixture) *ir.Operation {
				return f.build(name, []*ir.Value{f.arg(0), f.arg(1)}).DefiningOp()
			}}
	}
	axes := func(f *fixture, xs ...int) ir.NamedAttr {
		return ir.NamedAttr{Name: AxesAttr, Value: I64Array(f.ctx, xs...)}
	}
	rsqrt := unary(RsqrtOpName, false)
	rsqrt.positive = true
	return []boundCase{
		binary(AddOpName), binary(SubOpName), binary(MulOpName), binary(DivOpName), binary(MaxOpName),
		unary(ExpOpName, false), unary(TanhOpName, false), unary(ErfOpName, false), rsqrt, unary(GeluOpName, false),
		unary(GeluOpName, true),
		{name: "convert f16 to f32", args: func(f *fixture) []ir.Type { return []ir.Type{f16(f, 4, 16)} },
			build: func(f *fixture) *ir.Operation {
				v, _ := BuildTyped(f.b, ConvertOpName, nil, f32(f, 4, 16), []*ir.Value{f.arg(0)})
				return v.DefiningOp()
			}},
		{name: "convert f32 to f16", args: func(f *fixture) []ir.Type { return []ir.Type{f32(f, 4, 16)} },
			build: func(f *fixture) *ir.Operation {
				v, _ := BuildTyped(f.b, ConvertOpName, nil, f16(f, 4, 16), []*ir.Value{f.arg(0)})
				return v.DefiningOp()
			}},
		{name: MatmulOpName, args: func(f *fixture) []ir.Type { return []ir.Type{f16(f, 4, 96), f16(f, 96, 8)} },
			build: func(f *fixture) *ir.Operation {
				return f.build(MatmulOpName, []*ir.Value{f.arg(0), f.arg(1)}).DefiningOp()
			}},
		{name: BatchMatmulOpName, args: func(f *fixture) []ir.Type { return []ir.Type{f32(f, 2, 4, 64), f32(f, 2, 64, 8)} },
			build: func(f *fixture) *ir.Operation {
				return f.build(BatchMatmulOpName, []*ir.Value{f.arg(0), f.arg(1)}).DefiningOp()
			}},
		{name: ReduceSumOpName, args: func(f *fixture) []ir.Type { return []ir.Type{f16(f, 4, 200)} },
			build: func(f *fixture) *ir.Operation {
				return f.build(ReduceSumOpName, []*ir.Value{f.arg(0)}, axes(f, 1)).DefiningOp()
			}},
		{name: ReduceMaxOpName, args: func(f *fixture) []ir.Type { return []ir.Type{f16(f, 4, 16)} },
			build: func(f *fixture) *ir.Operation {
				return f.build(ReduceMaxOpName, []*ir.Value{f.arg(0)}, axes(f, 0)).DefiningOp()
			}},
		{name: SoftmaxOpName, args: func(f *fixture) []ir.Type { return []ir.Type{f16(f, 4, 64)} },
			build: func(f *fixture) *ir.Operation {
				return f.build(SoftmaxOpName, []*ir.Value{f.arg(0)}, ir.NamedAttr{Name: AxisAttr, Value: f.ctx.IntegerAttr(f.ctx.I(64), 1)}).DefiningOp()
			}},
		{name: LayerNormOpName, args: func(f *fixture) []ir.Type { return []ir.Type{f16(f, 4, 64), f16(f, 64), f16(f, 64)} },
			build: func(f *fixture) *ir.Operation {
				return f.build(LayerNormOpName, []*ir.Value{f.arg(0), f.arg(1), f.arg(2)},
					ir.NamedAttr{Name: EpsilonAttr, Value: f.ctx.FloatAttr(f.ctx.F32(), 1e-5)}).DefiningOp()
			}},
		{name: TransposeOpName, args: func(f *fixture) []ir.Type { return []ir.Type{f16(f, 4, 16)} },
			build: func(f *fixture) *ir.Operation {
				return f.build(TransposeOpName, []*ir.Value{f.arg(0)}, ir.NamedAttr{Name: PermutationAttr, Value: I64Array(f.ctx, 1, 0)}).DefiningOp()
			}},
		{name: ConcatOpName, args: func(f *fixture) []ir.Type { return []ir.Type{f16(f, 4, 16), f16(f, 4, 16)} },
			build: func(f *fixture) *ir.Operation {
				return f.build(ConcatOpName, []*ir.Value{f.arg(0), f.arg(1)}, ir.NamedAttr{Name: AxisAttr, Value: f.ctx.IntegerAttr(f.ctx.I(64), 1)}).DefiningOp()
			}},
	}
}

// TestBoundsHoldUnderPerturbation checks every rule the way a device
// relies on it: with each input moved by up to its bound (and rounded to
// its type), the reference's result on the moved inputs lies within the
// bound of its result on the original ones. A rule that undercounts how
// an error carries through its op fails here.
func TestBoundsHoldUnderPerturbation(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	checked := 0
	for _, bc := range boundCases() {
		f := withArgs(newFixture(t), bc.args)
		op := bc.build(f)
		for trial := range 40 {
			args := make([]*eval.Array, op.NumOperands())
			moved := make([]*eval.Array, op.NumOperands())
			errs := make([]*eval.Array, op.NumOperands())
			for i, v := range op.Operands() {
				rt := v.Type().(*ir.RankedTensorType)
				k, _ := ElementKind(rt)
				shape := shapeOf(rt)
				a, _ := eval.New(shape, k)
				m, _ := eval.New(shape, k)
				e, _ := eval.New(shape, elem.F64)
				scale := []float64{1e-3, 1e-2, 0.1}[trial%3]
				for j := range a.Data {
					x := rng.NormFloat64() * 2
					if bc.positive {
						x = math.Exp(x)
					}
					a.Data[j] = numeric.Round(x, k)
					m.Data[j] = numeric.Round(a.Data[j]*(1+scale*(2*rng.Float64()-1)), k)
					e.Data[j] = math.Abs(m.Data[j] - a.Data[j])
				}
				args[i], moved[i], errs[i] = a, m, e
			}
			want, err := Evaluate(op, args)
			if err != nil {
				t.Fatalf("%s: %v", bc.name, err)
			}
			got, err := Evaluate(op, moved)
			if err != nil {
				t.Fatalf("%s: %v", bc.name, err)
			}
			bound, err := Bound(op, args, errs, want)
			if err != nil {
				t.Fatalf("%s: %v", bc.name, err)
			}
			for j := range want.Data {
				d := math.Abs(got.Data[j] - want.Data[j])
				if math.IsNaN(d) && math.IsNaN(got.Data[j]) == math.IsNaN(want.Data[j]) {
					continue
				}
				b := 0.0
				if bound != nil {
					b = bound.Data[j]
				}
				if !(d <= b) {
					t.Fatalf("%s, trial %d, element %d: moved inputs move the result by %g, beyond its bound %g", bc.name, trial, j, d, b)
				}
				checked++
			}
		}
	}
	t.Logf("%d elements within their bounds", checked)
}

// The local bound covers a device that sums in another order: a matmul
// summed over k backwards, and a reduction summed in partials stored in
// f16, land within the bound of the reference's result.
func TestLocalBoundsCoverOtherSummationOrders(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	f := withArgs(newFixture(t), func(f *fixture) []ir.Type { return []ir.Type{f16(f, 8, 512), f16(f, 512, 4), f16(f, 8, 729)} })
	mm := f.build(MatmulOpName, []*ir.Value{f.arg(0), f.arg(1)}).DefiningOp()
	sum := f.build(ReduceSumOpName, []*ir.Value{f.arg(2)}, ir.NamedAttr{Name: AxesAttr, Value: I64Array(f.ctx, 1)}).DefiningOp()
	fill := func(shape []int, scale float64) *eval.Array {
		a, _ := eval.New(shape, elem.F16)
		for i := range a.Data {
			a.Data[i] = numeric.RoundF16(rng.NormFloat64() * scale)
		}
		return a
	}
	checked := 0
	for range 20 {
		a, b := fill([]int{8, 512}, 1), fill([]int{512, 4}, 1/math.Sqrt(512))
		want, _ := Evaluate(mm, []*eval.Array{a, b})
		bound, _ := Bound(mm, []*eval.Array{a, b}, nil, want)
		for i := range 8 {
			for j := range 4 {
				acc := float32(0)
				for k := 511; k >= 0; k-- {
					acc += float32(a.Data[i*512+k]) * float32(b.Data[k*4+j])
				}
				got := numeric.RoundF16(float64(acc))
				if d := math.Abs(got - want.Data[i*4+j]); !(d <= bound.Data[i*4+j]) {
					t.Fatalf("matmul [%d %d]: backwards sum %g, reference %g, bound %g", i, j, got, want.Data[i*4+j], bound.Data[i*4+j])
				}
				checked++
			}
		}
		x := fill([]int{8, 729}, 1)
		want, _ = Evaluate(sum, []*eval.Array{x})
		bound, _ = Bound(sum, []*eval.Array{x}, nil, want)
		for i := range 8 {
			// Three partial sums over tiles, each stored in f16, then
			// combined and stored again.
			total := 0.0
			for p := range 3 {
				part := float32(0)
				for k := p * 243; k < (p+1)*243; k++ {
					part += float32(x.Data[i*729+k])
				}
				total = numeric.RoundF16(total + numeric.RoundF16(float64(part)))
			}
			if d := math.Abs(total - want.Data[i]); !(d <= bound.Data[i]) {
				t.Fatalf("reduce_sum %d: partial sums give %g, reference %g, bound %g", i, total, want.Data[i], bound.Data[i])
			}
			checked++
		}
	}
	t.Logf("%d sums within their bounds", checked)
}

// Every op of the dialect declares an accuracy model (newSpecs refuses
// one without); data movement and max are exact on exact inputs.
func TestExactOpsHaveZeroLocalBound(t *testing.T) {
	f := withArgs(newFixture(t), func(f *fixture) []ir.Type { return []ir.Type{f16(f, 4, 16), f16(f, 4, 16)} })
	for _, op := range []*ir.Operation{
		f.build(TransposeOpName, []*ir.Value{f.arg(0)}, ir.NamedAttr{Name: PermutationAttr, Value: I64Array(f.ctx, 1, 0)}).DefiningOp(),
		f.build(MaxOpName, []*ir.Value{f.arg(0), f.arg(1)}).DefiningOp(),
	} {
		a, _ := eval.FromValues([]int{4, 16}, elem.F16, make([]float64, 64))
		in := make([]*eval.Array, op.NumOperands())
		for i := range in {
			in[i] = a
		}
		res, _ := Evaluate(op, in)
		b, err := Bound(op, in, nil, res)
		if err != nil {
			t.Fatal(err)
		}
		if b != nil {
			for _, v := range b.Data {
				if v != 0 {
					t.Fatalf("%s: local bound %g on exact inputs", op.Name(), v)
				}
			}
		}
	}
}

// An infinite input bound times a zero operand is 0·∞: the product's
// bound must come out infinite, not NaN, and an op after it must carry
// it as infinite rather than read the NaN as no error (NaN > 0 is false).
func TestUnknownBoundsStayUnbounded(t *testing.T) {
	f := withArgs(newFixture(t), func(f *fixture) []ir.Type { return []ir.Type{f16(f, 4, 16), f16(f, 4, 16)} })
	mul := f.build(MulOpName, []*ir.Value{f.arg(0), f.arg(1)})
	exp := f.build(ExpOpName, []*ir.Value{mul})
	zero, _ := eval.FromValues([]int{4, 16}, elem.F16, make([]float64, 64))
	inf, _ := eval.New([]int{4, 16}, elem.F64)
	for i := range inf.Data {
		inf.Data[i] = math.Inf(1)
	}
	product, _ := Evaluate(mul.DefiningOp(), []*eval.Array{zero, zero})
	pb, err := Bound(mul.DefiningOp(), []*eval.Array{zero, zero}, []*eval.Array{nil, inf}, product)
	if err != nil {
		t.Fatal(err)
	}
	nan := slices.Clone(inf.Data)
	for i := range nan {
		nan[i] = math.NaN()
	}
	nanBound := &eval.Array{Shape: inf.Shape, Kind: elem.F64, Data: nan}
	e, _ := Evaluate(exp.DefiningOp(), []*eval.Array{product})
	eb, err := Bound(exp.DefiningOp(), []*eval.Array{product}, []*eval.Array{nanBound}, e)
	if err != nil {
		t.Fatal(err)
	}
	for i := range pb.Data {
		if !math.IsInf(pb.Data[i], 1) || !math.IsInf(eb.Data[i], 1) {
			t.Fatalf("element %d: product's bound %g, exp's %g; want +Inf for both", i, pb.Data[i], eb.Data[i])
		}
	}
	if !math.IsNaN(nanBound.Data[0]) {
		t.Fatal("Bound changed its caller's input bound")
	}
}

// A matmul with partials_type = f16 computed as a device keeping f16
// partials computes it (eval.MatMulF16Partials: blocks of 16 in f32, the
// partial sum rounded to f16 after each) lies within the op's bound; the
// same results against the f32-partials bound exceed it: the bound follows
// the partials type, so a check cannot PASS f16 partials' error under an
// f32 budget.
func TestF16PartialsBound(t *testing.T) {
	const m, k, n = 16, 1152, 16
	f := withArgs(newFixture(t), func(f *fixture) []ir.Type { return []ir.Type{f16(f, m, k), f16(f, k, n)} })
	half := f.build(MatmulOpName, []*ir.Value{f.arg(0), f.arg(1)}, named(PartialsTypeAttr, f.ctx.TypeAttr(f.ctx.F16()))).DefiningOp()
	full := f.build(MatmulOpName, []*ir.Value{f.arg(0), f.arg(1)}).DefiningOp()
	if p, ok := PartialsOf(half); !ok || p != elem.F16 {
		t.Fatalf("PartialsOf = %v, %v", p, ok)
	}
	if _, ok := PartialsOf(full); ok {
		t.Fatal("a matmul without the attribute declares partials")
	}
	a, b := gaussian(t, []int{m, k}, elem.F16, 7), gaussian(t, []int{k, n}, elem.F16, 8)
	want, _ := Evaluate(full, []*eval.Array{a, b})
	halfBound, err := Bound(half, []*eval.Array{a, b}, nil, want)
	if err != nil {
		t.Fatal(err)
	}
	fullBound, _ := Bound(full, []*eval.Array{a, b}, nil, want)
	a32, b32, c32 := make([]float32, m*k), make([]float32, k*n), make([]float32, m*n)
	for i, v := range a.Data {
		a32[i] = float32(v)
	}
	for i, v := range b.Data {
		b32[i] = float32(v)
	}
	if err := eval.MatMulF16Partials(1, m, k, n, PartialsBlock, a32, b32, c32); err != nil {
		t.Fatal(err)
	}
	over := 0
	for i, got := range c32 {
		d := math.Abs(float64(got) - want.Data[i])
		if !(d <= halfBound.Data[i]) {
			t.Fatalf("element %d: f16 partials give %g, reference %g, bound %g", i, got, want.Data[i], halfBound.Data[i])
		}
		if d > fullBound.Data[i] {
			over++
		}
	}
	if over == 0 {
		t.Fatal("no element of the f16-partials product errs past the f32-partials bound: the test shows nothing")
	}
	t.Logf("%d elements within the f16-partials bound; %d of them past the f32-partials bound", m*n, over)
}
