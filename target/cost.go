package target

import (
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/internal/enum"
	"github.com/ipuir/ipuir/numeric"
)

// The cost model prices the three parts of a bulk-synchronous superstep:
// per-tile compute (AMP matmuls, vector elementwise ops, reductions), the
// all-tile sync, and the exchange phase. Every method is a pure function of
// the Target's fields. Counts are int64 and checked: a shape large enough to
// overflow is reported as an error, never wrapped into a negative cost.

// OpClass groups elementwise ops by what they cost on the vector unit.
type OpClass uint8

const (
	// Simple: add, sub, mul, neg, abs, min, max, compare, select, convert.
	Simple OpClass = iota + 1
	// Transcendental: exp, log, tanh, sqrt, rsqrt, divide, sigmoid, erf.
	Transcendental
)

var opClassNames = []string{Simple: "simple", Transcendental: "transcendental"}

// String returns "simple" or "transcendental".
func (c OpClass) String() string { return enum.Name(c, opClassNames, "OpClass") }

// ElementwiseCycles returns the cycles one tile spends applying one
// elementwise op of the given class to n elements of et on its vector
// unit: the n elements are cut into Lanes-wide vectors, the vectors shared
// evenly among the workers, and each worker issues once every
// WorkerIssueInterval cycles; one vertex launch is added. n = 0 costs nothing.
// The op is assumed to read at most two operands and write one, which the
// vector rates are validated to stay within the load/store rate for.
func (t *Target) ElementwiseCycles(n int64, et elem.Type, class OpClass) (int64, error) {
	if n < 0 {
		return 0, fmt.Errorf("target %s: elementwise op over a negative element count %d", t.Name, n)
	}
	rate, perVector, err := t.vectorCost(et, class)
	if err != nil || n == 0 {
		return 0, err
	}
	vectors := numeric.CeilDiv(n, int64(rate.Lanes))
	return t.workerCycles(vectors, perVector)
}

// ReductionCycles returns the cycles one tile spends reducing a block of
// shape over axes with a simple op (a sum or a max). When every reduced
// axis comes before every kept axis longer than one (a matmul's partial
// sums over its inner partitions, stacked in front of the result piece),
// each result's inputs lie a slice apart and the slices are combined
// elementwise, in vectors across the results: SliceCombineCycles.
// Otherwise each result's inputs are contiguous runs, reduced as rows:
// ReduceCycles.
func (t *Target) ReductionCycles(shape []int64, axes []int, et elem.Type) (int64, error) {
	n, reduced := int64(1), int64(1)
	var c checked
	leading, firstKept := true, len(shape)
	for i, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("target %s: reduction of a block with a negative extent %v", t.Name, shape)
		}
		n = c.mul(n, d)
		if slices.Contains(axes, i) {
			reduced = c.mul(reduced, d)
			leading = leading && i < firstKept
		} else if d > 1 && firstKept == len(shape) {
			firstKept = i
		}
	}
	if c.overflow {
		return 0, t.overflowError("reduction cycles")
	}
	if n == 0 || reduced == 0 {
		return 0, nil
	}
	if leading {
		return t.SliceCombineCycles(n, n/reduced, et)
	}
	return t.ReduceCycles(n, n/reduced, et)
}

// SliceCombineCycles returns the cycles one tile spends reducing n elements
// of et into groups results whose inputs lie groups apart: the n/groups
// slices are combined elementwise with a simple op, n − groups operations
// in vectors across the results (one slice is copied: groups operations).
func (t *Target) SliceCombineCycles(n, groups int64, et elem.Type) (int64, error) {
	if err := t.checkGroups(n, groups); err != nil || n == 0 {
		return 0, err
	}
	return t.ElementwiseCycles(max(n-groups, groups), et, Simple)
}

// checkGroups says whether n elements reduce into groups equal groups (0
// elements into any number).
func (t *Target) checkGroups(n, groups int64) error {
	switch {
	case n < 0 || groups < 0:
		return fmt.Errorf("target %s: reduction with a negative count (n %d, groups %d)", t.Name, n, groups)
	case n == 0:
		return nil
	case groups == 0 || n%groups != 0:
		return fmt.Errorf("target %s: cannot reduce %d elements into %d equal groups", t.Name, n, groups)
	}
	return nil
}

