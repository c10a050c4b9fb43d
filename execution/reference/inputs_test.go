package reference

import (
	"bytes"
	"math"
	"slices"
	"testing"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/numeric"
	"github.com/ipuir/ipuir/parser"
	"github.com/ipuir/ipuir/runtime/npy"
)

func TestNPYRoundTrip(t *testing.T) {
	ctx := ir.NewContext()
	for _, tc := range []struct {
		elem  ir.Type
		kind  elem.Type
		dtype npy.DType
	}{
		{ctx.F16(), elem.F16, npy.Float16}, {ctx.BF16(), elem.BF16, npy.Float32},
		{ctx.F32(), elem.F32, npy.Float32}, {ctx.F64(), elem.F64, npy.Float64},
	} {
		ty := ctx.Tensor([]int64{2, 2}, tc.elem)
		a, _ := eval.FromValues([]int{2, 2}, tc.kind, []float64{1.5, -0.1, 65504, math.Inf(-1)})
		n, err := ToNPY(a)
		if err != nil || n.DType != tc.dtype {
			t.Fatalf("%v: ToNPY = %v, %v", tc.kind, n, err)
		}
		// Through the file format and back.
		var buf bytes.Buffer
		if err := npy.Write(&buf, n); err != nil {
			t.Fatal(err)
		}
		r, err := npy.Read(&buf)
		if err != nil {
			t.Fatal(err)
		}
		back, err := FromNPY(r, ty)
		if err != nil {
			t.Fatal(err)
		}
		if d, _ := eval.MaxAbsDiff(a, back); d != 0 || back.Kind != tc.kind {
			t.Fatalf("%v: round trip changed values: %v → %v", tc.kind, a.Data, back.Data)
		}
	}
	// A scalar argument takes a 0-d array.
	s, _ := npy.FromFloat64s(npy.Float32, []int{}, []float64{2})
	if v, err := FromNPY(s, ctx.F32()); err != nil || v.Rank() != 0 || v.Data[0] != 2 {
		t.Fatalf("scalar: %v, %v", v, err)
	}
	// bf16 arguments round float32 data.
	f, _ := npy.FromFloat64s(npy.Float32, []int{1}, []float64{1 + 1.0/256})
	if v, err := FromNPY(f, ctx.Tensor([]int64{1}, ctx.BF16())); err != nil || v.Data[0] != 1 {
		t.Fatalf("bf16: %v, %v", v, err)
	}
}

func TestFromNPYErrors(t *testing.T) {
	ctx := ir.NewContext()
	ty := ctx.Tensor([]int64{2, 3}, ctx.F16())
	f32, _ := npy.FromFloat64s(npy.Float32, []int{2, 3}, make([]float64, 6))
	_, err := FromNPY(f32, ty)
	wantError(t, err, "array is float32 (2, 3), but an argument of type 'tensor<2x3xf16>' needs float16 data")
	f16, _ := npy.FromFloat64s(npy.Float16, []int{3, 2}, make([]float64, 6))
	_, err = FromNPY(f16, ty)
	wantError(t, err, "array is float16 (3, 2), but the argument has type 'tensor<2x3xf16>' (shape (2, 3))")
	ints, _ := npy.FromInt64s(npy.Int32, []int{2, 3}, make([]int64, 6))
	_, err = FromNPY(ints, ty)
	wantError(t, err, "array is int32 (2, 3), but an argument of type 'tensor<2x3xf16>' needs float16 data")
	broken := &npy.Array{DType: npy.Float16, Shape: []int{2, 3}, Data: []byte{1}}
	_, err = FromNPY(broken, ty)
	if err == nil {
		t.Fatal("accepted an array whose data is short")
	}
	_, err = FromNPY(f16, ctx.Tensor([]int64{2}, ctx.I(32)))
	wantError(t, err, "array is float16 (3, 2), but an argument of type 'tensor<2xi32>' needs int32 data")
	_, err = FromNPY(f16, ctx.Tensor([]int64{2}, ctx.Index()))
	wantError(t, err, "type 'tensor<2xindex>' is not")
}

