package onnximport_test

import (
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/translate/onnximport"
	pb "github.com/ipuir/ipuir/translate/onnximport/onnxpb"
)

// Each operator on a 2×3 input x = [[1, -2, 3], [-4, 5, -6]] / 4, imported,
// evaluated by the reference interpreter, and compared with the values
// computed here.
func TestEachOperator(t *testing.T) {
	x := []float64{0.25, -0.5, 0.75, -1, 1.25, -1.5}
	each := func(f func(float64) float64) []float64 {
		out := make([]float64, len(x))
		for i, v := range x {
			out[i] = f(v)
		}
		return out
	}
	c := floats("c", []int64{3}, []float64{0.5, 1, 2})
	row := func(f func(v, c float64) float64) []float64 {
		out := make([]float64, len(x))
		for i, v := range x {
			out[i] = f(v, []float64{0.5, 1, 2}[i%3])
		}
		return out
	}
	floatAttr := func(name string, v float32) *pb.AttributeProto {
		return &pb.AttributeProto{Name: proto.String(name), Type: pb.AttributeProto_FLOAT.Enum(), F: proto.Float32(v)}
	}
	for _, tc := range []struct {
		name  string
		inits []*pb.TensorProto
		nodes []*pb.NodeProto
		shape []int
		want  []float64
	}{
		{"Add", []*pb.TensorProto{c}, []*pb.NodeProto{node("Add", "n", []string{"x", "c"}, []string{"y"})}, []int{2, 3}, row(func(v, c float64) float64 { return v + c })},
		{"Sub", []*pb.TensorProto{c}, []*pb.NodeProto{node("Sub", "n", []string{"x", "c"}, []string{"y"})}, []int{2, 3}, row(func(v, c float64) float64 { return v - c })},
		{"Mul", []*pb.TensorProto{c}, []*pb.NodeProto{node("Mul", "n", []string{"x", "c"}, []string{"y"})}, []int{2, 3}, row(func(v, c float64) float64 { return v * c })},
		{"Div", []*pb.TensorProto{c}, []*pb.NodeProto{node("Div", "n", []string{"x", "c"}, []string{"y"})}, []int{2, 3}, row(func(v, c float64) float64 { return v / c })},
		{"Pow", []*pb.TensorProto{floats("p", nil, []float64{3})}, []*pb.NodeProto{node("Pow", "n", []string{"x", "p"}, []string{"y"})}, []int{2, 3}, each(func(v float64) float64 { return v * v * v })},
		{"Sqrt", nil, []*pb.NodeProto{node("Mul", "sq", []string{"x", "x"}, []string{"s"}), node("Sqrt", "n", []string{"s"}, []string{"y"})}, []int{2, 3}, each(math.Abs)},
		{"Reciprocal", nil, []*pb.NodeProto{node("Reciprocal", "n", []string{"x"}, []string{"y"})}, []int{2, 3}, each(func(v float64) float64 { return 1 / v })},
		{"Neg", nil, []*pb.NodeProto{node("Neg", "n", []string{"x"}, []string{"y"})}, []int{2, 3}, each(func(v float64) float64 { return -v })},
		{"Exp", nil, []*pb.NodeProto{node("Exp", "n", []string{"x"}, []string{"y"})}, []int{2, 3}, each(math.Exp)},
		{"Tanh", nil, []*pb.NodeProto{node("Tanh", "n", []string{"x"}, []string{"y"})}, []int{2, 3}, each(math.Tanh)},
		{"Erf", nil, []*pb.NodeProto{node("Erf", "n", []string{"x"}, []string{"y"})}, []int{2, 3}, each(math.Erf)},
		{"Relu", nil, []*pb.NodeProto{node("Relu", "n", []string{"x"}, []string{"y"})}, []int{2, 3}, each(func(v float64) float64 { return math.Max(v, 0) })},
		{"Sigmoid", nil, []*pb.NodeProto{node("Sigmoid", "n", []string{"x"}, []string{"y"})}, []int{2, 3}, each(func(v float64) float64 { return 1 / (1 + math.Exp(-v)) })},
		{"Gelu", nil, []*pb.NodeProto{node("Gelu", "n", []string{"x"}, []string{"y"})}, []int{2, 3}, each(func(v float64) float64 { return 0.5 * v * (1 + math.Erf(v/math.Sqrt2)) })},
		{"Softmax", nil, []*pb.NodeProto{node("Softmax", "n", []string{"x"}, []string{"y"}, intAttr("axis", 0))}, []int{2, 3}, func() []float64 {
			out := make([]float64, 6)
			for j := range 3 {
				a, b := math.Exp(x[j]), math.Exp(x[3+j])
				out[j], out[3+j] = a/(a+b), b/(a+b)
			}
			return out
		}()},
		{"ReduceSum", []*pb.TensorProto{int64s("axes", 1)}, []*pb.NodeProto{node("ReduceSum", "n", []string{"x", "axes"}, []string{"y"})}, []int{2, 1}, []float64{0.5, -1.25}},
		{"ReduceMax", nil, []*pb.NodeProto{node("ReduceMax", "n", []string{"x"}, []string{"y"}, intsAttr("axes", 0), intAttr("keepdims", 0))}, []int{3}, []float64{0.25, 1.25, 0.75}},
		{"ReduceMean", nil, []*pb.NodeProto{node("ReduceMean", "n", []string{"x"}, []string{"y"}, intsAttr("axes", 1))}, []int{2, 1}, []float64{0.5 / 3, -1.25 / 3}},
		{"Transpose", nil, []*pb.NodeProto{node("Transpose", "n", []string{"x"}, []string{"y"})}, []int{3, 2}, []float64{0.25, -1, -0.5, 1.25, 0.75, -1.5}},
		{"Reshape", []*pb.TensorProto{int64s("s", 3, -1)}, []*pb.NodeProto{node("Reshape", "n", []string{"x", "s"}, []string{"y"})}, []int{3, 2}, x},
		{"Flatten", nil, []*pb.NodeProto{node("Flatten", "n", []string{"x"}, []string{"y"}, intAttr("axis", 0))}, []int{1, 6}, x},
		{"Unsqueeze+Squeeze", []*pb.TensorProto{int64s("a", 0)}, []*pb.NodeProto{node("Unsqueeze", "u", []string{"x", "a"}, []string{"u"}), node("Squeeze", "n", []string{"u", "a"}, []string{"y"})}, []int{2, 3}, x},
		{"Concat", []*pb.TensorProto{c}, []*pb.NodeProto{node("Unsqueeze", "u", []string{"c", "z"}, []string{"c2"}), node("Concat", "n", []string{"x", "c2"}, []string{"y"}, intAttr("axis", 0))}, []int{3, 3},
			append(append([]float64{}, x...), 0.5, 1, 2)},
		{"Slice", []*pb.TensorProto{int64s("st", 1), int64s("en", 3), int64s("ax", 1)}, []*pb.NodeProto{node("Slice", "n", []string{"x", "st", "en", "ax"}, []string{"y"})}, []int{2, 2}, []float64{-0.5, 0.75, 1.25, -1.5}},
		{"Split", nil, []*pb.NodeProto{node("Split", "n", []string{"x"}, []string{"y", "y2"}, intAttr("axis", 0), intAttr("num_outputs", 2))}, []int{1, 3}, x[:3]},
		{"Gather", []*pb.TensorProto{int64s("i", 2, 0)}, []*pb.NodeProto{node("Gather", "n", []string{"x", "i"}, []string{"y"}, intAttr("axis", 1))}, []int{2, 2}, []float64{0.75, 0.25, -1.5, -1}},
		{"Expand", []*pb.TensorProto{int64s("s", 2, 2, 3)}, []*pb.NodeProto{node("Expand", "n", []string{"x", "s"}, []string{"y"})}, []int{2, 2, 3}, append(append([]float64{}, x...), x...)},
		{"Cast+Identity", nil, []*pb.NodeProto{node("Cast", "n", []string{"x"}, []string{"h"}, intAttr("to", int64(pb.TensorProto_FLOAT16))),
			node("Cast", "b", []string{"h"}, []string{"f"}, intAttr("to", int64(pb.TensorProto_FLOAT))), node("Identity", "i", []string{"f"}, []string{"y"})}, []int{2, 3}, x},
		{"ConstantOfShape+Where", []*pb.TensorProto{c, int64s("s", 3), {Name: proto.String("cond"), Dims: []int64{3}, DataType: proto.Int32(int32(pb.TensorProto_BOOL)), Int32Data: []int32{1, 0, 1}}},
			[]*pb.NodeProto{node("ConstantOfShape", "k", []string{"s"}, []string{"zeros"}), node("Where", "w", []string{"cond", "c", "zeros"}, []string{"m"}), node("Add", "n", []string{"x", "m"}, []string{"y"})}, []int{2, 3},
			[]float64{0.75, -0.5, 2.75, -0.5, 1.25, 0.5}},
		{"Gemm", []*pb.TensorProto{floats("b", []int64{2, 3}, []float64{1, 0, 0, 0, 1, 0}), floats("bias", []int64{2}, []float64{1, -1})},
			[]*pb.NodeProto{node("Gemm", "n", []string{"x", "b", "bias"}, []string{"y"}, intAttr("transB", 1), floatAttr("alpha", 2), floatAttr("beta", 0.5))}, []int{2, 2},
			[]float64{2*0.25 + 0.5, 2*-0.5 - 0.5, 2*-1 + 0.5, 2*1.25 - 0.5}},
		{"Constant", nil, []*pb.NodeProto{node("Constant", "k", nil, []string{"k"}, &pb.AttributeProto{Name: proto.String("value_floats"), Type: pb.AttributeProto_FLOATS.Enum(), Floats: []float32{1, 2, 3}}),
			node("Mul", "n", []string{"x", "k"}, []string{"y"})}, []int{2, 3}, row(func(v, c float64) float64 { return v * []float64{1, 2, 3}[int(c*2)/2] })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inits := append([]*pb.TensorProto{int64s("z", 0)}, tc.inits...)
			m := model(20, []*pb.ValueInfoProto{input("x", 2, 3)}, inits, tc.nodes, "y")
			outs := run(t, m, onnximport.Options{File: "op.onnx"}, array(t, []int{2, 3}, x))
			if got := outs[0].Shape; len(got) != len(tc.shape) {
				t.Fatalf("shape %v, want %v", got, tc.shape)
			}
			near(t, tc.name, outs[0], tc.want, 1e-6)
		})
	}
}

