package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/ipuir/ipuir/runtime/npy"
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
	code, out, errOut := runTool(t, "", "--import-onnx", path, "--target=test16", "--input-shape", "x=4,8")
	if code != 0 || !strings.Contains(out, `%arg0: tensor<4x8xf32> {ipu.name = "x"}`) {
		t.Errorf("pinned: exit %d\n%s%s", code, out, errOut)
	}
	code, _, errOut = runTool(t, "", "--import-onnx", path, "--target=test16")
	if code != 1 || !strings.Contains(errOut, "input 'x' dimension 0 ('batch')") || !strings.Contains(errOut, "--input-shape x=1,8") {
		t.Errorf("unpinned: exit %d, %s", code, errOut)
	}
	for _, bad := range []struct{ flag, want string }{
		{"x", "expected NAME=D0,D1,..."},
		{"x=4,b", "dimension 'b' is not a whole number"},
		{"x=-1,8", "dimension '-1' is not a whole number of at least 0"},
	} {
		code, _, errOut = runTool(t, "", "--import-onnx", path, "--target=test16", "--input-shape", bad.flag)
		if code != 2 || !strings.Contains(errOut, bad.want) {
			t.Errorf("--input-shape %s: exit %d, %s", bad.flag, code, errOut)
		}
	}
	code, _, errOut = runTool(t, "", "--import-onnx", path, "--target=test16", "--input-shape", "x=4,8", "--input-shape", "x=2,8")
	if code != 2 || !strings.Contains(errOut, "input 'x' is given twice") {
		t.Errorf("twice: exit %d, %s", code, errOut)
	}
	// Without --target, the error lists the targets.
	code, _, errOut = runTool(t, "", "--import-onnx", path, "--input-shape", "x=4,8")
	if code == 0 || !strings.Contains(errOut, "--import-onnx needs --target") || !strings.Contains(errOut, "test16") {
		t.Errorf("no target: exit %d, %s", code, errOut)
	}
	// One command from model to package; any other translation names the
	// format instead of parsing the model as text.
	pkg := filepath.Join(t.TempDir(), "dyn.ipupkg")
	code, _, errOut = runTool(t, "", "--emit-package", path, "--target=test16", "--input-shape", "x=4,8", "-o", pkg)
	if b, err := os.ReadFile(pkg); code != 0 || err != nil || len(b) == 0 {
		t.Errorf("--emit-package of the model: exit %d, %v, %s", code, err, errOut)
	}
	code, _, errOut = runTool(t, "", "--exchange-to-json", path)
	if code == 0 || !strings.Contains(errOut, "is an ONNX model, not IR text") {
		t.Errorf("--exchange-to-json of the model: exit %d, %s", code, errOut)
	}
	code, _, errOut = runTool(t, "", "--emit-package", path, "--input-shape", "x=4,8", "-o", pkg+".2")
	if code == 0 || !strings.Contains(errOut, "needs --target") {
		t.Errorf("--emit-package without a target: exit %d, %s", code, errOut)
	}
}

