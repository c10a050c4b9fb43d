package tests

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/translate/onnximport"
	pb "github.com/ipuir/ipuir/translate/onnximport/onnxpb"
)

// encoderStack writes a stack of pre-norm transformer encoder layers
// (SigLIP's and ViT's: layer_norm, attention with biases, residual,
// layer_norm, an MLP with tanh-gelu, residual) at the tensor level, every
// weight a function argument.
func encoderStack(layers, tokens, hidden, heads, mlp int, elem, tgt string) string {
	d := hidden / heads
	ty := func(dims ...int) string {
		s := make([]string, len(dims))
		for i, n := range dims {
			s[i] = fmt.Sprint(n)
		}
		return "tensor<" + strings.Join(s, "x") + "x" + elem + ">"
	}
	var args, body []string
	e := func(format string, a ...any) { body = append(body, "    "+fmt.Sprintf(format, a...)) }
	prev := "x"
	args = append(args, "%x: "+ty(tokens, hidden))
	for l := range layers {
		p := fmt.Sprintf("l%d_", l)
		for _, a := range []struct {
			name string
			dims []int
		}{{"ln1_s", []int{hidden}}, {"ln1_b", []int{hidden}}, {"wq", []int{hidden, hidden}}, {"bq", []int{hidden}},
			{"wk", []int{hidden, hidden}}, {"bk", []int{hidden}}, {"wv", []int{hidden, hidden}}, {"bv", []int{hidden}},
			{"wo", []int{hidden, hidden}}, {"bo", []int{hidden}}, {"ln2_s", []int{hidden}}, {"ln2_b", []int{hidden}},
			{"w1", []int{hidden, mlp}}, {"b1", []int{mlp}}, {"w2", []int{mlp, hidden}}, {"b2", []int{hidden}}} {
			args = append(args, "%"+p+a.name+": "+ty(a.dims...))
		}
		bias := func(v, b string, n, m int) string {
			e("%%%s%s_bb = tensor.broadcast %%%s%s dimensions = [1] : %s -> %s", p, v, p, b, ty(m), ty(n, m))
			e("%%%s%s_b = tensor.add %%%s%s, %%%s%s_bb : %s", p, v, p, v, p, v, ty(n, m))
			return v + "_b"
		}
		e("%%%sln1 = tensor.layer_norm %%%s, %%%sln1_s, %%%sln1_b epsilon = 9.99999997E-7 : %s, %s, %s -> %s", p, prev, p, p,
			ty(tokens, hidden), ty(hidden), ty(hidden), ty(tokens, hidden))
		for _, q := range []struct {
			v, perm string
			dims    []int
		}{{"q", "[1, 0, 2]", []int{heads, tokens, d}}, {"k", "[1, 2, 0]", []int{heads, d, tokens}}, {"v", "[1, 0, 2]", []int{heads, tokens, d}}} {
			e("%%%s%s = tensor.matmul %%%sln1, %%%sw%s : %s, %s -> %s", p, q.v, p, p, q.v, ty(tokens, hidden), ty(hidden, hidden), ty(tokens, hidden))
			b := bias(q.v, "b"+q.v, tokens, hidden)
			e("%%%s%s_split = tensor.reshape %%%s%s : %s -> %s", p, q.v, p, b, ty(tokens, hidden), ty(tokens, heads, d))
			e("%%%s%s_heads = tensor.transpose %%%s%s_split permutation = %s : %s -> %s", p, q.v, p, q.v, q.perm, ty(tokens, heads, d), ty(q.dims...))
		}
		e("%%%sscores = tensor.batch_matmul %%%sq_heads, %%%sk_heads : %s, %s -> %s", p, p, p, ty(heads, tokens, d), ty(heads, d, tokens), ty(heads, tokens, tokens))
		e("%%%sscale = tensor.constant dense<%e> : %s", p, 1/math.Sqrt(float64(d)), ty(heads, tokens, tokens))
		e("%%%sscaled = tensor.mul %%%sscores, %%%sscale : %s", p, p, p, ty(heads, tokens, tokens))
		e("%%%sprobs = tensor.softmax %%%sscaled axis = 2 : %s", p, p, ty(heads, tokens, tokens))
		e("%%%scontext = tensor.batch_matmul %%%sprobs, %%%sv_heads : %s, %s -> %s", p, p, p, ty(heads, tokens, tokens), ty(heads, tokens, d), ty(heads, tokens, d))
		e("%%%scontext_split = tensor.transpose %%%scontext permutation = [1, 0, 2] : %s -> %s", p, p, ty(heads, tokens, d), ty(tokens, heads, d))
		e("%%%smerged = tensor.reshape %%%scontext_split : %s -> %s", p, p, ty(tokens, heads, d), ty(tokens, hidden))
		e("%%%sattn = tensor.matmul %%%smerged, %%%swo : %s, %s -> %s", p, p, p, ty(tokens, hidden), ty(hidden, hidden), ty(tokens, hidden))
		a := bias("attn", "bo", tokens, hidden)
		e("%%%sres1 = tensor.add %%%s, %%%s%s : %s", p, prev, p, a, ty(tokens, hidden))
		e("%%%sln2 = tensor.layer_norm %%%sres1, %%%sln2_s, %%%sln2_b epsilon = 9.99999997E-7 : %s, %s, %s -> %s", p, p, p, p,
			ty(tokens, hidden), ty(hidden), ty(hidden), ty(tokens, hidden))
		e("%%%sfc1 = tensor.matmul %%%sln2, %%%sw1 : %s, %s -> %s", p, p, p, ty(tokens, hidden), ty(hidden, mlp), ty(tokens, mlp))
		f := bias("fc1", "b1", tokens, mlp)
		e("%%%sact = tensor.gelu %%%s%s {approximate} : %s", p, p, f, ty(tokens, mlp))
		e("%%%sfc2 = tensor.matmul %%%sact, %%%sw2 : %s, %s -> %s", p, p, p, ty(tokens, mlp), ty(mlp, hidden), ty(tokens, hidden))
		g := bias("fc2", "b2", tokens, hidden)
		e("%%%sout = tensor.add %%%sres1, %%%s%s : %s", p, p, p, g, ty(tokens, hidden))
		prev = p + "out"
	}
	e("return %%%s : %s", prev, ty(tokens, hidden))
	return fmt.Sprintf("module attributes {ipu.target = %q} {\n  func.func @f(%s) -> %s {\n%s\n  }\n}\n",
		tgt, strings.Join(args, ", "), ty(tokens, hidden), strings.Join(body, "\n"))
}

