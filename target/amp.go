package target

import (
	"fmt"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/numeric"
)

// The AMP (accumulating matrix product) unit's cost follows the structure
// of PopLibs' public cycle estimators for its conv-partials vertices
// (lib/poplin/PerformanceEstimation.hpp, the 1×1 vertex's
// getConvPartial1x1SupervisorInnerLoopCycleEstimateHalfFloat and
// getConvPartial1x1SupervisorOuterLoopCycleEstimateHalfFloat, and
// getConvPartialAmpSupervisorWeightLoadCycleEstimate), which a matmul on
// one tile is: a 1×1 convolution whose field is the left operand's rows,
// whose input channels are the inner axis and whose output channels are
// the columns. Our own words for its parts:
//
//   - a pass computes ConvUnits output channels of every row against one
//     block of InputChannels input channels: the supervisor loads the
//     block's weights into the conv units (ConvUnits·InputChannels·bytes
//     over the load width: 16 bytes a cycle with 128-bit loads from
//     interleaved memory, 8 from standard memory), spends PassCycles of its
//     own, and runs the six workers over the rows;
//   - the workers split the rows, ⌈m/6⌉ to the busiest; a worker with n
//     rows takes WorkerCycles + RowCycles·n worker cycles (n ≥ 3; one and two
//     rows are priced as the estimator prices them, ShortRowCycles), and a
//     worker cycle is WorkerThreads tile cycles, since the six interleave;
//     the supervisor's hand-off to the least busy worker adds TagCycles;
//   - the first input-channel block zeroes the partials (ZeroCycles +
//     ZeroRowCycles·n worker cycles where the vertex zeroes separately);
//   - per block of input channels the supervisor adds InGroupCycles
//     (FirstInGroupCycles for the first), per independent product (a batch
//     entry; a conv group for PopLibs) GroupCycles, and per vertex
//     VertexCycles.
//
// The partials type picks the vertex: f16 inputs accumulating in f32 use
// half the conv units that f16 partials use (PopLibs' estimator shares one
// code path between "half activations, half partials, 16 conv units" and
// "half activations, float partials, 8 conv units"; its SLIC vertex chooser
// in lib/poplin/ConvVertexType.cpp gives float partials two conv chains
// where half partials get four), so f32 partials run at half the rate.

// AMPVertex is the cost of the AMP's conv-partials vertex for one pair of
// input and partials types, and the grain the layouts pad a matmul's
// per-tile block to.
type AMPVertex struct {
	Elem     elem.Type // the operands' type
	Partials elem.Type // the accumulators' type
	// The block grain of layouts: left rows, bytes of the inner axis and
	// result columns (RowGroup is the six workers' split).
	RowGroup, InnerGroupBytes, ColumnGroup int
	// ConvUnits is the output channels (result columns) one pass computes.
	ConvUnits int
	// RowCycles is a worker's cycles per row of a pass in its core loop.
	RowCycles int
	// WorkerCycles is a worker's cycles per pass besides its rows (three
	// rows or more); ShortRowCycles[n-1] is its whole pass with n = 1 or 2
	// rows.
	WorkerCycles   int
	ShortRowCycles [2]int
	// ZeroCycles and ZeroRowCycles are a worker's extra cycles in the first
	// block of input channels, where the vertex zeroes its partials.
	ZeroCycles, ZeroRowCycles int
	// TagCycles is added to the least busy worker for the supervisor's
	// hand-off; it decides the time when the rows split evenly.
	TagCycles int
	// PassCycles is the supervisor's cycles per pass besides loading the
	// weights.
	PassCycles int
	// FirstInGroupCycles and InGroupCycles are the supervisor's cycles per
	// block of input channels (the first, and each further one).
	FirstInGroupCycles, InGroupCycles int
	// GroupCycles is per independent product; VertexCycles per vertex.
	GroupCycles, VertexCycles int
}

// InputChannels is how many elements of the inner axis one weight block
// holds.
func (v AMPVertex) InputChannels() int { return v.InnerGroupBytes / v.Elem.Bytes() }

// MACsPerCycle is the vertex's peak rate per tile: ConvUnits × InputChannels
// multiply-accumulates per row, a row every RowCycles tile cycles with all
// six workers busy.
func (v AMPVertex) MACsPerCycle() int { return v.ConvUnits * v.InputChannels() / max(v.RowCycles, 1) }

// DefaultPartials is the partials type of a matmul that chooses none:
// PopLibs' own default (poplin's matmul and convolution option
// partialsType is float), and the accumulation the simulated device
// computes.
const DefaultPartials = elem.F32

// AMPWork is one tile's share of a matmul on the AMP: Batch independent
// products of Rows×Inner by Inner×Columns, each extent as the tile stores
// it (padded as the layouts pad).
type AMPWork struct {
	Batch, Rows, Inner, Columns int64
	Elem, Partials              elem.Type
	// Loads128 says the weights (the AMP's right operand) are in a memory
	// class that serves 128-bit loads.
	Loads128 bool
}

// AMPVertexFor returns the vertex for inputs of et accumulating in
// partials, or false if the AMP has none.
func (t *Target) AMPVertexFor(et, partials elem.Type) (AMPVertex, bool) {
	for _, v := range t.AMPVertices {
		if v.Elem == et && v.Partials == partials {
			return v, true
		}
	}
	return AMPVertex{}, false
}

