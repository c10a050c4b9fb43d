package onnximport_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/translate/onnximport"
	pb "github.com/ipuir/ipuir/translate/onnximport/onnxpb"
)

// gradientNode is Gradient of y with respect to xs.
func gradientNode(y string, outs []string, xs ...string) *pb.NodeProto {
	n := node("Gradient", "grad", xs, outs, strAttr("y", y),
		&pb.AttributeProto{Name: proto.String("xs"), Type: pb.AttributeProto_STRINGS.Enum(), Strings: func() (s [][]byte) {
			for _, x := range xs {
				s = append(s, []byte(x))
			}
			return s
		}()})
	n.Domain = proto.String("ai.onnx.preview.training")
	return n
}

// Every gradient rule against central differences of the loss, in f64:
// the loss is sum(op(a, b)·c) for a constant c, with b broadcast against
// a where the operator broadcasts, so that the sums to an input's shape
// are checked too.
func TestGradientAgainstFiniteDifferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, c := range []struct {
		op    string
		a, b  []int64 // b nil: a unary operator
		out   []int64
		attrs []*pb.AttributeProto
	}{
		{op: "Add", a: []int64{2, 3}, b: []int64{3}, out: []int64{2, 3}},
		{op: "Sub", a: []int64{2, 3}, b: []int64{2, 1}, out: []int64{2, 3}},
		{op: "Mul", a: []int64{2, 3}, b: []int64{3}, out: []int64{2, 3}},
		{op: "Div", a: []int64{2, 3}, b: []int64{1, 3}, out: []int64{2, 3}},
		{op: "MatMul", a: []int64{2, 3}, b: []int64{3, 4}, out: []int64{2, 4}},
		{op: "Neg", a: []int64{2, 3}, out: []int64{2, 3}},
		{op: "Identity", a: []int64{2, 3}, out: []int64{2, 3}},
		{op: "Exp", a: []int64{2, 3}, out: []int64{2, 3}},
		{op: "Log", a: []int64{2, 3}, out: []int64{2, 3}},
		{op: "Tanh", a: []int64{2, 3}, out: []int64{2, 3}},
		{op: "Sigmoid", a: []int64{2, 3}, out: []int64{2, 3}},
		{op: "Relu", a: []int64{2, 3}, out: []int64{2, 3}},
		{op: "ReduceSum", a: []int64{2, 3}, out: []int64{2, 1}, attrs: []*pb.AttributeProto{intAttr("keepdims", 1)}},
		{op: "ReduceMean", a: []int64{2, 3}, out: []int64{3}, attrs: []*pb.AttributeProto{intsAttr("axes", 0), intAttr("keepdims", 0)}},
	} {
		t.Run(c.op, func(t *testing.T) {
			ins := []*pb.ValueInfoProto{pb.TensorValueInfo("a", pb.TensorProto_DOUBLE, c.a...)}
			opIns, xs, outs := []string{"a"}, []string{"a"}, []string{"l", "da"}
			if c.b != nil {
				ins = append(ins, pb.TensorValueInfo("b", pb.TensorProto_DOUBLE, c.b...))
				opIns, xs, outs = append(opIns, "b"), append(xs, "b"), append(outs, "db")
			}
			weights := randoms(rng, int(elements(c.out)), 1)
			cw := &pb.TensorProto{Name: proto.String("c"), Dims: c.out, DataType: proto.Int32(int32(pb.TensorProto_DOUBLE)), DoubleData: weights}
			nodes := []*pb.NodeProto{
				node(c.op, "op", opIns, []string{"h"}, c.attrs...),
				node("Mul", "weigh", []string{"h", "c"}, []string{"hc"}),
				node("ReduceSum", "loss", []string{"hc"}, []string{"l"}, intAttr("keepdims", 0)),
				gradientNode("l", outs[1:], xs...),
			}
			m := model(13, ins, []*pb.TensorProto{cw}, nodes, outs...)
			// Positive inputs away from Relu's kink and Log's pole.
			values := [][]float64{positives(rng, c.a)}
			if c.b != nil {
				values = append(values, positives(rng, c.b))
			}
			for i := range values[0] {
				if i%2 == 1 && c.op != "Log" {
					values[0][i] = -values[0][i]
				}
			}
			arrays := func(vs [][]float64) []*eval.Array {
				var out []*eval.Array
				for i, v := range vs {
					shape := c.a
					if i == 1 {
						shape = c.b
					}
					a, err := eval.FromValues(ints(shape), elem.F64, v)
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, a)
				}
				return out
			}
			got := run(t, m, onnximport.Options{}, arrays(values)...)
			compared := 0
			for x := range values {
				const eps = 1e-6
				for i := range values[x] {
					at := func(d float64) float64 {
						vs := [][]float64{append([]float64(nil), values[0]...)}
						if len(values) > 1 {
							vs = append(vs, append([]float64(nil), values[1]...))
						}
						vs[x][i] += d
						return run(t, m, onnximport.Options{}, arrays(vs)...)[0].Data[0]
					}
					want := (at(eps) - at(-eps)) / (2 * eps)
					if g := got[1+x].Data[i]; math.Abs(g-want) > 1e-6*math.Max(1, math.Abs(want)) {
						t.Errorf("∂l/∂%s[%d] = %g; central differences give %g", xs[x], i, g, want)
					}
					compared++
				}
			}
			if compared != int(elements(c.a)+elements(c.b)) {
				t.Fatalf("compared %d gradients", compared)
			}
		})
	}
}

