package ir

// DominanceInfo answers dominance queries for blocks of one region,
// computed with the iterative algorithm of Cooper, Harvey and Kennedy.
type DominanceInfo struct {
	idom  map[*Block]*Block // entry maps to itself; unreachable blocks are absent
	order map[*Block]int    // reverse post-order number
}

// NewDominanceInfo computes dominators of r's blocks.
func NewDominanceInfo(r *Region) *DominanceInfo {
	di := &DominanceInfo{idom: map[*Block]*Block{}, order: map[*Block]int{}}
	if len(r.blocks) == 0 {
		return di
	}
	entry := r.blocks[0]
	var post []*Block
	seen := map[*Block]bool{}
	var dfs func(b *Block)
	dfs = func(b *Block) {
		seen[b] = true
		for _, s := range b.Successors() {
			if !seen[s] && s.parent == r {
				dfs(s)
			}
		}
		post = append(post, b)
	}
	dfs(entry)
	rpo := make([]*Block, len(post))
	for i, b := range post {
		rpo[len(post)-1-i] = b
	}
	for i, b := range rpo {
		di.order[b] = i
	}
	preds := map[*Block][]*Block{}
	for _, b := range rpo {
		for _, s := range b.Successors() {
			preds[s] = append(preds[s], b)
		}
	}
	di.idom[entry] = entry
	for changed := true; changed; {
		changed = false
		for _, b := range rpo[1:] {
			var n *Block
			for _, p := range preds[b] {
				if _, ok := di.idom[p]; !ok {
					continue
				}
				if n == nil {
					n = p
				} else {
					n = di.intersect(p, n)
				}
			}
			if n != nil && di.idom[b] != n {
				di.idom[b] = n
				changed = true
			}
		}
	}
	return di
}

func (di *DominanceInfo) intersect(a, b *Block) *Block {
	for a != b {
		for di.order[a] > di.order[b] {
			a = di.idom[a]
		}
		for di.order[b] > di.order[a] {
			b = di.idom[b]
		}
	}
	return a
}

// Reachable reports whether b is reachable from the region's entry.
func (di *DominanceInfo) Reachable(b *Block) bool { _, ok := di.idom[b]; return ok }

// Dominates reports whether a dominates b (every block dominates itself;
// unreachable blocks are dominated by everything).
func (di *DominanceInfo) Dominates(a, b *Block) bool {
	if !di.Reachable(b) {
		return true
	}
	for {
		if a == b {
			return true
		}
		next := di.idom[b]
		if next == b {
			return false
		}
		b = next
	}
}

// ancestorIn returns the op in region r that is op or encloses it.
func ancestorIn(op *Operation, r *Region) *Operation {
	for o := op; o != nil; o = o.ParentOp() {
		if o.block != nil && o.block.parent == r {
			return o
		}
	}
	return nil
}

// domCache holds what a dominance check computes once per region: the
// dominator trees. ("Defined earlier in the block" is IsBeforeInBlock,
// which numbers a block's ops once.)
type domCache struct {
	trees map[*Region]*DominanceInfo
	env   *Env // the facts the caller gave the verifier
}

func newDomCache() *domCache {
	return &domCache{trees: map[*Region]*DominanceInfo{}}
}

func (c *domCache) get(r *Region) *DominanceInfo {
	if di, ok := c.trees[r]; ok {
		return di
	}
	di := NewDominanceInfo(r)
	c.trees[r] = di
	return di
}

// before reports whether a comes before b in their common block.
func (c *domCache) before(a, b *Operation) bool { return a.IsBeforeInBlock(b) }

// verifyDominance checks that every use in op's regions is dominated by
// its definition, as MLIR's verifier does: ops in blocks that cannot be
// reached from their region's entry are not checked (their nested regions
// are), and ops isolated from above are left to their own verification.
func verifyDominance(op *Operation, cache *domCache) *Diagnostic {
	for _, r := range op.regionList() {
		for _, b := range r.blocks {
			// The only block is the entry; others need the dominator tree.
			reachable := len(r.blocks) == 1 || cache.get(r).Reachable(b)
			for o := b.first; o != nil; o = o.next {
				if reachable {
					for i, v := range o.Operands() {
						if !properlyDominates(cache, v, o) {
							return invalidOperandDominance(o, i)
						}
					}
				}
				if len(o.regionList()) > 0 && !o.HasTrait(TraitIsolatedFromAbove) {
					if d := verifyDominance(o, cache); d != nil {
						return d
					}
				}
			}
		}
	}
	return nil
}

