package ir

import "testing"

// FusedLoc normalises as MLIR 19's FusedLoc::get; the expected forms are
// what mlir-opt-19 --mlir-print-debuginfo prints for each input.
func TestFusedLocNormalisesAsMLIR(t *testing.T) {
	c := NewContext()
	unknown := c.UnknownLoc()
	a, b := c.FileLineCol("a", 1, 2), c.FileLineCol("b", 3, 4)
	m, n := c.String("m"), c.String("n")
	fm := func(locs ...Location) Location { return c.FusedLoc(locs, m) }
	cases := []struct {
		name string
		got  Location
		want string
	}{
		{"fused[]", c.FusedLoc(nil, nil), "loc(unknown)"},
		{"fused[a, unknown]", c.FusedLoc([]Location{a, unknown}, nil), `loc("a":1:2)`},
		{"fused[a, a]", c.FusedLoc([]Location{a, a}, nil), `loc("a":1:2)`},
		{`fused<"m">[]`, fm(), `loc(fused<"m">[unknown])`},
		{`fused<"m">[unknown, unknown]`, fm(unknown, unknown), `loc(fused<"m">[unknown])`},
		{`fused<"m">[fused[]]`, fm(c.FusedLoc(nil, nil)), `loc(fused<"m">[unknown])`},
		{`fused<"m">[a, unknown]`, fm(a, unknown), `loc(fused<"m">["a":1:2])`},
		{`fused<"m">[fused<"m">[], a]`, fm(fm(), a), `loc(fused<"m">[unknown, "a":1:2])`},
		{`fused<"m">[a, fused<"m">[]]`, fm(a, fm()), `loc(fused<"m">["a":1:2, unknown])`},
		{`fused<"m">[fused<"m">[a, b], a]`, fm(fm(a, b), a), `loc(fused<"m">["a":1:2, "b":3:4])`},
		{`fused<"m">[fused<"n">[], a]`, fm(c.FusedLoc(nil, n), a), `loc(fused<"m">[fused<"n">[unknown], "a":1:2])`},
	}
	for _, tc := range cases {
		if got := AttrString(tc.got); got != tc.want {
			t.Errorf("%s = %s, want %s", tc.name, got, tc.want)
		}
	}
	if fm() != fm(unknown) {
		t.Errorf(`fused<"m">[] and fused<"m">[unknown] are different locations`)
	}
}