// A Gradient that cannot be taken is refused, naming why.
func TestGradientRefusals(t *testing.T) {
	ins := []*pb.ValueInfoProto{input("a", 2, 3)}
	for _, c := range []struct {
		name  string
		nodes []*pb.NodeProto
		outs  []string
		want  string
	}{
		{"a y of more than one element", []*pb.NodeProto{node("Exp", "e", []string{"a"}, []string{"h"}), gradientNode("h", []string{"da"}, "a")}, []string{"da"},
			"the importer takes the gradient of a one-element y"},
		{"through an operator without a rule", []*pb.NodeProto{node("Softmax", "s", []string{"a"}, []string{"h"}), node("ReduceSum", "r", []string{"h"}, []string{"l"}, intAttr("keepdims", 0)),
			gradientNode("l", []string{"da"}, "a")}, []string{"da"}, "node 's' (Softmax), which Gradient does not differentiate"},
		{"outputs and xs that differ in number", []*pb.NodeProto{node("ReduceSum", "r", []string{"a"}, []string{"l"}, intAttr("keepdims", 0)), gradientNode("l", []string{"da", "db"}, "a")},
			[]string{"da"}, "2 outputs for 1 xs"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := onnximport.Import(model(13, ins, nil, c.nodes, c.outs...), onnximport.Options{File: "g.onnx"})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
	// An x that y does not depend on has a zero gradient.
	m := model(13, []*pb.ValueInfoProto{input("a", 2), input("b", 2)}, nil,
		[]*pb.NodeProto{node("ReduceSum", "r", []string{"a"}, []string{"l"}, intAttr("keepdims", 0)), gradientNode("l", []string{"da", "db"}, "a", "b")}, "da", "db")
	got := run(t, m, onnximport.Options{}, array(t, []int{2}, []float64{1, 2}), array(t, []int{2}, []float64{3, 4}))
	if d := got[0].Data; d[0] != 1 || d[1] != 1 {
		t.Errorf("∂l/∂a = %v, want [1 1]", d)
	}
	if d := got[1].Data; d[0] != 0 || d[1] != 0 {
		t.Errorf("∂l/∂b = %v, want [0 0]", d)
	}
}

func positives(rng *rand.Rand, shape []int64) []float64 {
	v := make([]float64, elements(shape))
	for i := range v {
		v[i] = 0.5 + rng.Float64()
	}
	return v
}

func elements(shape []int64) int64 {
	if shape == nil {
		return 0
	}
	n := int64(1)
	for _, d := range shape {
		n *= d
	}
	return n
}

func ints(shape []int64) []int {
	out := make([]int, len(shape))
	for i, d := range shape {
		out[i] = int(d)
	}
	return out
}

// The optimizers at T = 0, where Momentum's β and Adam's bias correction
// do not apply (the conformance tests have T > 0), and at T = 2, computed
// here from the spec's formulas.
func TestOptimizersAtFirstStep(t *testing.T) {
	training := func(op string, ins, outs []string, attrs ...*pb.AttributeProto) *pb.ModelProto {
		n := node(op, "opt", ins, outs, attrs...)
		n.Domain = proto.String("ai.onnx.preview.training")
		var vi []*pb.ValueInfoProto
		for _, in := range ins {
			switch in {
			case "R":
				vi = append(vi, pb.TensorValueInfo(in, pb.TensorProto_FLOAT))
			case "T":
				vi = append(vi, pb.TensorValueInfo(in, pb.TensorProto_INT64))
			default:
				vi = append(vi, input(in, 2))
			}
		}
		m := model(1, vi, nil, []*pb.NodeProto{n}, outs...)
		m.OpsetImport = []*pb.OperatorSetIdProto{{Domain: proto.String("ai.onnx.preview.training"), Version: proto.Int64(1)}}
		return m
	}
	floatAttr := func(name string, v float32) *pb.AttributeProto {
		return &pb.AttributeProto{Name: proto.String(name), Type: pb.AttributeProto_FLOAT.Enum(), F: proto.Float32(v)}
	}
	x, g, v, h := []float64{1, -2}, []float64{0.5, 0.25}, []float64{0.1, 0.2}, []float64{0.3, 0.4}
	scalar := func(kind elem.Type, x float64) *eval.Array {
		a, err := eval.FromValues(nil, kind, []float64{x})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	const r, alpha, beta = 0.1, 0.9, 0.5
	for _, T := range []float64{0, 2} {
		momentum := training("Momentum", []string{"R", "T", "X", "G", "V"}, []string{"Xn", "Vn"},
			floatAttr("alpha", alpha), floatAttr("beta", beta), strAttr("mode", "standard"), floatAttr("norm_coefficient", 0))
		got := run(t, momentum, onnximport.Options{}, scalar(elem.F32, r), scalar(elem.I64, T), array(t, []int{2}, x), array(t, []int{2}, g), array(t, []int{2}, v))
		b := 1.0
		if T > 0 {
			b = beta
		}
		for i := range x {
			vn := alpha*v[i] + b*g[i]
			if d := got[1].Data[i] - vn; math.Abs(d) > 1e-6 || math.Abs(got[0].Data[i]-(x[i]-r*vn)) > 1e-6 {
				t.Errorf("Momentum at T = %v: X' %v V' %v, want V'[%d] = %v", T, got[0].Data, got[1].Data, i, vn)
			}
		}
		adam := training("Adam", []string{"R", "T", "X", "G", "V", "H"}, []string{"Xn", "Vn", "Hn"}, floatAttr("alpha", alpha), floatAttr("beta", beta))
		got = run(t, adam, onnximport.Options{}, scalar(elem.F32, r), scalar(elem.I64, T), array(t, []int{2}, x), array(t, []int{2}, g), array(t, []int{2}, v), array(t, []int{2}, h))
		rate := r
		if T > 0 {
			rate = r * math.Sqrt(1-math.Pow(beta, T)) / (1 - math.Pow(alpha, T))
		}
		for i := range x {
			vn, hn := alpha*v[i]+(1-alpha)*g[i], beta*h[i]+(1-beta)*g[i]*g[i]
			want := x[i] - rate*vn/(math.Sqrt(hn)+1e-6)
			if math.Abs(got[0].Data[i]-want) > 1e-5 {
				t.Errorf("Adam at T = %v: X'[%d] = %v, want %v", T, i, got[0].Data[i], want)
			}
		}
	}
}
