package main

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/parser"
	"github.com/ipuir/ipuir/registry"
	"github.com/ipuir/ipuir/runtime/npy"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/target/irtarget"
	"github.com/ipuir/ipuir/tools/toolkit"
)

const testProgram = `func.func @double(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor.add %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
`

const badProgram = `func.func @bad(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor.transpose %x permutation = [1] : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
`

func runTool(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReferenceRunWithFiles(t *testing.T) {
	src := writeFile(t, "p.ipuir", testProgram)
	in, _ := npy.FromFloat64s(npy.Float32, []int{4}, []float64{1, 2, 3, 4})
	inPath := filepath.Join(t.TempDir(), "x.npy")
	if err := npy.WriteFile(inPath, in); err != nil {
		t.Fatal(err)
	}
	outPath := filepath.Join(t.TempDir(), "y.npy")
	code, stdout, stderr := runTool(t, "--reference", src, "--function", "double", "--inputs", inPath, "--outputs", outPath)
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	out, err := npy.ReadFile(outPath)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Float64s(); len(got) != 4 || got[0] != 2 || got[3] != 8 {
		t.Fatalf("outputs %v", got)
	}
	code, stdout, _ = runTool(t, "--reference", src, "--function", "double", "--inputs", inPath, "--compare", outPath)
	if code != 0 || !strings.Contains(stdout, "max abs error 0 against") || !strings.HasSuffix(stdout, "PASS\n") {
		t.Fatalf("compare: exit %d, %s", code, stdout)
	}
	code, stdout, stderr = runTool(t, "--reference", src, "--function", "double", "--inputs", outPath, "--compare", outPath, "--atol", "1")
	if code != 1 || !strings.Contains(stdout, "FAIL") || !strings.Contains(stderr, "1 output out of tolerance") {
		t.Fatalf("failing compare: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

func TestReferenceRunReportsErrors(t *testing.T) {
	src := writeFile(t, "p.ipuir", testProgram)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--reference", writeFile(t, "bad.ipuir", badProgram), "--generate", "gaussian:seed=1"},
			"bad.ipuir:2:8: error: 'tensor.transpose' op permutation [1] is not a permutation of 0..0: 1 is out of range"},
		{[]string{"--reference", src, "--function", "double", "--generate", "gaussian:seed=x"}, `seed "x" is not an unsigned integer`},
		{[]string{"--reference", writeFile(t, "broken.ipuir", "func.func @f( {"), "--generate", "gaussian:seed=1"}, "broken.ipuir:1:"},
		{[]string{"--reference"}, "no input file"},
		{[]string{"--reference", src, src}, "one input file expected"},
		{[]string{"--reference", src, "--atol", "-1"}, "--atol must be a non-negative number"},
	} {
		code, _, stderr := runTool(t, tc.args...)
		if code == 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant %q", tc.args, code, stderr, tc.want)
		}
	}
}

func TestVerbosePhaseLog(t *testing.T) {
	src := writeFile(t, "p.ipuir", testProgram)
	code, stdout, stderr := runTool(t, "-v", "--reference", src, "--generate", "uniform:seed=1")
	if code != 0 || !strings.HasPrefix(stdout, "output #0: tensor<4xf32> min=") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, phase := range []string{"load", "inputs", "reference", "outputs"} {
		if !strings.Contains(stderr, "phase="+phase+" elapsed_ms=") {
			t.Errorf("no line for phase %s in\n%s", phase, stderr)
		}
	}
	if strings.Contains(stderr, "success=false") {
		t.Errorf("a phase failed:\n%s", stderr)
	}
}

// --inputs takes files by the inputs' names (the arguments' ipu.name, the
// package's stream names) as well as by position, on the reference and on
// a device; errors name the input.
func TestInputsByName(t *testing.T) {
	src := writeFile(t, "named.ipuir", `module attributes {ipu.target = "test16"} {
  func.func @main(%a: tensor<4x8xf32> {ipu.name = "x"}, %b: tensor<4x8xf32> {ipu.name = "bias"}) -> (tensor<4x8xf32> {ipu.name = "y"}) {
    %0 = tensor.sub %a, %b : tensor<4x8xf32>
    return %0 : tensor<4x8xf32>
  }
}
`)
	dir := t.TempDir()
	vals := make([]float64, 32)
	for i := range vals {
		vals[i] = float64(i)
	}
	write := func(name string, scale float64) string {
		v := make([]float64, 32)
		for i := range v {
			v[i] = vals[i] * scale
		}
		a, _ := npy.FromFloat64s(npy.Float32, []int{4, 8}, v)
		path := filepath.Join(dir, name)
		if err := npy.WriteFile(path, a); err != nil {
			t.Fatal(err)
		}
		return path
	}
	x, bias := write("x.npy", 3), write("bias.npy", 1)
	want := write("want.npy", 2)
	pkg := filepath.Join(dir, "named.ipupkg")
	writePackage(t, src, pkg)
	for _, c := range []struct {
		what string
		args []string
	}{
		{"reference by name", []string{"--reference", src, "--inputs", "bias=" + bias + ",x=" + x}},
		{"reference by position", []string{"--reference", src, "--inputs", x + "," + bias}},
		{"device by name", []string{pkg, "--lock-dir", dir, "--inputs", "bias=" + bias + ",x=" + x}},
	} {
		code, stdout, stderr := runTool(t, append(c.args, "--compare", want, "--atol", "0")...)
		if code != 0 || !strings.Contains(stdout, "PASS") {
			t.Errorf("%s: exit %d\n%s%s", c.what, code, stdout, stderr)
		}
	}
	for _, c := range []struct{ inputs, want string }{
		{"z=" + x + ",bias=" + bias, "@main has no input 'z' (its inputs: 'x', 'bias')"},
		{"x=" + x, "--inputs gives no file for input #1 'bias'"},
		{"x=" + x + ",x=" + bias, "input 'x' is given twice"},
		{"x=" + x + "," + bias, "give every input by name"},
	} {
		code, _, stderr := runTool(t, "--reference", src, "--inputs", c.inputs, "--compare", want)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("--inputs %s: exit %d, %s", c.inputs, code, stderr)
		}
	}
	// A file of the wrong shape is named with its input.
	bad, _ := npy.FromFloat64s(npy.Float32, []int{2}, []float64{1, 2})
	badPath := filepath.Join(dir, "bad.npy")
	if err := npy.WriteFile(badPath, bad); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runTool(t, pkg, "--lock-dir", dir, "--inputs", "x="+x+",bias="+badPath)
	if code == 0 || !strings.Contains(stderr, "input #1 'bias'") {
		t.Errorf("wrong shape: exit %d, %s", code, stderr)
	}
}

// writePackage compiles the tensor-level module in src for its target and
// writes its package to path, as ipu-translate --emit-package does.
func writePackage(t *testing.T, src, path string) {
	t.Helper()
	text, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	ctx := registry.NewContext()
	module, err := parser.ParseSourceString(ctx, text, parser.Config{Filename: src})
	if err != nil {
		t.Fatal(err)
	}
	tg, err := target.Lookup("test16")
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := toolkit.CompilePackage(ctx, module, text, irtarget.EnvKey.With(nil, tg), slog.New(slog.DiscardHandler), tg, "test")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, pkg.Encode(), 0o644); err != nil {
		t.Fatal(err)
	}
}
