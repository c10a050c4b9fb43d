package irgen

import (
	"fmt"
	"slices"
	"strings"
)

// value is an SSA value in scope: a block argument or an op result.
type value struct {
	name  string // %name of the argument or result group
	index int    // position in the result group
	size  int    // size of the result group (1 for arguments)
	t     *typ
	blk   *blockState // defining block; nil when defined outside any tracked block
	pos   int         // index of the defining op in blk; -1 for arguments
}

// blockState identifies a block while its ops are generated.
type blockState struct{}

// frame is an op being generated: uses of values defined at or after it
// in its own (graph) block are forward references.
type frame struct {
	blk *blockState
	pos int
}

// resultGroup is `%name` or `%name:N` on the left of an op.
type resultGroup struct {
	name  string
	types []*typ
}

// ref spells a use of v.
func (g *gen) ref(v value) string {
	if v.size == 1 {
		if v.pos >= 0 && g.chance(0.05) {
			return v.name + "#0"
		}
		return v.name
	}
	if v.index == 0 && (g.chance(0.3) || !g.on(ResultGroupUse)) {
		return v.name // a group used plainly is its first result
	}
	g.mark(ResultGroupUse)
	return fmt.Sprintf("%s#%d", v.name, v.index)
}

// planResults picks the result groups of an op.
func (g *gen) planResults() []resultGroup {
	n := g.choose(
		alt{"", 3, func() string { return "0" }},
		alt{OpResult, 6, func() string { return "1" }},
		alt{SeveralResultGroups, 1, func() string { return "2" }},
	)
	var groups []resultGroup
	for range int(n[0] - '0') {
		size := 1
		if g.maybe(ResultGroup, 0.2) {
			size = g.between(2, 3)
		}
		gr := resultGroup{name: g.valueName()}
		for range size {
			gr.types = append(gr.types, g.anyType(2))
		}
		groups = append(groups, gr)
	}
	return groups
}

// groupValues are the values an op's result groups define.
func groupValues(groups []resultGroup, blk *blockState, pos int) []value {
	var vs []value
	for _, gr := range groups {
		for i, t := range gr.types {
			vs = append(vs, value{name: gr.name, index: i, size: len(gr.types), t: t, blk: blk, pos: pos})
		}
	}
	return vs
}

func groupTypes(groups []resultGroup) []*typ {
	var ts []*typ
	for _, gr := range groups {
		ts = append(ts, gr.types...)
	}
	return ts
}

func groupsText(groups []resultGroup) string {
	if len(groups) == 0 {
		return ""
	}
	parts := make([]string, len(groups))
	for i, gr := range groups {
		parts[i] = gr.name
		if len(gr.types) > 1 {
			parts[i] += fmt.Sprintf(":%d", len(gr.types))
		}
	}
	return strings.Join(parts, ", ") + " = "
}

// opName is the quoted name of an unregistered op.
func (g *gen) opName() string {
	return `"` + pick(g, dialectNames) + "." + g.word() + pick(g, []string{"", "", ".sub", "_op"}) + `"`
}

// useValue picks an operand from visible, or false when no value is
// allowed, and marks forward references against the ops being generated.
func (g *gen) useValue(visible []value, stack []frame) (value, bool) {
	var fits []value
	for _, v := range visible {
		if g.usable(v, stack, false) {
			fits = append(fits, v)
		}
	}
	if len(fits) == 0 {
		return value{}, false
	}
	v := pick(g, fits)
	g.usable(v, stack, true)
	return v, true
}

// usable reports whether the features allow a use of v inside the ops of
// stack: a later result of a graph block is a forward reference, the
// result of an enclosing op its own result in its region, a result past
// the first of a group a #N use. mark counts them.
func (g *gen) usable(v value, stack []frame, mark bool) bool {
	var fs []Feature
	if v.size > 1 && v.index > 0 {
		fs = append(fs, ResultGroupUse)
	}
	for i, f := range stack {
		if v.blk == nil || v.blk != f.blk || v.pos < f.pos {
			continue
		}
		if v.pos == f.pos && i < len(stack)-1 {
			fs = append(fs, OwnResultInRegion)
		} else {
			fs = append(fs, ForwardReference)
		}
	}
	for _, f := range fs {
		if !g.on(f) {
			return false
		}
	}
	if mark {
		for _, f := range fs {
			if f != ResultGroupUse { // ref marks it, where it spells #N
				g.mark(f)
			}
		}
	}
	return true
}

