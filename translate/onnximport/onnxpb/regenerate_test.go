package onnxpb

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// Regenerating onnx.pb.go from onnx.proto changes nothing (where protoc is
// installed; .ci/run installs it): the checked-in types are the schema's.
// The protoc version line may differ between machines and is left out of
// the comparison.
func TestRegenerationChangesNothing(t *testing.T) {
	protoc, err := exec.LookPath("protoc")
	if err != nil {
		t.Skip("protoc is not installed (Debian's protobuf-compiler)")
	}
	dir := t.TempDir()
	plugin := filepath.Join(dir, "protoc-gen-go")
	if out, err := exec.Command("go", "build", "-o", plugin, "google.golang.org/protobuf/cmd/protoc-gen-go").CombinedOutput(); err != nil {
		t.Fatalf("building protoc-gen-go: %v\n%s", err, out)
	}
	cmd := exec.Command(protoc, "--plugin=protoc-gen-go="+plugin, "--go_out="+dir, "--go_opt=paths=source_relative", "onnx.proto")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("protoc: %v\n%s", err, out)
	}
	fresh, err := os.ReadFile(filepath.Join(dir, "onnx.pb.go"))
	if err != nil {
		t.Fatal(err)
	}
	checked, err := os.ReadFile("onnx.pb.go")
	if err != nil {
		t.Fatal(err)
	}
	version := regexp.MustCompile(`(?m)^// \tprotoc +v.*\n`)
	if !bytes.Equal(version.ReplaceAll(fresh, nil), version.ReplaceAll(checked, nil)) {
		t.Error("onnx.pb.go is not what onnx.proto generates: run go generate ./translate/onnximport/onnxpb")
	}
}
