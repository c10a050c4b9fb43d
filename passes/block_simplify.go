package passes

import "github.com/ipuir/ipuir/ir"

// Block-level region simplification that needs to know which operands a
// branch passes to which successor (ir.Operation.SuccessorOperands):
// dropping unused block arguments (MLIR does it at region-simplify=normal,
// as part of its region DCE) and merging identical blocks (MLIR's
// aggressive level). Blocks reached from a branch that does not declare
// its successor operands are left alone.

// branchSlot is one successor entry of a terminator.
type branchSlot struct {
	op    *ir.Operation
	index int
}

// knownPredecessors returns the branch slots of r that lead to b, and
// whether every one declares its successor operands for b's arguments.
func knownPredecessors(r *ir.Region, b *ir.Block) ([]branchSlot, bool) {
	var slots []branchSlot
	for _, p := range r.Blocks() {
		// The last op, not Terminator(): an unregistered op has no
		// terminator trait but may branch.
		t := p.Last()
		if t == nil {
			continue
		}
		for i, s := range t.Successors() {
			if s != b {
				continue
			}
			if _, n, ok := t.SuccessorOperands(i); !ok || n != b.NumArguments() {
				return nil, false
			}
			slots = append(slots, branchSlot{t, i})
		}
	}
	return slots, true
}

// forEachRegion calls f on regions and every region nested in them.
func forEachRegion(regions []*ir.Region, f func(r *ir.Region) bool) bool {
	changed := false
	for _, r := range regions {
		if f(r) {
			changed = true
		}
		for _, b := range r.Blocks() {
			for o := b.First(); o != nil; o = o.Next() {
				if forEachRegion(o.Regions(), f) {
					changed = true
				}
			}
		}
	}
	return changed
}

// dropDeadBlockArguments erases unused arguments of non-entry blocks
// together with the operands every predecessor passes for them.
func dropDeadBlockArguments(rw *ir.Rewriter, regions []*ir.Region) bool {
	return forEachRegion(regions, func(r *ir.Region) bool {
		changed := false
		for _, b := range r.Blocks()[min(1, r.NumBlocks()):] {
			if b.NumArguments() == 0 {
				continue
			}
			slots, ok := knownPredecessors(r, b)
			if !ok {
				continue
			}
			for k := b.NumArguments() - 1; k >= 0; k-- {
				if b.Argument(k).HasUses() {
					continue
				}
				for _, s := range slots {
					start, _, _ := s.op.SuccessorOperands(s.index)
					rw.ModifyInPlace(s.op, func() {
						ops := s.op.Operands()
						s.op.SetOperands(append(ops[:start+k:start+k], ops[start+k+1:]...))
					})
				}
				b.EraseArgument(k)
				changed = true
			}
		}
		return changed
	})
}

// mergeIdenticalBlocks redirects the branches to a non-entry block to an
// earlier block of the same region with the same arguments and equivalent
// ops (the same successors included), then erases it. Neither block may
// have values used outside itself, since the merged block no longer
// dominates what either did.
func mergeIdenticalBlocks(rw *ir.Rewriter, regions []*ir.Region) bool {
	return forEachRegion(regions, func(r *ir.Region) bool {
		if r.NumBlocks() < 3 {
			return false
		}
		changed := false
		var leaders []*ir.Block
		for _, b := range r.Blocks()[1:] {
			slots, ok := knownPredecessors(r, b)
			if !ok || len(slots) == 0 || UsedFromOutside([]*ir.Block{b}) {
				continue
			}
			var leader *ir.Block
			for _, l := range leaders {
				if ir.BlocksEquivalent(l, b, map[*ir.Value]*ir.Value{}) {
					leader = l
					break
				}
			}
			if leader == nil {
				leaders = append(leaders, b)
				continue
			}
			for _, s := range slots {
				rw.ModifyInPlace(s.op, func() { s.op.SetSuccessor(s.index, leader) })
			}
			// b's values are used only inside b: erasing last first
			// leaves no dangling use.
			ops := b.Ops()
			for i := len(ops) - 1; i >= 0; i-- {
				rw.EraseOp(ops[i])
			}
			r.RemoveBlock(b)
			changed = true
		}
		return changed
	})
}