// op is one unregistered op with the given results, operands from
// visible, maybe properties, regions (whose scope is regionScope) and an
// attribute dictionary; succ, when set, is its successor list.
func (g *gen) op(ind string, groups []resultGroup, visible, regionScope []value, stack []frame, depth int) string {
	var operands []value
	if len(visible) > 0 && g.maybe(Operands, 0.7) {
		for range g.between(1, 3) {
			if v, ok := g.useValue(visible, stack); ok {
				operands = append(operands, v)
			}
		}
	}
	var b strings.Builder
	b.WriteString(g.comment(ind))
	odd := g.maybe(OddWhitespace, 0.1)
	lead, eq, colon := ind, " = ", " : "
	if odd {
		// Tabs count one column each, and a line break inside an op
		// moves nothing of its location, which is its name's position.
		lead = strings.Repeat("\t", len(ind)/2) + pick(g, []string{"", " ", "\t "})
		eq = pick(g, []string{"=", " =\t", "  =  "})
		colon = "\n" + ind + "    :\t"
	}
	if len(groups) == 0 {
		b.WriteString(lead + g.opName())
	} else {
		b.WriteString(lead + strings.TrimSuffix(groupsText(groups), " = ") + eq + g.opName())
	}
	b.WriteString("(" + list(len(operands), func(i int) string { return g.ref(operands[i]) }) + ")")
	b.WriteString(g.properties())
	if regions := g.opRegions(ind, regionScope, stack, depth); len(regions) > 0 {
		b.WriteString(" (" + strings.Join(regions, ", ") + ")")
	}
	b.WriteString(g.attrDict(ind, odd))
	b.WriteString(colon + g.signature(operands, groupTypes(groups)))
	b.WriteString(g.trailingLoc() + g.trailingComment() + "\n")
	return b.String()
}

// comment is now and then a comment line before an op.
func (g *gen) comment(ind string) string {
	if !g.maybe(Comments, 0.05) {
		return ""
	}
	return ind + "// " + g.word() + " \"quoted\" %x ^bb0 {" + "\n"
}

// trailingComment is now and then a comment at the end of an op's line.
func (g *gen) trailingComment() string {
	if !g.maybe(Comments, 0.03) {
		return ""
	}
	return pick(g, []string{" // trailing", "// }) : loc(", "\t//"})
}

// signature is the op's function type.
func (g *gen) signature(operands []value, results []*typ) string {
	ins := make([]*typ, len(operands))
	for i, v := range operands {
		ins[i] = v.t
	}
	return functionText(ins, results, len(results) == 1 && g.maybe(ParenthesisedResult, 0.15))
}

func (g *gen) properties() string {
	if !g.chance(0.25) {
		return ""
	}
	return g.choose(
		alt{PropertiesDict, 4, func() string { return " <{" + g.dictEntries(1, g.between(1, 3), false) + "}>" }},
		alt{PropertiesEmpty, 1, func() string { return " <{}>" }},
		alt{PropertiesOther, 2, func() string { return " <" + g.attr(1) + ">" }},
	)
}

// attrDict is the attribute dictionary of an op, or ""; odd spreads it
// over lines, with comments.
func (g *gen) attrDict(ind string, odd bool) string {
	if !g.maybe(AttrDict, 0.5) {
		return ""
	}
	if g.chance(0.05) {
		return " {}"
	}
	entries := g.dictEntryList(2, g.between(1, 4), false)
	if odd {
		sep := ",\n" + ind + "   "
		if g.maybe(Comments, 0.5) {
			sep = ", // entry\n" + ind + "\t"
		}
		return " {\n" + ind + "   " + strings.Join(entries, sep) + "\n" + ind + "}"
	}
	return " {" + strings.Join(entries, ", ") + "}"
}

