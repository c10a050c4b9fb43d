package device

import "testing"

// LoadOf names the lowest-numbered of the busiest tiles, counts the tiles
// as busy and those with work, and says -1 when none had any.
func TestLoadOf(t *testing.T) {
	for _, c := range []struct {
		load []int64
		want TileLoad
	}{
		{[]int64{5, 5, 5}, TileLoad{Tile: 0, Load: 5, AtMax: 3, Working: 3}},
		{[]int64{0, 3, 7, 7, 1}, TileLoad{Tile: 2, Load: 7, AtMax: 2, Working: 4}},
		{[]int64{0, 0}, TileLoad{Tile: -1}},
		{nil, TileLoad{Tile: -1}},
	} {
		if got := LoadOf(c.load); got != c.want {
			t.Errorf("LoadOf(%v) = %+v, want %+v", c.load, got, c.want)
		}
	}
}
