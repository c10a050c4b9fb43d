package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The example of docs/extending.md is a module of its own
// (examples/toy, with a replace directive pointing here), as a user's
// project would be: this test builds its toy-opt, runs a pipeline and a
// pass flag through it, runs the module's own tests, and checks that the
// page shows its code byte for byte, so that neither can rot.
func TestOutOfTreeTool(t *testing.T) {
	root := moduleRoot(t)
	readSources(t, root)
	dir := filepath.Join(root, "examples", "toy")
	checkDocShowsFiles(t, filepath.Join(root, "docs", "extending.md"), dir, "toy.go", "cmd/toy-opt/main.go")

	goCmd := func(args ...string) *exec.Cmd {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		// The example is built as its own module, not as part of a
		// workspace that a developer may have around it.
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
		return cmd
	}
	bin := filepath.Join(t.TempDir(), "toy-opt")
	if out, err := goCmd("build", "-o", bin, "./cmd/toy-opt").CombinedOutput(); err != nil {
		t.Fatalf("building examples/toy/cmd/toy-opt: %v\n%s", err, out)
	}
	if out, err := goCmd("test", "./...").CombinedOutput(); err != nil {
		t.Fatalf("the example's own tests fail: %v\n%s", err, out)
	}

	input := filepath.Join(t.TempDir(), "in.ipuir")
	src := "func.func @f(%x: i32) -> (i32, i32) {\n" +
		"  %c = \"toy.const\"() <{range = #toy.interval<-9, 9>, value = 5 : i32}> : () -> i32\n" +
		"  %n = \"toy.neg\"(%c) : (i32) -> i32\n" +
		"  %a = \"toy.neg\"(%x) : (i32) -> i32\n" +
		"  %b = \"toy.neg\"(%a) : (i32) -> i32\n" +
		"  return %n, %b : i32, i32\n}\n"
	if err := os.WriteFile(input, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "module {\n  func.func @f(%arg0: i32) -> (i32, i32) {\n" +
		"    %0 = \"toy.const\"() <{value = -5 : i32}> : () -> i32\n" +
		"    return %0, %arg0 : i32, i32\n  }\n}\n"
	for _, args := range [][]string{
		{"--pass-pipeline=builtin.module(func.func(toy-simplify{max-iterations=2},cse))"},
		{"--toy-simplify", "--canonicalize"},
	} {
		out, err := exec.Command(bin, append([]string{input}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("toy-opt %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		if got := strings.TrimRight(string(out), "\n") + "\n"; got != want {
			t.Errorf("toy-opt %s:\n%s\nwant:\n%s", strings.Join(args, " "), got, want)
		}
	}
	// The tool has ipuir's passes and its own, with their options.
	out, err := exec.Command(bin, "--list-passes").CombinedOutput()
	if err != nil {
		t.Fatalf("toy-opt --list-passes: %v\n%s", err, out)
	}
	for _, line := range []string{"--toy-simplify", "--max-iterations=<long>", "--canonicalize", "--lower-tensor-to-tiled"} {
		if !strings.Contains(string(out), line) {
			t.Errorf("toy-opt --list-passes lacks %s:\n%s", line, out)
		}
	}
	// A bad attribute is a located diagnostic and a failure.
	bad := filepath.Join(t.TempDir(), "bad.ipuir")
	os.WriteFile(bad, []byte("\"toy.const\"() <{range = #toy.interval<3, 1>, value = 2 : i32}> : () -> i32\n"), 0o644)
	out, err = exec.Command(bin, bad).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "bad.ipuir:1:38: error: #toy.interval: lo 3 is above hi 1") {
		t.Errorf("toy-opt on a bad interval: %v\n%s", err, out)
	}
}

// checkDocShowsFiles fails unless the ```go blocks of doc are the files,
// in order, byte for byte.
func checkDocShowsFiles(t *testing.T, doc, dir string, files ...string) {
	t.Helper()
	text, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	rest := string(text)
	for _, f := range files {
		src, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		var block string
		var ok bool
		if _, rest, ok = strings.Cut(rest, "```go\n"); ok {
			block, rest, ok = strings.Cut(rest, "```\n")
		}
		if !ok {
			t.Fatalf("%s has no ```go block for %s", doc, f)
		}
		if block != string(src) {
			t.Errorf("a ```go block of %s differs from examples/toy/%s; copy the file into the page", filepath.Base(doc), f)
		}
	}
}
