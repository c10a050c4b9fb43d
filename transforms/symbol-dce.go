package transforms

import (
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/passes"
)

// SymbolDCE is the `symbol-dce` pass: it erases private symbols that
// nothing live refers to, transitively, as MLIR's pass of that name does.
// Roots are the ops of the symbol table that are not symbols and the
// symbols that are not private; the symbols they refer to (through symbol
// reference attributes anywhere in them, nested references marking each
// symbol on their path) are live, and so on. Nested symbol tables are
// processed when they are live. Symbols referred to only by dead symbols
// go too.
//
// Its errors are MLIR's: `'func.func' op  was scheduled to run under
// SymbolDCE, but does not define a symbol table` (with MLIR's double
// space), and `operation contains potentially unknown symbol table, ...`
// for an unregistered op with one region.
type SymbolDCE struct {
	NumDCE passes.Statistic `statistic:"num-dce'd" help:"Number of symbols DCE'd"`
}

func (*SymbolDCE) Name() string    { return "symbol-dce" }
func (*SymbolDCE) Summary() string { return "Eliminate dead symbols" }
func (*SymbolDCE) Anchor() string  { return "" }

func (s *SymbolDCE) Run(op *ir.Operation, pc *passes.PassContext) error {
	if !op.HasTrait(ir.TraitSymbolTable) {
		// The double space is MLIR's.
		return op.EmitOpError(" was scheduled to run under SymbolDCE, but does not define a symbol table")
	}
	live := map[*ir.Operation]bool{}
	if err := symbolLiveness(op, live, symbolTables{}); err != nil {
		return err
	}
	erased := 0
	op.WalkPost(func(table *ir.Operation) ir.WalkResult {
		if !table.HasTrait(ir.TraitSymbolTable) || table.NumRegions() == 0 {
			return ir.WalkAdvance
		}
		for _, b := range table.Region(0).Blocks() {
			for o := b.First(); o != nil; {
				next := o.Next()
				if ir.IsSymbolOp(o) && !live[o] && o.UseEmpty() {
					o.Erase()
					erased++
				}
				o = next
			}
		}
		return ir.WalkAdvance
	})
	s.NumDCE.Add(uint64(erased))
	if erased == 0 {
		pc.Analyses().PreserveAll()
	}
	return nil
}

// symbolLiveness marks the live symbols of table and of the live symbol
// tables nested in it.
func symbolLiveness(table *ir.Operation, live map[*ir.Operation]bool, tables symbolTables) error {
	var work []*ir.Operation
	for _, b := range table.Region(0).Blocks() {
		for o := b.First(); o != nil; o = o.Next() {
			if !ir.IsSymbolOp(o) {
				work = append(work, o)
				continue
			}
			if !ir.IsPrivateSymbol(o) && !live[o] {
				live[o] = true
				work = append(work, o)
			}
		}
	}
	for len(work) > 0 {
		o := work[len(work)-1]
		work = work[:len(work)-1]
		if o.HasTrait(ir.TraitSymbolTable) && o.NumRegions() == 1 {
			if err := symbolLiveness(o, live, tables); err != nil {
				return err
			}
		}
		scope := o.ParentOp()
		err := symbolUsesIn(o, func(ref *ir.SymbolRefAttr) {
			for _, sym := range tables.resolve(scope, ref) {
				if !live[sym] {
					live[sym] = true
					work = append(work, sym)
				}
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// symbolUsesIn calls f for the symbol references held by op and the ops
// nested in it. A nested symbol table's own references count, not those
// inside it: it is a scope of its own. An unregistered op with one region
// might be a symbol table nobody can see into; MLIR then gives up, and so
// do we.
func symbolUsesIn(op *ir.Operation, f func(*ir.SymbolRefAttr)) error {
	if !op.IsRegistered() && op.NumRegions() == 1 {
		return op.EmitError("operation contains potentially unknown symbol table, meaning that we can't reliable compute symbol uses")
	}
	ir.SymbolUses(op, f)
	if op.HasTrait(ir.TraitSymbolTable) {
		return nil
	}
	for _, r := range op.Regions() {
		for _, b := range r.Blocks() {
			for o := b.First(); o != nil; o = o.Next() {
				if err := symbolUsesIn(o, f); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// symbolTables caches the index of each symbol table looked into.
type symbolTables map[*ir.Operation]*ir.SymbolTable

func (t symbolTables) lookup(table *ir.Operation, name string) *ir.Operation {
	st, ok := t[table]
	if !ok {
		st = ir.NewSymbolTable(table)
		t[table] = st
	}
	return st.Lookup(name)
}

// resolve returns the symbols a reference names, every one on a nested
// path (@a::@b names @a and @b), looked up from the nearest symbol table
// at or above scope. Unknown references resolve to nothing.
func (t symbolTables) resolve(scope *ir.Operation, ref *ir.SymbolRefAttr) []*ir.Operation {
	table := scope
	if table == nil || !table.HasTrait(ir.TraitSymbolTable) {
		table = ir.NearestSymbolTable(scope)
	}
	if table == nil {
		return nil
	}
	sym := t.lookup(table, ref.Root)
	if sym == nil {
		return nil
	}
	out := []*ir.Operation{sym}
	for _, n := range ref.Nested {
		if sym.NumRegions() == 0 {
			return out
		}
		sym = t.lookup(sym, n)
		if sym == nil {
			return out
		}
		out = append(out, sym)
	}
	return out
}
