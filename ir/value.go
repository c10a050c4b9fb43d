package ir

// Value is an SSA value: an op result or a block argument. Every use of a
// value is an OpOperand on its use list.
type Value struct {
	typ   Type
	owner *Operation // defining op, for results
	block *Block     // owning block, for block arguments (their locations are the block's)
	index int        // result number or argument number
	uses  *OpOperand // head of the use list
}

// Type is the value's type.
func (v *Value) Type() Type { return v.typ }

// SetType changes the value's type (used by type conversion).
func (v *Value) SetType(t Type) { v.typ = t }

// DefiningOp returns the op that defines v, or nil for a block argument.
func (v *Value) DefiningOp() *Operation { return v.owner }

// IsBlockArgument reports whether v is a block argument.
func (v *Value) IsBlockArgument() bool { return v.owner == nil }

// Index is the result number or argument number.
func (v *Value) Index() int { return v.index }

// OwnerBlock returns the block an argument belongs to, or the block of the
// defining op.
func (v *Value) OwnerBlock() *Block {
	if v.owner != nil {
		return v.owner.block
	}
	return v.block
}

// ParentRegion is the region where v is defined.
func (v *Value) ParentRegion() *Region {
	if b := v.OwnerBlock(); b != nil {
		return b.parent
	}
	return nil
}

// Loc is the location of a block argument, or of the defining op.
func (v *Value) Loc() Location {
	if v.owner != nil {
		return v.owner.loc
	}
	if v.block == nil {
		return nil
	}
	return v.block.argLocs[v.index]
}

// SetLoc sets a block argument's location.
func (v *Value) SetLoc(l Location) {
	if v.owner == nil && v.block != nil {
		v.block.argLocs[v.index] = l
	}
}

// Uses calls f for each use; f may drop or redirect the use it is given.
func (v *Value) Uses(f func(*OpOperand)) {
	for u := v.uses; u != nil; {
		next := u.next
		f(u)
		u = next
	}
}

// HasUses reports whether v has any use.
func (v *Value) HasUses() bool { return v.uses != nil }

// HasOneUse reports whether v has exactly one use.
func (v *Value) HasOneUse() bool { return v.uses != nil && v.uses.next == nil }

// NumUses counts the uses.
func (v *Value) NumUses() int {
	n := 0
	for u := v.uses; u != nil; u = u.next {
		n++
	}
	return n
}

// Users lists the ops that use v (an op using v twice appears twice).
func (v *Value) Users() []*Operation {
	var out []*Operation
	for u := v.uses; u != nil; u = u.next {
		out = append(out, u.owner)
	}
	return out
}

// ReplaceAllUsesWith redirects every use of v to w.
func (v *Value) ReplaceAllUsesWith(w *Value) {
	if v == w {
		return
	}
	for v.uses != nil {
		v.uses.Set(w)
	}
}

// ReplaceUsesWithIf redirects the uses for which keep returns true.
func (v *Value) ReplaceUsesWithIf(w *Value, pred func(*OpOperand) bool) {
	v.Uses(func(u *OpOperand) {
		if pred(u) {
			u.Set(w)
		}
	})
}

// OpOperand is one operand slot of an op: a use of a value.
type OpOperand struct {
	value      *Value
	owner      *Operation
	index      int
	prev, next *OpOperand
}

// Value is the value used.
func (o *OpOperand) Value() *Value { return o.value }

// Owner is the op that has this operand.
func (o *OpOperand) Owner() *Operation { return o.owner }

// Index is the operand number in its op.
func (o *OpOperand) Index() int { return o.index }

// Set makes the operand use w instead.
func (o *OpOperand) Set(w *Value) {
	o.unlink()
	o.value = w
	o.link()
}

func (o *OpOperand) link() {
	if o.value == nil {
		return
	}
	o.prev = nil
	o.next = o.value.uses
	if o.next != nil {
		o.next.prev = o
	}
	o.value.uses = o
}

func (o *OpOperand) unlink() {
	if o.value == nil {
		return
	}
	if o.prev != nil {
		o.prev.next = o.next
	} else {
		o.value.uses = o.next
	}
	if o.next != nil {
		o.next.prev = o.prev
	}
	o.prev, o.next = nil, nil
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
