package onnximport_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/execution/reference"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
	"github.com/ipuir/ipuir/registry"
	"github.com/ipuir/ipuir/translate/onnximport"
	pb "github.com/ipuir/ipuir/translate/onnximport/onnxpb"
)

// Models are built here with the generated types, as an exporter writes
// them.

func input(name string, dims ...int64) *pb.ValueInfoProto {
	return pb.TensorValueInfo(name, pb.TensorProto_FLOAT, dims...)
}

func floats(name string, dims []int64, vals []float64) *pb.TensorProto {
	raw := make([]byte, 0, 4*len(vals))
	for _, v := range vals {
		raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(float32(v)))
	}
	return &pb.TensorProto{Name: proto.String(name), Dims: dims, DataType: proto.Int32(int32(pb.TensorProto_FLOAT)), RawData: raw}
}

func int64s(name string, vals ...int64) *pb.TensorProto {
	return &pb.TensorProto{Name: proto.String(name), Dims: []int64{int64(len(vals))}, DataType: proto.Int32(int32(pb.TensorProto_INT64)), Int64Data: vals}
}

func scalarInt(name string, v int64) *pb.TensorProto {
	return &pb.TensorProto{Name: proto.String(name), DataType: proto.Int32(int32(pb.TensorProto_INT64)), Int64Data: []int64{v}}
}

func node(op, name string, ins, outs []string, attrs ...*pb.AttributeProto) *pb.NodeProto {
	return &pb.NodeProto{OpType: proto.String(op), Name: proto.String(name), Input: ins, Output: outs, Attribute: attrs}
}

func intAttr(name string, v int64) *pb.AttributeProto {
	return &pb.AttributeProto{Name: proto.String(name), Type: pb.AttributeProto_INT.Enum(), I: proto.Int64(v)}
}

func intsAttr(name string, v ...int64) *pb.AttributeProto {
	return &pb.AttributeProto{Name: proto.String(name), Type: pb.AttributeProto_INTS.Enum(), Ints: v}
}

func strAttr(name, v string) *pb.AttributeProto {
	return &pb.AttributeProto{Name: proto.String(name), Type: pb.AttributeProto_STRING.Enum(), S: []byte(v)}
}

func model(opset int64, inputs []*pb.ValueInfoProto, inits []*pb.TensorProto, nodes []*pb.NodeProto, outputs ...string) *pb.ModelProto {
	g := &pb.GraphProto{Name: proto.String("g"), Input: inputs, Initializer: inits, Node: nodes}
	for _, o := range outputs {
		g.Output = append(g.Output, &pb.ValueInfoProto{Name: proto.String(o)})
	}
	return &pb.ModelProto{IrVersion: proto.Int64(8), OpsetImport: []*pb.OperatorSetIdProto{{Version: proto.Int64(opset)}}, Graph: g}
}

// run imports m (through its wire form, as a file would hold it), parses
// and verifies the module, and evaluates it with the reference
// interpreter on ins.
func run(t *testing.T, m *pb.ModelProto, opts onnximport.Options, ins ...*eval.Array) []*eval.Array {
	t.Helper()
	wire, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var back pb.ModelProto
	if err := proto.Unmarshal(wire, &back); err != nil {
		t.Fatal(err)
	}
	text, err := onnximport.Import(&back, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := registry.NewContext()
	module, err := parser.ParseSourceString(ctx, text, parser.Config{Filename: "imported.ipuir"})
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	fn, err := reference.LookupFunction(module, "main")
	if err != nil {
		t.Fatal(err)
	}
	outs, err := reference.Run(fn, ins, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	return outs
}

func randoms(rng *rand.Rand, n int, scale float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(float32(rng.NormFloat64() * scale))
	}
	return out
}

func array(t *testing.T, shape []int, vals []float64) *eval.Array {
	t.Helper()
	a, err := eval.FromValues(shape, elem.F32, vals)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// matmul multiplies row-major m×k by k×n in float64.
func matmul(a, b []float64, m, k, n int) []float64 {
	out := make([]float64, m*n)
	for i := range m {
		for j := range n {
			s := 0.0
			for p := range k {
				s += a[i*k+p] * b[p*n+j]
			}
			out[i*n+j] = s
		}
	}
	return out
}

func near(t *testing.T, what string, got *eval.Array, want []float64, tol float64) {
	t.Helper()
	if len(got.Data) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got.Data), len(want))
	}
	for i := range want {
		if d := math.Abs(got.Data[i] - want[i]); !(d <= tol*(1+math.Abs(want[i]))) {
			t.Fatalf("%s[%d] = %v, want %v", what, i, got.Data[i], want[i])
		}
	}
}

