package passes

import "github.com/ipuir/ipuir/ir"

// operationFolder keeps one constant per (dialect, value, type) in each
// insertion region, the entry block of the nearest region whose parent is
// isolated from above (or unregistered, or top-level). The greedy driver
// hands it every constant it meets: a duplicate is replaced by the kept
// one, a new one is moved to the front of its insertion block. This is
// how canonicalization hoists and merges constants, as MLIR's
// OperationFolder does; moved and merged constants lose their location
// (it becomes unknown), also as in MLIR 19.
type operationFolder struct {
	ctx    *ir.Context
	rw     *ir.Rewriter
	scopes map[*ir.Region]map[constKey]*ir.Operation
	owned  map[*ir.Operation]constSlot
	// moved records that a constant was hoisted, which changes the IR
	// without counting as a rewrite for convergence (as in MLIR).
	moved bool
}

type constKey struct {
	dialect *ir.Dialect
	value   ir.Attribute
	typ     ir.Type
}

type constSlot struct {
	region *ir.Region
	key    constKey
}

func newOperationFolder(ctx *ir.Context, rw *ir.Rewriter) *operationFolder {
	return &operationFolder{ctx: ctx, rw: rw, scopes: map[*ir.Region]map[constKey]*ir.Operation{},
		owned: map[*ir.Operation]constSlot{}}
}

// constantValue is the value of a constant-like op, or nil.
func constantValue(op *ir.Operation) ir.Attribute {
	if op == nil || !op.HasTrait(ir.TraitConstantLike) || op.NumResults() != 1 {
		return nil
	}
	return op.Attr("value")
}

// insertionRegion is where constants used in blk are kept.
func insertionRegion(blk *ir.Block) *ir.Region {
	for {
		r := blk.Parent()
		parent := r.ParentOp()
		if parent == nil || parent.Block() == nil || !parent.IsRegistered() || parent.HasTrait(ir.TraitIsolatedFromAbove) {
			return r
		}
		blk = parent.Block()
	}
}

// insertKnownConstant records op, a constant, and reports whether it is
// kept: false means it was a duplicate, replaced and erased.
func (f *operationFolder) insertKnownConstant(op *ir.Operation) bool {
	blk := op.Block()
	if _, ok := f.owned[op]; ok {
		if blk.First() != op {
			if _, prevOwned := f.owned[op.Prev()]; !prevOwned {
				op.Remove()
				blk.InsertBefore(op, blk.First())
				op.SetLoc(f.ctx.UnknownLoc())
				f.moved = true
			}
		}
		return true
	}
	value := constantValue(op)
	if value == nil {
		return true
	}
	region := insertionRegion(blk)
	scope := f.scopes[region]
	if scope == nil {
		scope = map[constKey]*ir.Operation{}
		f.scopes[region] = scope
	}
	key := constKey{dialect: op.Def().Dialect(), value: value, typ: op.Result(0).Type()}
	if existing := scope[key]; existing != nil {
		f.rw.ReplaceOp(op, existing.Results())
		existing.SetLoc(f.ctx.UnknownLoc())
		return false
	}
	entry := region.Front()
	if blk != entry || (entry.First() != op && !f.isOwned(op.Prev())) {
		op.Remove()
		entry.InsertBefore(op, entry.First())
		op.SetLoc(f.ctx.UnknownLoc())
		f.moved = true
	}
	scope[key] = op
	f.owned[op] = constSlot{region, key}
	return true
}

func (f *operationFolder) isOwned(op *ir.Operation) bool {
	if op == nil {
		return false
	}
	_, ok := f.owned[op]
	return ok
}

// notifyRemoval forgets an erased constant.
func (f *operationFolder) notifyRemoval(op *ir.Operation) {
	slot, ok := f.owned[op]
	if !ok {
		return
	}
	delete(f.owned, op)
	if f.scopes[slot.region][slot.key] == op {
		delete(f.scopes[slot.region], slot.key)
	}
}
