package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestMain gives the package's tests a compile cache of their own.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ipu-translate-test-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// The compile cache: a second --emit-package of the same model reuses the
// first package, byte for byte, without compiling; a cut-short entry is
// found, removed and rebuilt; two concurrent compiles of one model both
// succeed and agree; --no-cache neither uses nor stores; other flags are
// another compile.
func TestCompileCache(t *testing.T) {
	dir := t.TempDir()
	cacheDir := filepath.Join(dir, "cache")
	model := filepath.Join("..", "..", "examples", "attention-small.ipuir")
	emit := func(out string, extra ...string) (string, []byte) {
		t.Helper()
		args := append([]string{"--emit-package", model, "--cache-dir", cacheDir, "-v", "-o", filepath.Join(dir, out)}, extra...)
		code, _, errOut := runTool(t, "", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, errOut)
		}
		data, err := os.ReadFile(filepath.Join(dir, out))
		if err != nil {
			t.Fatal(err)
		}
		return errOut, data
	}
	log, first := emit("a.ipupkg")
	if !strings.Contains(log, "stored the compiled package in the compile cache") {
		t.Fatalf("the first compile stored nothing:\n%s", log)
	}
	log, second := emit("b.ipupkg")
	if !strings.Contains(log, "reused the compiled package from the compile cache") || strings.Contains(log, "selected operator-plan") {
		t.Fatalf("the second compile did not reuse the first, or planned again:\n%s", log)
	}
	if !bytes.Equal(first, second) {
		t.Fatal("the reused package differs from the compiled one")
	}
	entries, _ := filepath.Glob(filepath.Join(cacheDir, "packages", "*", "*.ipupkg"))
	if len(entries) != 1 {
		t.Fatalf("%d cache entries, want 1", len(entries))
	}
	if err := os.Truncate(entries[0], 100); err != nil {
		t.Fatal(err)
	}
	log, third := emit("c.ipupkg")
	if !strings.Contains(log, "did not read back and was removed") || !strings.Contains(log, "stored the compiled package") || !bytes.Equal(first, third) {
		t.Fatalf("a cut-short entry was not rebuilt:\n%s", log)
	}
	var wg sync.WaitGroup
	results := make([][]byte, 2)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			os.Remove(entries[0]) // both compile, both store
			_, results[i] = emit(filepath.Base(t.Name()) + string(rune('x'+i)) + ".ipupkg")
		}()
	}
	wg.Wait()
	if !bytes.Equal(results[0], first) || !bytes.Equal(results[1], first) {
		t.Fatal("concurrent compiles disagree")
	}
	log, _ = emit("d.ipupkg", "--no-cache")
	if strings.Contains(log, "compile cache") {
		t.Fatalf("--no-cache used the cache:\n%s", log)
	}
	log, other := emit("e.ipupkg", "--target-option=exchange-latency-cycles=40")
	if strings.Contains(log, "reused") || bytes.Equal(other, first) {
		t.Fatal("a compile with another target option reused the first")
	}
	// A pod package (four chips) is kept and reused the same way.
	_, pod := emit("f.ipupod", "--target=test16x4")
	log, again := emit("g.ipupod", "--target=test16x4")
	if !strings.Contains(log, "reused the compiled package") || !bytes.Equal(pod, again) || !bytes.HasPrefix(pod, []byte("\x89IPUPOD")) {
		t.Fatalf("the pod package was not reused:\n%s", log)
	}
}
