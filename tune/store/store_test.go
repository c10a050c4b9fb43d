package store

import (
	"context"
	"path/filepath"
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