// TestModelsFit compiles models that fit one chip only with their weights
// stored once, runs each on the simulated device with generated inputs,
// checks every element against the reference interpreter, and holds the
// planner's estimate within 10% of the simulated cycles. It is part
// of the long suite (IPUIR_LONG_MODELS=1, .ci/run): each model takes
// tens of seconds and gigabytes.
func TestModelsFit(t *testing.T) {
	if os.Getenv("IPUIR_LONG_MODELS") == "" {
		t.Skip("the long suite: set IPUIR_LONG_MODELS=1")
	}
	for _, m := range []struct {
		name, target, fn string
		src              string
	}{
		{"SigLIP-so400m encoder layer, f16", "ipu21", "f", encoderStack(1, 729, 1152, 16, 4304, "f16", "ipu21")},
		{"SigLIP attention block, f32", "ipu21", "attention", strings.ReplaceAll(readFile(t, "../examples/attention.ipuir"), "f16", "f32")},
		{"SigLIP MLP 128-512-128 on test16, weights home (a temporal plan)", "test16", "mlp", readFile(t, "device/weights-home.ipuir")},
		{"ViT-B/16 MLP exported from ONNX in f32, weights as initializers", "ipu21", "main", onnxMLP(t, 197, 768, 3072)},
	} {
		t.Run(m.name, func(t *testing.T) {
			tg, err := target.Lookup(m.target)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			pkg, refused, err := compileProgram(m.src, tg)
			if err != nil || refused != "" {
				t.Fatalf("does not compile: %v%s", err, refused)
			}
			compiled := time.Since(start)
			start = time.Now()
			report, cycles, err := runAndCheckFn(pkg, m.src, tg, 1, m.fn)
			if err != nil {
				t.Fatal(err)
			}
			if !report.Pass() {
				t.Fatalf("check: %s", report.Summary())
			}
			// The planner's estimate (the package's "estimate" entry, the
			// module's tiled.summary) within 10% of the simulated cycles.
			estimate := int64(-1)
			for _, e := range pkg.Metadata {
				if m := estimatedCycles.FindStringSubmatch(e.Value); e.Key == "estimate" && m != nil {
					estimate, _ = strconv.ParseInt(m[1], 10, 64)
				}
			}
			if estimate <= 0 {
				t.Fatalf("the package has no estimate: %v", pkg.Metadata)
			}
			ratio := float64(estimate) / float64(cycles)
			if ratio < 0.9 || ratio > 1.1 {
				t.Errorf("estimate %d cycles is %.1f%% of the simulated %d", estimate, 100*ratio, cycles)
			}
			t.Logf("%s: total_cycles=%d (estimated %d, %+.1f%%) %s; compile %.1f s, run and check %.1f s", m.name, cycles, estimate,
				100*(ratio-1), report.Line(), compiled.Seconds(), time.Since(start).Seconds())
		})
	}
}

