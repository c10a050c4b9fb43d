package ir

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// SymbolAttrName is the attribute that names a symbol.
const SymbolAttrName = "sym_name"

// VisibilityAttrName holds "public" (the default), "private" or "nested".
const VisibilityAttrName = "sym_visibility"

// SymbolName returns the name an op defines, if it defines one.
func SymbolName(op *Operation) (string, bool) {
	if s, ok := op.Attr(SymbolAttrName).(*StringAttr); ok {
		return s.Val, true
	}
	return "", false
}

// IsPrivateSymbol reports whether op's symbol visibility is private.
func IsPrivateSymbol(op *Operation) bool {
	s, ok := op.Attr(VisibilityAttrName).(*StringAttr)
	return ok && s.Val == "private"
}

// SymbolTable indexes the symbols directly inside a symbol-table op.
type SymbolTable struct {
	Op      *Operation
	symbols map[string]*Operation
}

// NewSymbolTable indexes op's first region. Duplicate names keep the first
// definition (the verifier reports duplicates).
func NewSymbolTable(op *Operation) *SymbolTable {
	st := &SymbolTable{Op: op, symbols: map[string]*Operation{}}
	if op.NumRegions() == 0 {
		return st
	}
	for _, b := range op.Region(0).blocks {
		for o := b.first; o != nil; o = o.next {
			if name, ok := SymbolName(o); ok {
				if _, dup := st.symbols[name]; !dup {
					st.symbols[name] = o
				}
			}
		}
	}
	return st
}

// Lookup finds a symbol by name.
func (st *SymbolTable) Lookup(name string) *Operation { return st.symbols[name] }

// Insert adds op (already in the table's region) under a unique name,
// renaming it with a numeric suffix on conflict, and returns the name.
func (st *SymbolTable) Insert(ctx *Context, op *Operation) string {
	name, _ := SymbolName(op)
	if other, taken := st.symbols[name]; taken && other != op {
		for i := 0; ; i++ {
			cand := fmt.Sprintf("%s_%d", name, i)
			if _, taken := st.symbols[cand]; !taken {
				name = cand
				op.SetAttr(ctx, SymbolAttrName, ctx.String(name))
				break
			}
		}
	}
	st.symbols[name] = op
	return name
}

// Remove drops a symbol from the index.
func (st *SymbolTable) Remove(op *Operation) {
	if name, ok := SymbolName(op); ok && st.symbols[name] == op {
		delete(st.symbols, name)
	}
}

// LookupSymbolIn resolves a (possibly nested) reference inside a
// symbol-table op.
func LookupSymbolIn(table *Operation, ref *SymbolRefAttr) *Operation {
	op := table.ctx.symbols.table(table).Lookup(ref.Root)
	for _, n := range ref.Nested {
		if op == nil || !op.HasTrait(TraitSymbolTable) && op.IsRegistered() {
			return nil
		}
		op = op.ctx.symbols.table(op).Lookup(n)
	}
	return op
}

// symbolTableCache keeps the tables that LookupSymbolIn builds until the
// IR they index changes, as MLIR's SymbolTableCollection does for one
// verification: without it each func.call's check indexed the whole
// module, and verifying 10,000 functions that call each other took 85 s
// (mlir-opt-19: 0.2 s). Any change that could alter a table (an op
// entering or leaving a block of a symbol table, or of an unregistered op,
// which lookups may treat as one; a block entering or leaving such a
// region; an attribute of an op in such a block) advances the epoch, and
// a lookup in a later epoch starts afresh. Passes that edit functions do
// not advance it.
type symbolTableCache struct {
	epoch  atomic.Uint64
	mu     sync.Mutex
	built  uint64 // the epoch the tables were built in
	tables map[*Operation]*SymbolTable
}

func (c *symbolTableCache) table(op *Operation) *SymbolTable {
	epoch := c.epoch.Load()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tables == nil || c.built != epoch {
		c.tables, c.built = map[*Operation]*SymbolTable{}, epoch
	}
	st := c.tables[op]
	if st == nil {
		st = NewSymbolTable(op)
		c.tables[op] = st
	}
	return st
}

// mayIndexSymbols reports whether the children of op's regions may be in
// a symbol table: op is one, or is unregistered.
func mayIndexSymbols(op *Operation) bool {
	return op != nil && (op.def == nil || op.def.Traits&TraitSymbolTable != 0)
}

// regionChanged notes that ops or blocks of r came or went.
func regionChanged(r *Region) {
	if r != nil && mayIndexSymbols(r.parent) {
		r.parent.ctx.symbols.epoch.Add(1)
	}
}

// attrsChanged notes that op's attributes or properties changed.
func (op *Operation) attrsChanged() {
	if op.block != nil {
		regionChanged(op.block.parent)
	}
}

// NearestSymbolTable returns the closest op at or above from that is a
// symbol table.
func NearestSymbolTable(from *Operation) *Operation {
	for o := from; o != nil; o = o.ParentOp() {
		if o.HasTrait(TraitSymbolTable) {
			return o
		}
	}
	return nil
}

// LookupNearestSymbolFrom resolves ref from the symbol table nearest to from.
func LookupNearestSymbolFrom(from *Operation, ref *SymbolRefAttr) *Operation {
	t := NearestSymbolTable(from)
	if t == nil {
		return nil
	}
	return LookupSymbolIn(t, ref)
}

// WalkSymbolRefs calls f for every symbol reference in a's tree. A
// reference that occurs several times may be reported once: the walk
// visits each distinct (uniqued) array and dictionary once, as MLIR's
// AttrTypeWalker does, so that a DAG of shared attributes costs its size,
// not the size of its expansion.
func WalkSymbolRefs(a Attribute, f func(*SymbolRefAttr)) {
	w := symbolRefWalker{f: f}
	w.walk(a)
}

type symbolRefWalker struct {
	f       func(*SymbolRefAttr)
	visited int
	seen    map[Attribute]bool // made once the walk is large enough to share
}

// symbolRefWalkShared is the number of containers visited after which
// the walk starts to remember them; small attributes need no map.
const symbolRefWalkShared = 64

func (w *symbolRefWalker) walk(a Attribute) {
	switch a := a.(type) {
	case *SymbolRefAttr:
		w.f(a)
		return
	case *ArrayAttr, *DictAttr:
	default:
		return
	}
	if w.visited++; w.visited > symbolRefWalkShared && w.seen == nil {
		w.seen = map[Attribute]bool{}
	}
	if w.seen != nil {
		if w.seen[a] {
			return
		}
		w.seen[a] = true
	}
	switch a := a.(type) {
	case *ArrayAttr:
		for _, e := range a.Elems {
			w.walk(e)
		}
	case *DictAttr:
		for _, e := range a.Entries {
			w.walk(e.Value)
		}
	}
}

// SymbolUses calls f for every symbol reference held by op's attributes
// and properties (not those of nested ops).
func SymbolUses(op *Operation, f func(*SymbolRefAttr)) {
	if op.props != nil {
		WalkSymbolRefs(op.props, f)
	}
	if op.attrs != nil {
		WalkSymbolRefs(op.attrs, f)
	}
}
