package tensor

import (
	"errors"
	"fmt"
	"slices"

	funcdialect "github.com/ipuir/ipuir/dialects/func"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/numeric"
)

// The attributes of a function cut into pipeline stages (the
// pipeline-stages pass): each op's stage, and the function's estimated
// cycles and weight bytes per stage, and how many chips each stage spans
// (on a pod; absent: one).
const (
	StageAttr            = "ipu.stage"
	StageCyclesAttr      = "ipu.stage_cycles"
	StageWeightBytesAttr = "ipu.stage_weight_bytes"
	StageChipsAttr       = "ipu.stage_chips"
)

// StageChips is how many chips each stage of fn spans (its StageChipsAttr;
// 1 without one).
func StageChips(fn *ir.Operation) int {
	if a, ok := fn.Attr(StageChipsAttr).(*ir.IntegerAttr); ok && a.Int > 1 && a.Int <= 1<<16 {
		return int(a.Int)
	}
	return 1
}

// maxStageItems bounds the ops a cut takes (its work is linear in them
// times the log of the total cost).
const maxStageItems = 1 << 24

// Functions returns module's func.func ops with bodies, in order.
func Functions(module *ir.Operation) []*ir.Operation {
	var fns []*ir.Operation
	for _, op := range ir.ModuleBody(module).Ops() {
		if op.Is(funcdialect.FuncOp) && op.Region(0).Front() != nil {
			fns = append(fns, op)
		}
	}
	return fns
}

// StagelessOp reports whether op belongs to no stage: the terminator, and
// constants, which every stage that reads one copies.
func StagelessOp(op *ir.Operation) bool {
	switch op.Name() {
	case ConstantOpName, SplatOpName, funcdialect.ReturnOpName:
		return true
	}
	return false
}

// WeightRead is a value a stage must hold for one of its ops from the
// start: a function argument (a weight or an input the host delivers to
// the stage's chip) or a constant the stage copies.
type WeightRead struct {
	Value *ir.Value
	Bytes int64
}

// WeightReads lists the arguments and constants op (and the ops nested in
// it) reads, each once.
func WeightReads(op *ir.Operation) []WeightRead {
	var reads []WeightRead
	seen := map[*ir.Value]bool{}
	op.Walk(func(o *ir.Operation) ir.WalkResult {
		for _, v := range o.Operands() {
			if seen[v] {
				continue
			}
			def := v.DefiningOp()
			arg := v.IsBlockArgument() && v.OwnerBlock() != nil && v.OwnerBlock().ParentOp() != nil && v.OwnerBlock().ParentOp().Is(funcdialect.FuncOp)
			if !arg && (def == nil || def.Name() != ConstantOpName) {
				continue
			}
			seen[v] = true
			bytes := valueBytes(v)
			if def != nil && isSplat(def.Attr("value")) {
				bytes = int64(ir.ElementByteSize(ir.ElementTypeOrSelf(v.Type()))) // one element on each tile
			}
			reads = append(reads, WeightRead{Value: v, Bytes: bytes})
		}
		return ir.WalkAdvance
	})
	return reads
}

// isSplat reports whether a constant's value is one element repeated (a
// tile holds the element, not the tensor).
func isSplat(a ir.Attribute) bool {
	switch d := a.(type) {
	case *ir.DenseElementsAttr:
		return d.Splat
	case *ir.DenseStringElementsAttr:
		return d.Splat
	}
	return false
}

// valueBytes is a ranked tensor's size in bytes (0 for others).
func valueBytes(v *ir.Value) int64 {
	rt, ok := v.Type().(*ir.RankedTensorType)
	if !ok {
		return 0
	}
	n, w := ir.NumElements(rt.Dims), int64(ir.ElementByteSize(rt.Elem))
	if n < 0 || w <= 0 {
		return 0
	}
	return numeric.SatMul(n, w)
}

// StageItem is one op as a cut sees it: its cycles, what it reads, and
// EntryCycles, what a stage that starts at it pays first: the link
// transfer of the values earlier ops computed that it or later ops read
// (CrossingBytes).
type StageItem struct {
	Cycles      int64
	Reads       []WeightRead
	EntryCycles int64
}