var updateDocs = flag.Bool("update", false, "rewrite docs/onnx.md's operator table")

// TestOperatorDocs keeps docs/onnx.md's operator table the converter
// table's (onnximport.Operators).
func TestOperatorDocs(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "onnx.md")
	for _, block := range []struct{ name, want string }{
		{"operators", onnximport.Operators()},
		{"gradient rules", onnximport.GradientRules()},
	} {
		page, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		begin, end := "<!-- "+block.name+": begin -->\n", "<!-- "+block.name+": end -->"
		i, j := strings.Index(string(page), begin), strings.Index(string(page), end)
		if i < 0 || j < i {
			t.Fatalf("%s has no %q ... %q block", path, begin, end)
		}
		if got := string(page[i+len(begin) : j]); got != block.want {
			if *updateDocs {
				if err := os.WriteFile(path, []byte(string(page[:i+len(begin)])+block.want+string(page[j:])), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			t.Errorf("%s's %s table is stale: run go test ./translate/onnximport -run TestOperatorDocs -update", path, block.name)
		}
	}
	if rows := strings.Count(onnximport.Operators(), "\n") - 2; rows < 90 {
		t.Errorf("the table has %d operators", rows)
	}
}

// Conv against a direct convolution computed here, on the geometries that
// take each path: im2col by strided slices (pads, strides, dilations,
// groups) and the patches of a ViT's embedding (stride = kernel, a
// remainder cropped).
func TestConvAgainstDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct {
		name                      string
		n, ch, h, w, m, g, kh, kw int64
		strides, pads, dilations  []int64
	}{
		{"3x3 pad 1", 1, 3, 6, 5, 4, 1, 3, 3, []int64{1, 1}, []int64{1, 1, 1, 1}, []int64{1, 1}},
		{"stride 2, uneven pads", 2, 2, 7, 6, 3, 1, 3, 2, []int64{2, 2}, []int64{0, 1, 2, 0}, []int64{1, 1}},
		{"dilated, grouped", 1, 4, 8, 8, 6, 2, 3, 3, []int64{1, 2}, []int64{1, 1, 1, 1}, []int64{2, 1}},
		{"depthwise", 1, 3, 5, 5, 3, 3, 3, 3, []int64{1, 1}, []int64{1, 1, 1, 1}, []int64{1, 1}},
		{"patches", 1, 3, 9, 8, 5, 1, 4, 4, []int64{4, 4}, []int64{0, 0, 0, 0}, []int64{1, 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			x := randoms(rng, int(c.n*c.ch*c.h*c.w), 1)
			w := randoms(rng, int(c.m*(c.ch/c.g)*c.kh*c.kw), 1)
			b := randoms(rng, int(c.m), 1)
			m := model(17, []*pb.ValueInfoProto{input("x", c.n, c.ch, c.h, c.w)},
				[]*pb.TensorProto{floats("w", []int64{c.m, c.ch / c.g, c.kh, c.kw}, w), floats("b", []int64{c.m}, b)},
				[]*pb.NodeProto{node("Conv", "conv", []string{"x", "w", "b"}, []string{"y"}, intsAttr("strides", c.strides...),
					intsAttr("pads", c.pads...), intsAttr("dilations", c.dilations...), intAttr("group", c.g))}, "y")
			outs := run(t, m, onnximport.Options{File: "conv.onnx"}, array(t, []int{int(c.n), int(c.ch), int(c.h), int(c.w)}, x))
			oh := (c.h+c.pads[0]+c.pads[2]-((c.kh-1)*c.dilations[0]+1))/c.strides[0] + 1
			ow := (c.w+c.pads[1]+c.pads[3]-((c.kw-1)*c.dilations[1]+1))/c.strides[1] + 1
			want := make([]float64, c.n*c.m*oh*ow)
			cg, mg := c.ch/c.g, c.m/c.g
			for n := range c.n {
				for o := range c.m {
					grp := o / mg
					for i := range oh {
						for j := range ow {
							sum := b[o]
							for ci := range cg {
								for ki := range c.kh {
									for kj := range c.kw {
										y := i*c.strides[0] - c.pads[0] + ki*c.dilations[0]
										z := j*c.strides[1] - c.pads[1] + kj*c.dilations[1]
										if y < 0 || y >= c.h || z < 0 || z >= c.w {
											continue
										}
										sum += x[((n*c.ch+grp*cg+ci)*c.h+y)*c.w+z] * w[((o*cg+ci)*c.kh+ki)*c.kw+kj]
									}
								}
							}
							want[((n*c.m+o)*oh+i)*ow+j] = sum
						}
					}
				}
			}
			if got := outs[0].Shape; len(got) != 4 || got[2] != int(oh) || got[3] != int(ow) {
				t.Fatalf("shape %v, want [%d %d %d %d]", got, c.n, c.m, oh, ow)
			}
			near(t, c.name, outs[0], want, 1e-4)
		})
	}
}

