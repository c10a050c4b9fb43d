package passes

import (
	"fmt"

	"github.com/ipuir/ipuir/ir"
)

// RegionSimplifyLevel is canonicalize's region-simplify option.
type RegionSimplifyLevel int

const (
	RegionSimplifyDisabled RegionSimplifyLevel = iota
	RegionSimplifyNormal
	// RegionSimplifyAggressive also merges identical blocks, as MLIR's
	// aggressive level does.
	RegionSimplifyAggressive
)

var regionSimplifyNames = []string{"disabled", "normal", "aggressive"}

func (l *RegionSimplifyLevel) String() string { return regionSimplifyNames[*l] }

func (l *RegionSimplifyLevel) Set(s string) error {
	for i, n := range regionSimplifyNames {
		if n == s {
			*l = RegionSimplifyLevel(i)
			return nil
		}
	}
	return fmt.Errorf("Cannot find option named '%s'!", s)
}

func (*RegionSimplifyLevel) Choices() []Choice {
	return []Choice{
		{"disabled", "Don't run any control-flow simplification."},
		{"normal", "Perform simple control-flow simplifications (unreachable blocks, dead ops, dead block arguments)."},
		{"aggressive", "Also merge identical blocks."},
	}
}

// SimplifyRegions erases blocks no path from their region's entry reaches,
// ops that are pure and unused, and unused arguments of blocks whose
// branches declare their successor operands; at the aggressive level it
// then merges identical blocks. It works on regions and all regions nested
// in them, and reports a change.
func SimplifyRegions(rw *ir.Rewriter, regions []*ir.Region, level RegionSimplifyLevel) bool {
	changed := eraseUnreachableBlocks(rw, regions)
	for _, r := range regions {
		if eraseDeadOps(rw, r) {
			changed = true
		}
	}
	if dropDeadBlockArguments(rw, regions) {
		changed = true
	}
	if level == RegionSimplifyAggressive && mergeIdenticalBlocks(rw, regions) {
		changed = true
	}
	return changed
}

// eraseUnreachableBlocks erases unreachable blocks of multi-block regions,
// recursively. Blocks whose values are still used from reachable code
// (which the verifier rejects) are left alone.
func eraseUnreachableBlocks(rw *ir.Rewriter, regions []*ir.Region) bool {
	changed := false
	work := append([]*ir.Region(nil), regions...)
	for len(work) > 0 {
		r := work[len(work)-1]
		work = work[:len(work)-1]
		if r.NumBlocks() > 1 {
			reach := map[*ir.Block]bool{}
			stack := []*ir.Block{r.Front()}
			for len(stack) > 0 {
				b := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if reach[b] {
					continue
				}
				reach[b] = true
				for _, s := range b.Successors() {
					if s.Parent() == r && !reach[s] {
						stack = append(stack, s)
					}
				}
			}
			var dead []*ir.Block
			for _, b := range r.Blocks() {
				if !reach[b] {
					dead = append(dead, b)
				}
			}
			if len(dead) > 0 && !UsedFromOutside(dead) {
				for _, b := range dead {
					for _, o := range b.Ops() {
						o.DropAllReferences()
					}
				}
				for _, b := range dead {
					ops := b.Ops()
					for i := len(ops) - 1; i >= 0; i-- {
						rw.EraseOp(ops[i])
					}
					r.RemoveBlock(b)
				}
				changed = true
			}
		}
		for _, b := range r.Blocks() {
			for o := b.First(); o != nil; o = o.Next() {
				work = append(work, o.Regions()...)
			}
		}
	}
	return changed
}

// UsedFromOutside says whether a value defined in blocks (their arguments,
// or a result of an op in them at any depth) is used by an op outside them:
// such blocks cannot be erased.
func UsedFromOutside(blocks []*ir.Block) bool {
	in := map[*ir.Block]bool{}
	for _, b := range blocks {
		in[b] = true
	}
	inside := func(user *ir.Operation) bool {
		for o := user; o != nil; o = o.ParentOp() {
			if o.Block() != nil && in[o.Block()] {
				return true
			}
		}
		return false
	}
	outside := false
	check := func(v *ir.Value) {
		v.UsesWhile(func(u *ir.OpOperand) bool {
			outside = !inside(u.Owner())
			return !outside
		})
	}
	for _, b := range blocks {
		for _, a := range b.Arguments() {
			check(a)
		}
		for _, o := range b.Ops() {
			o.Walk(func(x *ir.Operation) ir.WalkResult {
				for _, res := range x.Results() {
					check(res)
				}
				return ir.WalkAdvance
			})
			if outside {
				return true
			}
		}
	}
	return outside
}

// eraseDeadOps erases trivially dead ops of r and its nested regions,
// last op first so that chains of dead ops go in one sweep.
func eraseDeadOps(rw *ir.Rewriter, r *ir.Region) bool {
	changed := false
	for _, b := range r.Blocks() {
		for o := b.Last(); o != nil; {
			prev := o.Prev()
			for _, nested := range o.Regions() {
				if eraseDeadOps(rw, nested) {
					changed = true
				}
			}
			if ir.IsTriviallyDead(o) {
				rw.EraseOp(o)
				changed = true
			}
			o = prev
		}
	}
	return changed
}