func TestGenerators(t *testing.T) {
	ctx := ir.NewContext()
	types := []ir.Type{ctx.Tensor([]int64{100}, ctx.F16()), ctx.Tensor([]int64{100}, ctx.F16()), ctx.F32()}
	g, err := ParseGenerator("gaussian:seed=7,stddev=0.5")
	if err != nil {
		t.Fatal(err)
	}
	in, err := g.Generate(types, nil)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := g.Generate(types, nil)
	for i := range in {
		if err := CheckInput(in[i], types[i]); err != nil {
			t.Fatalf("input #%d: %v", i, err)
		}
		if d, _ := eval.MaxAbsDiff(in[i], again[i]); d != 0 {
			t.Fatal("same seed gave different inputs")
		}
	}
	if d, _ := eval.MaxAbsDiff(in[0], in[1]); d == 0 {
		t.Fatal("inputs #0 and #1 are equal: each input needs its own seed")
	}
	// Input i is drawn from seed+i with the given parameters.
	want, _ := numeric.Gaussian(100, 8, 0, 0.5)
	numeric.RoundSlice(want, elem.F16)
	for i, v := range want {
		if in[1].Data[i] != v {
			t.Fatalf("input #1 element %d = %v, want %v", i, in[1].Data[i], v)
		}
	}
	u, err := ParseGenerator("uniform:seed=1,lo=2,hi=3")
	if err != nil {
		t.Fatal(err)
	}
	un, _ := u.Generate(types[:1], nil)
	for _, v := range un[0].Data {
		if v < 2 || v > 3 {
			t.Fatalf("uniform value %v outside [2, 3]", v)
		}
	}
	for spec, msg := range map[string]string{
		"normal:seed=1":            `unknown distribution "normal" (want gaussian or uniform)`,
		"gaussian":                 "seed=N is required",
		"gaussian:seed=-1":         `seed "-1" is not an unsigned integer`,
		"gaussian:seed=1,lo=0":     `unknown parameter "lo" for gaussian`,
		"gaussian:seed=1,stddev=x": `stddev="x" is not a finite number`,
		"gaussian:seed=1,seed=2":   "seed given twice",
		"uniform:seed=1,hi":        `"hi" is not key=value`,
		"uniform:seed=1,hi=NaN":    `hi="NaN" is not a finite number`,
	} {
		_, err := ParseGenerator(spec)
		wantError(t, err, msg)
	}
	bad, _ := ParseGenerator("gaussian:seed=1,stddev=-1")
	_, err = bad.Generate(types, nil)
	wantError(t, err, "input #0:")
	_, err = g.Generate([]ir.Type{ctx.Tensor([]int64{ir.Dynamic}, ctx.F16())}, nil)
	wantError(t, err, "input #0: type 'tensor<?xf16>' has a dynamic dimension")
}

// Weights (right operands of matmuls) are drawn with stddev 1/√fan-in, so
// that a product of unit-variance activations stays at unit variance;
// scale=none turns that off.
func TestGeneratorScalesWeightsByFanIn(t *testing.T) {
	fn := loadExample(t, "attention-small.ipuir")
	fanIn := FanIns(fn)
	args, err := ArgumentTypes(fn)
	if err != nil {
		t.Fatal(err)
	}
	if len(fanIn) != 5 || fanIn[0] != 0 {
		t.Fatalf("fan-ins %v: x is no weight", fanIn)
	}
	hidden := int(args[1].(*ir.RankedTensorType).Dims[0])
	for i := 1; i < 5; i++ {
		if fanIn[i] != hidden {
			t.Fatalf("fan-ins %v, want %d for the four weights", fanIn, hidden)
		}
	}
	stddev := func(a *eval.Array) float64 {
		var s float64
		for _, v := range a.Data {
			s += v * v
		}
		return math.Sqrt(s / float64(len(a.Data)))
	}
	for _, c := range []struct {
		spec   string
		weight float64
	}{{"gaussian:seed=3", 1 / math.Sqrt(float64(hidden))}, {"gaussian:seed=3,scale=none", 1}} {
		g, err := ParseGenerator(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		in, err := g.Generate(args, fanIn)
		if err != nil {
			t.Fatal(err)
		}
		if got := stddev(in[0]); math.Abs(got-1) > 0.05 {
			t.Errorf("%s: x has stddev %v, want 1", c.spec, got)
		}
		if got := stddev(in[1]); math.Abs(got-c.weight) > 0.1*c.weight {
			t.Errorf("%s: wq has stddev %v, want %v", c.spec, got, c.weight)
		}
	}
	if _, err := ParseGenerator("gaussian:seed=1,scale=half"); err == nil {
		t.Error("scale=half accepted")
	}
}

// A weight converted before its matmul (what matmul-precision leaves) is
// still a weight: its fan-in is seen through the conversion.
func TestFanInsSeeThroughConversions(t *testing.T) {
	ctx := tensorContext(t)
	module, err := parser.ParseSourceString(ctx, []byte(`
func.func @f(%x: tensor<4x8xf32>, %w: tensor<8x2xf32>) -> tensor<4x2xf16> {
  %xh = tensor.convert %x : tensor<4x8xf32> -> tensor<4x8xf16>
  %wh = tensor.convert %w : tensor<8x2xf32> -> tensor<8x2xf16>
  %y = tensor.matmul %xh, %wh : tensor<4x8xf16>, tensor<8x2xf16> -> tensor<4x2xf16>
  return %y : tensor<4x2xf16>
}`), parser.Config{Filename: "f.ipuir"})
	if err != nil {
		t.Fatal(err)
	}
	fn, err := LookupFunction(module, "f")
	if err != nil {
		t.Fatal(err)
	}
	if got := FanIns(fn); !slices.Equal(got, []int{0, 8}) {
		t.Errorf("fan-ins %v, want [0 8]", got)
	}
}
