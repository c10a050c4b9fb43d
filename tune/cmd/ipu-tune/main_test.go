package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/tools/toolkit"
)

func runTool(args ...string) (int, string, string) {
	var out, errs bytes.Buffer
	code := run(context.Background(), args, &out, &errs)
	return code, out.String(), errs.String()
}

// ipu-tune writes a tuning record that ipu-translate reads, reports what it
// measured, and its store answers `ipu-tune results`; a second run
// measures nothing. Usage errors exit 2, failures 1.
func TestTool(t *testing.T) {
	dir := t.TempDir()
	model := "../../../examples/attention-tiny.ipuir"
	db, rec := filepath.Join(dir, "r.db"), filepath.Join(dir, "tuning.json")
	code, out, errs := runTool(model, "--store", db, "-o", rec)
	if code != 0 || !strings.Contains(out, "tuned: target=test16 candidates=15 measured=15 recalled=0") {
		t.Fatalf("exit %d:\n%s%s", code, out, errs)
	}
	if _, err := toolkit.ReadTuning(rec); err != nil {
		t.Fatalf("the record: %v", err)
	}
	if code, out, _ := runTool(model, "--store", db, "-o", rec); code != 0 || !strings.Contains(out, "measured=0 recalled=15") {
		t.Errorf("again: exit %d:\n%s", code, out)
	}
	code, out, errs = runTool("results", "--store", db, model)
	if code != 0 || !strings.Contains(out, "15 results") || !strings.Contains(out, "test16  pass") {
		t.Errorf("results: exit %d:\n%s%s", code, out, errs)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "give one program to tune"},
		{[]string{model, "--engine", "elsewhere"}, 2, "--engine=elsewhere"},
		{[]string{filepath.Join(dir, "nosuch.ipuir")}, 1, "nosuch.ipuir"},
		{[]string{model, "--target", "nosuch"}, 1, `unknown target "nosuch"`},
		{[]string{model, "--store", db, "-o", model}, 1, "refusing to overwrite an input"},
		{[]string{"results", "--store", filepath.Join(dir, "none.db")}, 1, "none.db"},
	} {
		code, _, errs := runTool(c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("ipu-tune %v: exit %d: %s (want %d, %q)", c.args, code, errs, c.code, c.want)
		}
	}
	if b, _ := os.ReadFile(model); !bytes.Contains(b, []byte("func.func")) {
		t.Error("the model was overwritten")
	}
}
