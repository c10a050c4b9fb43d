package pipeline

import (
	"math"
	"testing"

	"github.com/ipuir/ipuir/target"
)

func lookup(t *testing.T, name string) *target.Target {
	t.Helper()
	tg, err := target.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// The pipeline of three stages of 100, 300 and 200 cycles over 5
// micro-batches, links of 40 and 70 cycles into stages 1 and 2: a slot of
// 300 + 70 + the sync across chips, 5 + 3 - 1 slots.
func TestPriceHandComputed(t *testing.T) {
	tg := lookup(t, "test16x4")
	got, err := Price([]Stage{{Cycles: 100}, {Cycles: 300, LinkCycles: 40}, {Cycles: 200, LinkCycles: 70}}, tg, 5)
	if err != nil {
		t.Fatal(err)
	}
	slot := int64(300 + 70 + 1000)
	if got.Slot != slot || got.Total != 7*slot || got.Fill != 2*slot || got.Drain != 2*slot ||
		math.Abs(got.SteadyPerSecond-1.85e9/float64(slot)) > 1e-6 || math.Abs(got.PerSecond-5*1.85e9/float64(7*slot)) > 1e-6 {
		t.Errorf("Price = %+v", got)
	}
	if _, err := Price([]Stage{{Cycles: 1}}, tg, 0); err == nil {
		t.Error("no micro-batches priced")
	}
}

// Two phases over 4 micro-batches: each weight load once, activations and
// compute per micro-batch; the break-even reuse is the loads over one
// micro-batch's compute.
func TestPricePhasesHandComputed(t *testing.T) {
	tg := lookup(t, "test16")
	phases := []Phase{{Cycles: 1000, WeightLoadCycles: 6000, ActivationCycles: 50}, {Cycles: 3000, WeightLoadCycles: 2000, ActivationCycles: 70}}
	got, err := PricePhases(phases, tg, 4)
	if err != nil {
		t.Fatal(err)
	}
	if got.Weights != 8000 || got.Activations != 4*120 || got.Compute != 4*4000 || got.Total != 8000+480+16000 ||
		got.BreakEvenReuse != 2 || math.Abs(got.PerSecond-4*1.85e9/float64(got.Total)) > 1e-6 {
		t.Errorf("PricePhases = %+v", got)
	}
	if _, err := PricePhases(phases, tg, 0); err == nil {
		t.Error("no micro-batches priced")
	}
}

// With IO tiles, phase 1's prefetch (5,000 cycles) runs beside phase 0's
// compute (4 micro-batches of 1,000): 4,000 hidden, 1,000 exposed, then
// its hand-over (100) and the load of what the IO tiles did not hold
// (500). Five micro-batches hide it all.
func TestPricePhasesPrefetchHandComputed(t *testing.T) {
	tg := lookup(t, "test16{io-tiles=4}")
	phases := []Phase{{Cycles: 1000, WeightLoadCycles: 6000},
		{Cycles: 3000, WeightLoadCycles: 500, PrefetchCycles: 5000, MoveCycles: 100, ActivationCycles: 70}}
	got, err := PricePhases(phases, tg, 4)
	if err != nil {
		t.Fatal(err)
	}
	if got.IOTiles != 4 || got.Weights != 6000+500+100+1000 || got.Hidden != 4000 || got.Activations != 280 || got.Compute != 16000 ||
		got.Total != 7600+280+16000 || got.HiddenFrom != 5 || got.BreakEvenReuse != float64(11500)/4000 {
		t.Errorf("PricePhases = %+v", got)
	}
	five, err := PricePhases(phases, tg, 5)
	if err != nil {
		t.Fatal(err)
	}
	if five.Hidden != 5000 || five.Weights != 6600 {
		t.Errorf("five micro-batches: %+v", five)
	}
}
