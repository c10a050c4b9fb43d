package ir

import "fmt"

// Operation is the unit of IR: a named op with operands, results,
// successors, attributes, properties, regions and a location.
type Operation struct {
	name     string
	def      *OpDef // nil for unregistered ops
	operands []*OpOperand
	results  []*Value
	extra    *opExtra  // successors and regions; nil for the many ops without
	attrs    *DictAttr // discardable attributes, sorted
	props    Attribute // properties; a *DictAttr of inherent attributes for registered ops
	loc      Location
	ctx      *Context

	block      *Block
	prev, next *Operation
	// order is the op's position in its block while the block's
	// orderValid holds (IsBeforeInBlock numbers the block on demand, as
	// MLIR's Operation::isBeforeInBlock does).
	order uint32
}

// opExtra holds what most ops do not have, so that they do not pay for
// it: successors and regions.
type opExtra struct {
	successors []*Block
	regions    []*Region
}

// extras returns op's extra part, making it (from arena, if any) when
// there is none.
func (op *Operation) extras(arena *Arena) *opExtra {
	if op.extra == nil {
		op.extra = arena.newExtra()
	}
	return op.extra
}

func (op *Operation) regionList() []*Region {
	if op.extra == nil {
		return nil
	}
	return op.extra.regions
}

func (op *Operation) successorList() []*Block {
	if op.extra == nil {
		return nil
	}
	return op.extra.successors
}

// OperationState collects what is needed to create an op.
type OperationState struct {
	Name        string
	Loc         Location
	Operands    []*Value
	ResultTypes []Type
	Successors  []*Block
	Attrs       []NamedAttr // inherent ones are moved to properties
	Props       Attribute
	// Regions are moved into the new op; NumRegions adds that many empty
	// regions after them.
	Regions    []*Region
	NumRegions int
}

// AddAttr appends an attribute to the state.
func (s *OperationState) AddAttr(name string, a Attribute) {
	s.Attrs = append(s.Attrs, NamedAttr{name, a})
}

// NewOperation creates a detached op from a state. Attributes that the op
// declares (its inherent attributes) become properties, as in MLIR.
func NewOperation(ctx *Context, s *OperationState) *Operation {
	return NewOperationIn(nil, ctx, s)
}

// NewOperationIn is NewOperation with the op's parts allocated from arena
// (nil: the heap).
func NewOperationIn(arena *Arena, ctx *Context, s *OperationState) *Operation {
	op := arena.newOp()
	op.name, op.def, op.loc, op.ctx = s.Name, ctx.OpDef(s.Name), s.Loc, ctx
	if op.loc == nil {
		op.loc = ctx.UnknownLoc()
	}
	if len(s.Operands) > 0 {
		store, ptrs := arena.newOperands(len(s.Operands))
		for i, v := range s.Operands {
			o := &store[i]
			o.value, o.owner, o.index = v, op, i
			o.link()
			ptrs[i] = o
		}
		op.operands = ptrs
	}
	if len(s.ResultTypes) > 0 {
		store, ptrs := arena.newValues(len(s.ResultTypes))
		for i, t := range s.ResultTypes {
			r := &store[i]
			r.typ, r.owner, r.index = t, op, i
			ptrs[i] = r
		}
		op.results = ptrs
	}
	if len(s.Successors) > 0 {
		op.extras(arena).successors = append([]*Block(nil), s.Successors...)
	}
	var inherent, discardable []NamedAttr
	for _, a := range s.Attrs {
		if op.def != nil && op.def.attrDef(a.Name) != nil {
			inherent = append(inherent, a)
		} else {
			discardable = append(discardable, a)
		}
	}
	op.props = s.Props
	if len(inherent) > 0 {
		if d, ok := op.props.(*DictAttr); ok {
			inherent = append(append([]NamedAttr(nil), d.Entries...), inherent...)
		}
		op.props = ctx.Dict(inherent)
	}
	if len(discardable) > 0 {
		op.attrs = ctx.Dict(discardable)
	}
	if n := len(s.Regions) + s.NumRegions; n > 0 {
		op.extras(arena).regions = make([]*Region, 0, n)
	}
	for _, r := range s.Regions {
		op.adoptRegion(r)
	}
	for i := 0; i < s.NumRegions; i++ {
		op.adoptRegion(&Region{})
	}
	return op
}

