package main

import (
	"go/doc"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const regenerate = "regenerate: go run ./tools/ipu-dialect-doc"

// TestDocsAreCurrent fails when docs/dialects or docs/passes differs from
// what the declarations generate, so the reference cannot go stale.
func TestDocsAreCurrent(t *testing.T) {
	root := filepath.Join("..", "..")
	docs, err := generate(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, sub := range docDirs {
		onDisk, err := filepath.Glob(filepath.Join(root, "docs", sub, "*.md"))
		if err != nil {
			t.Fatal(err)
		}
		var want, got []string
		for name := range docs {
			if strings.HasPrefix(name, sub+"/") {
				want = append(want, name)
			}
		}
		for _, p := range onDisk {
			got = append(got, sub+"/"+filepath.Base(p))
		}
		sort.Strings(want)
		sort.Strings(got)
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("docs/%s holds other files than the registry generates (-want +got):\n%s\n%s", sub, d, regenerate)
		}
	}
	compared := 0
	for name, text := range docs {
		disk, err := os.ReadFile(filepath.Join(root, "docs", filepath.FromSlash(name)))
		if err != nil {
			continue // reported above
		}
		compared++
		if d := cmp.Diff(text, string(disk)); d != "" {
			t.Errorf("docs/%s is stale (-generated +on disk):\n%s\n%s", name, d, regenerate)
		}
	}
	t.Logf("%d generated pages compared with docs/", compared)
}

func TestEveryOpAndPassIsDocumented(t *testing.T) {
	docs, err := generate(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dialects, passes := 0, 0
	for name, text := range docs {
		switch {
		case strings.HasPrefix(name, "dialects/"):
			dialects++
		case strings.HasPrefix(name, "passes/"):
			passes++
		}
		if len(text) < 200 {
			t.Errorf("%s: suspiciously short reference:\n%s", name, text)
		}
	}
	if dialects < 4 || passes < 12 {
		t.Fatalf("expected builtin, func, tensor and tiled and a dozen passes, got %d dialects and %d pass pages", dialects, passes)
	}
}

// A pass whose type has no doc comment has no description, which the
// generator refuses rather than writing an empty page.
func TestPassWithoutDocCommentRefused(t *testing.T) {
	c := typeComments{root: filepath.Join("..", ".."), pkgs: map[string]*doc.Package{}}
	if _, _, err := c.of(modulePath+"/transforms", "NoSuchPass"); err == nil || !strings.Contains(err.Error(), "no type NoSuchPass") {
		t.Errorf("missing type: %v", err)
	}
}
