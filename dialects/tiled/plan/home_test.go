package plan

import (
	"slices"
	"testing"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/layout"
	"github.com/ipuir/ipuir/target"
)

// A home weight holds its Source shard for the whole program: every
// matmul is planned beside those bytes, its own reader included, and a
// resident one is reserved only before its reader.
func TestHomeWeightsAreReservedThroughout(t *testing.T) {
	tg := mustTarget(t, "test16")
	shape := layout.MatmulShape{Batch: 1, M: 64, K: 128, N: 512, Elem: elem.F16, ResultElem: elem.F16}
	back := layout.MatmulShape{Batch: 1, M: 64, K: 512, N: 128, Elem: elem.F16, ResultElem: elem.F16}
	home := func(k, n int64, v int) Operand {
		l, err := layout.DefaultLayout([]int64{k, n}, tg)
		if err != nil {
			t.Fatal(err)
		}
		return Operand{Value: v, Source: &l, Home: true}
	}
	prog := Program{Matmuls: []Matmul{
		{Name: "%h", Shape: shape, LHS: Operand{Value: 0}, RHS: home(128, 512, 1), Result: 2},
		{Name: "%y", Shape: back, LHS: Operand{Value: 2}, RHS: home(512, 128, 3), Result: 4},
	}}
	choices, err := PlanProgram(prog, tg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	reserve := residentReserve(prog, choices, tg)
	// Each weight is 64 Ki elements of f16 over 16 tiles: 8 KiB a tile.
	for i, r := range reserve {
		if got, want := r[target.Standard], int64(2*8192); got != want {
			t.Errorf("matmul %d: %d standard bytes reserved, want %d (both homes)", i, got, want)
		}
	}
	// The same weights resident: only the later reader's is reserved, and
	// only before it.
	for i := range prog.Matmuls {
		prog.Matmuls[i].RHS = Operand{Resident: true, Value: prog.Matmuls[i].RHS.Value}
	}
	reserve = residentReserve(prog, choices, tg)
	if reserve[1][target.Standard]+reserve[1][target.Interleaved] != 0 {
		t.Errorf("the last matmul has %v reserved, want nothing", reserve[1])
	}
	if reserve[0][target.Standard]+reserve[0][target.Interleaved] == 0 {
		t.Errorf("the first matmul reserves nothing for the second's resident weight")
	}
}

// Among finalists of equal cycles the one needing less tile memory comes
// first; a lower score still wins whatever its memory.
func TestFinalistsTieBreakOnMemory(t *testing.T) {
	s := &selector{opts: Options{Finalists: 3}}
	mk := func(score, std int64, tag int64) finalist {
		f := finalist{score: score}
		f.est.PeakStandardBytes = std
		f.plan.RowPartitions = tag
		return f
	}
	s.keep(mk(100, 900, 1))
	s.keep(mk(100, 500, 2))
	s.keep(mk(90, 2000, 3))
	s.keep(mk(100, 700, 4)) // equal score, more memory than 2: after it
	s.keep(mk(100, 950, 5)) // no better than the last kept: dropped
	var got []int64
	for _, f := range s.best {
		got = append(got, f.plan.RowPartitions)
	}
	if want := []int64{3, 2, 4}; !slices.Equal(got, want) {
		t.Errorf("finalists %v, want %v", got, want)
	}
}