func (op *Operation) adoptRegion(r *Region) {
	if r.parent != nil && r.parent != op {
		panic("BUG: region already owned by " + r.parent.name)
	}
	r.parent = op
	op.extras(nil).regions = append(op.regionList(), r)
}

// Name is the op's full name, e.g. "tensor.matmul".
func (op *Operation) Name() string { return op.name }

// Context is the context the op was created in; custom printers and the
// printer's resource section need it, and the op is all they are given.
func (op *Operation) Context() *Context { return op.ctx }

// Def is the op's registered definition, or nil.
func (op *Operation) Def() *OpDef { return op.def }

// Is reports whether op is an op of the definition def (or of one of
// defs): how passes recognise ops, by their declaration rather than their
// name. An unregistered op is none.
func (op *Operation) Is(defs ...*OpDef) bool {
	if op.def == nil {
		return false
	}
	for _, d := range defs {
		if op.def == d {
			return true
		}
	}
	return false
}

// IsRegistered reports whether the op's name is a registered op.
func (op *Operation) IsRegistered() bool { return op.def != nil }

// HasTrait reports whether the op's definition has all traits in t.
func (op *Operation) HasTrait(t Trait) bool { return op.def != nil && op.def.Traits&t == t }

func (op *Operation) Loc() Location              { return op.loc }
func (op *Operation) SetLoc(l Location)          { op.loc = l }
func (op *Operation) Block() *Block              { return op.block }
func (op *Operation) Next() *Operation           { return op.next }
func (op *Operation) Prev() *Operation           { return op.prev }
func (op *Operation) NumOperands() int           { return len(op.operands) }
func (op *Operation) NumResults() int            { return len(op.results) }
func (op *Operation) NumRegions() int            { return len(op.regionList()) }
func (op *Operation) NumSuccessors() int         { return len(op.successorList()) }
func (op *Operation) Operand(i int) *Value       { return op.operands[i].value }
func (op *Operation) OpOperand(i int) *OpOperand { return op.operands[i] }
func (op *Operation) Result(i int) *Value        { return op.results[i] }
func (op *Operation) Results() []*Value          { return op.results }
func (op *Operation) Region(i int) *Region       { return op.regionList()[i] }
func (op *Operation) Regions() []*Region         { return op.regionList() }
func (op *Operation) Successor(i int) *Block     { return op.successorList()[i] }
func (op *Operation) Successors() []*Block       { return op.successorList() }

// SetSuccessor replaces successor i.
func (op *Operation) SetSuccessor(i int, b *Block) { op.successorList()[i] = b }

// EraseSuccessor removes successor i. The operands op passed to it, where
// its declaration says which (SuccessorOperands), are the caller's to drop:
// it knows whether the op's verifier counts them.
func (op *Operation) EraseSuccessor(i int) {
	op.extra.successors = append(op.extra.successors[:i:i], op.extra.successors[i+1:]...)
}

// Operands returns the operand values (a fresh slice).
func (op *Operation) Operands() []*Value {
	out := make([]*Value, len(op.operands))
	for i, o := range op.operands {
		out[i] = o.value
	}
	return out
}

// OperandTypes returns the operand types.
func (op *Operation) OperandTypes() []Type {
	out := make([]Type, len(op.operands))
	for i, o := range op.operands {
		out[i] = o.value.typ
	}
	return out
}

// ResultTypes returns the result types.
func (op *Operation) ResultTypes() []Type {
	out := make([]Type, len(op.results))
	for i, r := range op.results {
		out[i] = r.typ
	}
	return out
}

// SetOperand makes operand i use v.
func (op *Operation) SetOperand(i int, v *Value) { op.operands[i].Set(v) }

// SetOperands replaces the whole operand list.
func (op *Operation) SetOperands(vs []*Value) {
	for _, o := range op.operands {
		o.unlink()
	}
	op.operands = make([]*OpOperand, len(vs))
	for i, v := range vs {
		o := &OpOperand{value: v, owner: op, index: i}
		o.link()
		op.operands[i] = o
	}
}

// AddRegion appends an empty region and returns it.
func (op *Operation) AddRegion() *Region {
	r := &Region{}
	op.adoptRegion(r)
	return r
}

// ---- Attributes and properties ----

