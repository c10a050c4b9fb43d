package main

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDocsAreCurrent fails when docs/dialects differs from what the
// declarations generate, so the reference cannot go stale.
func TestDocsAreCurrent(t *testing.T) {
	docs, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", "..", "docs", "dialects")
	onDisk, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	var want, got []string
	for name := range docs {
		want = append(want, name)
	}
	for _, p := range onDisk {
		got = append(got, filepath.Base(p))
	}
	sort.Strings(want)
	sort.Strings(got)
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("docs/dialects holds other files than the registered dialects (-want +got):\n%s\nregenerate: go run ./tools/ipu-dialect-doc -o docs/dialects", d)
	}
	for name, text := range docs {
		disk, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(text, string(disk)); d != "" {
			t.Errorf("docs/dialects/%s is stale (-generated +on disk):\n%s\nregenerate: go run ./tools/ipu-dialect-doc -o docs/dialects", name, d)
		}
	}
}

func TestEveryOpIsDocumented(t *testing.T) {
	docs, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) < 4 {
		t.Fatalf("expected builtin, func, tensor and tiled, got %d dialects", len(docs))
	}
	for name, text := range docs {
		if len(text) < 200 {
			t.Errorf("%s: suspiciously short reference:\n%s", name, text)
		}
	}
}