// properlyDominates reports whether v is available at user: a block
// argument in its block and the blocks that block dominates, a result
// after its op (never inside the op's own regions, in a region with
// dominance). Uses in nested regions count at their ancestor in the
// definition's region.
func properlyDominates(cache *domCache, v *Value, user *Operation) bool {
	if v.owner == nil {
		b := v.OwnerBlock()
		return b != nil && user.block != nil && (b == user.block || blockProperlyDominates(cache, b, user.block))
	}
	def := v.owner
	if def.block == nil || user.block == nil {
		return false
	}
	r := def.block.parent
	if def == user {
		return IsGraphRegion(r)
	}
	anc := user
	if r != user.block.parent {
		anc = ancestorIn(user, r)
		if anc == nil {
			return false
		}
	}
	if anc.block == def.block {
		return IsGraphRegion(r) || (def != anc && cache.before(def, anc))
	}
	return cache.get(r).properlyDominates(def.block, anc.block)
}

// blockProperlyDominates is MLIR's properlyDominates for blocks: b in a
// nested region counts at its ancestor block in a's region, which a then
// contains.
func blockProperlyDominates(cache *domCache, a, b *Block) bool {
	r := a.parent
	if a == b {
		return r != nil && IsGraphRegion(r)
	}
	if r != b.parent {
		b = ancestorBlockIn(b, r)
		if b == nil {
			return false
		}
		if a == b {
			return true
		}
	}
	return cache.get(r).properlyDominates(a, b)
}

// ancestorBlockIn returns the block of region r that is b or encloses it.
func ancestorBlockIn(b *Block, r *Region) *Block {
	for b != nil && b.parent != r {
		op := b.ParentOp()
		if op == nil {
			return nil
		}
		b = op.block
	}
	return b
}

// properlyDominates is the dominator tree's answer for two blocks of its
// region: an unreachable block is dominated by every other block, and an
// unreachable block dominates none.
func (di *DominanceInfo) properlyDominates(a, b *Block) bool {
	if a == b {
		return false
	}
	if !di.Reachable(b) {
		return true
	}
	if !di.Reachable(a) {
		return false
	}
	return di.Dominates(a, b)
}

// invalidOperandDominance reports operand i of op, with mlir-opt's note on
// where the operand is defined relative to op.
func invalidOperandDominance(op *Operation, i int) *Diagnostic {
	d := plainOpErr(op, "operand #%d does not dominate this use", i)
	v := op.Operand(i)
	useRegion := op.block.parent
	where := func(defRegion *Region, same, parent, child, neither string) string {
		switch {
		case defRegion == useRegion:
			return same
		case defRegion.IsAncestor(useRegion):
			return parent
		case useRegion.IsAncestor(defRegion):
			return child
		}
		return neither
	}
	if def := v.owner; def != nil {
		rel := "op in the same block"
		if def.block != op.block {
			rel = where(def.block.parent, "op in the same region", "op in a parent region",
				"op in a child region", "op is neither in a parent nor in a child region")
		}
		d.AttachNote(def.loc, "operand defined here (%s)", rel)
		return d
	}
	b := v.OwnerBlock()
	var loc Location = &UnknownLoc{}
	if ctx := op.Context(); ctx != nil {
		loc = ctx.UnknownLoc()
	}
	if parent := b.ParentOp(); parent != nil {
		loc = parent.loc
	}
	if b.parent == nil {
		d.AttachNote(loc, " (block without parent)")
		return d
	}
	rel := where(b.parent, "in the same region", "in a parent region", "in a child region",
		"neither in a parent nor in a child region")
	d.AttachNote(loc, "operand defined as a block argument (block #%d %s)", b.Index(), rel)
	return d
}

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
