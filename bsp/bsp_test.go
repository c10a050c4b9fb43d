package bsp

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	c := func(s int64) Step { return Step{Kind: Compute, Superstep: s} }
	x := func(s int64) Step { return Step{Kind: Exchange, Superstep: s} }
	sync := Step{Kind: Sync}
	// The compiler's shape: an input relayout, compute, sync, exchange,
	// and a superstep of exchanges alone.
	good := []Step{sync, x(0), c(1), c(1), sync, x(1), sync, x(2), c(3), sync, x(3), x(3), c(4)}
	if err := Check(good); err != nil {
		t.Fatalf("a well-formed program: %v", err)
	}
	for _, tc := range []struct {
		name  string
		steps []Step
		at    int
		want  string
	}{
		{"backwards", []Step{c(1), sync, x(1), c(0)}, 3, "runs in superstep 0 after superstep 1"},
		{"compute after the exchange", []Step{c(0), sync, x(0), c(0)}, 3, "computes in superstep 0 after that superstep's exchange"},
		{"compute after the sync", []Step{c(0), sync, c(0)}, 2, "computes in superstep 0 after that superstep's sync"},
		{"no sync before the exchange", []Step{c(0), x(0)}, 1, "exchanges in superstep 0 right after its compute"},
		{"no sync before a new superstep's exchange", []Step{c(0), sync, x(0), x(1)}, 3, "starts superstep 1 with an exchange but no sync before it"},
		{"a first exchange without a sync", []Step{x(0)}, 0, "starts superstep 0 with an exchange but no sync"},
		{"negative", []Step{c(-1)}, 0, "superstep -1 is negative"},
	} {
		err := Check(tc.steps)
		e, ok := err.(*Error)
		if !ok || e.Index != tc.at || !strings.Contains(e.Msg, tc.want) {
			t.Errorf("%s: got %v, want %q at step %d", tc.name, err, tc.want, tc.at)
		}
	}
}