// onnxMLP is an f32 transformer MLP (MatMul, Add, Gelu, MatMul, Add) as
// an exporter writes it, its weights initializers, imported for ipu21.
func onnxMLP(t *testing.T, tokens, hidden, mlp int64) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	floats := func(name string, scale float64, dims ...int64) *pb.TensorProto {
		n := int64(1)
		for _, d := range dims {
			n *= d
		}
		raw := make([]byte, 0, 4*n)
		for range n {
			raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(float32(rng.NormFloat64()*scale)))
		}
		return &pb.TensorProto{Name: proto.String(name), Dims: dims, DataType: proto.Int32(int32(pb.TensorProto_FLOAT)), RawData: raw}
	}
	info := func(name string, dims ...int64) *pb.ValueInfoProto {
		var shape pb.TensorShapeProto
		for _, d := range dims {
			shape.Dim = append(shape.Dim, &pb.TensorShapeProto_Dimension{Value: &pb.TensorShapeProto_Dimension_DimValue{DimValue: d}})
		}
		return &pb.ValueInfoProto{Name: proto.String(name), Type: &pb.TypeProto{Value: &pb.TypeProto_TensorType{
			TensorType: &pb.TypeProto_Tensor{ElemType: proto.Int32(int32(pb.TensorProto_FLOAT)), Shape: &shape}}}}
	}
	node := func(op string, ins []string, out string) *pb.NodeProto {
		return &pb.NodeProto{OpType: proto.String(op), Name: proto.String("/mlp/" + out), Input: ins, Output: []string{out}}
	}
	g := &pb.GraphProto{Name: proto.String("mlp"), Input: []*pb.ValueInfoProto{info("x", tokens, hidden)},
		Output: []*pb.ValueInfoProto{info("y", tokens, hidden)},
		Initializer: []*pb.TensorProto{floats("fc1.weight", 1/math.Sqrt(float64(hidden)), hidden, mlp), floats("fc1.bias", 0.02, mlp),
			floats("fc2.weight", 1/math.Sqrt(float64(mlp)), mlp, hidden), floats("fc2.bias", 0.02, hidden)},
		Node: []*pb.NodeProto{node("MatMul", []string{"x", "fc1.weight"}, "h"), node("Add", []string{"h", "fc1.bias"}, "hb"),
			node("Gelu", []string{"hb"}, "a"), node("MatMul", []string{"a", "fc2.weight"}, "o"), node("Add", []string{"o", "fc2.bias"}, "y")}}
	m := &pb.ModelProto{IrVersion: proto.Int64(9), OpsetImport: []*pb.OperatorSetIdProto{{Version: proto.Int64(20)}}, Graph: g}
	text, err := onnximport.Import(m, onnximport.Options{File: "mlp.onnx", Target: "ipu21"})
	if err != nil {
		t.Fatal(err)
	}
	return string(text)
}

var estimatedCycles = regexp.MustCompile(`^#tiled\.summary<cycles = ([0-9]+)`)

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