// --input-value gives a graph input's value at import, from a .npy file or
// a serialized TensorProto: the shape a Reshape takes as an input.
func TestImportONNXInputValues(t *testing.T) {
	m := &pb.ModelProto{IrVersion: proto.Int64(8), OpsetImport: []*pb.OperatorSetIdProto{{Version: proto.Int64(17)}},
		Graph: &pb.GraphProto{Name: proto.String("g"),
			Input:  []*pb.ValueInfoProto{pb.TensorValueInfo("x", pb.TensorProto_FLOAT, 2, 6), pb.TensorValueInfo("shape", pb.TensorProto_INT64, 2)},
			Output: []*pb.ValueInfoProto{{Name: proto.String("y")}},
			Node:   []*pb.NodeProto{{OpType: proto.String("Reshape"), Name: proto.String("r"), Input: []string{"x", "shape"}, Output: []string{"y"}}}}}
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	wire, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	path := write("r.onnx", wire)
	code, _, errOut := runTool(t, "", "--import-onnx", path, "--target=test16")
	if code != 1 || !strings.Contains(errOut, "give its value with --input-value shape=FILE") {
		t.Errorf("no value: exit %d, %s", code, errOut)
	}
	a, err := npy.FromInt64s(npy.Int64, []int{2}, []int64{3, 4})
	if err != nil {
		t.Fatal(err)
	}
	npyBytes, err := npy.Encode(a)
	if err != nil {
		t.Fatal(err)
	}
	tp, err := proto.Marshal(&pb.TensorProto{Name: proto.String("shape"), DataType: proto.Int32(int32(pb.TensorProto_INT64)), Dims: []int64{2}, Int64Data: []int64{3, 4}})
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{write("shape.npy", npyBytes), write("shape.pb", tp)} {
		code, out, errOut := runTool(t, "", "--import-onnx", path, "--target=test16", "--input-value", "shape="+file)
		if code != 0 || !strings.Contains(out, "-> tensor<3x4xf32>") || strings.Contains(out, "ipu.name = \"shape\"") {
			t.Errorf("%s: exit %d\n%s%s", file, code, out, errOut)
		}
	}
	code, _, errOut = runTool(t, "", "--import-onnx", path, "--target=test16", "--input-value", "shape")
	if code != 2 || !strings.Contains(errOut, "expected NAME=FILE") {
		t.Errorf("malformed: exit %d, %s", code, errOut)
	}
}

// --f64 writes the module's ipu.f64 at import, and a model of doubles
// compiled with --f64=binary64 in one command keeps them on the tiles;
// another value, or --f64 with a translation it does not apply to, is a
// usage error.
func TestF64Flag(t *testing.T) {
	m := &pb.ModelProto{IrVersion: proto.Int64(8), OpsetImport: []*pb.OperatorSetIdProto{{Version: proto.Int64(17)}},
		Graph: &pb.GraphProto{Name: proto.String("g"), Input: []*pb.ValueInfoProto{pb.TensorValueInfo("x", pb.TensorProto_DOUBLE, 4)},
			Output: []*pb.ValueInfoProto{{Name: proto.String("y")}},
			Node:   []*pb.NodeProto{{OpType: proto.String("Add"), Name: proto.String("add"), Input: []string{"x", "x"}, Output: []string{"y"}}}}}
	wire, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "doubles.onnx")
	if err := os.WriteFile(path, wire, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runTool(t, "", "--import-onnx", path, "--target=test16", "--f64=binary64")
	if code != 0 || !strings.Contains(out, `module attributes {ipu.target = "test16", ipu.f64 = "binary64"}`) {
		t.Errorf("import: exit %d\n%s%s", code, out, errOut)
	}
	pkg := filepath.Join(t.TempDir(), "doubles.ipupkg")
	if code, _, errOut := runTool(t, "", "--emit-package", path, "--target=test16", "--f64=binary64", "-o", pkg); code != 0 {
		t.Fatalf("emit: exit %d: %s", code, errOut)
	}
	code, out, errOut = runTool(t, "", "--dump-package", pkg)
	if code != 0 || !strings.Contains(out, `input #0 "x": f64 [4] in Test16Standard`) {
		t.Errorf("the package does not keep f64 on the tiles: exit %d\n%s%s", code, out, errOut)
	}
	for _, bad := range [][]string{{"--import-onnx", path, "--f64=double"}, {"--dump-package", pkg, "--f64=binary64"}} {
		if code, _, errOut := runTool(t, "", bad...); code != 2 || !strings.Contains(errOut, "--f64") {
			t.Errorf("%v: exit %d: %s", bad, code, errOut)
		}
	}
}