// An MLP as exporters write it: MatMul and Add with a broadcast bias,
// Relu, Gemm with a transposed weight and its bias.
func TestMLP(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x, w1, b1, w2t, b2 := randoms(rng, 4*8, 1), randoms(rng, 8*16, 0.3), randoms(rng, 16, 0.1), randoms(rng, 8*16, 0.3), randoms(rng, 8, 0.1)
	m := model(17, []*pb.ValueInfoProto{input("x", 4, 8)},
		[]*pb.TensorProto{floats("w1", []int64{8, 16}, w1), floats("b1", []int64{16}, b1), floats("w2t", []int64{8, 16}, w2t), floats("b2", []int64{8}, b2)},
		[]*pb.NodeProto{
			node("MatMul", "fc1/MatMul", []string{"x", "w1"}, []string{"h"}),
			node("Add", "fc1/Add", []string{"h", "b1"}, []string{"hb"}),
			node("Relu", "act", []string{"hb"}, []string{"r"}),
			node("Gemm", "fc2", []string{"r", "w2t", "b2"}, []string{"y"}, intAttr("transB", 1)),
		}, "y")
	outs := run(t, m, onnximport.Options{File: "mlp.onnx"}, array(t, []int{4, 8}, x))
	h := matmul(x, w1, 4, 8, 16)
	for i := range h {
		h[i] = math.Max(h[i]+b1[i%16], 0)
	}
	w2 := make([]float64, 16*8)
	for i := range 8 {
		for j := range 16 {
			w2[j*8+i] = w2t[i*16+j]
		}
	}
	y := matmul(h, w2, 4, 16, 8)
	for i := range y {
		y[i] += b2[i%8]
	}
	near(t, "y", outs[0], y, 1e-5)
}

// Attention as PyTorch exports it: the heads' shape computed by a
// Shape → Gather → Unsqueeze → Concat subgraph (folded at import), Reshape,
// Transpose, the scaled scores, Softmax, and the output projection.
func TestAttentionWithShapeSubgraph(t *testing.T) {
	const tokens, hidden, heads, hd = 6, 8, 2, 4
	rng := rand.New(rand.NewPCG(3, 4))
	x := randoms(rng, tokens*hidden, 1)
	w := map[string][]float64{}
	var inits []*pb.TensorProto
	for _, n := range []string{"wq", "wk", "wv", "wo"} {
		w[n] = randoms(rng, hidden*hidden, 0.35)
		inits = append(inits, floats(n, []int64{hidden, hidden}, w[n]))
	}
	inits = append(inits, scalarInt("zero", 0), int64s("heads", heads), int64s("hd", hd), int64s("axes0", 0), int64s("flat", tokens, hidden),
		floats("scale", nil, []float64{2}))
	var nodes []*pb.NodeProto
	nodes = append(nodes,
		node("Shape", "shape", []string{"x"}, []string{"s"}),
		node("Gather", "gather", []string{"s", "zero"}, []string{"t"}, intAttr("axis", 0)),
		node("Unsqueeze", "unsq", []string{"t", "axes0"}, []string{"tu"}),
		node("Concat", "cat", []string{"tu", "heads", "hd"}, []string{"split"}, intAttr("axis", 0)))
	for _, p := range []string{"q", "k", "v"} {
		perm := []int64{1, 0, 2}
		if p == "k" {
			perm = []int64{1, 2, 0}
		}
		nodes = append(nodes,
			node("MatMul", p+"/MatMul", []string{"x", "w" + p}, []string{p}),
			node("Reshape", p+"/Reshape", []string{p, "split"}, []string{p + "3"}),
			node("Transpose", p+"/Transpose", []string{p + "3"}, []string{p + "h"}, intsAttr("perm", perm...)))
	}
	nodes = append(nodes,
		node("MatMul", "scores", []string{"qh", "kh"}, []string{"sc"}),
		node("Div", "scale", []string{"sc", "scale"}, []string{"scd"}),
		node("Softmax", "softmax", []string{"scd"}, []string{"p"}, intAttr("axis", -1)),
		node("MatMul", "context", []string{"p", "vh"}, []string{"c"}),
		node("Transpose", "merge/Transpose", []string{"c"}, []string{"ct"}, intsAttr("perm", 1, 0, 2)),
		node("Reshape", "merge/Reshape", []string{"ct", "flat"}, []string{"cf"}),
		node("MatMul", "out", []string{"cf", "wo"}, []string{"y"}))
	m := model(17, []*pb.ValueInfoProto{input("x", tokens, hidden)}, inits, nodes, "y")
	outs := run(t, m, onnximport.Options{File: "attention.onnx"}, array(t, []int{tokens, hidden}, x))

	proj := map[string][]float64{}
	for _, p := range []string{"q", "k", "v"} {
		proj[p] = matmul(x, w["w"+p], tokens, hidden, hidden)
	}
	ctx := make([]float64, tokens*hidden)
	for h := range heads {
		for i := range tokens {
			sc := make([]float64, tokens)
			mx := math.Inf(-1)
			for j := range tokens {
				s := 0.0
				for d := range hd {
					s += proj["q"][i*hidden+h*hd+d] * proj["k"][j*hidden+h*hd+d]
				}
				sc[j] = s / 2
				mx = math.Max(mx, sc[j])
			}
			sum := 0.0
			for j := range sc {
				sc[j] = math.Exp(sc[j] - mx)
				sum += sc[j]
			}
			for d := range hd {
				c := 0.0
				for j := range tokens {
					c += sc[j] / sum * proj["v"][j*hidden+h*hd+d]
				}
				ctx[i*hidden+h*hd+d] = c
			}
		}
	}
	near(t, "y", outs[0], matmul(ctx, w["wo"], tokens, hidden, hidden), 1e-4)
}