// AMPCycles is the one price of AMP work: the planner's estimate, the
// tiled estimator and the simulated device all call it, so a plan costs
// what it runs at. A zero extent is no work and costs nothing.
func (t *Target) AMPCycles(w AMPWork) (int64, error) {
	if w.Batch < 0 || w.Rows < 0 || w.Inner < 0 || w.Columns < 0 {
		return 0, fmt.Errorf("target %s: matmul with a negative dimension (batch %d, m %d, k %d, n %d)", t.Name, w.Batch, w.Rows, w.Inner, w.Columns)
	}
	v, ok := t.AMPVertexFor(w.Elem, w.Partials)
	if !ok {
		return 0, fmt.Errorf("target %s: the AMP has no vertex for %v inputs with %v partials", t.Name, w.Elem, w.Partials)
	}
	if w.Batch == 0 || w.Rows == 0 || w.Inner == 0 || w.Columns == 0 {
		return 0, nil
	}
	workers := int64(max(t.WorkerThreads, 1))
	loadBytes := int64(max(t.AMPWeightLoadBytes, 2))
	if !w.Loads128 {
		loadBytes /= 2
	}
	var c checked
	weightLoad := numeric.CeilDiv(int64(v.ConvUnits*v.InnerGroupBytes), loadBytes)
	inGroups := numeric.CeilDiv(w.Inner, int64(v.InputChannels()))
	passes := numeric.CeilDiv(w.Columns, int64(v.ConvUnits))
	// The busiest worker has ⌈m/W⌉ rows, the least busy ⌊m/W⌋; the
	// workers' time in tile cycles is the busier of the two, the least busy
	// one carrying the hand-off.
	hi, lo := numeric.CeilDiv(w.Rows, workers), w.Rows/workers
	workersTime := func(zeroing bool) int64 {
		busiest := c.mul(workers, v.workerCycles(hi, zeroing, &c))
		least := int64(0)
		if lo > 0 {
			least = c.mul(workers, v.workerCycles(lo, zeroing, &c))
		}
		return max(busiest, c.add(least, int64(v.TagCycles)))
	}
	pass := func(zeroing bool) int64 {
		return c.add(int64(v.PassCycles)+weightLoad, workersTime(zeroing))
	}
	first := c.add(int64(v.FirstInGroupCycles), c.mul(passes, pass(true)))
	later := c.mul(inGroups-1, c.add(int64(v.InGroupCycles), c.mul(passes, pass(false))))
	product := c.add(int64(v.GroupCycles), c.add(first, later))
	total := c.add(int64(v.VertexCycles), c.mul(w.Batch, product))
	if c.overflow {
		return 0, t.overflowError("matmul cycles")
	}
	return total, nil
}

// workerCycles is one worker's cycles for a pass over n rows, zeroing its
// partials or not.
func (v AMPVertex) workerCycles(n int64, zeroing bool, c *checked) int64 {
	var cycles int64
	switch n {
	case 1, 2:
		cycles = int64(v.ShortRowCycles[n-1])
	default:
		cycles = c.add(int64(v.WorkerCycles), c.mul(int64(v.RowCycles), n))
	}
	if zeroing {
		cycles = c.add(cycles, c.add(int64(v.ZeroCycles), c.mul(int64(v.ZeroRowCycles), n)))
	}
	return cycles
}

// poplibsAMPVertices are the three vertices of the Mk2 tile, from the 1×1
// conv-partials estimators of lib/poplin/PerformanceEstimation.hpp (the
// mk2-main branch of graphcore/poplibs); Figures says which function each
// figure is read from.
//
// f16 inputs (both partials types take the estimator's common half path):
// a worker's pass is 38 + 4·(n−3) cycles for n ≥ 3 rows, 33 for one row,
// 42 for two, less the 7 cycles that retaining worker state saves; the
// supervisor pays those back as 6·7 once per vertex and 6·3 per further
// block of input channels (conv1x1WorkerRetentionSavings: 7 and 3), which
// VertexCycles (50 + 6·7 − 6·3 = 74), FirstInGroupCycles (11 + 18) and
// InGroupCycles (15 + 18) include. f16 partials have 16 conv units,
// f32 partials 8.
//
// f32 inputs: 16 conv units of 8 input channels (32 bytes), 8 cycles a row,
// 46 + 8·(n−3) a pass for n ≥ 3, 47 for one row and 46 for two, and the
// first block zeroes its partials at 2 + 8·n; no state retention.
func poplibsAMPVertices() []AMPVertex {
	half := func(partials elem.Type, units int) AMPVertex {
		return AMPVertex{Elem: elem.F16, Partials: partials, RowGroup: 6, InnerGroupBytes: 32, ColumnGroup: 16,
			ConvUnits: units, RowCycles: 4, WorkerCycles: 38 - 12 - 7, ShortRowCycles: [2]int{33 - 7, 42 - 7},
			TagCycles: 14, PassCycles: 25, FirstInGroupCycles: 11 + 18, InGroupCycles: 15 + 18, GroupCycles: 13, VertexCycles: 74}
	}
	return []AMPVertex{
		half(elem.F16, 16),
		half(elem.F32, 8),
		{Elem: elem.F32, Partials: elem.F32, RowGroup: 6, InnerGroupBytes: 32, ColumnGroup: 16,
			ConvUnits: 16, RowCycles: 8, WorkerCycles: 46 - 24, ShortRowCycles: [2]int{47, 46}, ZeroCycles: 2, ZeroRowCycles: 8,
			TagCycles: 14, PassCycles: 25, FirstInGroupCycles: 11, InGroupCycles: 15, GroupCycles: 13, VertexCycles: 50},
	}
}
