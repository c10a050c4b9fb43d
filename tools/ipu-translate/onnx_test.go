package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	pb "github.com/ipuir/ipuir/translate/onnximport/onnxpb"
)

// --input-shape pins a model's free dimensions at import, one flag an
// input; a malformed flag is a usage error (exit 2), a model with a free
// dimension left unpinned an error that names it (exit 1).
func TestImportONNXPinsInputShapes(t *testing.T) {
	x := pb.TensorValueInfo("x", pb.TensorProto_FLOAT, 1, 8)
	x.Type.GetTensorType().Shape.Dim[0] = &pb.TensorShapeProto_Dimension{Value: &pb.TensorShapeProto_Dimension_DimParam{DimParam: "batch"}}
	m := &pb.ModelProto{IrVersion: proto.Int64(8), OpsetImport: []*pb.OperatorSetIdProto{{Version: proto.Int64(17)}},
		Graph: &pb.GraphProto{Name: proto.String("g"), Input: []*pb.ValueInfoProto{x},
			Output: []*pb.ValueInfoProto{{Name: proto.String("y")}},
			Node:   []*pb.NodeProto{{OpType: proto.String("Relu"), Name: proto.String("relu"), Input: []string{"x"}, Output: []string{"y"}}}}}
	wire, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "dyn.onnx")
	if err := os.WriteFile(path, wire, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runTool(t, "", "--import-onnx", path, "--input-shape", "x=4,8")
	if code != 0 || !strings.Contains(out, `%arg0: tensor<4x8xf32> {ipu.name = "x"}`) {
		t.Errorf("pinned: exit %d\n%s%s", code, out, errOut)
	}
	code, _, errOut = runTool(t, "", "--import-onnx", path)
	if code != 1 || !strings.Contains(errOut, "input 'x' dimension 0 ('batch')") || !strings.Contains(errOut, "--input-shape x=1,8") {
		t.Errorf("unpinned: exit %d, %s", code, errOut)
	}
	for _, bad := range []struct{ flag, want string }{
		{"x", "expected NAME=D0,D1,..."},
		{"x=4,b", "dimension 'b' is not a whole number"},
		{"x=-1,8", "dimension '-1' is not a whole number of at least 0"},
	} {
		code, _, errOut = runTool(t, "", "--import-onnx", path, "--input-shape", bad.flag)
		if code != 2 || !strings.Contains(errOut, bad.want) {
			t.Errorf("--input-shape %s: exit %d, %s", bad.flag, code, errOut)
		}
	}
	code, _, errOut = runTool(t, "", "--import-onnx", path, "--input-shape", "x=4,8", "--input-shape", "x=2,8")
	if code != 2 || !strings.Contains(errOut, "input 'x' is given twice") {
		t.Errorf("twice: exit %d, %s", code, errOut)
	}
}
