//go:build !ipuir_testing

package main

import (
	"bytes"
	"strings"
	"testing"
)

// The shipped tool (built without ipuir_testing) offers users' passes and
// dialects only: the test ones stay with the tests.
func TestShippedToolHasNoTestPasses(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := newTool().Main([]string{"--list-passes"}, nil, &out, &errOut); code != 0 {
		t.Fatalf("--list-passes: exit %d\n%s", code, errOut.String())
	}
	for _, want := range []string{"--canonicalize", "--cse", "--tensor-decompose", "--plan-gemms", "--lower-tensor-to-tiled"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--list-passes lacks %s", want)
		}
	}
	if strings.Contains(out.String(), "\n  --test-") || strings.Contains(out.String(), "Test Passes") {
		t.Errorf("the shipped tool lists test passes:\n%s", out.String())
	}
	out.Reset()
	if code := newTool().Main([]string{"--show-dialects"}, nil, &out, &errOut); code != 0 {
		t.Fatalf("--show-dialects: exit %d", code)
	}
	if got := strings.TrimSpace(out.String()); got != "Available Dialects:\nbuiltin, exchange, func, tensor, tileasm, tiled" {
		t.Errorf("--show-dialects:\n%s", got)
	}
}
