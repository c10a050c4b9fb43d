package layout

import (
	"math/rand/v2"
	"testing"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/target"
)

// A projection cut like the planner's attention plans (729 tokens, 1152
// features, swapped, 4 × 8 result rows over 4 row partitions of 288) reduces
// in place; the same grid with one owner per cell, or with 729 rows cut so
// that result pieces straddle two cells, does not.
func TestReductionInPlace(t *testing.T) {
	tg, err := target.Lookup("ipu21")
	if err != nil {
		t.Fatal(err)
	}
	proj := MatmulShape{Batch: 1, M: 729, K: 1152, N: 1152, Elem: elem.F16, ResultElem: elem.F16}
	plan := func(o Orientation, r, c, k, rr, rc int64) GemmPlan {
		return GemmPlan{Orientation: o, BatchPartitions: 1, RowPartitions: r, ColumnPartitions: c, InnerPartitions: k,
			ResultRowPartitions: rr, ResultColumnPartitions: rc, OutputColumnBlock: 16,
			WeightMemoryClass: "Ipu21Interleaved", ReductionStaging: Complete, LocalWeightStaging: Direct}
	}
	for _, tc := range []struct {
		what string
		p    GemmPlan
		want bool
	}{
		{"swapped 1152 feature rows, 8 pieces per cell", plan(Swapped, 4, 46, 8, 8, 1), true},
		{"one owner per cell", plan(Swapped, 4, 46, 8, 1, 1), false},
		{"fewer pieces than inner tiles", plan(Swapped, 4, 46, 8, 4, 1), false},
		{"729 token rows: pieces straddle cells", plan(Normal, 4, 18, 8, 8, 1), false},
		{"no reduction", plan(Swapped, 32, 46, 1, 1, 1), false},
	} {
		chk, err := VerifyPlan(&tc.p, proj, tg)
		if err != nil {
			t.Fatalf("%s: %v", tc.what, err)
		}
		if got := chk.ReductionInPlace(&tc.p); got != tc.want {
			t.Errorf("%s (%s): in place = %v, want %v", tc.what, tc.p.String(), got, tc.want)
		}
		if got := ReductionInPlaceFor(&tc.p, chk.Layouts, tg); got != chk.ReductionInPlace(&tc.p) {
			t.Errorf("%s: ReductionInPlaceFor = %v disagrees with the verified check", tc.what, got)
		}
	}
}

// ReductionInPlace agrees with a walk over the public shard API: every
// grid tile holds a result shard whose extents lie inside the rows of its
// AMP left shard and the columns of its AMP right shard.
func TestReductionInPlaceAgreesWithShards(t *testing.T) {
	tg, err := target.Lookup("ipu21")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	inPlace := 0
	for trial := 0; trial < 300; trial++ {
		s := MatmulShape{Batch: 1, M: 1 + rng.Int64N(300), K: 16 + rng.Int64N(300), N: 1 + rng.Int64N(300),
			Elem: elem.F16, ResultElem: elem.F16}
		k := 2 + rng.Int64N(4)
		rr := 1 + rng.Int64N(k)
		p := GemmPlan{Orientation: Orientation(rng.IntN(2)), BatchPartitions: 1, RowPartitions: 1 + rng.Int64N(4),
			ColumnPartitions: 1 + rng.Int64N(3), InnerPartitions: k, ResultRowPartitions: rr, ResultColumnPartitions: max(1, k/rr),
			OutputColumnBlock: 16, WeightMemoryClass: "Ipu21Interleaved", ReductionStaging: Complete, LocalWeightStaging: Direct}
		chk, err := VerifyPlan(&p, s, tg)
		if err != nil {
			continue
		}
		want := true
		for tile := int64(0); tile < p.Tiles() && want; tile++ {
			l, okL := chk.LeftMap.OnTile(tile)
			r, okR := chk.RightMap.OnTile(tile)
			res, okP := chk.Result.OnTile(tile)
			if !okL || !okR || !okP {
				want = false
				break
			}
			n := len(res.Extents)
			// AMP rows: C's m (A's m) when Normal, C's n (B's n) when Swapped.
			resRows, leftRows, resCols, rightCols := res.Extents[n-2], l.Extents[n-2], res.Extents[n-1], r.Extents[n-1]
			if p.Orientation == Swapped {
				resRows, leftRows, resCols, rightCols = res.Extents[n-1], l.Extents[n-1], res.Extents[n-2], r.Extents[n-2]
			}
			inside := func(a, b Extent) bool { return a.Start >= b.Start && a.LogicalEnd <= b.LogicalEnd }
			want = inside(resRows, leftRows) && inside(resCols, rightCols)
		}
		if got := chk.ReductionInPlace(&p); got != want {
			t.Fatalf("%+v %s: ReductionInPlace = %v, shard walk says %v", s, p.String(), got, want)
		}
		if want {
			inPlace++
		}
	}
	if inPlace == 0 {
		t.Fatal("no random plan reduced in place: the test checks nothing")
	}
}
