package toolkit

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestCompileCache(t *testing.T) {
	if Key([]byte("ab"), []byte("c")) == Key([]byte("a"), []byte("bc")) {
		t.Fatal("parts that concatenate alike share a key")
	}
	valid := func(data []byte) error {
		if !bytes.HasPrefix(data, []byte("PKG")) {
			return errors.New("not a package")
		}
		return nil
	}
	c := &CompileCache{Dir: t.TempDir(), MaxBytes: 10, Valid: valid}
	k1, k2 := Key([]byte("one")), Key([]byte("two"))
	if _, ok, bad := c.Get(k1); ok || bad != nil {
		t.Fatal("an empty cache has an entry")
	}
	if err := c.Put(k1, []byte("PKG-one")); err != nil {
		t.Fatal(err)
	}
	if data, ok, _ := c.Get(k1); !ok || string(data) != "PKG-one" {
		t.Fatalf("Get = %q, %v", data, ok)
	}
	// A corrupted entry is removed and reads as a miss, with the reason.
	if err := os.WriteFile(c.path(k1), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok, bad := c.Get(k1); ok || bad == nil {
		t.Fatal("a corrupted entry was used")
	}
	if _, err := os.Stat(c.path(k1)); !os.IsNotExist(err) {
		t.Fatal("a corrupted entry was kept")
	}
	// Past MaxBytes, the least recently used entry goes.
	if err := c.Put(k1, []byte("PKG-one")); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(c.path(k1), old, old)
	if err := c.Put(k2, []byte("PKG-two")); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := c.Get(k1); ok {
		t.Error("the older entry survived eviction")
	}
	if _, ok, _ := c.Get(k2); !ok {
		t.Error("the newer entry was evicted")
	}
	// No partial file is left behind.
	leftovers, _ := filepath.Glob(filepath.Join(c.Dir, "packages", "*", ".*partial*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

// A hit is put in place as a hard link: the output is the entry's bytes,
// readable as an output is, replacing a file whole; a folder or a link at
// the output's name is not replaced (the caller writes the bytes through
// its own checks instead).
func TestCompileCacheLinkTo(t *testing.T) {
	dir := t.TempDir()
	c := &CompileCache{Dir: filepath.Join(dir, "cache")}
	k := Key([]byte("model"))
	if err := c.Put(k, []byte("PKG-model")); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "out.ipupkg")
	if err := os.WriteFile(dst, []byte("an older output"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !c.LinkTo(k, dst) {
		t.Fatal("LinkTo refused a plain file")
	}
	data, _ := os.ReadFile(dst)
	a, _ := os.Stat(dst)
	b, _ := os.Stat(c.path(k))
	if string(data) != "PKG-model" || !os.SameFile(a, b) || a.Mode().Perm() != 0o644 {
		t.Errorf("the output is %q, mode %v, the entry's own file: %v", data, a.Mode(), os.SameFile(a, b))
	}
	if c.LinkTo(k, dir) {
		t.Error("LinkTo replaced a folder")
	}
	link := filepath.Join(dir, "link.ipupkg")
	if err := os.Symlink(dst, link); err != nil {
		t.Fatal(err)
	}
	if c.LinkTo(k, link) {
		t.Error("LinkTo replaced a symbolic link")
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".*cache-*")); len(leftovers) > 0 {
		t.Errorf("temporary links left: %v", leftovers)
	}
}
