package rowmajor

import (
	"slices"
	"testing"
)

// Every position of a [2, 3, 4] tensor unravels to an index that maps back
// to it, in row-major order.
func TestRoundTrip(t *testing.T) {
	shape := []int64{2, 3, 4}
	var seen []int64
	ForEach(shape, func(lin int64, idx []int64) {
		if got := Linear(shape, idx); got != lin {
			t.Errorf("%v: position %d, want %d", idx, got, lin)
		}
		seen = append(seen, lin)
	})
	if len(seen) != 24 || !slices.IsSorted(seen) {
		t.Errorf("visited %v", seen)
	}
	if idx := Unravel(23, shape, make([]int64, 3)); !slices.Equal(idx, []int64{1, 2, 3}) {
		t.Errorf("position 23 is %v", idx)
	}
	ForEach([]int64{3, 0}, func(int64, []int64) { t.Error("an empty tensor has no elements") })
}
