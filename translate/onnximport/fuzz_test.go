package onnximport_test

import (
	"os"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/ipuir/ipuir/parser"
	"github.com/ipuir/ipuir/registry"
	"github.com/ipuir/ipuir/translate/onnximport"
	pb "github.com/ipuir/ipuir/translate/onnximport/onnxpb"
)

// FuzzImport decodes arbitrary bytes as an ONNX model and imports it: an
// error naming what is wrong, or a module that parses and verifies; never
// a panic. Seeded with the examples' models and small graphs of each kind
// of node.
func FuzzImport(f *testing.F) {
	for _, path := range []string{"../../examples/attention-tiny.onnx", "../../examples/attention-small.onnx"} {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, n := range []*pb.NodeProto{
		node("Relu", "r", []string{"x"}, []string{"y"}),
		node("Softmax", "s", []string{"x"}, []string{"y"}, intAttr("axis", 1)),
		node("Transpose", "t", []string{"x"}, []string{"y"}, intsAttr("perm", 1, 0)),
		node("ReduceSum", "rs", []string{"x"}, []string{"y"}, intAttr("keepdims", 0)),
		node("Flatten", "f", []string{"x"}, []string{"y"}),
		node("Split", "sp", []string{"x"}, []string{"y", "z"}, intAttr("axis", 1), intAttr("num_outputs", 2)),
	} {
		data, err := proto.Marshal(model(18, []*pb.ValueInfoProto{input("x", 2, 4)}, nil, []*pb.NodeProto{n}, "y"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	// Control flow: an If on a runtime condition, and a Scan.
	branch := func(name, from string) *pb.GraphProto {
		return subgraph(name, nil, []*pb.NodeProto{node("Identity", name, []string{from}, []string{name + "_out"})}, name+"_out")
	}
	scanBody := subgraph("scan_body", []*pb.ValueInfoProto{input("s_in", 2), input("x_t", 2)},
		[]*pb.NodeProto{node("Add", "sum", []string{"s_in", "x_t"}, []string{"s_out"}), node("Identity", "copy", []string{"s_out"}, []string{"scan_out"})}, "s_out", "scan_out")
	for _, m := range []*pb.ModelProto{
		model(13, []*pb.ValueInfoProto{pb.TensorValueInfo("c", pb.TensorProto_BOOL), input("a", 2), input("b", 2)}, nil,
			[]*pb.NodeProto{node("If", "if", []string{"c"}, []string{"r"}, graphAttr("then_branch", branch("then", "a")), graphAttr("else_branch", branch("else", "b")))}, "r"),
		model(11, []*pb.ValueInfoProto{input("s0", 2), input("x", 3, 2)}, nil, []*pb.NodeProto{node("Scan", "scan", []string{"s0", "x"}, []string{"s", "z"},
			graphAttr("body", scanBody), intAttr("num_scan_inputs", 1))}, "s", "z"),
		// Strings, and an embedding lookup (a one-hot matmul).
		model(13, []*pb.ValueInfoProto{stringInput("x", 3)}, nil, []*pb.NodeProto{node("StringNormalizer", "n", []string{"x"}, []string{"y"},
			strAttr("case_change_action", "LOWER"))}, "y"),
		model(13, []*pb.ValueInfoProto{input("x", 2, 4)}, nil, []*pb.NodeProto{node("Cast", "c", []string{"x"}, []string{"y"}, intAttr("to", int64(pb.TensorProto_STRING)))}, "y"),
		model(13, []*pb.ValueInfoProto{intInput("i", 3)}, []*pb.TensorProto{floats("t", []int64{5, 2}, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10})},
			[]*pb.NodeProto{node("Gather", "g", []string{"t", "i"}, []string{"y"})}, "y"),
	} {
		data, err := proto.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		var m pb.ModelProto
		if proto.Unmarshal(data, &m) != nil {
			return
		}
		text, err := onnximport.Import(&m, onnximport.Options{File: "fuzz.onnx", Dir: t.TempDir()})
		if err != nil {
			return
		}
		if _, err := parser.ParseSourceString(registry.NewContext(), text, parser.Config{Filename: "fuzz.ipuir"}); err != nil {
			t.Fatalf("an imported module does not verify: %v\n%s", err, text)
		}
	})
}

// FuzzUnmarshal decodes arbitrary bytes with the aliasing Unmarshal and
// with proto.Unmarshal: both fail, or both give the same model.
func FuzzUnmarshal(f *testing.F) {
	for _, path := range []string{"../../examples/attention-tiny.onnx"} {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	two := model(18, []*pb.ValueInfoProto{input("x", 2, 2)}, []*pb.TensorProto{floats("w", []int64{2, 2}, []float64{1, 2, 3, 4}), floats("b", []int64{2}, []float64{5, 6})},
		[]*pb.NodeProto{node("MatMul", "mm", []string{"x", "w"}, []string{"h"}), node("Add", "add", []string{"h", "b"}, []string{"y"})}, "y")
	data, err := proto.Marshal(two)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	// The graph twice (merged: initializers concatenated), and raw data
	// twice in one tensor (the last wins).
	f.Add(append(append([]byte(nil), data...), data...))
	tensor := protowire.AppendBytes(protowire.AppendTag(nil, 9, protowire.BytesType), []byte{1, 2, 3, 4})
	tensor = protowire.AppendBytes(protowire.AppendTag(tensor, 9, protowire.BytesType), []byte{5, 6, 7, 8})
	tensor = protowire.AppendVarint(protowire.AppendTag(tensor, 1, protowire.VarintType), 1)
	graph := protowire.AppendBytes(protowire.AppendTag(nil, 5, protowire.BytesType), tensor)
	f.Add(protowire.AppendBytes(protowire.AppendTag(data, 7, protowire.BytesType), graph))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		var want, got pb.ModelProto
		wantErr, gotErr := proto.Unmarshal(data, &want), onnximport.Unmarshal(data, &got)
		if (wantErr != nil) != (gotErr != nil) {
			t.Fatalf("proto.Unmarshal: %v; Unmarshal: %v", wantErr, gotErr)
		}
		if wantErr == nil && !proto.Equal(&want, &got) {
			t.Fatalf("the models differ:\nproto.Unmarshal: %v\nUnmarshal:       %v", &want, &got)
		}
	})
}
