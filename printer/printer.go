package printer

import (
	"io"
	"strings"

	"github.com/ipuir/ipuir/ir"
)

// Print writes op as mlir-opt writes its output: for a top-level op the
// alias definitions, the op, the deferred location aliases and the
// resource section, then the blank line mlir-opt ends its output with. A
// nested op prints alone (no aliases), followed by a newline.
//
// The text streams to w in chunks as ops complete, so memory does not
// grow with the output; after an error of w, what was written is a prefix
// of the output and the error is returned.
func Print(w io.Writer, op *ir.Operation, opts Options) error {
	root := scopeRoot(op, opts.LocalScope)
	p := newOpPrinter(root, op, opts)
	p.asm.SetOutput(w)
	if op.ParentOp() == nil && !opts.LocalScope {
		p.printTopLevel(op)
	} else {
		p.printFullOp(op)
	}
	p.asm.WriteByte('\n')
	return p.asm.Flush()
}

// Diagnostics that name an op in their message (the verifier's "block with
// no terminator, has <op>") print it as MLIR's do: generic, local scope.
func init() {
	ir.SetDiagnosticOpPrinter(func(op *ir.Operation) string {
		return OpString(op, Options{Generic: true})
	})
}

// OpString prints one op on its own, as MLIR's diagnostics do for "see
// current operation" notes: with local scope (names counted from the
// nearest isolated-from-above op, no aliases) and no trailing newline. An
// op with regions spans several lines; MLIR's notes start it on a new line.
func OpString(op *ir.Operation, opts Options) string {
	opts.LocalScope = true
	p := newOpPrinter(scopeRoot(op, true), op, opts)
	p.printFullOp(op)
	return string(p.asm.Bytes())
}

// scopeRoot is the op names are counted from: the top-level ancestor, or
// with local scope the nearest isolated-from-above one.
func scopeRoot(op *ir.Operation, local bool) *ir.Operation {
	for {
		if local && op.HasTrait(ir.TraitIsolatedFromAbove) {
			return op
		}
		parent := op.ParentOp()
		if parent == nil {
			return op
		}
		op = parent
	}
}

func newOpPrinter(root, op *ir.Operation, opts Options) *opPrinter {
	generic := opts.Generic
	if !generic && !opts.AssumeVerified && ir.VerifyIn(root, opts.Env) != nil {
		// Custom printers may rely on verified IR; mlir-opt falls back to
		// the generic form for anything that does not verify.
		generic = true
	}
	return &opPrinter{
		asm:      &ir.AsmPrinter{Hook: &printHook{elideLimit: opts.ElideElementsAttrsIfLarger}, HexThreshold: opts.HexIfLarger},
		ctx:      op.Context(),
		opts:     opts,
		generic:  generic,
		names:    newNames(root, !generic, generic || opts.UniqueSSAIDs, opts.ValueUsers),
		dialects: []string{"builtin"},
	}
}

// printTopLevel finds the aliases by a dry run, then prints the file.
func (p *opPrinter) printTopLevel(op *ir.Operation) {
	collector := newAliasCollector()
	dry := *p
	dry.asm = &ir.AsmPrinter{Hook: collector}
	dry.collect = collector
	dry.printFullOp(op)
	aliases := collector.table()
	p.asm.TypeAliases, p.asm.AttrAliases = aliases.types, aliases.attrs

	p.printAliasDefinitions(aliases, aliases.leading)
	p.printFullOp(op)
	p.asm.WriteByte('\n')
	p.printAliasDefinitions(aliases, aliases.trailing)
	p.printResources()
}

func (p *opPrinter) printAliasDefinitions(t *aliasTable, entries []*aliasEntry) {
	for _, e := range entries {
		if e.isType {
			p.asm.WriteByte('!')
		} else {
			p.asm.WriteByte('#')
		}
		p.asm.WriteString(t.names[e])
		p.asm.WriteString(" = ")
		switch v := e.value.(type) {
		case ir.Location:
			p.printLocation(v, false)
		case ir.Type:
			v.Print(p.asm)
		case ir.Attribute:
			p.asm.PrintAttrDirect(v, false)
		}
		p.asm.WriteByte('\n')
	}
}

// printHook is the real printing's ir.AsmHook: it notes the resources that
// dense_resource attributes refer to and elides large elements attributes.
type printHook struct {
	elideLimit int
	resources  []string
	seen       map[string]bool
}

func (h *printHook) HookType(*ir.AsmPrinter, ir.Type) bool { return false }