// opRegions are the regions of an unregistered op, which may use scope.
func (g *gen) opRegions(ind string, scope []value, stack []frame, depth int) []string {
	if depth >= g.cfg.MaxDepth || !g.chance(0.35) {
		return nil
	}
	if depth+1 >= 3 {
		if !g.on(DeepNesting) {
			return nil
		}
		g.mark(DeepNesting)
	}
	n := 1
	if g.maybe(SeveralRegions, 0.25) {
		n = g.between(2, 3)
	}
	inner := ind + "  "
	var regions []string
	for range n {
		regions = append(regions, g.choose(
			alt{GraphRegion, 6, func() string { return g.graphRegion(inner, scope, stack, depth+1) }},
			alt{MultiBlockRegion, 3, func() string {
				if !g.on(Successors) {
					return g.graphRegion(inner, scope, stack, depth+1)
				}
				return g.cfgRegion(regionSpec{ind: inner, outer: scope, stack: stack, depth: depth + 1, blocks: g.between(2, 4), exit: g.exitOp})
			}},
			alt{EmptyRegion, 1, func() string { return "{\n" + ind + "}" }},
			alt{EmptyBlock, 1, func() string {
				mark := g.openScope()
				defer g.closeScope(mark)
				_, decl := g.blockArgs(EntryBlockArguments, 0.3)
				return "{\n" + ind + g.regionLabel(0) + decl + ":\n" + ind + "}"
			}},
		))
	}
	return regions
}

// blockArgs declares the arguments of a block, with probability p.
func (g *gen) blockArgs(f Feature, p float64) ([]value, string) {
	if !g.maybe(f, p) {
		return nil, ""
	}
	var args []value
	var decls []string
	for range g.between(1, 2) {
		v := value{name: g.valueName(), size: 1, t: g.anyType(1), pos: -1}
		args = append(args, v)
		decls = append(decls, v.name+": "+v.t.spell+g.argLoc())
	}
	return args, "(" + strings.Join(decls, ", ") + ")"
}

// argLoc is the optional location of a block or function argument.
func (g *gen) argLoc() string {
	if !g.maybe(LocBlockArg, 0.3) {
		return ""
	}
	loc := g.trailingLoc()
	if loc == "" {
		return " loc(unknown)"
	}
	return loc
}

// graphRegion is a single-block region of an unregistered op: a graph
// region, where every value of the block is visible to every op in it and
// to their regions.
func (g *gen) graphRegion(ind string, outer []value, stack []frame, depth int) string {
	mark := g.openScope()
	defer g.closeScope(mark)
	outerInd := ind[:len(ind)-2]
	var b strings.Builder
	b.WriteString("{\n")
	args, decl := g.blockArgs(EntryBlockArguments, 0.25)
	if decl != "" || g.chance(0.2) {
		b.WriteString(outerInd + g.regionLabel(0) + decl + ":\n")
	}
	body := g.graphOps(ind, append(append([]value(nil), outer...), args...), stack, depth, g.between(1, g.cfg.MaxOpsPerBlock), false)
	b.WriteString(body)
	b.WriteString(outerInd + "}")
	return b.String()
}

// graphOps generates n ops of a graph block: results are planned first so
// that any op may use any of them. top allows functions and modules.
func (g *gen) graphOps(ind string, outer []value, stack []frame, depth, n int, top bool) string {
	blk := &blockState{}
	type item struct {
		kind   string // "op", "func", "module"
		groups []resultGroup
	}
	items := make([]item, n)
	visible := append([]value(nil), outer...)
	for i := range items {
		items[i].kind = "op"
		if top {
			items[i].kind = g.choose(
				alt{"", 5, func() string { return "op" }},
				alt{"", 3, func() string { return "func" }},
				alt{NestedModule, 1, func() string {
					if depth >= g.cfg.MaxDepth {
						return "op"
					}
					return "module"
				}},
			)
		}
		if items[i].kind == "op" {
			items[i].groups = g.planResults()
			visible = append(visible, groupValues(items[i].groups, blk, i)...)
		}
	}
	var b strings.Builder
	for i, it := range items {
		switch it.kind {
		case "func":
			b.WriteString(g.funcOp(ind, depth))
		case "module":
			b.WriteString(g.moduleOp(ind, depth+1))
		default:
			st := append(append([]frame(nil), stack...), frame{blk, i})
			b.WriteString(g.op(ind, it.groups, visible, visible, st, depth))
		}
	}
	if n > 0 && !top {
		g.mark(GraphRegion)
	}
	return b.String()
}