// LayerNormalization, Gelu (opset 20) and the arithmetic exporters write
// around them: ReduceMean with kept axes, Sub, Pow 2, Sqrt, Neg, Sigmoid.
func TestNormAndElementwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x, g, b := randoms(rng, 3*8, 1), randoms(rng, 8, 1), randoms(rng, 8, 0.2)
	m := model(20, []*pb.ValueInfoProto{input("x", 3, 8)},
		[]*pb.TensorProto{floats("g", []int64{8}, g), floats("b", []int64{8}, b), floats("two", nil, []float64{2}), int64s("axes", 1)},
		[]*pb.NodeProto{
			node("LayerNormalization", "ln", []string{"x", "g", "b"}, []string{"n"}, &pb.AttributeProto{Name: proto.String("epsilon"), Type: pb.AttributeProto_FLOAT.Enum(), F: proto.Float32(1e-5)}),
			node("Gelu", "gelu", []string{"n"}, []string{"ge"}, strAttr("approximate", "tanh")),
			node("ReduceMean", "mean", []string{"ge", "axes"}, []string{"mu"}, intAttr("keepdims", 1)),
			node("Sub", "centre", []string{"ge", "mu"}, []string{"d"}),
			node("Pow", "square", []string{"d", "two"}, []string{"d2"}),
			node("Sqrt", "abs", []string{"d2"}, []string{"a"}),
			node("Neg", "neg", []string{"a"}, []string{"na"}),
			node("Sigmoid", "sig", []string{"na"}, []string{"y"}),
		}, "y")
	outs := run(t, m, onnximport.Options{File: "norm.onnx"}, array(t, []int{3, 8}, x))
	want := make([]float64, 3*8)
	for r := range 3 {
		row := x[r*8 : r*8+8]
		mean, vr := 0.0, 0.0
		for _, v := range row {
			mean += v / 8
		}
		for _, v := range row {
			vr += (v - mean) * (v - mean) / 8
		}
		ge := make([]float64, 8)
		mu := 0.0
		for i, v := range row {
			nv := (v-mean)/math.Sqrt(vr+1e-5)*g[i] + b[i]
			ge[i] = 0.5 * nv * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(nv+0.044715*nv*nv*nv)))
			mu += ge[i] / 8
		}
		for i := range ge {
			want[r*8+i] = 1 / (1 + math.Exp(math.Abs(ge[i]-mu)))
		}
	}
	near(t, "y", outs[0], want, 1e-4)
}