// A BatchNormalization that alone reads a Conv of constant weights folds
// into them: the module has no multiplication, and computes the same.
func TestBatchNormFoldsIntoConv(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	x := randoms(rng, 2*3*5*5, 1)
	w := randoms(rng, 4*3*3*3, 1)
	b := randoms(rng, 4, 1)
	scale, bias, mean := randoms(rng, 4, 1), randoms(rng, 4, 1), randoms(rng, 4, 1)
	variance := []float64{0.5, 1, 1.5, 2}
	inits := []*pb.TensorProto{floats("w", []int64{4, 3, 3, 3}, w), floats("b", []int64{4}, b), floats("s", []int64{4}, scale),
		floats("beta", []int64{4}, bias), floats("mean", []int64{4}, mean), floats("var", []int64{4}, variance)}
	nodes := []*pb.NodeProto{node("Conv", "conv", []string{"x", "w", "b"}, []string{"c"}, intsAttr("pads", 1, 1, 1, 1)),
		node("BatchNormalization", "bn", []string{"c", "s", "beta", "mean", "var"}, []string{"y"})}
	m := model(17, []*pb.ValueInfoProto{input("x", 2, 3, 5, 5)}, inits, nodes, "y")
	text, err := onnximport.Import(m, onnximport.Options{File: "bn.onnx"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(text), "tensor.mul") || strings.Contains(string(text), "tensor.sub") {
		t.Errorf("the normalisation was not folded:\n%s", text)
	}
	outs := run(t, m, onnximport.Options{File: "bn.onnx"}, array(t, []int{2, 3, 5, 5}, x))
	want := make([]float64, 2*4*5*5)
	for n := range 2 {
		for o := range 4 {
			a := scale[o] / math.Sqrt(variance[o]+float64(float32(1e-5)))
			for i := range 5 {
				for j := range 5 {
					sum := b[o]
					for c := range 3 {
						for ki := range 3 {
							for kj := range 3 {
								y, z := i-1+ki, j-1+kj
								if y >= 0 && y < 5 && z >= 0 && z < 5 {
									sum += x[((n*3+c)*5+y)*5+z] * w[((o*3+c)*3+ki)*3+kj]
								}
							}
						}
					}
					want[((n*4+o)*5+i)*5+j] = (sum-mean[o])*a + bias[o]
				}
			}
		}
	}
	near(t, "conv+bn", outs[0], want, 1e-4)
}

// Gather by indices known at run time from a table known at import (an
// embedding lookup) is a one-hot matmul; from a table holding an infinity
// it stays the select chain, which no 0·∞ can reach. Both give exactly
// the looked-up values, along any axis, for negative indices and scalar
// ones, and zeros for an index outside the axis.
func TestGatherByIndicesAtRunTime(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	compared := 0
	for _, c := range []struct {
		name     string
		shape    []int64
		axis     int64
		idxShape []int64
		idx      []float64
		infinity bool
		matmul   bool
	}{
		{"embedding", []int64{40, 6}, 0, []int64{2, 3}, []float64{0, 39, -1, 7, 7, -40}, false, true},
		{"middle axis", []int64{3, 5, 4}, 1, []int64{4}, []float64{4, 0, -2, 1}, false, true},
		{"last axis, scalar index", []int64{2, 3, 6}, 2, nil, []float64{-3}, false, true},
		{"outside the axis", []int64{5, 2}, 0, []int64{2}, []float64{5, 1}, false, true},
		{"a table with an infinity", []int64{5, 2}, 0, []int64{3}, []float64{4, 0, 2}, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := 1
			for _, d := range c.shape {
				n *= int(d)
			}
			table := randoms(rng, n, 1)
			if c.infinity {
				table[1] = math.Inf(1)
			}
			m := model(13, []*pb.ValueInfoProto{intInput("i", c.idxShape...)}, []*pb.TensorProto{floats("x", c.shape, table)},
				[]*pb.NodeProto{node("Gather", "n", []string{"x", "i"}, []string{"y"}, intAttr("axis", c.axis))}, "y")
			text, err := onnximport.Import(m, onnximport.Options{File: "gather.onnx"})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(string(text), "tensor.matmul"); got != c.matmul {
				t.Errorf("a matmul in the module: %v, want %v", got, c.matmul)
			}
			idxShape := make([]int, len(c.idxShape))
			for i, d := range c.idxShape {
				idxShape[i] = int(d)
			}
			ix, err := eval.FromValues(idxShape, elem.I64, c.idx)
			if err != nil {
				t.Fatal(err)
			}
			out := run(t, m, onnximport.Options{File: "gather.onnx"}, ix)[0]
			// The expected values, by index arithmetic: x's axes before the
			// axis, the indices', then x's after it.
			before, d, after := 1, int(c.shape[c.axis]), 1
			for i, s := range c.shape {
				if int64(i) < c.axis {
					before *= int(s)
				} else if int64(i) > c.axis {
					after *= int(s)
				}
			}
			var want []float64
			for b := range before {
				for _, f := range c.idx {
					k := int(f)
					if k < 0 {
						k += d
					}
					for a := range after {
						if k < 0 || k >= d {
							want = append(want, 0)
							continue
						}
						want = append(want, table[(b*d+k)*after+a])
					}
				}
			}
			if len(out.Data) != len(want) {
				t.Fatalf("%d values, want %d (shape %v)", len(out.Data), len(want), out.Shape)
			}
			for i := range want {
				if out.Data[i] != want[i] {
					t.Fatalf("element %d: %v, want %v", i, out.Data[i], want[i])
				}
				compared++
			}
		})
	}
	t.Logf("%d looked-up elements compared exactly", compared)
}

