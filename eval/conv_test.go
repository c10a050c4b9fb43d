package eval

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/elem"
)

// naiveConv is the convolution's definition, summed in float64 over
// kernel positions (row major) and channels.
func naiveConv(x, w *Array, p ConvParams, shape []int) []float64 {
	sp := len(x.Shape) - 2
	C, M := x.Shape[1], w.Shape[0]
	cg, mg := C/p.Groups, M/p.Groups
	out := make([]float64, 0)
	idx := make([]int, len(shape))
	var rec func(a int)
	rec = func(a int) {
		if a < len(shape) {
			for idx[a] = 0; idx[a] < shape[a]; idx[a]++ {
				rec(a + 1)
			}
			return
		}
		n, m := idx[0], idx[1]
		g := m / mg
		s := 0.0
		q := make([]int, sp)
		for {
			for c := range cg {
				at, inside := (n*C + g*cg + c), true
				for i := range sp {
					v := idx[2+i]*p.Strides[i] + q[i]*p.Dilations[i] - p.PadBefore[i]
					inside = inside && v >= 0 && v < x.Shape[2+i]
					at = at*x.Shape[2+i] + v
				}
				if inside {
					wi := m*cg + c
					for i := range sp {
						wi = wi*w.Shape[2+i] + q[i]
					}
					s += x.Data[at] * w.Data[wi]
				}
			}
			i := sp - 1
			for ; i >= 0; i-- {
				if q[i]++; q[i] < w.Shape[2+i] {
					break
				}
				q[i] = 0
			}
			if i < 0 {
				break
			}
		}
		out = append(out, s)
	}
	rec(0)
	return out
}

func randomArray(t *testing.T, r *rand.Rand, shape []int, kind elem.Type) *Array {
	t.Helper()
	a, err := New(shape, kind)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Data {
		a.Data[i] = float64(float32(r.NormFloat64()))
	}
	return a
}

// Conv against its definition on windows of every kind: strides,
// dilations, pads (crops too), groups up to depthwise, one to three
// spatial axes.
func TestConvMatchesItsDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	compared := 0
	for _, c := range []struct {
		in, w []int
		p     ConvParams
	}{
		{[]int{1, 3, 9, 9}, []int{4, 3, 3, 3}, ConvParams{[]int{1, 1}, []int{1, 1}, []int{1, 1}, []int{1, 1}, 1}},
		{[]int{2, 4, 11, 7}, []int{6, 2, 3, 2}, ConvParams{[]int{2, 1}, []int{1, 2}, []int{0, 2}, []int{1, 0}, 2}},
		{[]int{1, 6, 8, 8}, []int{6, 1, 3, 3}, ConvParams{[]int{2, 2}, []int{1, 1}, []int{1, 1}, []int{1, 1}, 6}},
		{[]int{1, 2, 10}, []int{3, 2, 4}, ConvParams{[]int{3}, []int{2}, []int{-1}, []int{2}, 1}},
		{[]int{1, 2, 4, 5, 3}, []int{2, 1, 2, 3, 1}, ConvParams{[]int{1, 2, 1}, []int{1, 1, 1}, []int{0, 1, 0}, []int{1, 1, 0}, 2}},
		{[]int{3, 5, 6, 6}, []int{7, 5, 1, 1}, ConvParams{[]int{1, 1}, []int{1, 1}, []int{0, 0}, []int{0, 0}, 1}},
	} {
		shape, err := ConvShape(c.in, c.w, c.p)
		if err != nil {
			t.Fatalf("%v by %v: %v", c.in, c.w, err)
		}
		x, w := randomArray(t, r, c.in, elem.F64), randomArray(t, r, c.w, elem.F64)
		got, err := Conv(x, w, c.p)
		if err != nil {
			t.Fatal(err)
		}
		want := naiveConv(x, w, c.p, shape)
		if len(got.Data) != len(want) {
			t.Fatalf("%v by %v: %d values, want %d", c.in, c.w, len(got.Data), len(want))
		}
		for i := range want {
			if math.Abs(got.Data[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) {
				t.Fatalf("%v by %v: element %d is %v, want %v", c.in, c.w, i, got.Data[i], want[i])
			}
			compared++
		}
		// In f32 the sum is MatMul's: the same values to f32's precision.
		x32 := &Array{Shape: x.Shape, Kind: elem.F32, Data: x.Data}
		w32 := &Array{Shape: w.Shape, Kind: elem.F32, Data: w.Data}
		got32, err := Conv(x32, w32, c.p)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if math.Abs(got32.Data[i]-want[i]) > 1e-5*(1+math.Abs(want[i])) {
				t.Fatalf("%v by %v in f32: element %d is %v, want %v", c.in, c.w, i, got32.Data[i], want[i])
			}
		}
	}
	t.Logf("%d elements agree with the definition", compared)
}

func TestConvShapeRefusals(t *testing.T) {
	ok := ConvParams{[]int{1, 1}, []int{1, 1}, []int{0, 0}, []int{0, 0}, 1}
	for _, c := range []struct {
		in, w []int
		p     ConvParams
		want  string
	}{
		{[]int{1, 4}, []int{2, 4}, ok, "rank"},
		{[]int{1, 4, 5, 5}, []int{2, 3, 3, 3}, ok, "groups"},
		{[]int{1, 4, 5, 5}, []int{3, 2, 3, 3}, ConvParams{ok.Strides, ok.Dilations, ok.PadBefore, ok.PadAfter, 2}, "groups"},
		{[]int{1, 4, 2, 5}, []int{2, 4, 3, 3}, ok, "fewer than the kernel's span"},
		{[]int{1, 4, 5, 5}, []int{2, 4, 3, 3}, ConvParams{[]int{0, 1}, ok.Dilations, ok.PadBefore, ok.PadAfter, 1}, "at least 1"},
		{[]int{1, 4, 5, 5}, []int{2, 4, 3, 3}, ConvParams{[]int{1}, ok.Dilations, ok.PadBefore, ok.PadAfter, 1}, "strides"},
		{[]int{1, 1, 5, 5}, []int{1, 1, 300, 300}, ConvParams{ok.Strides, ok.Dilations, []int{300, 300}, []int{300, 300}, 1}, "positions"},
	} {
		if _, err := ConvShape(c.in, c.w, c.p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v by %v: got %v, want an error saying %q", c.in, c.w, err, c.want)
		}
	}
}