// regionSpec describes a region with SSA dominance.
type regionSpec struct {
	ind   string
	outer []value
	stack []frame
	depth int
	// entry are the entry block's arguments when the op fixes them (a
	// function); otherwise some are generated. noEntryLabel leaves the
	// entry block unlabelled (custom func.func).
	entry        []value
	fixedEntry   bool
	noEntryLabel bool
	blocks       int
	// exit generates the last op of a block without successors, after any
	// ops it needs.
	exit func(ind string, visible []value, stack []frame, depth int) string
}

// cfgRegion is a region of several blocks (or a function body) with
// SSACFG dominance: the CFG has a path of earlier blocks to every
// reachable block, so dominators come first and values are used only
// where their block dominates (unreachable blocks may use any earlier
// block's values, as MLIR allows).
func (g *gen) cfgRegion(sp regionSpec) string {
	mark := g.openScope()
	defer g.closeScope(mark)
	nb := sp.blocks
	succ := make([][]int, nb)
	unreachable := -1
	if nb >= 3 && g.maybe(UnreachableBlock, 0.3) {
		unreachable = nb - 1
	}
	for j := 1; j < nb; j++ {
		if j == unreachable {
			continue
		}
		i := g.r.IntN(j) // blocks before j are all reachable
		succ[i] = append(succ[i], j)
	}
	for i := range nb {
		if nb > 1 && g.chance(0.3) {
			k := g.between(1, nb-1)
			dup := slices.Contains(succ[i], k)
			if (k != unreachable || i == unreachable) && (!dup || g.on(DuplicateSuccessor) && g.chance(0.15)) {
				if dup {
					g.mark(DuplicateSuccessor)
				}
				succ[i] = append(succ[i], k)
			}
		}
	}
	dom := dominators(succ, unreachable)

	labels := make([]string, nb)
	args := make([][]value, nb)
	decls := make([]string, nb)
	for j := range nb {
		labels[j] = g.regionLabel(j)
		if j == 0 {
			if sp.fixedEntry {
				args[0] = sp.entry
				var ds []string
				for _, v := range sp.entry {
					ds = append(ds, v.name+": "+v.t.spell+g.argLoc())
				}
				if len(ds) > 0 {
					decls[0] = "(" + strings.Join(ds, ", ") + ")"
				}
			} else {
				args[0], decls[0] = g.blockArgs(EntryBlockArguments, 0.3)
			}
			continue
		}
		if g.on(SuccessorOperands) {
			args[j], decls[j] = g.blockArgs(BlockArguments, 0.4)
		}
	}

	outerInd := sp.ind[:len(sp.ind)-2]
	blockVals := make([][]value, nb)
	var b strings.Builder
	b.WriteString("{\n")
	for j := range nb {
		if j > 0 || (!sp.noEntryLabel && (decls[0] != "" || g.chance(0.3))) {
			b.WriteString(outerInd + labels[j] + decls[j] + ":\n")
		}
		visible := append([]value(nil), sp.outer...)
		for d := range j {
			if dom[j]&(1<<d) != 0 || j == unreachable {
				visible = append(visible, blockVals[d]...)
			}
		}
		visible = append(visible, args[j]...)
		blockVals[j] = append(blockVals[j], args[j]...)
		for range g.between(0, g.cfg.MaxOpsPerBlock) {
			groups := g.planResults()
			// Regions see only what dominates the op: not its results.
			b.WriteString(g.op(sp.ind, groups, visible, visible, sp.stack, sp.depth))
			vs := groupValues(groups, nil, 0)
			visible = append(visible, vs...)
			blockVals[j] = append(blockVals[j], vs...)
		}
		if len(succ[j]) > 0 {
			b.WriteString(g.branchOp(sp.ind, visible, sp.stack, succ[j], labels, args))
		} else {
			b.WriteString(sp.exit(sp.ind, visible, sp.stack, sp.depth))
		}
	}
	b.WriteString(outerInd + "}")
	if nb > 1 {
		g.mark(MultiBlockRegion)
	}
	return b.String()
}