// ReduceCycles returns the cycles one tile spends reducing n elements of
// et into groups results of n/groups elements each (a row-wise sum or max:
// groups is the row count) with a simple op. Each group takes ⌈(n/groups)/
// Lanes⌉ vector accumulations and then ⌈log2 Lanes⌉ steps to fold its lanes;
// all that work is shared evenly among the workers. Assumption: when there
// are fewer groups than workers, each group is split over ⌊workers/groups⌋
// workers whose partial results are then combined in ⌈log2⌉ dependent steps,
// each one issue interval long. One vertex launch is added; n = 0 costs
// nothing.
func (t *Target) ReduceCycles(n, groups int64, et elem.Type) (int64, error) {
	if err := t.checkGroups(n, groups); err != nil || n == 0 {
		return 0, err
	}
	rate, perVector, err := t.vectorCost(et, Simple)
	if err != nil {
		return 0, err
	}
	var c checked
	perGroup := numeric.CeilDiv(n/groups, int64(rate.Lanes)) + numeric.CeilLog2(int64(rate.Lanes))
	vectors := c.mul(groups, perGroup)
	if c.overflow {
		return 0, t.overflowError("reduction cycles")
	}
	cycles, err := t.workerCycles(vectors, perVector)
	if err != nil {
		return 0, err
	}
	if workers := int64(t.WorkerThreads); groups < workers {
		split := workers / groups
		cycles += numeric.CeilLog2(split) * int64(t.WorkerIssueInterval) * perVector
	}
	return cycles, nil
}

// vectorCost returns the vector rate of et and the tile cycles per vector
// for the op class.
func (t *Target) vectorCost(et elem.Type, class OpClass) (VectorRate, int64, error) {
	rate, ok := t.VectorRateFor(et)
	if !ok {
		return VectorRate{}, 0, fmt.Errorf("target %s: no vector arithmetic for %v", t.Name, et)
	}
	switch class {
	case Simple:
		return rate, int64(rate.SimpleCyclesPerVector), nil
	case Transcendental:
		if rate.TranscendentalCyclesPerVector == 0 {
			return VectorRate{}, 0, fmt.Errorf("target %s: no transcendental ops for %v", t.Name, et)
		}
		return rate, int64(rate.TranscendentalCyclesPerVector), nil
	}
	return VectorRate{}, 0, fmt.Errorf("target %s: invalid op class %v", t.Name, class)
}

// workerCycles spreads vectors evenly over the workers. perVector is the
// tile's cycles per vector with every worker busy, which is the number of a
// worker's own issue slots one vector takes; a worker's slot comes round
// every WorkerIssueInterval cycles. So the busiest worker finishes after
// ⌈vectors/workers⌉·perVector·interval cycles, and with six workers and an
// interval of six a large op runs at one vector per perVector cycles.
func (t *Target) workerCycles(vectors, perVector int64) (int64, error) {
	var c checked
	perWorker := numeric.CeilDiv(vectors, int64(t.WorkerThreads))
	cycles := c.add(c.mul(c.mul(perWorker, perVector), int64(t.WorkerIssueInterval)), int64(t.VertexOverheadCycles))
	if c.overflow {
		return 0, t.overflowError("vector cycles")
	}
	return cycles, nil
}

// ExchangeWords returns the 32-bit exchange words needed to move the given
// number of bytes (a partial word still takes a whole one).
func (t *Target) ExchangeWords(bytes int64) (int64, error) {
	if bytes < 0 {
		return 0, fmt.Errorf("target %s: negative exchange size %d bytes", t.Name, bytes)
	}
	return numeric.CeilDiv(bytes, int64(t.ExchangeWordBytes)), nil
}

// ExchangeCycles returns the bandwidth bound of an exchange phase in which
// the busiest tile sends or receives maxWords words (pass the larger of the
// two: a tile sends and receives at the same time, one word per cycle each
// way). This is the per-phase lower bound a schedule can reach; latency is
// not included (see ExchangePhaseCycles).
func (t *Target) ExchangeCycles(maxWords int64) (int64, error) {
	if maxWords < 0 {
		return 0, fmt.Errorf("target %s: negative exchange word count %d", t.Name, maxWords)
	}
	return numeric.CeilDiv(maxWords, int64(t.ExchangeWordsPerCycle)), nil
}

// ExchangePhaseCycles returns the cycles of an exchange phase whose busiest
// tile moves maxWords words each way: the bandwidth bound plus the per-phase
// latency. A phase that moves nothing costs nothing.
func (t *Target) ExchangePhaseCycles(maxWords int64) (int64, error) {
	bound, err := t.ExchangeCycles(maxWords)
	if err != nil || maxWords == 0 {
		return 0, err
	}
	var c checked
	total := c.add(bound, int64(t.ExchangeLatencyCycles))
	if c.overflow {
		return 0, t.overflowError("exchange cycles")
	}
	return total, nil
}

