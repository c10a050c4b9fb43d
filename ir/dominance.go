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

// domCache holds what a dominance check computes once per region or block:
// dominator trees, and each block's op positions so that "defined earlier
// in the block" is a comparison rather than a walk (a walk per use makes
// long blocks quadratic).
type domCache struct {
	trees map[*Region]*DominanceInfo
	order map[*Block]map[*Operation]int
}

func newDomCache() *domCache {
	return &domCache{trees: map[*Region]*DominanceInfo{}, order: map[*Block]map[*Operation]int{}}
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
func (c *domCache) before(a, b *Operation) bool {
	pos, ok := c.order[a.block]
	if !ok {
		pos = map[*Operation]int{}
		i := 0
		for o := a.block.first; o != nil; o = o.next {
			pos[o] = i
			i++
		}
		c.order[a.block] = pos
	}
	return pos[a] < pos[b]
}

func verifyDominance(top *Operation) *Diagnostic {
	cache := newDomCache()
	var fail *Diagnostic
	top.Walk(func(op *Operation) WalkResult {
		for i, v := range op.Operands() {
			if note, ok := dominatesUse(cache, v, op); !ok {
				fail = opErr(op, "operand #%d does not dominate this use", i)
				fail.Message = "operand #" + itoa(i) + " does not dominate this use"
				fail.AttachNote(v.Loc(), "operand defined here (%s)", note)
				return WalkInterrupt
			}
		}
		return WalkAdvance
	})
	return fail
}

func itoa(i int) string {
	var p AsmPrinter
	p.WriteInt(int64(i))
	return p.String()
}

// dominatesUse reports whether v is available at user; when it is not,
// it says where v is defined relative to user.
func dominatesUse(cache *domCache, v *Value, user *Operation) (string, bool) {
	defBlock := v.OwnerBlock()
	if defBlock == nil || defBlock.parent == nil {
		return "op detached from the IR", false
	}
	r := defBlock.parent
	anc := ancestorIn(user, r)
	if anc == nil {
		if user.ParentRegion() != nil && v.ParentRegion() != nil && v.ParentRegion().parent != nil && v.ParentRegion().parent.IsAncestor(user) {
			return "op in a child region", false
		}
		return "op in a child region", false
	}
	// Graph regions have no dominance: even an op's own results are
	// visible inside its regions (mlir-opt accepts that too).
	if IsGraphRegion(r) {
		return "", true
	}
	if v.owner != nil && v.owner == anc {
		return "op in a parent region", false
	}
	if anc.block == defBlock {
		if v.owner == nil {
			return "", true
		}
		if cache.before(v.owner, anc) {
			return "", true
		}
		if !cache.get(r).Reachable(defBlock) {
			return "", true
		}
		if anc == user {
			return "op in the same block", false
		}
		return "op in a parent region", false
	}
	if cache.get(r).Dominates(defBlock, anc.block) {
		return "", true
	}
	return "op in the same region", false
}