// A model that does not compile gets a diagnostic that fits on a screen
// and names the node in the model's words, whatever the model holds: here
// a MatMul whose 10 MB of weights and 2.6 MB of activations no test16
// tile can take. The error leads with the node's name and op type (its
// escape character escaped), and the whole of stderr stays under 4 KB
// (the op note elides the weights; it once printed the module with every
// weight, 93 MB on resnet18).
func TestFailingModelDiagnosticIsShortAndNamesTheNode(t *testing.T) {
	const k, n = 2560, 1024
	raw := make([]byte, 4*k*n)
	for i := range raw {
		raw[i] = byte(i*7 + i/251)
	}
	w := &pb.TensorProto{Name: proto.String("w"), Dims: []int64{k, n}, DataType: proto.Int32(int32(pb.TensorProto_FLOAT)), RawData: raw}
	m := &pb.ModelProto{IrVersion: proto.Int64(8), OpsetImport: []*pb.OperatorSetIdProto{{Version: proto.Int64(17)}},
		Graph: &pb.GraphProto{Name: proto.String("g"), Input: []*pb.ValueInfoProto{pb.TensorValueInfo("x", pb.TensorProto_FLOAT, 256, k)},
			Initializer: []*pb.TensorProto{w},
			Output:      []*pb.ValueInfoProto{{Name: proto.String("y")}},
			Node:        []*pb.NodeProto{{OpType: proto.String("MatMul"), Name: proto.String("/big\x1b[31m/MatMul"), Input: []string{"x", "w"}, Output: []string{"y"}}}}}
	wire, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "big.onnx")
	if err := os.WriteFile(path, wire, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runTool(t, "", "--emit-package", path, "--target=test16", "-o", filepath.Join(dir, "big.ipupkg"))
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, errOut)
	}
	first, _, _ := strings.Cut(errOut, "\n")
	if want := `/big\x1b[31m/MatMul (MatMul) in big.onnx, node 1: error: `; !strings.HasPrefix(first, want) {
		t.Errorf("the error does not lead with the node:\n got %q\nwant %q...", first, want)
	}
	if strings.ContainsRune(errOut, 0x1b) {
		t.Error("stderr carries the node name's escape character raw")
	}
	if len(errOut) >= 4096 {
		t.Errorf("%d bytes of stderr for a model of %d bytes, want under 4 KB:\n%.3000s", len(errOut), len(wire), errOut)
	}
	t.Logf("%d bytes of stderr for a %.1f MB model; first line: %s", len(errOut), float64(len(wire))/1e6, first)
}

// A failure reported on a function (a placement that does not fit: here
// ONNX's 3-d AveragePool test model on test16) shows the function's
// header in its op note, its body left out: the body once filled the
// note to its 4 KB cap and stderr to 5.8 KB.
func TestFunctionLevelDiagnosticLeavesOutTheBody(t *testing.T) {
	path := "/usr/share/libonnx-testdata/data/node/test_averagepool_3d_default/model.onnx"
	if _, err := os.Stat(path); err != nil {
		t.Skip("ONNX's backend test data is not installed (Debian libonnx-testdata)")
	}
	code, _, errOut := runTool(t, "", "--emit-package", path, "--target=test16", "--no-cache", "-o", filepath.Join(t.TempDir(), "pool.ipupkg"))
	if code != 1 || !strings.Contains(errOut, "does not fit tile memory") {
		t.Fatalf("exit %d, want a refusal for tile memory:\n%.2000s", code, errOut)
	}
	if !strings.Contains(errOut, `see current operation: `+"\n"+`"func.func"`) || !strings.Contains(errOut, "(its regions left out;") || strings.Contains(errOut, `"tiled.slice"`) {
		t.Errorf("the op note does not print the function's header alone:\n%s", errOut)
	}
	if len(errOut) >= 4096 {
		t.Errorf("%d bytes of stderr, want under 4 KB", len(errOut))
	}
	t.Logf("%d bytes of stderr", len(errOut))
}