func stringInput(name string, dims ...int64) *pb.ValueInfoProto {
	v := input(name, dims...)
	v.Type.GetTensorType().ElemType = proto.Int32(int32(pb.TensorProto_STRING))
	return v
}

// Strings at a model's edges: StringNormalizer, and Cast to and from
// STRING, on the reference interpreter; an operator that takes numbers is
// refused a string by name, and a length known only at run time goes
// nowhere but to a graph output.
func TestStrings(t *testing.T) {
	words, err := eval.NewStrings([]int{5}, []string{"Monday", "tuesday", "MONDAY", "2.5", "wednesday"})
	if err != nil {
		t.Fatal(err)
	}
	m := model(13, []*pb.ValueInfoProto{stringInput("x", 5)}, nil, []*pb.NodeProto{
		node("StringNormalizer", "norm", []string{"x"}, []string{"y"}, strAttr("case_change_action", "UPPER"),
			&pb.AttributeProto{Name: proto.String("stopwords"), Type: pb.AttributeProto_STRINGS.Enum(), Strings: [][]byte{[]byte("monday")}}),
	}, "y")
	out := run(t, m, onnximport.Options{File: "strings.onnx"}, words)[0]
	if want := []string{"TUESDAY", "2.5", "WEDNESDAY"}; !slices.Equal(out.Strs, want) || !slices.Equal(out.Shape, []int{3}) {
		t.Errorf("normalized to %v %q, want %q", out.Shape, out.Strs, want)
	}
	// Numbers to strings and back.
	m = model(13, []*pb.ValueInfoProto{input("x", 2, 3)}, nil, []*pb.NodeProto{
		node("Cast", "s", []string{"x"}, []string{"s"}, intAttr("to", int64(pb.TensorProto_STRING))),
		node("Cast", "n", []string{"s"}, []string{"y"}, intAttr("to", int64(pb.TensorProto_FLOAT))),
	}, "s", "y")
	xs := []float64{0.25, -0.5, 0.75, -1, 1.25, -1.5}
	outs := run(t, m, onnximport.Options{File: "strings.onnx"}, array(t, []int{2, 3}, xs))
	if want := []string{"0.25", "-0.5", "0.75", "-1", "1.25", "-1.5"}; !slices.Equal(outs[0].Strs, want) || !slices.Equal(outs[1].Data, xs) {
		t.Errorf("cast to %q and back to %v", outs[0].Strs, outs[1].Data)
	}
	for _, c := range []struct {
		name  string
		nodes []*pb.NodeProto
		want  string
	}{
		{"a string to Add", []*pb.NodeProto{node("Add", "add", []string{"x", "x"}, []string{"y"})},
			"input 0 'x' is a tensor of strings; Add takes numbers"},
		{"a run-time length to Cast", []*pb.NodeProto{node("StringNormalizer", "norm", []string{"x"}, []string{"s"}),
			node("Cast", "n", []string{"s"}, []string{"y"}, intAttr("to", int64(pb.TensorProto_FLOAT)))},
			"input 0 's' has a length known only at run time (a StringNormalizer's); only a graph output may take it"},
		{"a bad case change", []*pb.NodeProto{node("StringNormalizer", "norm", []string{"x"}, []string{"y"}, strAttr("case_change_action", "lower"))},
			"case_change_action = 'lower' (LOWER, UPPER or NONE)"},
	} {
		m := model(13, []*pb.ValueInfoProto{stringInput("x", 5)}, nil, c.nodes, "y")
		if _, err := onnximport.Import(m, onnximport.Options{File: "strings.onnx"}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
