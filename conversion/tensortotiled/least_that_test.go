package tensortotiled

import (
	"errors"
	"testing"
)

// leastThat finds the boundary of a monotone predicate, and leaves it
// asked last of the answer (the placement it sets is the one kept).
func TestLeastThat(t *testing.T) {
	for _, c := range []struct{ lo, hi, boundary, want int }{
		{1, 8, 5, 5}, {1, 8, 1, 1}, {1, 8, 8, 8}, {0, 0, 0, 0}, {0, 6, 0, 0}, {1, 1, 1, 1},
	} {
		var last, asked int
		got, err := leastThat(c.lo, c.hi, func(k int) (bool, error) { last = k; asked++; return k >= c.boundary, nil })
		if err != nil || got != c.want || last != c.want {
			t.Errorf("lo %d hi %d boundary %d: got %d (last asked %d), want %d", c.lo, c.hi, c.boundary, got, last, c.want)
		}
		if asked > 6 {
			t.Errorf("lo %d hi %d: %d questions", c.lo, c.hi, asked)
		}
	}
	boom := errors.New("boom")
	if _, err := leastThat(1, 8, func(int) (bool, error) { return false, boom }); !errors.Is(err, boom) {
		t.Errorf("error: %v", err)
	}
}
