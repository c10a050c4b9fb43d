// Package tests runs the behaviour tests: every .ipuir and .mlir file under
// this directory is a lit-style test (see package lit) whose RUN lines use
// the project's commands, built afresh from ./tools/... once per run.
package tests

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/ipuir/ipuir/lit"
)

func TestLit(t *testing.T) {
	root, err := lit.ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	toolsDir := t.TempDir()
	if err := lit.BuildTools(root, toolsDir); err != nil {
		// The commands that did build still run their tests.
		t.Errorf("building the tools: %v", err)
	}
	files, err := lit.Discover([]string{"."}, lit.DefaultSuffixes)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no tests found")
	}
	cfg := &lit.Config{
		ToolsDir: toolsDir,
		Features: lit.DefaultFeatures(toolsDir),
		TempRoot: t.TempDir(),
		Timeout:  5 * time.Minute,
	}
	for _, file := range files {
		name := filepath.ToSlash(file)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			test, err := lit.ParseFile(file, name)
			if err != nil {
				t.Fatal(err)
			}
			r := cfg.Run(test)
			switch r.Status {
			case lit.Fail, lit.XPass:
				t.Errorf("%s\n%s", r.Status, r.Output)
			case lit.Unsupported:
				t.Skip(r.Output)
			}
		})
	}
}