// External data is read from beside the model; a location outside its
// folder is refused.
func TestExternalData(t *testing.T) {
	dir := t.TempDir()
	w := []float64{1, 2, 3, 4, 5, 6}
	raw := make([]byte, 16) // an offset of 16
	for _, v := range w {
		raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(float32(v)))
	}
	if err := os.WriteFile(filepath.Join(dir, "weights.bin"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	ext := func(loc string) *pb.TensorProto {
		return &pb.TensorProto{Name: proto.String("w"), Dims: []int64{3, 2}, DataType: proto.Int32(int32(pb.TensorProto_FLOAT)),
			DataLocation: pb.TensorProto_EXTERNAL.Enum(), ExternalData: []*pb.StringStringEntryProto{
				{Key: proto.String("location"), Value: proto.String(loc)}, {Key: proto.String("offset"), Value: proto.String("16")}, {Key: proto.String("length"), Value: proto.String("24")}}}
	}
	m := model(17, []*pb.ValueInfoProto{input("x", 1, 3)}, []*pb.TensorProto{ext("weights.bin")},
		[]*pb.NodeProto{node("MatMul", "mm", []string{"x", "w"}, []string{"y"})}, "y")
	outs := run(t, m, onnximport.Options{File: "ext.onnx", Dir: dir}, array(t, []int{1, 3}, []float64{1, 1, 1}))
	near(t, "y", outs[0], []float64{9, 12}, 0)

	m.Graph.Initializer[0] = ext("../weights.bin")
	if _, err := onnximport.Import(m, onnximport.Options{File: "ext.onnx", Dir: dir}); err == nil || !strings.Contains(err.Error(), "is not a path inside the model's folder") {
		t.Errorf("an escaping location: %v", err)
	}

	// Links do not lead out: a link to a file outside the folder, and a
	// link to the folder above, are both refused, and the secret's values
	// never reach the module; a FIFO (which would never end) is refused.
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.bin")
	if err := os.WriteFile(secret, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(outside, "model")
	if err := os.Mkdir(model, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Symlink(secret, filepath.Join(model, "link.bin"))
	os.Symlink("..", filepath.Join(model, "dirlink"))
	if err := syscall.Mkfifo(filepath.Join(model, "fifo.bin"), 0o644); err != nil {
		t.Fatal(err)
	}
	for loc, want := range map[string]string{
		"link.bin":           "lies outside the model's folder",
		"dirlink/secret.bin": "lies outside the model's folder",
		"fifo.bin":           "is not a regular file",
		"missing.bin":        "no such file or directory",
	} {
		m.Graph.Initializer[0] = ext(loc)
		_, err := onnximport.Import(m, onnximport.Options{File: "ext.onnx", Dir: model})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("external data at %s: %v, want %q", loc, err, want)
		}
	}
	// A link that stays inside the folder is followed.
	os.WriteFile(filepath.Join(model, "real.bin"), raw, 0o644)
	os.Symlink("real.bin", filepath.Join(model, "inside.bin"))
	m.Graph.Initializer[0] = ext("inside.bin")
	outs = run(t, m, onnximport.Options{File: "ext.onnx", Dir: model}, array(t, []int{1, 3}, []float64{1, 1, 1}))
	near(t, "y through a link inside the folder", outs[0], []float64{9, 12}, 0)
}

// Folding at import is bounded: a 150-byte model asking for a 32768 ×
// 32768 constant is refused with the node, the shape and the bytes, before
// anything is allocated; a small one folds.
func TestFoldingIsBounded(t *testing.T) {
	bomb := func(dims ...int64) *pb.ModelProto {
		return model(17, []*pb.ValueInfoProto{input("x", 1)}, []*pb.TensorProto{int64s("shape", dims...)},
			[]*pb.NodeProto{node("ConstantOfShape", "bomb", []string{"shape"}, []string{"c"}), node("Add", "add", []string{"c", "c"}, []string{"y"})}, "y")
	}
	_, err := onnximport.Import(bomb(32768, 32768), onnximport.Options{File: "bomb.onnx"})
	if err == nil || !strings.Contains(err.Error(), "node 'bomb' (ConstantOfShape, opset 17): folding a value of shape [32768 32768] at import needs 8.0 GiB (8 bytes an element) beside the 0 B folded already; the limit is 4.0 GiB (--memory-limit)") {
		t.Errorf("a folding bomb: %v", err)
	}
	if _, err := onnximport.Import(bomb(64, 64), onnximport.Options{File: "small.onnx", MemoryLimit: 1 << 20}); err != nil {
		t.Errorf("a small constant: %v", err)
	}
	// The limit counts what is folded already: two of 64 KiB fit 1 MiB,
	// the broadcast sum of them (three copies at once) does not fit 128 KiB.
	if _, err := onnximport.Import(bomb(64, 128), onnximport.Options{File: "small.onnx", MemoryLimit: 128 << 10}); err == nil || !strings.Contains(err.Error(), "node 'add' (Add") {
		t.Errorf("a sum past the limit: %v", err)
	}
}

// Errors name the node, its operator and the opset.
func TestErrorsNameTheNode(t *testing.T) {
	mm := []*pb.NodeProto{node("MatMul", "attn/MatMul_3", []string{"x", "x"}, []string{"y"})}
	for _, tc := range []struct {
		name string
		m    *pb.ModelProto
		want string
	}{
		{"unsupported", model(17, []*pb.ValueInfoProto{input("x", 2, 2)}, nil, []*pb.NodeProto{node("Unique", "unique1", []string{"x"}, []string{"y"})}, "y"),
			"m.onnx: node 'unique1' (Unique, opset 17): operator 'Unique' is not supported"},
		{"before its opset", model(17, []*pb.ValueInfoProto{input("x", 2, 2)}, nil, []*pb.NodeProto{node("Gelu", "g", []string{"x"}, []string{"y"})}, "y"),
			"m.onnx: node 'g' (Gelu, opset 17): operator 'Gelu' appears in opset 20; this model's opset 17 does not have it"},
		{"shapes", model(17, []*pb.ValueInfoProto{input("x", 2, 3)}, nil, mm, "y"),
			"m.onnx: node 'attn/MatMul_3' (MatMul, opset 17): matmul of [2 3] by [2 3]: inner sizes 3 and 2"},
		{"opset", model(22, []*pb.ValueInfoProto{input("x", 2, 2)}, nil, mm, "y"), "m.onnx: opset 22 of the default domain; the importer takes opsets 1 to 21"},
		{"undefined", model(17, []*pb.ValueInfoProto{input("x", 2, 2)}, nil, []*pb.NodeProto{node("Relu", "r", []string{"nothing"}, []string{"y"})}, "y"),
			"m.onnx: node 'r' (Relu, opset 17): input 0 'nothing' is defined by no earlier node, input or initializer"},
	} {
		_, err := onnximport.Import(tc.m, onnximport.Options{File: "m.onnx"})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v\nwant %s", tc.name, err, tc.want)
		}
	}
}

// Free and symbolic dimensions are pinned by --input-shape; without a pin
// the model is refused, naming every free dimension at once.
func TestInputShapesPinFreeDimensions(t *testing.T) {
	free := func(p string) *pb.TensorShapeProto_Dimension {
		if p == "" {
			return &pb.TensorShapeProto_Dimension{}
		}
		return &pb.TensorShapeProto_Dimension{Value: &pb.TensorShapeProto_Dimension_DimParam{DimParam: p}}
	}
	// y = x + m: x is [batch, 4], m is [batch, ?].
	dyn := func() *pb.ModelProto {
		m := model(17, []*pb.ValueInfoProto{input("x", 2, 4), input("m", 2, 4)}, nil,
			[]*pb.NodeProto{node("Add", "add", []string{"x", "m"}, []string{"y"})}, "y")
		m.Graph.Input[0].Type.GetTensorType().Shape.Dim[0] = free("batch")
		m.Graph.Input[1].Type.GetTensorType().Shape.Dim[0] = free("batch")
		m.Graph.Input[1].Type.GetTensorType().Shape.Dim[1] = free("")
		return m
	}
	for _, c := range []struct {
		name string
		pins map[string][]int64
		want string
	}{
		{"no pins", nil, "m.onnx: free dimensions, which a package cannot have: input 'x' dimension 0 ('batch'), input 'm' dimension 0 ('batch'), input 'm' dimension 1 (unnamed); pin each input's shape with --input-shape NAME=D0,D1,... (e.g. --input-shape x=1,4)"},
		{"one pinned", map[string][]int64{"x": {3, 4}}, "free dimensions, which a package cannot have: input 'm' dimension 0 ('batch'), input 'm' dimension 1 (unnamed); pin each input's shape with --input-shape NAME=D0,D1,... (e.g. --input-shape m=1,1)"},
		{"unknown input", map[string][]int64{"z": {1}}, "--input-shape z: the graph has no input 'z' (its inputs: x, m)"},
		{"rank", map[string][]int64{"x": {3, 4, 1}, "m": {3, 4}}, "--input-shape x=3,4,1 gives 3 dimensions; the input has 2 ([batch, 4])"},
		{"numeric dimension", map[string][]int64{"x": {3, 5}, "m": {3, 4}}, "--input-shape x=3,5: dimension 1 is 4 in the model"},
		{"one symbol, two extents", map[string][]int64{"x": {3, 4}, "m": {2, 4}}, "dimension 'batch' is 3 in --input-shape x and 2 in --input-shape m"},
	} {
		if _, err := onnximport.Import(dyn(), onnximport.Options{File: "m.onnx", InputShapes: c.pins}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v\nwant %s", c.name, err, c.want)
		}
	}
	x, _ := eval.FromValues([]int{3, 4}, elem.F32, randoms(rand.New(rand.NewPCG(1, 1)), 12, 1))
	m, _ := eval.FromValues([]int{3, 4}, elem.F32, randoms(rand.New(rand.NewPCG(2, 2)), 12, 1))
	outs := run(t, dyn(), onnximport.Options{File: "m.onnx", InputShapes: map[string][]int64{"x": {3, 4}, "m": {3, 4}}}, x, m)
	if len(outs) != 1 || !slices.Equal(outs[0].Shape, []int{3, 4}) {
		t.Fatalf("pinned: outputs %v", outs)
	}
	for i := range outs[0].Data {
		if want := float64(float32(x.Data[i] + m.Data[i])); outs[0].Data[i] != want {
			t.Fatalf("element %d: %g, want %g", i, outs[0].Data[i], want)
		}
	}
	// An input with no shape at all takes its pin whole.
	shapeless := dyn()
	shapeless.Graph.Input[1].Type.GetTensorType().Shape = nil
	if _, err := onnximport.Import(shapeless, onnximport.Options{File: "m.onnx", InputShapes: map[string][]int64{"x": {3, 4}}}); err == nil ||
		!strings.Contains(err.Error(), "input 'm' has no shape (not even a rank); give it one with --input-shape m=D0,D1,...") {
		t.Errorf("shapeless: %v", err)
	}
	if _, err := onnximport.Import(shapeless, onnximport.Options{File: "m.onnx", InputShapes: map[string][]int64{"x": {3, 4}, "m": {3, 4}}}); err != nil {
		t.Errorf("shapeless, pinned: %v", err)
	}
}

// BenchmarkImport100MB decodes and imports a model with 100 MB of f32
// initializers (four 2560×2560 weights chained by MatMul), as
// ipu-translate --import-onnx does: the aliasing Unmarshal, ImportText and
// the text written out (to io.Discard); and, for comparison, as
// proto.Unmarshal and Import's one buffer of text.
func BenchmarkImport100MB(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	const d = 2560
	var inits []*pb.TensorProto
	var nodes []*pb.NodeProto
	prev := "x"
	for i := range 4 {
		name := "w" + string(rune('0'+i))
		inits = append(inits, floats(name, []int64{d, d}, randoms(rng, d*d, 0.02)))
		out := "h" + string(rune('0'+i))
		nodes = append(nodes, node("MatMul", "mm"+name, []string{prev, name}, []string{out}))
		prev = out
	}
	wire, err := proto.Marshal(model(17, []*pb.ValueInfoProto{input("x", 1, d)}, inits, nodes, prev))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("streamed", func(b *testing.B) {
		b.SetBytes(int64(len(wire)))
		for b.Loop() {
			var m pb.ModelProto
			if err := onnximport.Unmarshal(wire, &m); err != nil {
				b.Fatal(err)
			}
			text, err := onnximport.ImportText(&m, onnximport.Options{File: "big.onnx"})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := text.WriteTo(io.Discard); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("bytes", func(b *testing.B) {
		b.SetBytes(int64(len(wire)))
		for b.Loop() {
			var m pb.ModelProto
			if err := proto.Unmarshal(wire, &m); err != nil {
				b.Fatal(err)
			}
			if _, err := onnximport.Import(&m, onnximport.Options{File: "big.onnx"}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// A Text written out is its Bytes; its Skeleton is the same module with
// each weight a splat of its type, and both parse and verify.
func TestTextPieces(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	m := model(17, []*pb.ValueInfoProto{input("x", 1, 8)}, []*pb.TensorProto{floats("w", []int64{8, 8}, randoms(rng, 64, 1))},
		[]*pb.NodeProto{node("MatMul", "mm", []string{"x", "w"}, []string{"y"})}, "y")
	wire, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var back pb.ModelProto
	if err := onnximport.Unmarshal(wire, &back); err != nil {
		t.Fatal(err)
	}
	text, err := onnximport.ImportText(&back, onnximport.Options{File: "m.onnx"})
	if err != nil {
		t.Fatal(err)
	}
	var written bytes.Buffer
	if n, err := text.WriteTo(&written); err != nil || n != text.Len() {
		t.Fatalf("WriteTo wrote %d bytes (%v); Len is %d", n, err, text.Len())
	}
	whole := text.Bytes()
	if !bytes.Equal(written.Bytes(), whole) {
		t.Fatalf("WriteTo and Bytes differ:\n%s\n%s", written.Bytes(), whole)
	}
	if !bytes.Contains(whole, []byte(`dense<"0x`)) || int64(len(whole)) != text.Len() {
		t.Fatalf("the weight is not in hex, or Len is wrong:\n%s", whole)
	}
	skeleton := text.Skeleton()
	if len(skeleton) != len(whole)-2*4*63 {
		t.Fatalf("the skeleton keeps the weight (%d bytes of %d)", len(skeleton), len(whole))
	}
	for name, src := range map[string][]byte{"whole": whole, "skeleton": skeleton} {
		mod, err := parser.ParseSourceString(registry.NewContext(), src, parser.Config{Filename: name + ".ipuir"})
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, src)
		}
		if d := ir.Verify(mod); d != nil {
			t.Fatalf("%s: %v\n%s", name, d, src)
		}
		if !bytes.Contains(src, []byte("> : tensor<8x8xf32>")) {
			t.Fatalf("%s: no 8x8 weight in\n%s", name, src)
		}
	}
}

// Models that were once imported wrongly, or reached the verifier as an
// importer bug: each imports right now, or is refused with the reason.
func TestGraphsOnceImportedWrongly(t *testing.T) {
	// Max of three inputs takes all three (it dropped the third), and of
	// one input is that input.
	rng := rand.New(rand.NewPCG(3, 4))
	a, b, c := randoms(rng, 6, 1), randoms(rng, 6, 1), randoms(rng, 6, 1)
	three := model(17, []*pb.ValueInfoProto{input("a", 2, 3), input("b", 2, 3), input("c", 2, 3)}, nil,
		[]*pb.NodeProto{node("Max", "max3", []string{"a", "b", "c"}, []string{"m"})}, "m")
	got := run(t, three, onnximport.Options{}, array(t, []int{2, 3}, a), array(t, []int{2, 3}, b), array(t, []int{2, 3}, c))
	want := make([]float64, 6)
	for i := range want {
		want[i] = math.Max(a[i], math.Max(b[i], c[i]))
	}
	near(t, "Max of three", got[0], want, 0)
	one := model(17, []*pb.ValueInfoProto{input("a", 2, 3)}, nil, []*pb.NodeProto{node("Max", "max1", []string{"a"}, []string{"m"})}, "m")
	near(t, "Max of one", run(t, one, onnximport.Options{}, array(t, []int{2, 3}, a))[0], a, 0)

	// --weights-as-args keeps the integer shape initializers constants,
	// so a model with a Reshape still imports (it was refused).
	w := floats("w", []int64{3, 2}, randoms(rng, 6, 1))
	reshape := model(17, []*pb.ValueInfoProto{input("x", 2, 3)}, []*pb.TensorProto{w, int64s("shape", 4)},
		[]*pb.NodeProto{node("MatMul", "mm", []string{"x", "w"}, []string{"y"}), node("Reshape", "flat", []string{"y", "shape"}, []string{"z"})}, "z")
	text, err := onnximport.Import(reshape, onnximport.Options{WeightsAsArgs: true})
	if err != nil {
		t.Fatalf("--weights-as-args with a Reshape: %v", err)
	}
	if !strings.Contains(string(text), `{ipu.name = "w"}`) || strings.Contains(string(text), `{ipu.name = "shape"}`) {
		t.Errorf("the float weight should be an argument and the shape a constant:\n%s", text)
	}

	// An initializer listed as an input is the initializer, when the input
	// declares its type.
	listed := model(17, []*pb.ValueInfoProto{input("x", 2, 3), input("w", 3, 2)}, []*pb.TensorProto{w},
		[]*pb.NodeProto{node("MatMul", "mm", []string{"x", "w"}, []string{"y"})}, "y")
	if _, err := onnximport.Import(listed, onnximport.Options{}); err != nil {
		t.Errorf("an initializer listed as an input: %v", err)
	}

	for _, tc := range []struct {
		name string
		m    *pb.ModelProto
		want string
	}{
		{"integer Exp at run time", model(17, []*pb.ValueInfoProto{intInput("i", 4)}, nil,
			[]*pb.NodeProto{node("Exp", "iexp", []string{"i"}, []string{"m"})}, "m"),
			"node 'iexp' (Exp, opset 17): exp of an i64 tensor"},
		{"Softmax axis as a string", model(17, []*pb.ValueInfoProto{input("x", 2, 3)}, nil,
			[]*pb.NodeProto{node("Softmax", "sm", []string{"x"}, []string{"y"}, strAttr("axis", "1"))}, "y"),
			"node 'sm' (Softmax, opset 17): attribute 'axis' is STRING, but Softmax takes INT"},
		{"two initializers of one name", model(17, []*pb.ValueInfoProto{input("x", 2, 3)}, []*pb.TensorProto{w, w},
			[]*pb.NodeProto{node("MatMul", "mm", []string{"x", "w"}, []string{"y"})}, "y"),
			"two initializers are named 'w'"},
		{"two inputs of one name", model(17, []*pb.ValueInfoProto{input("x", 2, 3), input("x", 2, 3)}, nil,
			[]*pb.NodeProto{node("Relu", "r", []string{"x"}, []string{"y"})}, "y"),
			"two graph inputs are named 'x'"},
		{"an initializer shadowing an input of another shape", model(17, []*pb.ValueInfoProto{input("x", 2, 3), input("w", 2, 2)}, []*pb.TensorProto{w},
			[]*pb.NodeProto{node("MatMul", "mm", []string{"x", "w"}, []string{"y"})}, "y"),
			"input 'w' is declared with 2 in dimension 0, but its initializer has shape [3 2]"},
		{"a declared output shape that differs", declaredOutput(model(17, []*pb.ValueInfoProto{input("x", 2, 3)}, nil,
			[]*pb.NodeProto{node("Relu", "r", []string{"x"}, []string{"y"})}, "y"), pb.TensorProto_FLOAT, 3, 2),
			"graph output 'y' is declared [3, 2], but the graph computes [2 3]"},
		{"a declared output type that differs", declaredOutput(model(17, []*pb.ValueInfoProto{input("x", 2, 3)}, nil,
			[]*pb.NodeProto{node("Relu", "r", []string{"x"}, []string{"y"})}, "y"), pb.TensorProto_FLOAT16, 2, 3),
			"graph output 'y' is declared FLOAT16, but the graph computes f32"},
	} {
		_, err := onnximport.Import(tc.m, onnximport.Options{File: "m.onnx"})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v\nwant %s", tc.name, err, tc.want)
		}
	}
}

func intInput(name string, dims ...int64) *pb.ValueInfoProto {
	v := input(name, dims...)
	v.Type.GetTensorType().ElemType = proto.Int32(int32(pb.TensorProto_INT64))
	return v
}

// declaredOutput gives m's first output a declared type and shape.
func declaredOutput(m *pb.ModelProto, dt pb.TensorProto_DataType, dims ...int64) *pb.ModelProto {
	declared := input(m.Graph.Output[0].GetName(), dims...)
	declared.Type.GetTensorType().ElemType = proto.Int32(int32(dt))
	m.Graph.Output[0] = declared
	return m
}

// A shape fed as a graph input is known only when its value is given at
// import (--input-value): without it the error names the input and the
// flag, and says so in Error.NeedsValue; with it the input is a constant.
func TestInputValuesGivenAtImport(t *testing.T) {
	reshape := func() *pb.ModelProto {
		return model(17, []*pb.ValueInfoProto{input("x", 2, 6), pb.TensorValueInfo("shape", pb.TensorProto_INT64, 2)}, nil,
			[]*pb.NodeProto{node("Reshape", "r", []string{"x", "shape"}, []string{"y"})}, "y")
	}
	_, err := onnximport.Import(reshape(), onnximport.Options{File: "m.onnx"})
	var ie *onnximport.Error
	if !errors.As(err, &ie) || ie.NeedsValue != "shape" ||
		!strings.Contains(err.Error(), "input 1 must be known at import time; it is graph input 'shape': give its value with --input-value shape=FILE") {
		t.Fatalf("no value: %v", err)
	}
	given := map[string]*onnximport.Tensor{"shape": {Elem: elem.I64, Shape: []int64{2}, Values: []float64{3, 4}}}
	x, _ := eval.FromValues([]int{2, 6}, elem.F32, randoms(rand.New(rand.NewPCG(1, 1)), 12, 1))
	outs := run(t, reshape(), onnximport.Options{File: "m.onnx", InputValues: given}, x)
	if len(outs) != 1 || !slices.Equal(outs[0].Shape, []int{3, 4}) || !slices.Equal(outs[0].Data, x.Data) {
		t.Fatalf("given: outputs %v", outs)
	}
	for _, c := range []struct {
		values map[string]*onnximport.Tensor
		want   string
	}{
		{map[string]*onnximport.Tensor{"s": given["shape"]}, "--input-value s: the graph has no input 's' (its inputs: x, shape)"},
		{map[string]*onnximport.Tensor{"shape": {Elem: elem.I32, Shape: []int64{2}, Values: []float64{3, 4}}}, "--input-value shape: the value is i32; the input is declared i64"},
		{map[string]*onnximport.Tensor{"shape": {Elem: elem.I64, Shape: []int64{3}, Values: []float64{3, 4, 1}}}, "--input-value shape: the value has shape [3]; the input is [2]"},
	} {
		if _, err := onnximport.Import(reshape(), onnximport.Options{File: "m.onnx", InputValues: c.values}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v\nwant %s", err, c.want)
		}
	}
}

func boolScalar(name string, v bool) *pb.TensorProto {
	b := int32(0)
	if v {
		b = 1
	}
	return &pb.TensorProto{Name: proto.String(name), DataType: proto.Int32(int32(pb.TensorProto_BOOL)), Int32Data: []int32{b}}
}

// torch.onnx.export writes some models' Dropout with training_mode = true
// and ratio 0: nothing is dropped and nothing scaled, so it is the
// identity (its mask all true), as ONNX Runtime runs it. Any other ratio
// in training is refused, naming the ratio.
func TestDropoutInTrainingWithRatioZero(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x := randoms(rng, 6, 1)
	dropout := func(ratio float64, withRatio bool) *pb.ModelProto {
		inits := []*pb.TensorProto{boolScalar("training", true), floats("ratio", nil, []float64{ratio})}
		ins := []string{"x", "ratio", "training"}
		if !withRatio {
			ins[1] = ""
		}
		return model(13, []*pb.ValueInfoProto{input("x", 2, 3)}, inits,
			[]*pb.NodeProto{node("Dropout", "drop", ins, []string{"y", "mask"}),
				node("Cast", "m", []string{"mask"}, []string{"mf"}, intAttr("to", int64(pb.TensorProto_FLOAT))),
				node("Add", "sum", []string{"y", "mf"}, []string{"z"})}, "z")
	}
	got := run(t, dropout(0, true), onnximport.Options{}, array(t, []int{2, 3}, x))
	want := make([]float64, len(x))
	for i := range want {
		want[i] = float64(float32(x[i] + 1))
	}
	near(t, "Dropout(training, ratio 0) + mask", got[0], want, 1e-7)
	for _, tc := range []struct {
		m    *pb.ModelProto
		want string
	}{
		{dropout(0.1, true), "training_mode is true with ratio [0.10000000149011612]"},
		{dropout(0, false), "training_mode is true with the default ratio 0.5"},
	} {
		if _, err := onnximport.Import(tc.m, onnximport.Options{File: "m.onnx"}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v\nwant %s", err, tc.want)
		}
	}
}
