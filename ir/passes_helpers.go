package ir

// IDom returns the immediate dominator of b, or nil for the entry block
// and for blocks unreachable from it. CSE walks the dominator tree with it
// so that values known in a block are visible in the blocks it dominates.
func (di *DominanceInfo) IDom(b *Block) *Block {
	d, ok := di.idom[b]
	if !ok || d == b {
		return nil
	}
	return d
}

// UsesWhile calls f for v's uses in turn until f returns false, so that
// questions like "has v more than two users?" stop early on values with
// long use lists.
func (v *Value) UsesWhile(f func(*OpOperand) bool) {
	for u := v.uses; u != nil; {
		next := u.next
		if !f(u) {
			return
		}
		u = next
	}
}
