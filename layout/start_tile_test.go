package layout

import (
	"strings"
	"testing"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/target"
)

// A plan that starts at tile s puts every shard of its operands, its
// result and its partial sums on tiles [s, s + Tiles()), each where the
// same plan from tile 0 puts it plus s; it verifies and reduces in place
// exactly as from tile 0. A start that runs the grid past the chip, or a
// negative one, is refused.
func TestPlanStartTileShiftsEveryLayout(t *testing.T) {
	tg, err := target.Lookup("ipu21")
	if err != nil {
		t.Fatal(err)
	}
	proj := MatmulShape{Batch: 1, M: 729, K: 1152, N: 1152, Elem: elem.F16, ResultElem: elem.F16}
	from0 := GemmPlan{Orientation: Swapped, BatchPartitions: 1, RowPartitions: 4, ColumnPartitions: 12, InnerPartitions: 8,
		ResultRowPartitions: 8, ResultColumnPartitions: 1, OutputColumnBlock: 16,
		WeightMemoryClass: "Ipu21Interleaved", ReductionStaging: Complete, LocalWeightStaging: Direct}
	const start = 700
	shifted := from0
	shifted.StartTile = start
	c0, err := VerifyPlan(&from0, proj, tg)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := VerifyPlan(&shifted, proj, tg)
	if err != nil {
		t.Fatalf("from tile %d: %v", start, err)
	}
	if c0.ReductionInPlace(&from0) != cs.ReductionInPlace(&shifted) {
		t.Error("the reduction's placement changed with the start tile")
	}
	compared := 0
	for _, x := range []struct {
		what   string
		l0, ls Layout
		shape  []int64
	}{
		{"LHS", c0.Layouts.LHS, cs.Layouts.LHS, c0.Layouts.LHSShape},
		{"RHS", c0.Layouts.RHS, cs.Layouts.RHS, c0.Layouts.RHSShape},
		{"result", c0.Layouts.Result, cs.Layouts.Result, c0.Layouts.ResultShape},
	} {
		m0, ms := mustMap(t, x.l0, x.shape), mustMap(t, x.ls, x.shape)
		tiles0, tiless := m0.Tiles(), ms.Tiles()
		if len(tiles0) != len(tiless) {
			t.Fatalf("%s: %d tiles from 0, %d from %d", x.what, len(tiles0), len(tiless), start)
		}
		for i, tile := range tiles0 {
			if tiless[i] != tile+start || tiless[i] >= start+shifted.Tiles() {
				t.Fatalf("%s: shard on tile %d from 0 is on tile %d from %d", x.what, tile, tiless[i], start)
			}
			a, _ := m0.OnTile(tile)
			b, _ := ms.OnTile(tile + start)
			for k := range a.Extents {
				if a.Extents[k] != b.Extents[k] {
					t.Fatalf("%s: tile %d's shard differs once shifted: %v and %v", x.what, tile, a.Extents, b.Extents)
				}
			}
			compared++
		}
	}
	p0, err := PartialsLayout(&from0, proj, tg)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := PartialsLayout(&shifted, proj, tg)
	if err != nil {
		t.Fatal(err)
	}
	if ps.Tiling.TileOffset != p0.Tiling.TileOffset+start {
		t.Errorf("partials from tile %d: offset %d", start, ps.Tiling.TileOffset)
	}
	t.Logf("%d shards on the same positions, %d tiles on", compared, start)

	for _, bad := range []struct {
		start int64
		want  string
	}{
		{int64(tg.Tiles) - from0.Tiles() + 1, "run past target ipu21's 1472"},
		{-1, "start_tile must be at least 0"},
	} {
		p := from0
		p.StartTile = bad.start
		if _, err := VerifyPlan(&p, proj, tg); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("start_tile %d: %v, want %q", bad.start, err, bad.want)
		}
	}
	// The attribute leaves a start at tile 0 out.
	if strings.Contains(from0.String(), "start_tile") || !strings.Contains(shifted.String(), "start_tile = 700") {
		t.Errorf("printed: %s and %s", from0.String(), shifted.String())
	}
}