// StageCut is where a function is cut: each item's stage, and per stage
// its items, cycles (its ops'), link cycles (its entry's) and weight
// bytes.
type StageCut struct {
	StageOf     []int
	Ops         []int
	Cycles      []int64
	LinkCycles  []int64
	WeightBytes []int64
}

// CrossingBytes returns, for each of ops (a function's ops in order, all
// in one block), the bytes of the values that ops before it compute and it
// or ops after it read: what crosses to a stage that starts there.
// Constants' values are not counted (each stage copies its own).
func CrossingBytes(ops []*ir.Operation) []int64 {
	index := make(map[*ir.Operation]int, len(ops))
	for i, op := range ops {
		index[op] = i
	}
	last := map[*ir.Value]int{} // a value's last reader among ops
	for i, op := range ops {
		op.Walk(func(o *ir.Operation) ir.WalkResult {
			for _, v := range o.Operands() {
				def := v.DefiningOp()
				for def != nil && def.Block() != op.Block() {
					def = def.ParentOp()
				}
				if d, ok := index[def]; ok && d < i && def == v.DefiningOp() {
					last[v] = max(last[v], i)
				}
			}
			return ir.WalkAdvance
		})
	}
	// Each value crosses every start after its op, up to its last reader.
	diff := make([]int64, len(ops)+1)
	for v, u := range last {
		d := index[v.DefiningOp()] // a top-level op's result: nested values stay inside
		b := valueBytes(v)
		diff[d+1] = numeric.SatAdd(diff[d+1], b)
		diff[u+1] -= b
	}
	out := make([]int64, len(ops))
	run := int64(0)
	for i := range ops {
		run += diff[i]
		out[i] = run
	}
	return out
}

