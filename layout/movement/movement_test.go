package movement

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/internal/rowmajor"
)

// Each kind's rule refuses what would map an index outside an operand,
// with the reason.
func TestCheckRefusesWhatLeavesTheOperands(t *testing.T) {
	for _, tc := range []struct {
		kind string
		p    Params
		out  []int64
		ins  [][]int64
		want string
	}{
		{"transpose", Params{Permutation: []int64{0, 0, 2}}, []int64{2, 8, 8}, [][]int64{{8, 2, 8}}, "permutation [0, 0, 2] is not a permutation of 0..2: 0 repeats"},
		{"transpose", Params{Permutation: []int64{1, 0}}, []int64{3, 4}, [][]int64{{3, 4}}, "result axis 0 has 3 elements, but operand axis 1"},
		{"slice", Params{Offsets: []int64{0, 40}, Sizes: []int64{8, 16}}, []int64{8, 16}, [][]int64{{8, 48}}, "axis 1: slice of 16 elements from offset 40 with stride 1 runs past the dimension size 48"},
		{"slice", Params{Offsets: []int64{0}, Strides: []int64{0}}, []int64{2}, [][]int64{{4}}, "stride 0 positive"},
		{"slice", Params{Offsets: []int64{0}, Sizes: []int64{3}}, []int64{2}, [][]int64{{4}}, "sizes [3] are not the result's shape [2]"},
		{"concat", Params{Axis: 1, HasAxis: true}, []int64{2, 5}, [][]int64{{2, 2}, {2, 2}}, "the operands hold 4 elements along axis 1, the result 5"},
		{"concat", Params{}, []int64{4}, [][]int64{{2}, {2}}, "concat: no axis given"},
		{"concat", Params{Axis: 1, HasAxis: true}, []int64{4}, [][]int64{{2}, {2}}, "axis 1 is out of range for a rank-1 result"},
		{"transpose", Params{Permutation: []int64{1, 0, 2}}, []int64{2, 2}, [][]int64{{2, 2}}, "has 3 entries, expected 2 (the operand's rank)"},
		{"slice", Params{Offsets: []int64{0}}, []int64{2, 2}, [][]int64{{4}}, "offsets, sizes and strides need 1 entries each"},
		{"broadcast", Params{Dimensions: []int64{1, 0}}, []int64{3, 3}, [][]int64{{3, 3}}, "broadcast dimensions [1, 0] must be strictly increasing"},
		{"broadcast", Params{Dimensions: []int64{1}}, []int64{2, 3}, [][]int64{{4}}, "operand dimension 0 (size 4) cannot be broadcast to result dimension 1 (size 3)"},
		{"reshape", Params{}, []int64{5}, [][]int64{{2, 2}}, "hold different numbers of elements"},
		{"relayout", Params{}, []int64{2, 3}, [][]int64{{3, 2}}, "is not the result's"},
		{"relayout", Params{}, []int64{2}, [][]int64{{2}, {2}}, "takes 1 operand(s), got 2"},
		{"rotate", Params{}, []int64{2}, [][]int64{{2}}, `unknown movement "rotate" (known: relayout, reshape, transpose, slice, concat, broadcast)`},
	} {
		err := Check(tc.kind, &tc.p, tc.out, tc.ins)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %+v: got %v, want %q", tc.kind, tc.p, err, tc.want)
		}
	}
}

// A map sends every index of the result to an index inside the operand
// that holds it, and covers each operand element a slice, transpose,
// concat or reshape moves exactly once.
func TestMapsStayInsideTheirOperands(t *testing.T) {
	for _, tc := range []struct {
		kind string
		p    Params
		out  []int64
		ins  [][]int64
	}{
		{"transpose", Params{Permutation: []int64{2, 0, 1}}, []int64{4, 2, 3}, [][]int64{{2, 3, 4}}},
		{"reshape", Params{}, []int64{6, 4}, [][]int64{{2, 3, 4}}},
		{"slice", Params{Offsets: []int64{1, 0}, Strides: []int64{2, 1}}, []int64{2, 4}, [][]int64{{5, 4}}},
		{"concat", Params{Axis: 0, HasAxis: true}, []int64{5, 2}, [][]int64{{2, 2}, {3, 2}}},
		{"broadcast", Params{Dimensions: []int64{1}}, []int64{3, 4}, [][]int64{{4}}},
	} {
		m, err := NewMap(tc.kind, tc.p, tc.out, tc.ins)
		if err != nil {
			t.Fatalf("%s: %v", tc.kind, err)
		}
		seen := map[string]int{}
		idx := make([]int64, len(tc.out))
		src := make([]int64, m.Rank)
		n := int64(1)
		for _, d := range tc.out {
			n *= d
		}
		for lin := range n {
			rest := lin
			for i := len(idx) - 1; i >= 0; i-- {
				idx[i] = rest % tc.out[i]
				rest /= tc.out[i]
			}
			k, s := m.At(idx, src)
			for i, v := range s {
				if v < 0 || v >= tc.ins[k][i] {
					t.Fatalf("%s: result %v maps to %v of operand %d %v", tc.kind, idx, s, k, tc.ins[k])
				}
			}
			seen[fmt.Sprint(k, s)]++
		}
		if tc.kind != "broadcast" && int64(len(seen)) != n {
			t.Errorf("%s: %d result elements reach %d distinct operand elements", tc.kind, n, len(seen))
		}
	}
}

// The strided form a gather uses and the per-index map are one map: for
// every result index, the offset the steps reach is the row-major offset
// of the index At gives.
func TestStridedAgreesWithAt(t *testing.T) {
	cases := []struct {
		kind string
		p    Params
		out  []int64
		in   []int64
	}{
		{"relayout", Params{}, []int64{3, 4}, []int64{3, 4}},
		{"transpose", Params{Permutation: []int64{2, 0, 1}}, []int64{4, 2, 3}, []int64{2, 3, 4}},
		{"slice", Params{Offsets: []int64{1, 2}, Strides: []int64{2, 3}}, []int64{2, 2}, []int64{5, 8}},
		{"broadcast", Params{Dimensions: []int64{0, 2}}, []int64{3, 2, 4}, []int64{3, 1}},
	}
	for _, tc := range cases {
		m, err := NewMap(tc.kind, tc.p, tc.out, [][]int64{tc.in})
		if err != nil {
			t.Fatalf("%s: %v", tc.kind, err)
		}
		offset, steps, ok := m.Strided()
		if !ok {
			t.Fatalf("%s is not strided", tc.kind)
		}
		idx, src := make([]int64, len(tc.out)), make([]int64, m.Rank)
		compared := 0
		for lin := range rowmajor.Elements(tc.out) {
			rest, at := lin, offset
			for i := len(idx) - 1; i >= 0; i-- {
				idx[i] = rest % tc.out[i]
				rest /= tc.out[i]
				at += idx[i] * steps[i]
			}
			_, s := m.At(idx, src)
			want := int64(0)
			for k, v := range s {
				want = want*tc.in[k] + v
			}
			if at != want {
				t.Fatalf("%s: result %v: strided offset %d, At gives %v (offset %d)", tc.kind, idx, at, s, want)
			}
			compared++
		}
		if compared == 0 {
			t.Fatalf("%s: nothing compared", tc.kind)
		}
	}
	for _, kind := range []string{"reshape", "concat"} {
		p := Params{Axis: 0, HasAxis: true}
		m, err := NewMap(kind, p, []int64{4}, [][]int64{{4}})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, ok := m.Strided(); ok {
			t.Errorf("%s claims a strided form", kind)
		}
	}
}
