package optmain_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/registry"
	"github.com/ipuir/ipuir/tools/optmain"
)

// countOps is an Emitter: with --count-ops it writes the number of ops
// after the pipeline instead of the IR, as ipu-translate writes packages.
type countOps struct{ on bool }

func (e *countOps) AddFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&e.on, "count-ops", false, "print the op count")
}
func (e *countOps) Early([]string, io.Writer) (bool, int, error) {
	return false, 0, nil
}
func (e *countOps) Process(*ir.Context, *ir.Operation, *optmain.Input) error { return nil }
func (e *countOps) Emit(_ *ir.Context, module *ir.Operation, _ *optmain.Input, out io.Writer) (bool, error) {
	if !e.on {
		return false, nil
	}
	n := 0
	module.Walk(func(*ir.Operation) ir.WalkResult { n++; return ir.WalkAdvance })
	_, err := fmt.Fprintf(out, "{\"ops\": %d}\n", n)
	return true, err
}

func TestEmitterWritesInsteadOfTheIR(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.ipuir")
	os.WriteFile(in, []byte("func.func @f(%x: i32) -> i32 {\n  return %x : i32\n}\n"), 0o644)
	out := filepath.Join(dir, "out.json")
	tool := &optmain.Tool{Name: "t", Dialects: registry.RegisterDialects, Passes: registry.RegisterPasses,
		Extensions: []optmain.Extension{&countOps{}}}
	var stdout, stderr bytes.Buffer
	if code := tool.Main([]string{in, "--canonicalize", "--count-ops", "-o", out}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	got, _ := os.ReadFile(out)
	if string(got) != "{\"ops\": 3}\n" {
		t.Errorf("emitted %q", got)
	}
	// Without the flag the extension leaves the output to the printer.
	stdout.Reset()
	if code := tool.Main([]string{in}, nil, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "func.func @f") {
		t.Errorf("exit %d, output %q", code, stdout.String())
	}
}
