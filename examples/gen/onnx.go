package main

import (
	"fmt"
	"math"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/ipuir/ipuir/numeric"
	pb "github.com/ipuir/ipuir/translate/onnximport/onnxpb"
)

// ONNX returns the variant as an ONNX model, written as PyTorch exports
// the block: the same inputs (f16, weights as graph inputs), the heads'
// shape computed from x by a Shape → Gather → Unsqueeze → Concat subgraph,
// Reshape and Transpose, MatMul, a Mul by the scalar scale, Softmax over
// the keys, and the heads merged back by a second shape subgraph. Imported
// with ipu-translate --import-onnx it is the same function as Text's.
func (a Attention) ONNX() ([]byte, error) {
	dt := map[string]pb.TensorProto_DataType{"f16": pb.TensorProto_FLOAT16, "bf16": pb.TensorProto_BFLOAT16, "f32": pb.TensorProto_FLOAT, "f64": pb.TensorProto_DOUBLE}[a.Elem]
	if dt == pb.TensorProto_UNDEFINED || a.Heads <= 0 || a.Hidden%a.Heads != 0 {
		return nil, fmt.Errorf("%s: no ONNX form for %s with hidden %d and %d heads", a.File, a.Elem, a.Hidden, a.Heads)
	}
	n, h, heads, d := int64(a.Tokens), int64(a.Hidden), int64(a.Heads), int64(a.Hidden/a.Heads)
	input := func(name string, dims ...int64) *pb.ValueInfoProto { return pb.TensorValueInfo(name, dt, dims...) }
	ints := func(name string, vals ...int64) *pb.TensorProto {
		return &pb.TensorProto{Name: proto.String(name), Dims: []int64{int64(len(vals))}, DataType: proto.Int32(int32(pb.TensorProto_INT64)), Int64Data: vals}
	}
	node := func(op, name string, ins []string, out string, attrs ...*pb.AttributeProto) *pb.NodeProto {
		return &pb.NodeProto{OpType: proto.String(op), Name: proto.String(name), Input: ins, Output: []string{out}, Attribute: attrs}
	}
	intAttr := func(name string, v int64) *pb.AttributeProto {
		return &pb.AttributeProto{Name: proto.String(name), Type: pb.AttributeProto_INT.Enum(), I: proto.Int64(v)}
	}
	perm := func(p ...int64) *pb.AttributeProto {
		return &pb.AttributeProto{Name: proto.String("perm"), Type: pb.AttributeProto_INTS.Enum(), Ints: p}
	}
	// The scale, 1/√d, as a scalar constant of the element type (ONNX keeps
	// f16 values as their bits in int32_data).
	scale, err := scalarTensor(dt, 1/sqrt(float64(d)))
	if err != nil {
		return nil, err
	}
	g := &pb.GraphProto{Name: proto.String("attention"),
		Input:       []*pb.ValueInfoProto{input("x", n, h), input("wq", h, h), input("wk", h, h), input("wv", h, h), input("wo", h, h)},
		Output:      []*pb.ValueInfoProto{input("out", n, h)},
		Initializer: []*pb.TensorProto{ints("zero", 0), ints("axes", 0), ints("heads", heads), ints("head_dim", d), ints("hidden", h)},
	}
	g.Initializer[0].Dims = nil // a scalar index
	g.Node = append(g.Node,
		node("Shape", "/Shape", []string{"x"}, "x_shape"),
		node("Gather", "/Gather", []string{"x_shape", "zero"}, "tokens", intAttr("axis", 0)),
		node("Unsqueeze", "/Unsqueeze", []string{"tokens", "axes"}, "tokens_1"),
		node("Concat", "/Concat", []string{"tokens_1", "heads", "head_dim"}, "split_shape", intAttr("axis", 0)),
		node("Concat", "/Concat_1", []string{"tokens_1", "hidden"}, "merged_shape", intAttr("axis", 0)),
		node("Constant", "/Constant", nil, "scale", &pb.AttributeProto{Name: proto.String("value"), Type: pb.AttributeProto_TENSOR.Enum(), T: scale}))
	for _, p := range []struct {
		name string
		perm []int64
	}{{"q", []int64{1, 0, 2}}, {"k", []int64{1, 2, 0}}, {"v", []int64{1, 0, 2}}} {
		g.Node = append(g.Node,
			node("MatMul", "/"+p.name+"_proj/MatMul", []string{"x", "w" + p.name}, p.name),
			node("Reshape", "/"+p.name+"_proj/Reshape", []string{p.name, "split_shape"}, p.name+"_split"),
			node("Transpose", "/"+p.name+"_proj/Transpose", []string{p.name + "_split"}, p.name+"_heads", perm(p.perm...)))
	}
	g.Node = append(g.Node,
		node("MatMul", "/attn/MatMul", []string{"q_heads", "k_heads"}, "scores"),
		node("Mul", "/attn/Mul", []string{"scores", "scale"}, "scaled"),
		node("Softmax", "/attn/Softmax", []string{"scaled"}, "probs", intAttr("axis", -1)),
		node("MatMul", "/attn/MatMul_1", []string{"probs", "v_heads"}, "context"),
		node("Transpose", "/attn/Transpose", []string{"context"}, "context_split", perm(1, 0, 2)),
		node("Reshape", "/attn/Reshape", []string{"context_split", "merged_shape"}, "merged"),
		node("MatMul", "/out_proj/MatMul", []string{"merged", "wo"}, "out"))
	m := &pb.ModelProto{IrVersion: proto.Int64(8), ProducerName: proto.String("ipuir examples/gen"),
		OpsetImport: []*pb.OperatorSetIdProto{{Version: proto.Int64(17)}}, Graph: g}
	return proto.MarshalOptions{Deterministic: true}.Marshal(m)
}

func sqrt(x float64) float64 { return math.Sqrt(x) }

// scalarTensor is a rank-0 tensor of dt holding v (rounded to dt).
func scalarTensor(dt pb.TensorProto_DataType, v float64) (*pb.TensorProto, error) {
	t := &pb.TensorProto{DataType: proto.Int32(int32(dt))}
	switch dt {
	case pb.TensorProto_FLOAT16:
		t.Int32Data = []int32{int32(numeric.F16FromFloat64(v))}
	case pb.TensorProto_BFLOAT16:
		t.Int32Data = []int32{int32(numeric.BF16FromFloat64(v))}
	case pb.TensorProto_FLOAT:
		t.FloatData = []float32{float32(v)}
	case pb.TensorProto_DOUBLE:
		t.DoubleData = []float64{v}
	default:
		return nil, fmt.Errorf("no scalar of %v", dt)
	}
	return t, nil
}

// onnxFile is the ONNX model's file name beside the variant's.
func (a Attention) onnxFile() string { return strings.TrimSuffix(a.File, ".ipuir") + ".onnx" }
