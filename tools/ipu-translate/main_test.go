package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runTool(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := newTool().Main(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestTranslations(t *testing.T) {
	code, out, _ := runTool(t, "", "--help")
	if code != 0 || !strings.Contains(out, "--exchange-to-json") {
		t.Errorf("--help: exit %d\n%s", code, out)
	}
	code, _, errOut := runTool(t, "module {}", "-")
	if code == 0 || !strings.Contains(errOut, "no translation chosen") {
		t.Errorf("no translation: exit %d, %s", code, errOut)
	}
	// A program before the exchange level has no phases to write, and a
	// failed run leaves an existing output file as it was.
	dir := t.TempDir()
	outPath := filepath.Join(dir, "out.json")
	if err := os.WriteFile(outPath, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runTool(t, `module attributes {ipu.target = "test16"} {}`, "--exchange-to-json", "-", "-o", outPath)
	if code == 0 || !strings.Contains(errOut, "needs a program at the exchange level or later") {
		t.Errorf("tensor-level input: exit %d, %s", code, errOut)
	}
	if b, _ := os.ReadFile(outPath); string(b) != "keep" {
		t.Errorf("the failed run changed the output file: %q", b)
	}
	// A program at the exchange level that moves nothing between tiles
	// has no phases (tests/exchange has programs that do).
	code, out, errOut = runTool(t, `module attributes {ipu.target = "test16"} {
  func.func @f() {
    exchange.sync
    return
  }
}`, "--exchange-to-json", "-")
	if code != 0 || strings.TrimSpace(out) != `{"phases":[]}` {
		t.Errorf("exit %d, %q, %s", code, out, errOut)
	}
}
