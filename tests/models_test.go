package tests

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/ipuir/ipuir/examples/encoder"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/translate/onnximport"
	pb "github.com/ipuir/ipuir/translate/onnximport/onnxpb"
)

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
		{"SigLIP-so400m encoder layer, f16", "ipu21", "f", encoder.Stack(1, 729, 1152, 16, 4304, "f16", "ipu21")},
		{"SigLIP attention block, f32", "ipu21", "attention", strings.ReplaceAll(readFile(t, "../examples/attention.ipuir"), "f16", "f32")},
		{"SigLIP MLP 128-512-128 on test16, weights home", "test16", "mlp", readFile(t, "device/weights-home.ipuir")},
		{"ViT-B/16 MLP exported from ONNX in f32, weights as initializers", "ipu21", "main", onnxMLP(t, 197, 768, 3072)},
		{"SigLIP attention block exported from ONNX in f32, weights as initializers", "ipu21", "main", onnxAttention(t, 729, 1152, 16)},
		{"ViT-B/16 encoder, 12 layers, f16", "ipu21", "f", encoder.Stack(12, 197, 768, 12, 3072, "f16", "ipu21")},
		{"SigLIP-so400m encoder, 6 layers, f16", "ipu21", "f", encoder.Stack(6, 729, 1152, 16, 4304, "f16", "ipu21")},
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
			estimate, bound := int64(-1), int64(-1)
			for _, e := range pkg.Metadata {
				if m := estimatedCycles.FindStringSubmatch(e.Value); e.Key == "estimate" && m != nil {
					estimate, _ = strconv.ParseInt(m[1], 10, 64)
				}
				if m := computeBound.FindStringSubmatch(e.Value); e.Key == "estimate" && m != nil {
					bound, _ = strconv.ParseInt(m[1], 10, 64)
				}
			}
			if estimate <= 0 {
				t.Fatalf("the package has no estimate: %v", pkg.Metadata)
			}
			ratio := float64(estimate) / float64(cycles)
			if ratio < 0.9 || ratio > 1.1 {
				t.Errorf("estimate %d cycles is %.1f%% of the simulated %d", estimate, 100*ratio, cycles)
			}
			t.Logf("%s: total_cycles=%d (estimated %d, %+.1f%%; compute bound %d) %s; compile %.1f s, run and check %.1f s", m.name, cycles, estimate,
				100*(ratio-1), bound, report.Line(), compiled.Seconds(), time.Since(start).Seconds())
		})
	}
}

// onnxGraph builds f32 ONNX graphs as exporters write them, with
// initializers drawn from one seeded source.
type onnxGraph struct {
	rng *rand.Rand
	g   *pb.GraphProto
}

func newONNXGraph(name string) *onnxGraph {
	return &onnxGraph{rng: rand.New(rand.NewPCG(1, 2)), g: &pb.GraphProto{Name: proto.String(name)}}
}

// weight adds an initializer of normal values scaled by scale.
func (o *onnxGraph) weight(name string, scale float64, dims ...int64) {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	raw := make([]byte, 0, 4*n)
	for range n {
		raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(float32(o.rng.NormFloat64()*scale)))
	}
	o.g.Initializer = append(o.g.Initializer, &pb.TensorProto{Name: proto.String(name), Dims: dims,
		DataType: proto.Int32(int32(pb.TensorProto_FLOAT)), RawData: raw})
}

// shape adds an int64 initializer (a Reshape's target shape).
func (o *onnxGraph) shape(name string, dims ...int64) {
	o.g.Initializer = append(o.g.Initializer, &pb.TensorProto{Name: proto.String(name), Dims: []int64{int64(len(dims))},
		DataType: proto.Int32(int32(pb.TensorProto_INT64)), Int64Data: dims})
}

func onnxInfo(name string, dims ...int64) *pb.ValueInfoProto {
	return pb.TensorValueInfo(name, pb.TensorProto_FLOAT, dims...)
}

// positive adds an initializer of values in [lo, lo + 1) (variances).
func (o *onnxGraph) positive(name string, lo float64, dims ...int64) {
	o.weight(name, 0, dims...)
	t := o.g.Initializer[len(o.g.Initializer)-1]
	for i := 0; i < len(t.RawData); i += 4 {
		binary.LittleEndian.PutUint32(t.RawData[i:], math.Float32bits(float32(lo+o.rng.Float64())))
	}
}

func (o *onnxGraph) node(op, out string, ins []string, attrs ...*pb.AttributeProto) {
	o.g.Node = append(o.g.Node, &pb.NodeProto{OpType: proto.String(op), Name: proto.String("/" + o.g.GetName() + "/" + out),
		Input: ins, Output: []string{out}, Attribute: attrs})
}

