package ir

// Block is a list of ops with arguments, inside a region.
type Block struct {
	args        []*Value
	argLocs     []Location // the arguments' locations, kept here so that results do not pay for them
	first, last *Operation
	parent      *Region
	orderValid  bool // the ops' order fields number them (IsBeforeInBlock)
}

// NewBlock returns a detached block with arguments of the given types and
// locations (locs may be nil).
func NewBlock(types []Type, locs []Location) *Block {
	b := &Block{}
	for i, t := range types {
		var l Location
		if locs != nil {
			l = locs[i]
		}
		b.AddArgument(t, l)
	}
	return b
}

// Arguments returns the block arguments.
func (b *Block) Arguments() []*Value   { return b.args }
func (b *Block) NumArguments() int     { return len(b.args) }
func (b *Block) Argument(i int) *Value { return b.args[i] }

// AddArgument appends an argument.
func (b *Block) AddArgument(t Type, loc Location) *Value {
	return b.AddArgumentIn(nil, t, loc)
}

// AddArgumentIn is AddArgument with the value allocated from arena.
func (b *Block) AddArgumentIn(arena *Arena, t Type, loc Location) *Value {
	v := arena.newValue()
	v.typ, v.block, v.index = t, b, len(b.args)
	b.args = append(b.args, v)
	b.argLocs = append(b.argLocs, loc)
	return v
}

// EraseArgument removes argument i, which must be unused.
func (b *Block) EraseArgument(i int) {
	if b.args[i].uses != nil {
		panic("BUG: erasing a used block argument")
	}
	b.args = append(b.args[:i], b.args[i+1:]...)
	b.argLocs = append(b.argLocs[:i], b.argLocs[i+1:]...)
	for j := i; j < len(b.args); j++ {
		b.args[j].index = j
	}
}

// Parent is the region holding the block.
func (b *Block) Parent() *Region { return b.parent }

// ParentOp is the op whose region holds the block.
func (b *Block) ParentOp() *Operation {
	if b.parent == nil {
		return nil
	}
	return b.parent.parent
}

// First and Last are the ends of the op list (nil when empty).
func (b *Block) First() *Operation { return b.first }
func (b *Block) Last() *Operation  { return b.last }
func (b *Block) Empty() bool       { return b.first == nil }

// Terminator returns the last op when it is a terminator, else nil.
func (b *Block) Terminator() *Operation {
	if b.last != nil && b.last.HasTrait(TraitTerminator) {
		return b.last
	}
	return nil
}

// Ops returns the ops in order (a fresh slice; safe to mutate the block
// while ranging over it).
func (b *Block) Ops() []*Operation {
	var out []*Operation
	for o := b.first; o != nil; o = o.next {
		out = append(out, o)
	}
	return out
}

// NumOps counts the ops.
func (b *Block) NumOps() int {
	n := 0
	for o := b.first; o != nil; o = o.next {
		n++
	}
	return n
}

// Append adds op at the end of the block.
func (b *Block) Append(op *Operation) { b.insertBefore(op, nil) }

// InsertBefore adds op before ref (at the end when ref is nil).
func (b *Block) InsertBefore(op, ref *Operation) { b.insertBefore(op, ref) }

func (b *Block) insertBefore(op, ref *Operation) {
	if op.block != nil {
		panic("BUG: inserting an op that is already in a block")
	}
	regionChanged(b.parent)
	b.orderValid = false
	op.block = b
	op.next = ref
	if ref == nil {
		op.prev = b.last
		if b.last != nil {
			b.last.next = op
		} else {
			b.first = op
		}
		b.last = op
		return
	}
	op.prev = ref.prev
	if ref.prev != nil {
		ref.prev.next = op
	} else {
		b.first = op
	}
	ref.prev = op
}

