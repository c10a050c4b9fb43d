package passes

import "github.com/ipuir/ipuir/ir"

// Merging ops with regions, as MLIR's CSE does: two pure ops whose regions
// each hold a single block are the same computation when, besides what
// cseEqual compares for any op, their blocks have the same argument types
// and hold equivalent ops in the same order, each operand either the same
// value (defined outside both ops) or the corresponding value of the
// other op's body (block arguments, results of earlier ops).

// regionsMergeable says whether op's regions allow merging it: each holds
// exactly one block (MLIR's CSE leaves multi-block and empty regions
// alone), and every op inside is pure or a terminator, so that dropping
// one of two equal ops drops no side effect even when the op is declared
// pure without its body being checked (MLIR's recursive memory effects).
func regionsMergeable(op *ir.Operation) bool {
	for _, r := range op.Regions() {
		if r.NumBlocks() != 1 {
			return false
		}
	}
	pure := true
	for _, r := range op.Regions() {
		for _, o := range r.Front().Ops() {
			o.Walk(func(n *ir.Operation) ir.WalkResult {
				if !n.HasTrait(ir.TraitPure) && !n.HasTrait(ir.TraitTerminator) {
					pure = false
					return ir.WalkInterrupt
				}
				return ir.WalkAdvance
			})
		}
	}
	return pure
}

// regionsEquivalent compares the regions of a and b block by block,
// mapping a's block arguments and nested results to b's.
func regionsEquivalent(a, b *ir.Operation) bool {
	m := map[*ir.Value]*ir.Value{}
	return regionListsEquivalent(a, b, m)
}

func regionListsEquivalent(a, b *ir.Operation, m map[*ir.Value]*ir.Value) bool {
	if a.NumRegions() != b.NumRegions() {
		return false
	}
	for i, ra := range a.Regions() {
		rb := b.Region(i)
		// Nested regions of several blocks would need a block mapping
		// for successors; they are left unmerged.
		if ra.NumBlocks() != rb.NumBlocks() || ra.NumBlocks() > 1 {
			return false
		}
		if ra.NumBlocks() == 1 && !blocksEquivalent(ra.Front(), rb.Front(), m) {
			return false
		}
	}
	return true
}

// blocksEquivalent compares two blocks op by op, recording in m the
// correspondence of their arguments and results.
func blocksEquivalent(x, y *ir.Block, m map[*ir.Value]*ir.Value) bool {
	if x.NumArguments() != y.NumArguments() || x.NumOps() != y.NumOps() {
		return false
	}
	for i, ax := range x.Arguments() {
		ay := y.Argument(i)
		if ax.Type() != ay.Type() {
			return false
		}
		m[ax] = ay
	}
	for ox, oy := x.First(), y.First(); ox != nil; ox, oy = ox.Next(), oy.Next() {
		if !nestedOpsEquivalent(ox, oy, m) {
			return false
		}
	}
	return true
}

// nestedOpsEquivalent compares two ops inside the bodies or blocks being
// compared;
// operands are compared in order (MLIR's OperationEquivalence does not
// reorder commutative operands of nested ops either).
func nestedOpsEquivalent(x, y *ir.Operation, m map[*ir.Value]*ir.Value) bool {
	if x.Name() != y.Name() || x.NumOperands() != y.NumOperands() || x.NumResults() != y.NumResults() ||
		x.NumSuccessors() != y.NumSuccessors() ||
		ifacePtr(x.Props()) != ifacePtr(y.Props()) || ifacePtr(x.Attrs()) != ifacePtr(y.Attrs()) {
		return false
	}
	// Successors must be the same blocks (only block merging compares
	// ops that have any).
	for i, sx := range x.Successors() {
		if y.Successor(i) != sx {
			return false
		}
	}
	for i, vx := range x.Operands() {
		vy := y.Operand(i)
		if mapped, ok := m[vx]; ok {
			if mapped != vy {
				return false
			}
		} else if vx != vy {
			return false
		}
	}
	for i, rx := range x.Results() {
		ry := y.Result(i)
		if rx.Type() != ry.Type() {
			return false
		}
		m[rx] = ry
	}
	return regionListsEquivalent(x, y, m)
}