// imported is the graph as a model of opset 20, imported for ipu21.
func (o *onnxGraph) imported(t *testing.T) string { return o.importedFor(t, "ipu21") }

// importedFor is the graph as a model of opset 20, imported for target.
func (o *onnxGraph) importedFor(t *testing.T, target string) string {
	t.Helper()
	m := &pb.ModelProto{IrVersion: proto.Int64(9), OpsetImport: []*pb.OperatorSetIdProto{{Version: proto.Int64(20)}}, Graph: o.g}
	text, err := onnximport.Import(m, onnximport.Options{File: o.g.GetName() + ".onnx", Target: target})
	if err != nil {
		t.Fatal(err)
	}
	return string(text)
}

// onnxMLP is an f32 transformer MLP (MatMul, Add, Gelu, MatMul, Add) as
// an exporter writes it, its weights initializers, imported for ipu21.
func onnxMLP(t *testing.T, tokens, hidden, mlp int64) string {
	o := newONNXGraph("mlp")
	o.g.Input = []*pb.ValueInfoProto{onnxInfo("x", tokens, hidden)}
	o.g.Output = []*pb.ValueInfoProto{onnxInfo("y", tokens, hidden)}
	o.weight("fc1.weight", 1/math.Sqrt(float64(hidden)), hidden, mlp)
	o.weight("fc1.bias", 0.02, mlp)
	o.weight("fc2.weight", 1/math.Sqrt(float64(mlp)), mlp, hidden)
	o.weight("fc2.bias", 0.02, hidden)
	o.node("MatMul", "h", []string{"x", "fc1.weight"})
	o.node("Add", "hb", []string{"h", "fc1.bias"})
	o.node("Gelu", "a", []string{"hb"})
	o.node("MatMul", "o", []string{"a", "fc2.weight"})
	o.node("Add", "y", []string{"o", "fc2.bias"})
	return o.imported(t)
}

// onnxAttention is the attention block of examples/attention.ipuir (no
// biases) as an f32 export with its four weights as initializers: the
// projections, the heads split by Reshape and Transpose, the scores
// scaled by a Mul, Softmax over the keys, the heads merged back, the
// output projection.
func onnxAttention(t *testing.T, tokens, hidden, heads int64) string {
	d := hidden / heads
	o := newONNXGraph("attention")
	o.g.Input = []*pb.ValueInfoProto{onnxInfo("x", tokens, hidden)}
	o.g.Output = []*pb.ValueInfoProto{onnxInfo("out", tokens, hidden)}
	for _, w := range []string{"q_proj.weight", "k_proj.weight", "v_proj.weight", "out_proj.weight"} {
		o.weight(w, 1/math.Sqrt(float64(hidden)), hidden, hidden)
	}
	o.shape("split_shape", tokens, heads, d)
	o.shape("merged_shape", tokens, hidden)
	o.g.Initializer = append(o.g.Initializer, &pb.TensorProto{Name: proto.String("scale"),
		DataType: proto.Int32(int32(pb.TensorProto_FLOAT)), FloatData: []float32{float32(1 / math.Sqrt(float64(d)))}})
	perm := func(p ...int64) *pb.AttributeProto {
		return &pb.AttributeProto{Name: proto.String("perm"), Type: pb.AttributeProto_INTS.Enum(), Ints: p}
	}
	for _, p := range []struct {
		name string
		perm []int64
	}{{"q", []int64{1, 0, 2}}, {"k", []int64{1, 2, 0}}, {"v", []int64{1, 0, 2}}} {
		o.node("MatMul", p.name, []string{"x", p.name + "_proj.weight"})
		o.node("Reshape", p.name+"_split", []string{p.name, "split_shape"})
		o.node("Transpose", p.name+"_heads", []string{p.name + "_split"}, perm(p.perm...))
	}
	o.node("MatMul", "scores", []string{"q_heads", "k_heads"})
	o.node("Mul", "scaled", []string{"scores", "scale"})
	o.node("Softmax", "probs", []string{"scaled"},
		&pb.AttributeProto{Name: proto.String("axis"), Type: pb.AttributeProto_INT.Enum(), I: proto.Int64(-1)})
	o.node("MatMul", "context", []string{"probs", "v_heads"})
	o.node("Transpose", "context_split", []string{"context"}, perm(1, 0, 2))
	o.node("Reshape", "merged", []string{"context_split", "merged_shape"})
	o.node("MatMul", "out", []string{"merged", "out_proj.weight"})
	return o.imported(t)
}

var (
	estimatedCycles = regexp.MustCompile(`^#tiled\.summary<cycles = ([0-9]+)`)
	computeBound    = regexp.MustCompile(`compute_bound_cycles = ([0-9]+)`)
)

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
