package ir

import (
	"errors"
	"testing"
)

// A check that passes runs once per key and context; one that fails runs
// every time, so each verification reports it; another context checks
// afresh.
func TestCheckOnce(t *testing.T) {
	ctx := NewContext()
	key := struct{ a, b Type }{ctx.F16(), ctx.Tensor([]int64{2}, ctx.F32())}
	runs := 0
	pass := func() error { runs++; return nil }
	for range 3 {
		if err := ctx.CheckOnce(key, pass); err != nil {
			t.Fatal(err)
		}
	}
	if runs != 1 {
		t.Errorf("a passing check ran %d times, want 1", runs)
	}
	fails := 0
	bad := errors.New("bad")
	for range 3 {
		if err := ctx.CheckOnce(struct{ a Type }{ctx.F32()}, func() error { fails++; return bad }); err != bad {
			t.Fatalf("got %v", err)
		}
	}
	if fails != 3 {
		t.Errorf("a failing check ran %d times, want 3", fails)
	}
	if err := NewContext().CheckOnce(key, pass); err != nil || runs != 2 {
		t.Errorf("another context: %v, %d runs", err, runs)
	}
}