// CutStages cuts items, in order, into stages contiguous runs. By cycles
// it minimises what the pipeline's slot is made of: the slowest stage's
// compute plus the slowest entry's link cycles. For each entry limit L
// (the distinct entry costs, at most maxEntryLimits of them, evenly
// chosen), stages may start only where the entry costs at most L, and the
// smallest bound on a stage's compute for which the cut exists is found
// by bisection; the cut of least bound + L wins. byBytes, it minimises the
// largest stage's weight bytes, wherever stages start. Every stage's
// weight bytes stay within capacity. For a bound, the greedy fill (each
// stage ends at the last allowed start that keeps it within the bound and
// the capacity) needs the fewest stages; a run of items may be split
// further at an allowed start without raising either.
func CutStages(items []StageItem, stages int, capacity int64, byBytes bool) (*StageCut, error) {
	n := len(items)
	switch {
	case stages < 1:
		return nil, fmt.Errorf("%d pipeline stages", stages)
	case n < stages:
		return nil, fmt.Errorf("%d ops cannot make %d pipeline stages (at least one op a stage; a model this small fits one chip: compile it for the chip's target)", n, stages)
	case n > maxStageItems:
		return nil, fmt.Errorf("%d ops to cut into stages (at most %d)", n, maxStageItems)
	}
	// cost is an item's share of a stage's load: its cycles, or the
	// weight bytes it adds to those already held.
	cost := func(it StageItem, held map[*ir.Value]bool) (load, bytes int64) {
		for _, r := range it.Reads {
			if !held[r.Value] {
				bytes = numeric.SatAdd(bytes, r.Bytes)
			}
		}
		if byBytes {
			return bytes, bytes
		}
		return it.Cycles, bytes
	}
	// greedy returns the stage of every item when every stage's load
	// stays within bound and its bytes within capacity with stages
	// starting only where allowed, or nil.
	greedy := func(bound int64, allowed func(i int) bool) []int {
		stageOf := make([]int, n)
		k, start := 0, 0
		var load, bytes int64
		held := map[*ir.Value]bool{}
		// refill recomputes the stage from start to i.
		refill := func(i int) {
			load, bytes, held = 0, 0, map[*ir.Value]bool{}
			for j := start; j <= i; j++ {
				l, b := cost(items[j], held)
				load, bytes = numeric.SatAdd(load, l), numeric.SatAdd(bytes, b)
				for _, r := range items[j].Reads {
					held[r.Value] = true
				}
				stageOf[j] = k
			}
		}
		for i, it := range items {
			l, b := cost(it, held)
			load, bytes = numeric.SatAdd(load, l), numeric.SatAdd(bytes, b)
			for _, r := range it.Reads {
				held[r.Value] = true
			}
			stageOf[i] = k
			for load > bound || bytes > capacity {
				// End the stage at the last allowed start after its own.
				cut := -1
				for j := i; j > start; j-- {
					if allowed(j) {
						cut = j
						break
					}
				}
				if cut < 0 {
					return nil
				}
				if k++; k == stages {
					return nil
				}
				start = cut
				refill(i)
			}
		}
		return stageOf
	}
	var hi int64
	for _, it := range items {
		l, b := cost(it, nil)
		hi = numeric.SatAdd(hi, max(l, b))
	}
	// The entry limits to try: every distinct entry cost (by cycles), or
	// none (by bytes).
	limits := []int64{numeric.Saturated}
	if !byBytes {
		var entries []int64
		for _, it := range items[1:] {
			entries = append(entries, it.EntryCycles)
		}
		slices.Sort(entries)
		entries = slices.Compact(entries)
		if len(entries) > maxEntryLimits {
			picked := make([]int64, maxEntryLimits)
			for i := range picked {
				picked[i] = entries[i*(len(entries)-1)/(maxEntryLimits-1)]
			}
			entries = picked
		}
		limits = entries
	}
	var best []int
	bestScore := int64(-1)
	for _, limit := range limits {
		allowed := func(i int) bool { return byBytes || items[i].EntryCycles <= limit }
		cut := greedy(hi, allowed)
		if cut == nil {
			continue
		}
		lo, top := int64(0), hi
		for lo < top {
			mid := lo + (top-lo)/2
			if s := greedy(mid, allowed); s != nil {
				cut, top = s, mid
			} else {
				lo = mid + 1
			}
		}
		if cut = spread(cut, stages, allowed); cut[n-1]+1 < stages {
			continue // too few allowed starts for every stage
		}
		score := top
		if !byBytes {
			score = numeric.SatAdd(top, limit)
		}
		if best == nil || score < bestScore {
			best, bestScore = cut, score
		}
	}
	if best == nil {
		return nil, stageWeightsError(fmt.Sprintf("the ops' weights do not fit %d stages of %d bytes each (or the stages have too few places to start)", stages, capacity))
	}
	out := &StageCut{StageOf: best, Ops: make([]int, stages), Cycles: make([]int64, stages), LinkCycles: make([]int64, stages), WeightBytes: make([]int64, stages)}
	held := make([]map[*ir.Value]bool, stages)
	for i, it := range items {
		k := best[i]
		if held[k] == nil {
			held[k] = map[*ir.Value]bool{}
			if i > 0 {
				out.LinkCycles[k] = it.EntryCycles
			}
		}
		out.Ops[k]++
		out.Cycles[k] = numeric.SatAdd(out.Cycles[k], it.Cycles)
		for _, r := range it.Reads {
			if !held[k][r.Value] {
				held[k][r.Value] = true
				out.WeightBytes[k] = numeric.SatAdd(out.WeightBytes[k], r.Bytes)
			}
		}
	}
	return out, nil
}

// maxEntryLimits bounds the entry limits a cut by cycles tries (each is a
// bisection over the items).
const maxEntryLimits = 32

// spread makes a cut of fewer stages than asked use them all: it splits
// the last run that has an allowed start after its first item there,
// moving the items from there on one stage up, until every stage has one
// or no run can be split (then the cut has fewer stages; its caller's
// count says so). A split raises no stage's load.
func spread(stageOf []int, stages int, allowed func(i int) bool) []int {
	for used := stageOf[len(stageOf)-1] + 1; used < stages; used++ {
		j := len(stageOf) - 1
		for j > 0 && (stageOf[j-1] != stageOf[j] || !allowed(j)) {
			j--
		}
		if j == 0 {
			break
		}
		for k := j; k < len(stageOf); k++ {
			stageOf[k]++
		}
	}
	return stageOf
}

// ErrStageWeights is what CutStages's refusal for want of room is
// (errors.Is): the weights do not fit the stages, where more stages may.
var ErrStageWeights = errors.New("the ops' weights do not fit the stages")

type stageWeightsError string

func (e stageWeightsError) Error() string        { return string(e) }
func (e stageWeightsError) Is(target error) bool { return target == ErrStageWeights }
