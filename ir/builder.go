package ir

// Builder creates ops at an insertion point.
type Builder struct {
	Ctx   *Context
	block *Block
	// before is the op new ops go in front of; nil means the block's end.
	before *Operation
	// Listener, when set, hears of each op the builder inserts.
	Listener Listener
}

// Listener is told of changes made through a Builder or Rewriter, so that
// drivers can keep worklists current.
type Listener interface {
	OpInserted(op *Operation)
	OpErased(op *Operation)
	OpModified(op *Operation)
	OpReplaced(op *Operation, with []*Value)
}

// NewBuilder returns a builder with no insertion point.
func NewBuilder(ctx *Context) *Builder { return &Builder{Ctx: ctx} }

// SetInsertionPointToEnd inserts at the end of b.
func (b *Builder) SetInsertionPointToEnd(blk *Block) { b.block, b.before = blk, nil }

// SetInsertionPointToStart inserts at the start of b.
func (b *Builder) SetInsertionPointToStart(blk *Block) { b.block, b.before = blk, blk.first }

// SetInsertionPoint inserts just before op.
func (b *Builder) SetInsertionPoint(op *Operation) { b.block, b.before = op.block, op }

// SetInsertionPointAfter inserts just after op.
func (b *Builder) SetInsertionPointAfter(op *Operation) { b.block, b.before = op.block, op.next }

// InsertionBlock is the block ops are inserted into, or nil.
func (b *Builder) InsertionBlock() *Block { return b.block }

// Insert places a detached op at the insertion point.
func (b *Builder) Insert(op *Operation) *Operation {
	if b.block != nil {
		b.block.insertBefore(op, b.before)
	}
	if b.Listener != nil {
		b.Listener.OpInserted(op)
	}
	return op
}

// Create builds an op from st and inserts it.
func (b *Builder) Create(st *OperationState) *Operation {
	return b.Insert(NewOperation(b.Ctx, st))
}

// CreateBlock adds a block with the given argument types at the end of r
// and moves the insertion point to its end.
func (b *Builder) CreateBlock(r *Region, types []Type, locs []Location) *Block {
	blk := NewBlock(types, locs)
	r.AppendBlock(blk)
	b.SetInsertionPointToEnd(blk)
	return blk
}

// Rewriter is the Builder that patterns use: every change goes through it
// so that the driver hears of it.
type Rewriter struct {
	Builder
}

// NewRewriter returns a rewriter reporting to l (may be nil).
func NewRewriter(ctx *Context, l Listener) *Rewriter {
	return &Rewriter{Builder{Ctx: ctx, Listener: l}}
}

// ReplaceOp replaces op's results with vals and erases op.
func (r *Rewriter) ReplaceOp(op *Operation, vals []*Value) {
	if r.Listener != nil {
		r.Listener.OpReplaced(op, vals)
		// Users of the results change too.
		for _, res := range op.results {
			for u := res.uses; u != nil; u = u.next {
				r.Listener.OpModified(u.owner)
			}
		}
	}
	op.ReplaceAllUsesWith(vals)
	r.EraseOp(op)
}

// ReplaceOpWithNew creates an op from st in op's place and replaces op
// with its results.
func (r *Rewriter) ReplaceOpWithNew(op *Operation, st *OperationState) *Operation {
	r.SetInsertionPoint(op)
	n := r.Create(st)
	r.ReplaceOp(op, n.results)
	return n
}

// EraseOp erases op (and what it holds); its results must be unused.
func (r *Rewriter) EraseOp(op *Operation) {
	if r.Listener != nil {
		op.walkPost(func(o *Operation) { r.Listener.OpErased(o) })
	}
	op.Erase()
}

// ModifyInPlace runs f, which changes op, and reports the change.
func (r *Rewriter) ModifyInPlace(op *Operation, f func()) {
	f()
	if r.Listener != nil {
		r.Listener.OpModified(op)
	}
}

// RewritePattern rewrites ops matching a root name. Patterns are data: the
// Pattern struct below is the usual way to declare one.
type RewritePattern interface {
	// Root is the op name the pattern matches, or "" for any op.
	Root() string
	// Benefit orders patterns: higher is tried first.
	Benefit() int
	// Name identifies the pattern in statistics and diagnostics.
	Name() string
	// MatchAndRewrite rewrites op through rw and reports whether it did.
	// When it returns false it must not have changed the IR.
	MatchAndRewrite(op *Operation, rw *Rewriter) bool
}

// Pattern declares a rewrite pattern as a value.
type Pattern struct {
	PatternName    string
	RootOp         string
	PatternBenefit int
	Rewrite        func(op *Operation, rw *Rewriter) bool
}

func (p *Pattern) Root() string { return p.RootOp }
func (p *Pattern) Name() string { return p.PatternName }
func (p *Pattern) Benefit() int {
	if p.PatternBenefit == 0 {
		return 1
	}
	return p.PatternBenefit
}
func (p *Pattern) MatchAndRewrite(op *Operation, rw *Rewriter) bool { return p.Rewrite(op, rw) }