func (b *Block) unlink(op *Operation) {
	regionChanged(b.parent)
	b.orderValid = false
	if op.prev != nil {
		op.prev.next = op.next
	} else {
		b.first = op.next
	}
	if op.next != nil {
		op.next.prev = op.prev
	} else {
		b.last = op.prev
	}
	op.prev, op.next, op.block = nil, nil, nil
}

// Successors are the successors of the block's last op.
func (b *Block) Successors() []*Block {
	if b.last == nil {
		return nil
	}
	return b.last.successorList()
}

// Predecessors lists the blocks of the same region that branch to b.
func (b *Block) Predecessors() []*Block {
	var out []*Block
	if b.parent == nil {
		return nil
	}
	for _, p := range b.parent.blocks {
		for _, s := range p.Successors() {
			if s == b {
				out = append(out, p)
			}
		}
	}
	return out
}

// Index is the block's position in its region.
func (b *Block) Index() int {
	if b.parent == nil {
		return -1
	}
	for i, x := range b.parent.blocks {
		if x == b {
			return i
		}
	}
	return -1
}

// Region is a list of blocks owned by an op.
type Region struct {
	blocks []*Block
	parent *Operation
}

func (r *Region) Blocks() []*Block     { return r.blocks }
func (r *Region) NumBlocks() int       { return len(r.blocks) }
func (r *Region) Empty() bool          { return len(r.blocks) == 0 }
func (r *Region) ParentOp() *Operation { return r.parent }

// Front is the entry block, or nil.
func (r *Region) Front() *Block {
	if len(r.blocks) == 0 {
		return nil
	}
	return r.blocks[0]
}

// Index is the region's position in its op.
func (r *Region) Index() int {
	if r.parent == nil {
		return -1
	}
	for i, x := range r.parent.regionList() {
		if x == r {
			return i
		}
	}
	return -1
}

// AppendBlock adds b at the end.
func (r *Region) AppendBlock(b *Block) {
	if b.parent != nil {
		panic("BUG: block already in a region")
	}
	b.parent = r
	r.blocks = append(r.blocks, b)
	regionChanged(r)
}

// InsertBlock adds b at position i.
func (r *Region) InsertBlock(i int, b *Block) {
	if b.parent != nil {
		panic("BUG: block already in a region")
	}
	b.parent = r
	r.blocks = append(r.blocks, nil)
	copy(r.blocks[i+1:], r.blocks[i:])
	r.blocks[i] = b
	regionChanged(r)
}

// RemoveBlock detaches b from r.
func (r *Region) RemoveBlock(b *Block) {
	for i, x := range r.blocks {
		if x == b {
			r.blocks = append(r.blocks[:i], r.blocks[i+1:]...)
			b.parent = nil
			regionChanged(r)
			return
		}
	}
}

// TakeBody moves every block of other into r (which must be empty).
func (r *Region) TakeBody(other *Region) {
	for _, b := range other.blocks {
		b.parent = r
	}
	r.blocks = append(r.blocks, other.blocks...)
	other.blocks = nil
	regionChanged(r)
	regionChanged(other)
}

// IsAncestor reports whether r contains other (or is it).
func (r *Region) IsAncestor(other *Region) bool {
	for x := other; x != nil; {
		if x == r {
			return true
		}
		if x.parent == nil {
			return false
		}
		x = x.parent.ParentRegion()
	}
	return false
}

// CloneInto copies r's blocks into dst, mapping values through m.
func (r *Region) CloneInto(ctx *Context, dst *Region, m *Mapping) {
	for _, b := range r.blocks {
		nb := &Block{}
		for _, a := range b.args {
			m.Values[a] = nb.AddArgument(a.typ, a.Loc())
		}
		m.Blocks[b] = nb
		dst.AppendBlock(nb)
	}
	for _, b := range r.blocks {
		nb := m.Blocks[b]
		for o := b.first; o != nil; o = o.next {
			c := o.cloneShallow(m)
			for i, rr := range o.regionList() {
				rr.CloneInto(ctx, c.regionList()[i], m)
			}
			nb.Append(c)
		}
	}
}
