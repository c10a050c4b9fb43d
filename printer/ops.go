package printer

import (
	"strings"

	"github.com/ipuir/ipuir/asmformat"
	"github.com/ipuir/ipuir/ir"
)

const indentWidth = 2

// opPrinter prints ops, regions and blocks; it is the ir.OpAsmPrinter that
// custom printers receive. With collect set it runs as MLIR's alias dry
// run: output is thrown away and only what would print is recorded.
type opPrinter struct {
	asm     *ir.AsmPrinter
	ctx     *ir.Context
	opts    Options
	generic bool
	names   *names
	collect *aliasCollector

	indent int
	// dialects is the stack of default dialects whose prefix op names may
	// drop; the top level starts with builtin so `module` prints bare.
	dialects []string
	// preds caches the predecessor lists of large regions for block
	// comments; small regions are scanned where a label prints.
	preds map[*ir.Region]map[*ir.Block][]*ir.Block
}

func (p *opPrinter) Context() *ir.Context                { return p.ctx }
func (p *opPrinter) Asm() *ir.AsmPrinter                 { return p.asm }
func (p *opPrinter) WriteString(s string)                { p.asm.WriteString(s) }
func (p *opPrinter) PrintType(t ir.Type)                 { p.asm.PrintType(t) }
func (p *opPrinter) PrintAttr(a ir.Attribute)            { p.asm.PrintAttr(a) }
func (p *opPrinter) PrintAttrWithoutType(a ir.Attribute) { p.asm.PrintAttrWithoutType(a) }
func (p *opPrinter) PrintSymbolName(name string)         { p.asm.PrintSymbolName(name) }
func (p *opPrinter) PrintSuccessor(b *ir.Block)          { p.names.writeBlock(p.asm, b) }

func (p *opPrinter) PrintOperand(v *ir.Value) { p.names.writeValue(p.asm, v, true) }

func (p *opPrinter) PrintOperands(vs []*ir.Value) {
	for i, v := range vs {
		if i > 0 {
			p.asm.WriteString(", ")
		}
		p.PrintOperand(v)
	}
}

func (p *opPrinter) PrintOptionalAttrDict(attrs []ir.NamedAttr, elided ...string) {
	p.printAttrDict(attrs, elided, false)
}

func (p *opPrinter) PrintOptionalAttrDictWithKeyword(attrs []ir.NamedAttr, elided ...string) {
	p.printAttrDict(attrs, elided, true)
}