// dominators returns, per block, the set of its dominators as a bit set,
// over the edges from reachable blocks (every block but unreachable).
func dominators(succ [][]int, unreachable int) []uint64 {
	nb := len(succ)
	preds := make([][]int, nb)
	for i, ss := range succ {
		if i == unreachable {
			continue
		}
		for _, j := range ss {
			preds[j] = append(preds[j], i)
		}
	}
	all := uint64(1)<<nb - 1
	dom := make([]uint64, nb)
	for j := range dom {
		dom[j] = all
	}
	dom[0] = 1
	for changed := true; changed; {
		changed = false
		for j := 1; j < nb; j++ {
			if j == unreachable {
				continue
			}
			d := all
			for _, p := range preds[j] {
				d &= dom[p]
			}
			d |= 1 << j
			if d != dom[j] {
				dom[j], changed = d, true
			}
		}
	}
	if unreachable >= 0 {
		dom[unreachable] = 1<<unreachable | 1
	}
	return dom
}

// valuesOfTypes returns uses of values of the given types, defining new
// ones (in ops before the use) where visible has none.
func (g *gen) valuesOfTypes(ind string, visible []value, stack []frame, types []*typ) (prelude string, refs []string) {
	var b strings.Builder
	for _, t := range types {
		var fits []value
		for _, v := range visible {
			if v.t.text == t.text && g.usable(v, stack, false) {
				fits = append(fits, v)
			}
		}
		if len(fits) > 0 && g.chance(0.8) {
			v := pick(g, fits)
			g.usable(v, stack, true)
			refs = append(refs, g.ref(v))
			continue
		}
		name := g.valueName()
		fmt.Fprintf(&b, "%s%s = %s() : () -> %s%s\n", ind, name, g.opName(), resultText([]*typ{t}, false), g.trailingLoc())
		refs = append(refs, name)
	}
	return b.String(), refs
}

// branchOp ends a block with an unregistered op whose successors are the
// blocks targets, passing values for their arguments.
func (g *gen) branchOp(ind string, visible []value, stack []frame, targets []int, labels []string, args [][]value) string {
	g.mark(Successors)
	var types []*typ
	var b strings.Builder
	var refs []string
	if g.chance(0.3) {
		if v, ok := g.useValue(visible, stack); ok {
			types = append(types, v.t) // a condition, say
			refs = append(refs, g.ref(v))
		}
	}
	var succs []string
	for _, t := range targets {
		succs = append(succs, labels[t])
		var ts []*typ
		for _, a := range args[t] {
			ts = append(ts, a.t)
		}
		prelude, rs := g.valuesOfTypes(ind, visible, stack, ts)
		b.WriteString(prelude)
		refs = append(refs, rs...)
		types = append(types, ts...)
		if len(ts) > 0 {
			g.mark(SuccessorOperands)
		}
	}
	fmt.Fprintf(&b, "%s%s(%s)[%s]%s : (%s) -> ()%s\n", ind, g.opName(), strings.Join(refs, ", "),
		strings.Join(succs, ", "), g.attrDict(ind, false), spells(types), g.trailingLoc())
	return b.String()
}

// exitOp ends a block of an unregistered op's region: any op without
// successors.
func (g *gen) exitOp(ind string, visible []value, stack []frame, depth int) string {
	return g.op(ind, g.planResults(), visible, visible, stack, depth)
}
