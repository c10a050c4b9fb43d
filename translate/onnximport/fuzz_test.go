package onnximport_test

import (
	"os"
	"testing"

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
