package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A failing test's commands and output are shown, as llvm-lit shows them;
// -q leaves them out; the status is 1 either way.
func TestFailureOutputShown(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "fails.ipuir")
	if err := os.WriteFile(file, []byte("// RUN: echo the-tests-own-output; false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		flags []string
		shown bool
	}{{nil, true}, {[]string{"-v"}, true}, {[]string{"-q"}, false}} {
		var stdout, stderr bytes.Buffer
		args := append(append([]string{"--tools-dir", t.TempDir()}, c.flags...), dir)
		if code := run(args, &stdout, &stderr); code != 1 {
			t.Fatalf("%v: exit %d, want 1\n%s%s", c.flags, code, stdout.String(), stderr.String())
		}
		out := stdout.String()
		if !strings.Contains(out, "FAIL: "+file) || !strings.Contains(out, "Failed: 1") {
			t.Errorf("%v: no failure reported:\n%s", c.flags, out)
		}
		if got := strings.Contains(out, "the-tests-own-output"); got != c.shown {
			t.Errorf("%v: the test's output shown = %v, want %v:\n%s", c.flags, got, c.shown, out)
		}
	}
}
