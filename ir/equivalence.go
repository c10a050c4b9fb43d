package ir

import "unsafe"

// Equivalence of ops, blocks and regions, and the liveness questions that
// cse, the greedy driver, region simplification and symbol-dce all ask
// (MLIR's OperationEquivalence and isOpTriviallyDead), answered in one
// place.

// UniqueID returns the identity of a uniqued type or attribute held in an
// interface (the data word of the interface; zero for nil), for hashing
// and comparing them without a type switch.
func UniqueID(v any) uintptr {
	if v == nil {
		return 0
	}
	return (*[2]uintptr)(unsafe.Pointer(&v))[1]
}

// IsTriviallyDead says whether op can go: pure, unused, and neither a
// terminator nor a symbol.
func IsTriviallyDead(op *Operation) bool {
	return op.UseEmpty() && op.HasTrait(TraitPure) && !op.HasTrait(TraitTerminator) && !IsSymbolOp(op)
}

// IsSymbolOp says whether op defines a symbol: ops with the Symbol trait,
// and modules that carry a name (MLIR's optional symbol).
func IsSymbolOp(op *Operation) bool {
	if op.HasTrait(TraitSymbol) {
		return true
	}
	_, named := SymbolName(op)
	return named && op.def == Module
}

// RegionsMergeable says whether op's regions allow merging it with an
// equivalent op: each holds exactly one block (MLIR's CSE leaves
// multi-block and empty regions alone), and every op inside is pure or a
// terminator, so that dropping one of two equal ops drops no side effect
// even when the op is declared pure without its body being checked
// (MLIR's recursive memory effects).
func RegionsMergeable(op *Operation) bool {
	for _, r := range op.Regions() {
		if r.NumBlocks() != 1 {
			return false
		}
	}
	pure := true
	for _, r := range op.Regions() {
		for _, o := range r.Front().Ops() {
			o.Walk(func(n *Operation) WalkResult {
				if !n.HasTrait(TraitPure) && !n.HasTrait(TraitTerminator) {
					pure = false
					return WalkInterrupt
				}
				return WalkAdvance
			})
		}
	}
	return pure
}

// RegionsEquivalent compares the regions of a and b block by block,
// mapping a's block arguments and nested results to b's: two pure ops
// whose regions each hold a single block are the same computation when
// their blocks have the same argument types and hold equivalent ops in
// the same order, each operand either the same value (defined outside
// both ops) or the corresponding value of the other op's body.
func RegionsEquivalent(a, b *Operation) bool {
	return regionListsEquivalent(a, b, map[*Value]*Value{})
}

func regionListsEquivalent(a, b *Operation, m map[*Value]*Value) bool {
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
		if ra.NumBlocks() == 1 && !BlocksEquivalent(ra.Front(), rb.Front(), m) {
			return false
		}
	}
	return true
}

// BlocksEquivalent compares two blocks op by op, recording in m the
// correspondence of their arguments and results (m may hold
// correspondences already known).
func BlocksEquivalent(x, y *Block, m map[*Value]*Value) bool {
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
// compared; operands are compared in order (MLIR's OperationEquivalence
// does not reorder commutative operands of nested ops either).
func nestedOpsEquivalent(x, y *Operation, m map[*Value]*Value) bool {
	if x.Name() != y.Name() || x.NumOperands() != y.NumOperands() || x.NumResults() != y.NumResults() ||
		x.NumSuccessors() != y.NumSuccessors() ||
		UniqueID(x.Props()) != UniqueID(y.Props()) || UniqueID(x.Attrs()) != UniqueID(y.Attrs()) {
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
