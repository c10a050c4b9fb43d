package tensor

import (
	"fmt"

	funcdialect "github.com/ipuir/ipuir/dialects/func"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/numeric"
)

// The attributes of a function cut into pipeline stages (the
// pipeline-stages pass): each op's stage, and the function's estimated
// cycles and weight bytes per stage.
const (
	StageAttr            = "ipu.stage"
	StageCyclesAttr      = "ipu.stage_cycles"
	StageWeightBytesAttr = "ipu.stage_weight_bytes"
)

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

// StageItem is one op as a cut sees it: its cycles and what it reads.
type StageItem struct {
	Cycles int64
	Reads  []WeightRead
}

// StageCut is where a function is cut: each item's stage, and per stage
// its items, cycles and weight bytes.
type StageCut struct {
	StageOf     []int
	Ops         []int
	Cycles      []int64
	WeightBytes []int64
}

// CutStages cuts items, in order, into stages contiguous runs, minimising
// the largest stage's cycles (or, byBytes, its weight bytes) while every
// stage's weight bytes stay within capacity. The smallest feasible bound
// is found by bisection; for a bound, the greedy fill (each stage takes
// items while it stays within the bound and the capacity) needs the fewest
// stages, and a run of items may be split further without raising either.
func CutStages(items []StageItem, stages int, capacity int64, byBytes bool) (*StageCut, error) {
	n := len(items)
	switch {
	case stages < 1:
		return nil, fmt.Errorf("%d pipeline stages", stages)
	case n < stages:
		return nil, fmt.Errorf("%d ops cannot make %d pipeline stages (at least one op a stage)", n, stages)
	case n > maxStageItems:
		return nil, fmt.Errorf("%d ops to cut into stages (at most %d)", n, maxStageItems)
	}
	// greedy returns the stage of every item under bound, or nil when
	// more stages than allowed would be needed or an item alone breaks
	// the capacity.
	greedy := func(bound int64) []int {
		stageOf := make([]int, n)
		k, load, bytes := 0, int64(0), int64(0)
		held := map[*ir.Value]bool{}
		for i, it := range items {
			add := int64(0)
			for _, r := range it.Reads {
				if !held[r.Value] {
					add = numeric.SatAdd(add, r.Bytes)
				}
			}
			cost := it.Cycles
			if byBytes {
				cost = add
			}
			if i > 0 && (numeric.SatAdd(load, cost) > bound || numeric.SatAdd(bytes, add) > capacity) {
				k++
				if k == stages {
					return nil
				}
				load, bytes, held = 0, 0, map[*ir.Value]bool{}
				add = 0
				for _, r := range it.Reads {
					add = numeric.SatAdd(add, r.Bytes)
				}
				if byBytes {
					cost = add
				}
			}
			if cost > bound || numeric.SatAdd(bytes, add) > capacity {
				return nil
			}
			for _, r := range it.Reads {
				held[r.Value] = true
			}
			load, bytes = numeric.SatAdd(load, cost), numeric.SatAdd(bytes, add)
			stageOf[i] = k
		}
		return stageOf
	}
	var hi int64
	for _, it := range items {
		c := it.Cycles
		if byBytes {
			for _, r := range it.Reads {
				c = numeric.SatAdd(c, r.Bytes)
			}
		}
		hi = numeric.SatAdd(hi, c)
	}
	best := greedy(hi)
	if best == nil {
		return nil, fmt.Errorf("the ops' weights do not fit %d stages of %d bytes each", stages, capacity)
	}
	lo := int64(0)
	for lo < hi {
		mid := lo + (hi-lo)/2
		if s := greedy(mid); s != nil {
			best, hi = s, mid
		} else {
			lo = mid + 1
		}
	}
	best = spread(best, stages)
	cut := &StageCut{StageOf: best, Ops: make([]int, stages), Cycles: make([]int64, stages), WeightBytes: make([]int64, stages)}
	held := make([]map[*ir.Value]bool, stages)
	for i, it := range items {
		k := best[i]
		if held[k] == nil {
			held[k] = map[*ir.Value]bool{}
		}
		cut.Ops[k]++
		cut.Cycles[k] = numeric.SatAdd(cut.Cycles[k], it.Cycles)
		for _, r := range it.Reads {
			if !held[k][r.Value] {
				held[k][r.Value] = true
				cut.WeightBytes[k] = numeric.SatAdd(cut.WeightBytes[k], r.Bytes)
			}
		}
	}
	return cut, nil
}

// spread makes a cut of fewer stages than asked use them all: it splits
// the last run of two or more items before its last item, moving the items
// from there on one stage up, until every stage has one (there are at
// least as many items as stages). A split raises no stage's load.
func spread(stageOf []int, stages int) []int {
	for used := stageOf[len(stageOf)-1] + 1; used < stages; used++ {
		j := len(stageOf) - 1
		for j > 0 && stageOf[j-1] != stageOf[j] {
			j--
		}
		for k := j; k < len(stageOf); k++ {
			stageOf[k]++
		}
	}
	return stageOf
}