// SuperstepCycles returns the cycles of one BSP superstep: the slowest
// tile's compute, one sync, then an exchange phase whose busiest tile moves
// maxWords words each way.
func (t *Target) SuperstepCycles(computeCycles, maxWords int64) (int64, error) {
	if computeCycles < 0 {
		return 0, fmt.Errorf("target %s: negative compute cycles %d", t.Name, computeCycles)
	}
	exchange, err := t.ExchangePhaseCycles(maxWords)
	if err != nil {
		return 0, err
	}
	var c checked
	total := c.add(c.add(computeCycles, int64(t.SyncCycles)), exchange)
	if c.overflow {
		return 0, t.overflowError("superstep cycles")
	}
	return total, nil
}

// BytesFor returns the bytes n elements of et occupy.
func (t *Target) BytesFor(n int64, et elem.Type) (int64, error) {
	if n < 0 {
		return 0, fmt.Errorf("target %s: negative element count %d", t.Name, n)
	}
	if !et.Valid() {
		return 0, fmt.Errorf("target %s: invalid element type %v", t.Name, et)
	}
	var c checked
	b := c.mul(n, int64(et.Bytes()))
	if c.overflow {
		return 0, t.overflowError("byte count")
	}
	return b, nil
}

// PeakMACsPerCycle returns the whole device's AMP multiply-accumulates per
// cycle for et: tiles × per-tile rate (94,208 for f16 on ipu21).
func (t *Target) PeakMACsPerCycle(et elem.Type) (int64, error) {
	rate, ok := t.AMPRateFor(et)
	if !ok {
		return 0, fmt.Errorf("target %s: the AMP unit does not take %v (it takes %v)", t.Name, et, t.ampTypes())
	}
	return int64(t.Tiles) * int64(rate.MACsPerCycle), nil
}

// ComputeLowerBoundCycles returns ⌈totalMACs / (tiles × MACs per tile per
// cycle)⌉: the cycles a perfectly balanced, overhead-free AMP schedule would
// need, which no plan can beat. For the reference workload on ipu21 that is
// 5.09 G MAC / 94,208 ≈ 54 k cycles (docs/targets.md, "Derived figures").
func (t *Target) ComputeLowerBoundCycles(totalMACs int64, et elem.Type) (int64, error) {
	if totalMACs < 0 {
		return 0, fmt.Errorf("target %s: negative MAC count %d", t.Name, totalMACs)
	}
	peak, err := t.PeakMACsPerCycle(et)
	if err != nil {
		return 0, err
	}
	return numeric.CeilDiv(totalMACs, peak), nil
}

// PartialsBoundCycles is ComputeLowerBoundCycles at the rate of the AMP
// vertex for et with the given partials type (half the peak for f16 inputs
// with f32 partials): the bound of a program that chose those partials.
func (t *Target) PartialsBoundCycles(totalMACs int64, et, partials elem.Type) (int64, error) {
	v, ok := t.AMPVertexFor(et, partials)
	if !ok || totalMACs < 0 {
		return 0, fmt.Errorf("target %s: no AMP bound for %d MACs of %v with %v partials", t.Name, totalMACs, et, partials)
	}
	return numeric.CeilDiv(totalMACs, int64(t.Tiles)*int64(v.MACsPerCycle())), nil
}

// Seconds converts a cycle count to seconds at the target's clock.
func (t *Target) Seconds(cycles int64) float64 { return float64(cycles) / float64(t.ClockHz) }

func (t *Target) ampTypes() []elem.Type {
	types := make([]elem.Type, len(t.AMP))
	for i, r := range t.AMP {
		types[i] = r.Elem
	}
	return types
}

func (t *Target) overflowError(what string) error {
	return fmt.Errorf("target %s: %s overflow int64", t.Name, what)
}

// checked accumulates int64 arithmetic on non-negative operands and
// remembers whether any step overflowed, so that a formula can be written
// in one expression and checked once.
type checked struct{ overflow bool }

func (c *checked) mul(a, b int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > math.MaxInt64 {
		c.overflow = true
		return 0
	}
	return int64(lo)
}

func (c *checked) add(a, b int64) int64 {
	s := a + b
	if s < a {
		c.overflow = true
		return 0
	}
	return s
}