func (h *printHook) HookAttr(p *ir.AsmPrinter, a ir.Attribute, elideType bool) bool {
	var elide bool
	var typ ir.Type
	switch a := a.(type) {
	case *ir.DenseResourceElementsAttr:
		if h.seen == nil {
			h.seen = map[string]bool{}
		}
		if !h.seen[a.Handle] {
			h.seen[a.Handle] = true
			h.resources = append(h.resources, a.Handle)
		}
		return false
	case *ir.DenseElementsAttr:
		elide, typ = h.elides(a.Splat, a.NumElements()), a.Typ
	case *ir.DenseStringElementsAttr:
		elide, typ = h.elides(a.Splat, ir.NumElements(a.Typ.Shape())), a.Typ
	case *ir.SparseElementsAttr:
		elide = h.elides(a.Indices.Splat, a.Indices.NumElements())
		switch v := a.Values.(type) {
		case *ir.DenseElementsAttr:
			elide = elide || h.elides(v.Splat, v.NumElements())
		case *ir.DenseStringElementsAttr:
			elide = elide || h.elides(v.Splat, ir.NumElements(v.Typ.Shape()))
		}
		typ = a.Typ
	}
	if !elide {
		return false
	}
	p.WriteString("dense_resource<__elided__>")
	if !elideType {
		p.WriteString(" : ")
		p.PrintType(typ)
	}
	return true
}

func (h *printHook) elides(splat bool, n int64) bool {
	return h.elideLimit > 0 && int64(h.elideLimit) < n && !splat
}

// printResources writes the {-# dialect_resources: ... #-} section: the
// builtin blobs that dense_resource attributes printed above refer to, in
// order of first reference, then every resource of other dialects.
func (p *opPrinter) printResources() {
	if p.ctx == nil {
		return
	}
	hook := p.asm.Hook.(*printHook)
	type group struct {
		dialect string
		entries []ir.Resource
	}
	var groups []*group
	var builtin group
	builtin.dialect = "builtin"
	for _, key := range hook.resources {
		if r, ok := p.ctx.LookupResource("builtin", key); ok {
			builtin.entries = append(builtin.entries, r)
		}
	}
	if len(builtin.entries) > 0 {
		groups = append(groups, &builtin)
	}
	for _, r := range p.ctx.Resources() {
		if r.Dialect == "builtin" {
			continue
		}
		if len(groups) == 0 || groups[len(groups)-1].dialect != r.Dialect {
			groups = append(groups, &group{dialect: r.Dialect})
		}
		g := groups[len(groups)-1]
		g.entries = append(g.entries, r)
	}
	if len(groups) == 0 {
		return
	}
	if limit := p.opts.ElideResourceStringsIfLarger; limit > 0 {
		// As mlir-opt: a string or blob whose printed form (quotes
		// included) is longer than the limit is left out, and so is a
		// group left empty; booleans always print.
		kept := groups[:0]
		for _, g := range groups {
			entries := g.entries[:0]
			for _, r := range g.entries {
				if v := resourceValue(r.Value); !strings.HasPrefix(v, `"`) || len(v) <= limit {
					entries = append(entries, r)
				}
			}
			if g.entries = entries; len(entries) > 0 {
				kept = append(kept, g)
			}
		}
		if groups = kept; len(groups) == 0 {
			p.asm.WriteString("\n{-#\n\n#-}\n")
			return
		}
	}
	p.asm.WriteString("\n{-#\n  dialect_resources: {\n")
	for i, g := range groups {
		if i > 0 {
			p.asm.WriteString(",\n")
		}
		p.asm.WriteString("    ")
		p.asm.WriteString(g.dialect)
		p.asm.WriteString(": {\n")
		for j, r := range g.entries {
			if j > 0 {
				p.asm.WriteString(",\n")
			}
			p.asm.WriteString("      ")
			p.asm.WriteString(r.Key)
			p.asm.WriteString(": ")
			p.asm.WriteString(resourceValue(r.Value))
		}
		p.asm.WriteString("\n    }")
	}
	p.asm.WriteString("\n  }\n#-}\n")
}

// resourceValue spells a resource value as mlir-opt does: blobs in
// upper-case hex, strings and booleans as written.
func resourceValue(v string) string {
	if strings.HasPrefix(v, `"0x`) || strings.HasPrefix(v, `"0X`) {
		return `"0x` + strings.ToUpper(v[3:])
	}
	return v
}