// Attrs is the discardable attribute dictionary (nil when empty).
func (op *Operation) Attrs() *DictAttr { return op.attrs }

// Props is the op's properties (nil when none).
func (op *Operation) Props() Attribute { return op.props }

// SetProps replaces the properties.
func (op *Operation) SetProps(a Attribute) {
	op.props = a
	op.attrsChanged()
}

// SetAttrs replaces the discardable dictionary.
func (op *Operation) SetAttrs(d *DictAttr) {
	if d != nil && len(d.Entries) == 0 {
		d = nil
	}
	op.attrs = d
	op.attrsChanged()
}

// Attr returns the attribute called name: an inherent one from the
// properties first, then a discardable one. Nil when absent.
func (op *Operation) Attr(name string) Attribute {
	if d, ok := op.props.(*DictAttr); ok {
		if a := d.Get(name); a != nil {
			return a
		}
	}
	return op.attrs.Get(name)
}

// InherentAttrs returns the inherent attributes (the properties dictionary).
func (op *Operation) InherentAttrs() []NamedAttr {
	if d, ok := op.props.(*DictAttr); ok {
		return d.Entries
	}
	return nil
}

// AllAttrs returns inherent and discardable attributes, sorted by name.
func (op *Operation) AllAttrs() []NamedAttr {
	all := append(append([]NamedAttr(nil), op.InherentAttrs()...), op.attrs.entriesOrNil()...)
	if len(op.InherentAttrs()) > 0 && op.attrs.Len() > 0 {
		sortNamed(all)
	}
	return all
}

func (d *DictAttr) entriesOrNil() []NamedAttr {
	if d == nil {
		return nil
	}
	return d.Entries
}

// SetAttr sets an attribute: inherent attributes of registered ops go to
// the properties, others to the discardable dictionary. A nil value
// removes the attribute.
func (op *Operation) SetAttr(ctx *Context, name string, a Attribute) {
	inherent := op.def != nil && op.def.attrDef(name) != nil
	if !inherent {
		if d, ok := op.props.(*DictAttr); ok && d.Get(name) != nil {
			inherent = true
		}
	}
	update := func(entries []NamedAttr) []NamedAttr {
		out := make([]NamedAttr, 0, len(entries)+1)
		for _, e := range entries {
			if e.Name != name {
				out = append(out, e)
			}
		}
		if a != nil {
			out = append(out, NamedAttr{name, a})
		}
		return out
	}
	if inherent {
		var entries []NamedAttr
		if d, ok := op.props.(*DictAttr); ok {
			entries = d.Entries
		}
		op.props = ctx.Dict(update(entries))
		op.attrsChanged()
		return
	}
	op.SetAttrs(ctx.Dict(update(op.attrs.entriesOrNil())))
}

// ---- Position in the IR ----

// ParentRegion is the region holding the op's block.
func (op *Operation) ParentRegion() *Region {
	if op.block == nil {
		return nil
	}
	return op.block.parent
}

// ParentOp is the op whose region holds this op.
func (op *Operation) ParentOp() *Operation {
	if r := op.ParentRegion(); r != nil {
		return r.parent
	}
	return nil
}

// IsAncestor reports whether op is other or contains it.
func (op *Operation) IsAncestor(other *Operation) bool {
	for o := other; o != nil; o = o.ParentOp() {
		if o == op {
			return true
		}
	}
	return false
}

// IsBeforeInBlock reports whether op comes before other in their common
// block. The block's ops are numbered on the first question after a
// change, so a sequence of questions costs one walk, not one each.
func (op *Operation) IsBeforeInBlock(other *Operation) bool {
	b := op.block
	if b == nil || other.block != b {
		return false
	}
	if !b.orderValid {
		var i uint32
		for o := b.first; o != nil; o = o.next {
			o.order = i
			i++
		}
		b.orderValid = true
	}
	return op.order < other.order
}

// Remove unlinks the op from its block without destroying it.
func (op *Operation) Remove() {
	if op.block != nil {
		op.block.unlink(op)
	}
}

// Erase removes the op and drops its operand uses, recursively for ops in
// its regions. Its results must be unused.
func (op *Operation) Erase() {
	for _, r := range op.results {
		if r.uses != nil {
			panic(fmt.Sprintf("BUG: erasing '%s' whose result #%d still has uses", op.name, r.index))
		}
	}
	op.Remove()
	op.DropAllReferences()
}

