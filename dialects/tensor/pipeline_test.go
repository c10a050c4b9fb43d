package tensor

import (
	"slices"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/ir"
)

// items are ops of the given cycles, op i reading a weight of bytes[i]
// (shared when two ops name the same weight index).
func stageItems(cycles, bytes []int64, weightOf []int) []StageItem {
	weights := make([]*ir.Value, 64)
	for i := range weights {
		weights[i] = &ir.Value{}
	}
	items := make([]StageItem, len(cycles))
	for i := range cycles {
		items[i].Cycles = cycles[i]
		if bytes[i] > 0 {
			items[i].Reads = []WeightRead{{Value: weights[weightOf[i]], Bytes: bytes[i]}}
		}
	}
	return items
}

func TestCutStagesBalancesCycles(t *testing.T) {
	// Best cut of 10 20 30 40 50 60 into three: [10 20 30 40][50][60]
	// has 100 at most; [10 20 30][40 50][60] has 90: the bisection
	// finds 90.
	items := stageItems([]int64{10, 20, 30, 40, 50, 60}, make([]int64, 6), make([]int, 6))
	cut, err := CutStages(items, 3, 1<<40, false)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 0, 0, 1, 1, 2}; !slices.Equal(cut.StageOf, want) {
		t.Errorf("StageOf = %v, want %v", cut.StageOf, want)
	}
	if want := []int64{60, 90, 60}; !slices.Equal(cut.Cycles, want) || !slices.Equal(cut.Ops, []int{3, 2, 1}) {
		t.Errorf("Cycles = %v, Ops = %v; want %v", cut.Cycles, cut.Ops, want)
	}
	// Brute force agrees over every cut of six items into three runs.
	best := int64(1 << 62)
	for a := 1; a < 6; a++ {
		for b := a + 1; b < 6; b++ {
			runs := [][]StageItem{items[:a], items[a:b], items[b:]}
			worst := int64(0)
			for _, r := range runs {
				s := int64(0)
				for _, it := range r {
					s += it.Cycles
				}
				worst = max(worst, s)
			}
			best = min(best, worst)
		}
	}
	if slices.Max(cut.Cycles) != best {
		t.Errorf("slowest stage %d, brute force %d", slices.Max(cut.Cycles), best)
	}
}

func TestCutStagesBalancesBytesAndKeepsCapacity(t *testing.T) {
	// Four layers: three of heavy compute and light weights, one the
	// reverse. By cycles the cut falls in the middle; by bytes (PopART's
	// sharding) after the third, which leaves one stage three times the
	// other's work.
	cycles := []int64{100, 100, 100, 10}
	bytes := []int64{10, 10, 10, 300}
	weightOf := []int{0, 1, 2, 3}
	byCycles, err := CutStages(stageItems(cycles, bytes, weightOf), 2, 1<<40, false)
	if err != nil {
		t.Fatal(err)
	}
	byBytes, err := CutStages(stageItems(cycles, bytes, weightOf), 2, 1<<40, true)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(byCycles.Cycles, []int64{200, 110}) || !slices.Equal(byCycles.WeightBytes, []int64{20, 310}) ||
		!slices.Equal(byBytes.Cycles, []int64{300, 10}) || !slices.Equal(byBytes.WeightBytes, []int64{30, 300}) {
		t.Errorf("by cycles %v (bytes %v); by bytes %v (cycles %v)", byCycles.Cycles, byCycles.WeightBytes, byBytes.WeightBytes, byBytes.Cycles)
	}
	// With 300 bytes a stage the balanced cut's second stage (310 bytes)
	// does not fit, so the cut by cycles moves to where the weights fit.
	fitted, err := CutStages(stageItems(cycles, bytes, weightOf), 2, 300, false)
	if err != nil || !slices.Equal(fitted.Cycles, []int64{300, 10}) {
		t.Errorf("by cycles within 300 bytes a stage: %v, %v", fitted, err)
	}
	// A capacity of 250 bytes a stage: the 300-byte weight fits no stage.
	if _, err := CutStages(stageItems(cycles, bytes, weightOf), 2, 250, false); err == nil || !strings.Contains(err.Error(), "do not fit 2 stages of 250 bytes") {
		t.Errorf("capacity 250: %v", err)
	}
	// A weight read twice in a stage is held once.
	shared, err := CutStages(stageItems([]int64{1, 1}, []int64{64, 64}, []int{5, 5}), 1, 64, false)
	if err != nil || shared.WeightBytes[0] != 64 {
		t.Errorf("a shared weight: %v, %v", shared, err)
	}
}

func TestCutStagesUsesEveryStage(t *testing.T) {
	// One op carries all the cost: the bound is its cost, and the greedy
	// fill would put every other op in one stage; every stage still gets
	// an op.
	cut, err := CutStages(stageItems([]int64{1000, 1, 1, 1, 1}, make([]int64, 5), make([]int, 5)), 4, 1<<40, false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cut.StageOf, []int{0, 1, 1, 2, 3}) || slices.Contains(cut.Ops, 0) {
		t.Errorf("StageOf = %v, Ops %v", cut.StageOf, cut.Ops)
	}
	for _, c := range []struct {
		n, stages int
		want      string
	}{{2, 3, "2 ops cannot make 3 pipeline stages"}, {3, 0, "0 pipeline stages"}} {
		if _, err := CutStages(stageItems(make([]int64, c.n), make([]int64, c.n), make([]int, c.n)), c.stages, 1, false); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%d ops, %d stages: %v", c.n, c.stages, err)
		}
	}
}

// A stage that starts where much is live pays its link transfer: the cut
// moves to where the entry costs nothing, though the compute alone would
// balance best elsewhere.
func TestCutStagesPaysForWhatCrosses(t *testing.T) {
	items := stageItems([]int64{10, 10, 10, 10}, make([]int64, 4), make([]int, 4))
	items[2].EntryCycles = 50
	cut, err := CutStages(items, 2, 1<<40, false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cut.StageOf, []int{0, 0, 0, 1}) || !slices.Equal(cut.Cycles, []int64{30, 10}) || !slices.Equal(cut.LinkCycles, []int64{0, 0}) {
		t.Errorf("StageOf %v, Cycles %v, LinkCycles %v", cut.StageOf, cut.Cycles, cut.LinkCycles)
	}
}

// CrossingBytes: what earlier ops computed and later ops read, at each
// op: a chain of f16 ops of 4×8 (64 bytes) with one value read two ops on.
func TestCrossingBytes(t *testing.T) {
	f := newFixture(t)
	ty := f.tensor(f.ctx.F16(), 4, 8)
	c := f.constant(ty, 1)
	a := f.build(ExpOpName, []*ir.Value{c})    // op 0 (after the constant)
	b := f.build(ExpOpName, []*ir.Value{a})    // op 1
	d := f.build(AddOpName, []*ir.Value{b, a}) // op 2: reads a again
	f.build(ExpOpName, []*ir.Value{d})         // op 3
	ops := f.block.Ops()
	got := CrossingBytes(ops)
	// The constant (op 0 of the block) counts like any op here; the pass
	// leaves constants out of the ops it gives. Entering op 1 crosses the
	// constant's value; op 2, a; op 3, a and b; op 4, d.
	if want := []int64{0, 64, 64, 128, 64}; !slices.Equal(got, want) {
		t.Errorf("CrossingBytes = %v, want %v", got, want)
	}
}