func (p *opPrinter) printAttrDict(attrs []ir.NamedAttr, elided []string, keyword bool) {
	if len(elided) > 0 {
		kept := make([]ir.NamedAttr, 0, len(attrs))
		for _, a := range attrs {
			if !contains(elided, a.Name) {
				kept = append(kept, a)
			}
		}
		attrs = kept
	}
	if len(attrs) == 0 {
		return
	}
	if keyword {
		p.asm.WriteString(" attributes")
	}
	p.asm.WriteString(" {")
	ir.PrintNamedAttrs(p.asm, attrs)
	p.asm.WriteByte('}')
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// PrintRegionArgument prints `%name: type {attrs} loc(...)`. The dry run
// visits only the type and location, as MLIR's does, so attributes of
// function arguments never become aliases.
func (p *opPrinter) PrintRegionArgument(v *ir.Value, attrs *ir.DictAttr, omitType bool) {
	if p.collect != nil {
		p.asm.PrintType(v.Type())
		if p.opts.debugInfo() {
			p.collectLocation(v.Loc(), false)
		}
		return
	}
	p.PrintOperand(v)
	if !omitType {
		p.asm.WriteString(": ")
		p.asm.PrintType(v.Type())
	}
	if attrs != nil {
		p.PrintOptionalAttrDict(attrs.Entries)
	}
	p.printTrailingLocation(v.Loc(), false)
}

func (p *opPrinter) PrintRegion(r *ir.Region, printEntryBlockArgs, printBlockTerminators bool) {
	p.printRegion(r, printEntryBlockArgs, printBlockTerminators, false)
}

func (p *opPrinter) PrintOptionalLocationSpecifier(l ir.Location) {
	if p.collect != nil {
		if p.opts.debugInfo() {
			p.collectLocation(l, false)
		}
		return
	}
	p.printTrailingLocation(l, true)
}

// printFullOp prints `%results = op ... loc(...)` at the current indent.
func (p *opPrinter) printFullOp(op *ir.Operation) {
	if p.collect != nil {
		p.asm.Reset() // nothing of the dry run is kept
		if p.opts.debugInfo() {
			p.collectLocation(op.Loc(), true)
		}
		p.printCustomOrGeneric(op)
		return
	}
	p.writeIndent()
	if n := op.NumResults(); n > 0 {
		group := func(start, count int) {
			p.names.writeValue(p.asm, op.Result(start), false)
			if count > 1 {
				p.asm.WriteByte(':')
				p.asm.WriteInt(int64(count))
			}
		}
		if groups := p.names.groups[op]; len(groups) > 0 {
			for i := 0; i+1 < len(groups); i++ {
				group(groups[i], groups[i+1]-groups[i])
				p.asm.WriteString(", ")
			}
			group(groups[len(groups)-1], n-groups[len(groups)-1])
		} else {
			group(0, n)
		}
		p.asm.WriteString(" = ")
	}
	p.printCustomOrGeneric(op)
	p.printTrailingLocation(op.Loc(), true)
	if p.opts.ValueUsers {
		p.printUsersComment(op)
	}
}

// printUsersComment ends an op's line with who uses its results, as
// mlir-opt's --mlir-print-value-users does: `// users: %3, %2#0`,
// `// user: %4`, `// unused`, or an op's own id when it has no results.
func (p *opPrinter) printUsersComment(op *ir.Operation) {
	n := op.NumResults()
	switch {
	case n == 0 && op.NumOperands() > 0:
		p.asm.WriteString(" // id: ")
		p.names.writeOpID(p.asm, op)
	case n > 0 && op.UseEmpty():
		p.asm.WriteString(" // unused")
	case n > 0:
		// "user" when one op with at most one result uses the one result.
		users := map[*ir.Operation]bool{}
		usedInResults := 0
		for _, r := range op.Results() {
			r.Uses(func(u *ir.OpOperand) {
				if !users[u.Owner()] {
					users[u.Owner()] = true
					usedInResults += u.Owner().NumResults()
				}
			})
		}
		if usedInResults <= 1 && len(users) <= 1 && n == 1 {
			p.asm.WriteString(" // user: ")
		} else {
			p.asm.WriteString(" // users: ")
		}
		for i, r := range op.Results() {
			if i > 0 {
				p.asm.WriteString(", ")
			}
			if n > 1 {
				p.asm.WriteByte('(')
			}
			p.writeValueUsers(r)
			if n > 1 {
				p.asm.WriteByte(')')
			}
		}
	}
}

// writeValueUsers lists the users of v, each once, in use-list order.
func (p *opPrinter) writeValueUsers(v *ir.Value) {
	if !v.HasUses() {
		p.asm.WriteString("unused")
		return
	}
	seen := map[*ir.Operation]bool{}
	first := true
	v.Uses(func(u *ir.OpOperand) {
		user := u.Owner()
		if seen[user] {
			return
		}
		seen[user] = true
		if !first {
			p.asm.WriteString(", ")
		}
		first = false
		if user.NumResults() == 0 {
			p.names.writeOpID(p.asm, user)
			return
		}
		for i, r := range user.Results() {
			if i > 0 {
				p.asm.WriteString(", ")
			}
			p.names.writeValue(p.asm, r, true)
		}
	})
}

func (p *opPrinter) printCustomOrGeneric(op *ir.Operation) {
	def := op.Def()
	if p.generic || def == nil || !def.HasCustomSyntax() {
		p.printGeneric(op)
		return
	}
	name := op.Name()
	if d := p.dialects[len(p.dialects)-1]; d != "" && strings.HasPrefix(name, d+".") && strings.Count(name, ".") == 1 {
		name = name[len(d)+1:]
	}
	p.asm.WriteString(name)
	if def.AssemblyFormat != "" {
		asmformat.Print(def, p, op)
	} else {
		def.Print(p, op)
	}
}

// printGeneric prints `"name"(operands)[succs] <props> (regions) {attrs} :
// (types) -> types`.
func (p *opPrinter) printGeneric(op *ir.Operation) {
	if p.collect != nil {
		p.collectGeneric(op)
		return
	}
	p.asm.PrintString(op.Name())
	p.asm.WriteByte('(')
	p.PrintOperands(op.Operands())
	p.asm.WriteByte(')')
	if op.NumSuccessors() > 0 {
		p.asm.WriteByte('[')
		for i, s := range op.Successors() {
			if i > 0 {
				p.asm.WriteString(", ")
			}
			p.PrintSuccessor(s)
		}
		p.asm.WriteByte(']')
	}
	if props := op.Props(); props != nil {
		// A registered op's properties are its inherent attributes, shown
		// only when there are some; an unregistered op keeps whatever
		// attribute it was given, `<{}>` included.
		if d, ok := props.(*ir.DictAttr); !op.IsRegistered() || !ok || d.Len() > 0 {
			p.asm.WriteString(" <")
			p.asm.PrintAttr(props)
			p.asm.WriteByte('>')
		}
	}
	if op.NumRegions() > 0 {
		p.asm.WriteString(" (")
		for i, r := range op.Regions() {
			if i > 0 {
				p.asm.WriteString(", ")
			}
			p.printRegion(r, true, true, true)
		}
		p.asm.WriteByte(')')
	}
	if d := op.Attrs(); d != nil {
		p.PrintOptionalAttrDict(d.Entries)
	}
	p.asm.WriteString(" : (")
	for i, v := range op.Operands() {
		if i > 0 {
			p.asm.WriteString(", ")
		}
		p.asm.PrintType(v.Type())
	}
	p.asm.WriteString(") -> ")
	ir.PrintResultTypes(p.asm, op.ResultTypes())
}

// collectGeneric visits what MLIR's dry run visits for a generic op, in
// its order: regions, operand types, result types, then attributes (all
// of a registered op's, only the discardable ones of an unregistered op).
func (p *opPrinter) collectGeneric(op *ir.Operation) {
	for _, r := range op.Regions() {
		p.printRegion(r, true, true, false)
	}
	for _, v := range op.Operands() {
		p.asm.PrintType(v.Type())
	}
	for _, t := range op.ResultTypes() {
		p.asm.PrintType(t)
	}
	var attrs []ir.NamedAttr
	if d := op.Attrs(); d != nil {
		attrs = d.Entries
	}
	if inherent := op.InherentAttrs(); op.IsRegistered() && len(inherent) > 0 {
		if len(attrs) == 0 {
			attrs = inherent
		} else {
			attrs = op.AllAttrs() // both kinds, merged in name order
		}
	}
	for _, a := range attrs {
		p.asm.PrintAttr(a.Value)
	}
}

func (p *opPrinter) printRegion(r *ir.Region, printEntryBlockArgs, printBlockTerminators, printEmptyBlock bool) {
	if p.opts.SkipRegions {
		p.asm.WriteString("{...}")
		return
	}
	if p.collect != nil {
		for i, b := range r.Blocks() {
			p.printBlock(b, i > 0 || printEntryBlockArgs, i > 0 || printBlockTerminators)
		}
		return
	}
	p.asm.WriteString("{\n")
	if !r.Empty() {
		dialect := ""
		if parent := r.ParentOp(); parent != nil && parent.Def() != nil {
			dialect = parent.Def().DefaultDialect
		}
		p.dialects = append(p.dialects, dialect)
		entry := r.Front()
		header := (printEmptyBlock && entry.Empty()) || (printEntryBlockArgs && entry.NumArguments() != 0)
		p.printBlock(entry, header, printBlockTerminators)
		for _, b := range r.Blocks()[1:] {
			p.printBlock(b, true, true)
		}
		p.dialects = p.dialects[:len(p.dialects)-1]
	}
	p.writeIndent()
	p.asm.WriteByte('}')
}

func (p *opPrinter) printBlock(b *ir.Block, printArgs, printTerminator bool) {
	if p.collect != nil {
		if printArgs {
			for _, a := range b.Arguments() {
				p.asm.PrintType(a.Type())
				if p.opts.debugInfo() {
					p.collectLocation(a.Loc(), false)
				}
			}
		}
	} else if printArgs {
		p.writeIndent()
		p.names.writeBlock(p.asm, b)
		if b.NumArguments() > 0 {
			p.asm.WriteByte('(')
			for i, a := range b.Arguments() {
				if i > 0 {
					p.asm.WriteString(", ")
				}
				p.PrintOperand(a)
				p.asm.WriteString(": ")
				p.asm.PrintType(a.Type())
				p.printTrailingLocation(a.Loc(), false)
			}
			p.asm.WriteByte(')')
		}
		p.asm.WriteByte(':')
		p.printPredecessors(b)
		p.asm.WriteByte('\n')
	}
	last := b.Last()
	if printTerminator || last == nil || !last.HasTrait(ir.TraitTerminator) {
		last = nil
	}
	p.indent += indentWidth
	if p.opts.ValueUsers && p.collect == nil {
		for _, a := range b.Arguments() {
			p.writeIndent()
			p.asm.WriteString("// ")
			p.PrintOperand(a)
			if a.HasUses() {
				p.asm.WriteString(" is used by ")
				p.writeValueUsers(a)
			} else {
				p.asm.WriteString(" is unused")
			}
			p.asm.WriteByte('\n')
		}
	}
	for op := b.First(); op != nil && op != last; op = op.Next() {
		p.printFullOp(op)
		if p.collect == nil {
			p.asm.WriteByte('\n')
			// A whole op has printed: nothing will look back at it.
			p.asm.FlushIfLarge()
		}
	}
	p.indent -= indentWidth
}

// printPredecessors writes the `// pred: ^bb0` comment of a block label.
func (p *opPrinter) printPredecessors(b *ir.Block) {
	r := b.Parent()
	if r == nil {
		p.asm.WriteString("  // block is not in a region!")
		return
	}
	var preds []*ir.Block
	if r.NumBlocks() <= smallRegion {
		// Gather into a stack array: most regions with labels are small.
		var local [2 * smallRegion]*ir.Block
		preds = appendPredecessors(local[:0], r, b)
	} else {
		preds = p.predecessors(r)[b]
	}
	switch {
	case len(preds) == 0:
		if b != r.Front() {
			p.asm.WriteString("  // no predecessors")
		}
	case len(preds) == 1:
		// One edge, as MLIR's getSinglePredecessor: a block reached twice
		// from ^bb0 has `2 preds: ^bb0, ^bb0`.
		p.asm.WriteString("  // pred: ")
		p.names.writeBlock(p.asm, preds[0])
	default:
		p.asm.WriteString("  // ")
		p.asm.WriteInt(int64(len(preds)))
		p.asm.WriteString(" preds: ")
		for i, pb := range preds {
			if i > 0 {
				p.asm.WriteString(", ")
			}
			p.names.writeBlock(p.asm, pb)
		}
	}
}

// smallRegion is the block count up to which printPredecessors scans the
// region at each label rather than building a table for it.
const smallRegion = 8

// appendPredecessors appends the blocks of r whose ops branch to target,
// once per branch, in block order.
func appendPredecessors(out []*ir.Block, r *ir.Region, target *ir.Block) []*ir.Block {
	for _, b := range r.Blocks() {
		for op := b.First(); op != nil; op = op.Next() {
			for _, s := range op.Successors() {
				if s == target {
					out = append(out, b)
				}
			}
		}
	}
	return out
}

// predecessors lists, for each block of r, the blocks whose ops branch to
// it, once per branch, in block order.
func (p *opPrinter) predecessors(r *ir.Region) map[*ir.Block][]*ir.Block {
	if m, ok := p.preds[r]; ok {
		return m
	}
	m := map[*ir.Block][]*ir.Block{}
	for _, b := range r.Blocks() {
		for op := b.First(); op != nil; op = op.Next() {
			for _, s := range op.Successors() {
				m[s] = append(m[s], b)
			}
		}
	}
	if p.preds == nil {
		p.preds = map[*ir.Region]map[*ir.Block][]*ir.Block{}
	}
	p.preds[r] = m
	return m
}

const spaces = "                                                                "

func (p *opPrinter) writeIndent() {
	n := p.indent
	for n > len(spaces) {
		p.asm.WriteString(spaces)
		n -= len(spaces)
	}
	p.asm.WriteString(spaces[:n])
}
