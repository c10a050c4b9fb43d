package trace

import (
	"testing"

	"github.com/ipuir/ipuir/runtime/device"
	"github.com/ipuir/ipuir/runtime/ipupkg"
)

// Instructions go on their busiest tile's track, one after another from
// their superstep's start, and stay inside its compute; exchanges follow
// the sync; a clock of 0 Hz is refused.
func TestBuildLaysOutSupersteps(t *testing.T) {
	p := &ipupkg.Package{Target: "t", Tiles: 4, Program: []ipupkg.Instruction{
		{Op: ipupkg.OpAmp, Origin: ipupkg.Origin{Name: "%q"}}, {Op: ipupkg.OpVector}, {Op: ipupkg.OpExchange, Origin: ipupkg.Origin{Name: "%x"}}}}
	c := &device.Cycles{Total: 1000, Supersteps: []device.SuperstepCycles{{Superstep: 0, Compute: 700, Sync: 100, Exchange: 200,
		Busy: device.TileLoad{Tile: 1, Load: 700, AtMax: 1, Working: 4}}},
		Ops: []device.OpCycles{
			{Instruction: 0, Op: "amp", Cycles: 500, Busy: device.TileLoad{Tile: 1, Load: 500, AtMax: 1, Working: 4}},
			{Instruction: 1, Op: "vector", Cycles: 200, Busy: device.TileLoad{Tile: 1, Load: 200, AtMax: 2, Working: 4}},
			{Instruction: 2, Op: "exchange", Cycles: 200, Busy: device.TileLoad{Tile: 3, Load: 50, AtMax: 1, Working: 4}}}}
	f, err := Build(p, c, 1_000_000) // a cycle is a microsecond
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][3]float64{ // name → track, start, duration
		"superstep 0": {trackSupersteps, 0, 1000}, "compute 0": {trackCompute, 0, 700}, "sync": {trackSync, 700, 100},
		"%q": {tileTrack + 1, 0, 500}, "vector": {tileTrack + 1, 500, 200}, "%x": {trackExchange, 800, 200}}
	seen := 0
	for _, e := range f.TraceEvents {
		if e.Phase != "X" {
			continue
		}
		w, ok := want[e.Name]
		if !ok || float64(e.TID) != w[0] || e.TS != w[1] || e.Dur != w[2] {
			t.Errorf("event %q on track %d at %g for %g, want %v", e.Name, e.TID, e.TS, e.Dur, w)
		}
		seen++
	}
	if seen != len(want) {
		t.Errorf("%d events, want %d", seen, len(want))
	}
	if _, err := Build(p, c, 0); err == nil {
		t.Error("a 0 Hz clock was accepted")
	}
}
