package numeric

import (
	"math"
	"testing"
)

// FloorDiv and CeilDiv agree with the real quotient rounded down and up,
// for every sign of either operand.
func TestIntDiv(t *testing.T) {
	compared := 0
	for a := int64(-13); a <= 13; a++ {
		for b := int64(-5); b <= 5; b++ {
			if b == 0 {
				continue
			}
			q := float64(a) / float64(b)
			if got, want := FloorDiv(a, b), int64(math.Floor(q)); got != want {
				t.Errorf("FloorDiv(%d, %d) = %d, want %d", a, b, got, want)
			}
			if got, want := CeilDiv(a, b), int64(math.Ceil(q)); got != want {
				t.Errorf("CeilDiv(%d, %d) = %d, want %d", a, b, got, want)
			}
			compared++
		}
	}
	if compared != 27*10 {
		t.Fatalf("compared %d pairs", compared)
	}
}

func TestRoundUpAndCeilLog2(t *testing.T) {
	for _, c := range []struct{ a, m, want int64 }{{0, 8, 0}, {1, 8, 8}, {8, 8, 8}, {9, 8, 16}, {17, 6, 18}} {
		if got := RoundUp(c.a, c.m); got != c.want {
			t.Errorf("RoundUp(%d, %d) = %d, want %d", c.a, c.m, got, c.want)
		}
	}
	for _, c := range []struct{ x, want int64 }{{0, 0}, {1, 0}, {2, 1}, {3, 2}, {4, 2}, {5, 3}, {1 << 40, 40}, {1<<40 + 1, 41}} {
		if got := CeilLog2(c.x); got != c.want {
			t.Errorf("CeilLog2(%d) = %d, want %d", c.x, got, c.want)
		}
	}
}