// DropAllReferences drops every operand use of op and the ops nested in it,
// so that a group of ops can be erased in any order.
func (op *Operation) DropAllReferences() {
	for _, o := range op.operands {
		o.unlink()
		o.value = nil
	}
	if op.extra != nil {
		op.extra.successors = nil
	}
	for _, r := range op.regionList() {
		for _, b := range r.blocks {
			for o := b.first; o != nil; o = o.next {
				o.DropAllReferences()
			}
		}
	}
}

// MoveBefore moves op to just before other.
func (op *Operation) MoveBefore(other *Operation) {
	op.Remove()
	other.block.insertBefore(op, other)
}

// MoveAfter moves op to just after other.
func (op *Operation) MoveAfter(other *Operation) {
	op.Remove()
	other.block.insertBefore(op, other.next)
}

// ReplaceAllUsesWith redirects each result's uses to the matching value.
func (op *Operation) ReplaceAllUsesWith(vals []*Value) {
	if len(vals) != len(op.results) {
		panic(fmt.Sprintf("BUG: replacing %d results of '%s' with %d values", len(op.results), op.name, len(vals)))
	}
	for i, r := range op.results {
		r.ReplaceAllUsesWith(vals[i])
	}
}

// UseEmpty reports whether no result of op is used.
func (op *Operation) UseEmpty() bool {
	for _, r := range op.results {
		if r.uses != nil {
			return false
		}
	}
	return true
}

// Mapping maps values and blocks of cloned IR to their copies.
type Mapping struct {
	Values map[*Value]*Value
	Blocks map[*Block]*Block
}

// NewMapping returns an empty mapping.
func NewMapping() *Mapping {
	return &Mapping{Values: map[*Value]*Value{}, Blocks: map[*Block]*Block{}}
}

// Lookup returns v's copy, or v itself when it was not cloned.
func (m *Mapping) Lookup(v *Value) *Value {
	if w, ok := m.Values[v]; ok {
		return w
	}
	return v
}

func (m *Mapping) lookupBlock(b *Block) *Block {
	if c, ok := m.Blocks[b]; ok {
		return c
	}
	return b
}

// Clone deep-copies op (regions included). Operands defined outside are
// remapped through m (nil for none); results and nested values are added
// to m.
func (op *Operation) Clone(ctx *Context, m *Mapping) *Operation {
	if m == nil {
		m = NewMapping()
	}
	c := op.cloneShallow(m)
	for i, r := range op.regionList() {
		r.CloneInto(ctx, c.regionList()[i], m)
	}
	// Operands of nested ops may refer to values defined later in the
	// same graph region; remap them now that everything is cloned.
	c.remapNested(m)
	return c
}

func (op *Operation) cloneShallow(m *Mapping) *Operation {
	c := &Operation{name: op.name, def: op.def, attrs: op.attrs, props: op.props, loc: op.loc, ctx: op.ctx}
	c.operands = make([]*OpOperand, len(op.operands))
	for i, o := range op.operands {
		oo := &OpOperand{value: m.Lookup(o.value), owner: c, index: i}
		oo.link()
		c.operands[i] = oo
	}
	c.results = make([]*Value, len(op.results))
	for i, r := range op.results {
		c.results[i] = &Value{typ: r.typ, owner: c, index: i}
		m.Values[r] = c.results[i]
	}
	if len(op.successorList()) > 0 {
		c.extras(nil).successors = make([]*Block, len(op.successorList()))
	}
	for i, s := range op.successorList() {
		c.successorList()[i] = m.lookupBlock(s)
	}
	for range op.regionList() {
		c.adoptRegion(&Region{})
	}
	return c
}

func (op *Operation) remapNested(m *Mapping) {
	for _, r := range op.regionList() {
		for _, b := range r.blocks {
			for o := b.first; o != nil; o = o.next {
				for _, oo := range o.operands {
					if w, ok := m.Values[oo.value]; ok && w != oo.value {
						oo.Set(w)
					}
				}
				for i, s := range o.successorList() {
					o.successorList()[i] = m.lookupBlock(s)
				}
				o.remapNested(m)
			}
		}
	}
}
