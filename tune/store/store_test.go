package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A result is stored once per key, read back as written, and found by its
// program; a second process's view (another Open of the file) sees it.
func TestStoreOncePerKey(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "results.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	k := Key{SourceSHA256: "abc", Target: "test16", Compiler: "v1", Candidate: "weights=home"}
	if _, ok, err := s.Get(ctx, k); err != nil || ok {
		t.Fatalf("an empty store has a result: %v %v", ok, err)
	}
	r := Result{Key: k, Status: Pass, Cycles: 1234, Compared: 99, MaxErrorToBound: 0.5, Seconds: 1.5, Worker: "w1", Measured: time.Unix(100, 0)}
	if stored, err := s.Put(ctx, r); err != nil || !stored {
		t.Fatalf("Put = %v, %v", stored, err)
	}
	again := r
	again.Cycles, again.Worker = 1, "w2"
	if stored, err := s.Put(ctx, again); err != nil || stored {
		t.Fatalf("a second result for the key was stored: %v, %v", stored, err)
	}
	other, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	got, ok, err := other.Get(ctx, k)
	if err != nil || !ok || got.Cycles != 1234 || got.Worker != "w1" || got.Status != Pass || !got.Measured.Equal(r.Measured) {
		t.Fatalf("Get = %+v, %v, %v", got, ok, err)
	}
	if _, err := s.Put(ctx, Result{Key: Key{Candidate: "x"}, Status: "maybe"}); err == nil {
		t.Error("a result with no status was stored")
	}
	refused := Result{Key: Key{SourceSHA256: "abc", Target: "test16", Compiler: "v1", Candidate: "weights=resident"}, Status: Refused, Reason: "no plan fits"}
	fast := Result{Key: Key{SourceSHA256: "abc", Target: "test16", Compiler: "v1", Candidate: "weights=auto"}, Status: Pass, Cycles: 1000}
	for _, x := range []Result{refused, fast, {Key: Key{SourceSHA256: "def", Target: "test16", Compiler: "v1"}, Status: Pass}} {
		if _, err := s.Put(ctx, x); err != nil {
			t.Fatal(err)
		}
	}
	rs, err := s.Query(ctx, "abc", "test16", "")
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, x := range rs {
		order = append(order, x.Key.Candidate)
	}
	if len(order) != 3 || order[0] != "weights=auto" || order[1] != "weights=home" || order[2] != "weights=resident" {
		t.Errorf("Query order: %v (want the fastest passing first, then the refused)", order)
	}
}

// Keys are length-prefixed: moving a character from one part to the next
// gives another key.
func TestKeyHashSeparatesParts(t *testing.T) {
	a := Key{SourceSHA256: "ab", Target: "c"}
	b := Key{SourceSHA256: "a", Target: "bc"}
	if a.Hash() == b.Hash() {
		t.Error("two keys share a hash")
	}
}

// A store's path is a file's path, taken literally: characters a URI
// reads as its query, fragment or escapes name a file of those characters
// (they once opened './a', '50%.db' or './my' without the store's
// pragmas), the pragmas hold (write-ahead log), and ":memory:" is a store
// for the process's life. A store that cannot be written names itself.
func TestStorePathsAreFilePaths(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	r := Result{Key: Key{SourceSHA256: "abc", Target: "test16", Compiler: "v1", Candidate: "weights=home"}, Status: Pass, Cycles: 7}
	for _, name := range []string{"a#b.db", "50%25.db", "my?.db", "x.db?mode=ro", "spaces and ünïcode.db"} {
		path := filepath.Join(dir, name)
		s, err := Open(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := s.Put(ctx, r); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var mode string
		if err := s.db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
			t.Errorf("%s: journal mode %q, %v (want wal)", name, mode, err)
		}
		s.Close()
		if _, err := os.Stat(path); err != nil {
			t.Errorf("%s: the store is not the file of that name: %v", name, err)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if n := e.Name(); n == "a" || n == "my" || n == "50%.db" || n == "x.db" {
			t.Errorf("a store's path was read as a URI: %s was created", n)
		}
	}
	mem, err := Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mem.Put(ctx, r); err != nil {
		t.Fatalf(":memory: Put: %v", err)
	}
	if got, ok, err := mem.Get(ctx, r.Key); err != nil || !ok || got.Cycles != 7 {
		t.Fatalf(":memory: Get = %+v, %v, %v", got, ok, err)
	}
	mem.Close()
	if os.Getuid() != 0 { // root writes read-only files
		ro := filepath.Join(dir, "ro.db")
		s, err := Open(ro)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		os.Chmod(ro, 0o444)
		if s, err = Open(ro); err == nil {
			_, err = s.Put(ctx, r)
			s.Close()
		}
		if err == nil || !strings.Contains(err.Error(), ro) {
			t.Errorf("a read-only store: %v (want its path named)", err)
		}
	}
}
