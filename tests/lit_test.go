// Package tests runs the behaviour tests: every .ipuir and .mlir file under
// this directory is a lit-style test (see package lit) whose RUN lines use
// the project's commands, built afresh from ./tools/... once per run.
package tests

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/lit"
)

func TestLit(t *testing.T) {
	root := moduleRoot(t)
	readSources(t, root)
	toolsDir := t.TempDir()
	// The tools are built as ipuir's tests need them: with the test
	// dialect and passes of tests/ (the ipuir_testing build tag).
	if err := lit.BuildTools(root, toolsDir, "ipuir_testing"); err != nil {
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
		// No limit of its own: a test that passes on an idle machine
		// must not fail on a busy one. A hang is go test's -timeout's.
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

// readSources reads every Go source of the module. The tools are built by
// a `go build` child process, which go test's result cache cannot see; the
// files this test itself reads it does see, so reading them makes a cached
// pass invalid as soon as any tool's source changes.
func readSources(t *testing.T, root string) {
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != root {
			return filepath.SkipDir
		}
		if !d.IsDir() && (strings.HasSuffix(path, ".go") || d.Name() == "go.mod" || d.Name() == "go.sum") {
			_, err = os.ReadFile(path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
