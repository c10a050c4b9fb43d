package ir

import (
	"fmt"
	"strings"
)

// Verify checks op and everything nested in it in mlir-opt's order, so
// that of several faults the one reported is the one mlir-opt reports:
//
//   - an op on entrance: null operands, its declared constraints and
//     Verify hook, then per region the entry block's predecessors;
//   - its blocks in order: on entrance an empty block that needs a
//     terminator and branches out of the middle, then each op (ops
//     isolated from above are left for later), and on exit branches to
//     other regions and the terminator;
//   - the op on exit: its isolated-from-above children, each verified
//     whole (dominance included), then its region invariants (symbol
//     tables, isolation, the VerifyRegions hook);
//   - dominance of every use in the op's regions, skipping blocks that
//     cannot be reached (graph regions have none to check).
//
// It returns the first failure as a *Diagnostic. Diagnostics whose Op is
// set let tools attach "see current operation" notes; those that mlir-opt
// emits at a bare location (an empty block, an entry block with
// predecessors) leave it unset, since mlir-opt attaches no such note.
func Verify(op *Operation) *Diagnostic {
	return VerifyIn(op, nil)
}

// VerifyIn is Verify with the facts of env given to the ops' VerifyEnv
// hooks (see Env).
func VerifyIn(op *Operation, env *Env) *Diagnostic {
	cache := newDomCache()
	cache.env = env
	return verifyOpAndDominance(op, cache)
}

func verifyOpAndDominance(op *Operation, cache *domCache) *Diagnostic {
	if d := verifyOperation(op, cache); d != nil {
		return d
	}
	return verifyDominance(op, cache)
}

// VerifyOne runs the checks of steps 2 and 3 on op alone.
func VerifyOne(op *Operation) *Diagnostic { return VerifyOneIn(op, nil) }

// VerifyOneIn is VerifyOne with the facts of env.
func VerifyOneIn(op *Operation, env *Env) *Diagnostic {
	if d := verifyDeclared(op); d != nil {
		return d
	}
	if d := verifyRegionTraits(op); d != nil {
		return d
	}
	return verifyHook(op, env)
}

// verifyHook runs the op's Verify hook, then its VerifyEnv hook.
func verifyHook(op *Operation, env *Env) *Diagnostic {
	if op.def == nil {
		return nil
	}
	var err error
	if op.def.Verify != nil {
		err = op.def.Verify(op)
	}
	if err == nil && op.def.VerifyEnv != nil {
		err = op.def.VerifyEnv(op, env)
	}
	if err != nil {
		d := AsDiagnostic(err, op)
		if d.Op == nil {
			d.Op = op
		}
		return d
	}
	return nil
}

func opErr(op *Operation, format string, args ...any) *Diagnostic {
	d := op.EmitOpError(format, args...)
	d.Op = op
	return d
}

// plainOpErr is an error at op without the `'name' op` prefix (MLIR's
// op->emitError), with op set for the "see current operation" note.
func plainOpErr(op *Operation, format string, args ...any) *Diagnostic {
	d := op.EmitError(format, args...)
	d.Op = op
	return d
}

// IsGraphRegion reports whether r's ops may use values before defining
// them: regions of ops marked GraphRegion, and single-block regions of
// unregistered ops.
func IsGraphRegion(r *Region) bool {
	op := r.parent
	if op == nil {
		return false
	}
	if op.def == nil {
		return len(r.blocks) <= 1
	}
	return op.def.Traits&TraitGraphRegion != 0
}

// mayLackTerminator reports whether b may end without a terminator: it is
// the only block of its region, and the region's op is unregistered or
// has the NoTerminator trait.
func mayLackTerminator(b *Block) bool {
	r := b.parent
	if r == nil {
		return true
	}
	if len(r.blocks) != 1 {
		return false
	}
	op := r.parent
	return op == nil || op.def == nil || op.def.Traits&TraitNoTerminator != 0
}

func isolatedWithRegions(op *Operation) bool {
	return len(op.regionList()) > 0 && op.HasTrait(TraitIsolatedFromAbove)
}

// verifyOperation verifies op and the ops nested in it, stopping at ops
// isolated from above, which it verifies whole at op's exit.
func verifyOperation(op *Operation, cache *domCache) *Diagnostic {
	if d := verifyOpEntrance(op, cache.env); d != nil {
		return d
	}
	for _, r := range op.regionList() {
		for _, b := range r.blocks {
			if d := verifyBlock(r, b, cache); d != nil {
				return d
			}
		}
	}
	return verifyOpExit(op, cache)
}

func verifyOpEntrance(op *Operation, env *Env) *Diagnostic {
	for i, o := range op.operands {
		if o.value == nil {
			return plainOpErr(op, "null operand found")
		}
		if def := o.value.DefiningOp(); def != nil && def.block == nil {
			// An op created at no insertion point (a pattern that built
			// a replacement without one): its value would print as
			// <<UNKNOWN SSA VALUE>>.
			return opErr(op, "operand #%d is the result of '%s', which is not in the IR", i, def.name)
		}
	}
	if op.def == nil {
		if d := op.ctx.Dialect(DialectNamespace(op.name)); d != nil && !d.AllowUnknownOps {
			return plainOpErr(op, "unregistered operation '%s' found in dialect ('%s') that does not allow unknown operations", op.name, d.Name)
		}
	}
	if op.next != nil && op.HasTrait(TraitTerminator) {
		return opErr(op, "must be the last operation in the parent block")
	}
	if d := verifyDeclared(op); d != nil {
		return d
	}
	if d := verifySymbolParent(op); d != nil {
		return d
	}
	if d := verifyHook(op, env); d != nil {
		return d
	}
	for _, r := range op.regionList() {
		if len(r.blocks) == 0 {
			continue
		}
		entry := r.blocks[0]
		for _, b := range r.blocks {
			for o := b.first; o != nil; o = o.next {
				for _, s := range o.successorList() {
					if s == entry {
						// At the region's op, as mlir-opt reports it.
						return Errorf(op.loc, "entry block of region may not have predecessors")
					}
				}
			}
		}
	}
	return nil
}

func verifyBlock(r *Region, b *Block, cache *domCache) *Diagnostic {
	if b.parent != r {
		return opErr(r.parent, "block is not owned by its region")
	}
	if b.first == nil {
		if mayLackTerminator(b) {
			return nil
		}
		// At the region's op, as mlir-opt reports it.
		return Errorf(r.parent.loc, "empty block: expect at least a terminator")
	}
	for o := b.first; o != nil; o = o.next {
		if o.block != b {
			return opErr(o, "operation is not owned by its block")
		}
		if o.next != nil && len(o.successorList()) > 0 {
			return plainOpErr(o, "operation with block successors must terminate its parent block")
		}
	}
	for o := b.first; o != nil; o = o.next {
		if isolatedWithRegions(o) {
			continue // verified whole at the exit of b's op
		}
		if d := verifyOperation(o, cache); d != nil {
			return d
		}
	}
	last := b.last
	for _, s := range last.successorList() {
		if s.parent != r {
			return opErr(last, "branching to block of a different region")
		}
	}
	if mayLackTerminator(b) {
		return nil
	}
	if last.def != nil && !last.HasTrait(TraitTerminator) {
		return plainOpErr(last, "block with no terminator, has %s", OpForDiagnostic(last))
	}
	return nil
}

func verifyOpExit(op *Operation, cache *domCache) *Diagnostic {
	var isolated []*Operation
	for _, r := range op.regionList() {
		for _, b := range r.blocks {
			for o := b.first; o != nil; o = o.next {
				if isolatedWithRegions(o) {
					isolated = append(isolated, o)
				}
			}
		}
	}
	if d := verifyIsolatedChildren(isolated, cache); d != nil {
		return d
	}
	if d := verifyRegionTraits(op); d != nil {
		return d
	}
	if op.def != nil && op.def.VerifyRegions != nil {
		if err := op.def.VerifyRegions(op); err != nil {
			d := AsDiagnostic(err, op)
			if d.Op == nil {
				d.Op = op
			}
			return d
		}
	}
	return nil
}

// verifyIsolatedChildren verifies ops isolated from above, each whole: on the
// machine's cores at once unless the context disables it (nothing they
// check reaches outside them, so they are independent, as MLIR's verifier
// relies on too). The failure reported is the first in op order, so the
// message does not depend on scheduling.
func verifyIsolatedChildren(ops []*Operation, cache *domCache) *Diagnostic {
	if len(ops) < 2 || ops[0].ctx.DisableMultithreading {
		for _, o := range ops {
			if d := verifyOpAndDominance(o, cache); d != nil {
				return d
			}
		}
		return nil
	}
	diags := make([]*Diagnostic, len(ops))
	ops[0].ctx.ParallelFor(len(ops), func(i, _ int) {
		c := newDomCache()
		c.env = cache.env
		diags[i] = verifyOpAndDominance(ops[i], c)
	})
	for _, d := range diags {
		if d != nil {
			return d
		}
	}
	return nil
}

// groupSizes splits n values over declared groups: singles take one,
// optionals zero or one, variadics the rest. It fails when impossible or
// ambiguous (more than one variadic needs explicit segment sizes, which
// come from an `operandSegmentSizes`/`resultSegmentSizes` attribute).
func groupSizes(defs []ValueDef, n int, segments *DenseArrayAttr) ([]int, bool) {
	sizes := make([]int, len(defs))
	if segments != nil {
		if len(segments.Ints) != len(defs) {
			return nil, false
		}
		total := 0
		for i, s := range segments.Ints {
			sizes[i] = int(s)
			total += int(s)
			if s < 0 || (defs[i].Kind == Single && s != 1) || (defs[i].Kind == Optional && s > 1) {
				return nil, false
			}
		}
		return sizes, total == n
	}
	fixed, flexible := 0, -1
	for i, d := range defs {
		if d.Kind == Single {
			sizes[i] = 1
			fixed++
		} else if flexible >= 0 {
			return nil, false
		} else {
			flexible = i
		}
	}
	if flexible < 0 {
		return sizes, n == fixed
	}
	rest := n - fixed
	if rest < 0 || (defs[flexible].Kind == Optional && rest > 1) {
		return nil, false
	}
	sizes[flexible] = rest
	return sizes, true
}

func countDesc(defs []ValueDef) string {
	min, variadic := 0, false
	for _, d := range defs {
		switch d.Kind {
		case Single:
			min++
		default:
			variadic = true
		}
	}
	if variadic {
		return fmt.Sprintf("at least %d", min)
	}
	return fmt.Sprintf("%d", min)
}

// countMismatch words a wrong operand or result count as ODS-generated
// verifiers do ("requires one result", "expected 2 operands, but found 1").
func countMismatch(defs []ValueDef, what string, found int) string {
	desc := countDesc(defs)
	switch {
	case desc == "0":
		return "requires zero " + what + "s"
	case desc == "1" && what == "operand":
		return "requires a single operand"
	case desc == "1":
		return "requires one result"
	case what == "result" && !strings.HasPrefix(desc, "at least"):
		return fmt.Sprintf("requires %s results", desc)
	}
	return fmt.Sprintf("expected %s %ss, but found %d", desc, what, found)
}

func verifyValueGroups(op *Operation, what string, defs []ValueDef, vals []*Value, segAttr string) *Diagnostic {
	var seg *DenseArrayAttr
	if s, ok := op.Attr(segAttr).(*DenseArrayAttr); ok {
		seg = s
	}
	sizes, ok := groupSizes(defs, len(vals), seg)
	if !ok {
		return opErr(op, "%s", countMismatch(defs, what, len(vals)))
	}
	i := 0
	for g, d := range defs {
		for k := 0; k < sizes[g]; k++ {
			v := vals[i]
			if !d.Type.Accepts(v.typ) {
				return opErr(op, "%s #%d must be %s, but got '%s'", what, i, d.Type.Desc, TypeString(v.typ))
			}
			i++
		}
	}
	return nil
}

func verifyDeclared(op *Operation) *Diagnostic {
	def := op.def
	if def == nil {
		return nil
	}
	if d := verifyValueGroups(op, "operand", def.Operands, op.Operands(), "operandSegmentSizes"); d != nil {
		return d
	}
	if d := verifyValueGroups(op, "result", def.Results, op.results, "resultSegmentSizes"); d != nil {
		return d
	}
	// As ODS-generated verifiers do: presence in name order first, then
	// each attribute's constraint in declared order.
	if name, missing := missingAttribute(op, def); missing {
		return opErr(op, "requires attribute '%s'", name)
	}
	for _, a := range def.Attributes {
		if v := op.Attr(a.Name); v != nil && a.Kind.Pred != nil && !a.Kind.Pred(v) {
			return opErr(op, "attribute '%s' failed to satisfy constraint: %s", a.Name, a.Kind.Desc)
		}
	}
	variadicRegions := len(def.Regions) > 0 && def.Regions[len(def.Regions)-1].Variadic
	if (!variadicRegions && len(op.regionList()) != len(def.Regions)) || (variadicRegions && len(op.regionList()) < len(def.Regions)-1) {
		return opErr(op, "requires %s", countWord(len(def.Regions), "region"))
	}
	for i, r := range op.regionList() {
		if i < len(def.Regions) && def.Regions[i].SingleBlock && len(r.blocks) > 1 || def.Traits&TraitSingleBlock != 0 && len(r.blocks) > 1 {
			return opErr(op, "expects region #%d to have 0 or 1 blocks", i)
		}
	}
	for i, r := range op.regionList() {
		if i < len(def.Regions) && def.Regions[i].Blocks > 0 && len(r.blocks) != def.Regions[i].Blocks {
			return opErr(op, "region #%d ('%s') failed to verify constraint: region with %d blocks", i, def.Regions[i].Name, def.Regions[i].Blocks)
		}
	}
	if def.Successors >= 0 && len(op.successorList()) != def.Successors {
		return opErr(op, "requires %d successors but found %d", def.Successors, len(op.successorList()))
	}
	if def.Traits&TraitSameOperandsAndResultType != 0 {
		var first Type
		for _, t := range append(op.OperandTypes(), op.ResultTypes()...) {
			if first == nil {
				first = t
			} else if t != first {
				return opErr(op, "requires the same type for all operands and results")
			}
		}
	}
	if def.Traits&TraitSameOperandsAndResultElementType != 0 {
		var first Type
		for _, t := range append(op.OperandTypes(), op.ResultTypes()...) {
			e := ElementTypeOrSelf(t)
			if first == nil {
				first = e
			} else if e != first {
				return opErr(op, "requires the same element type for all operands and results")
			}
		}
	}
	if len(def.ParentOps) > 0 {
		parent := op.ParentOp()
		ok := false
		for _, p := range def.ParentOps {
			if parent != nil && parent.name == p {
				ok = true
			}
		}
		if !ok {
			if len(def.ParentOps) == 1 {
				return opErr(op, "expects parent op '%s'", def.ParentOps[0])
			}
			return opErr(op, "expects parent op to be one of '%s'", joinQuoted(def.ParentOps))
		}
	}
	if def.Traits&TraitSymbol != 0 {
		if _, ok := op.Attr(SymbolAttrName).(*StringAttr); !ok {
			return opErr(op, "requires string attribute '%s'", SymbolAttrName)
		}
	}
	return nil
}

// verifyRegionTraits checks the traits that concern an op's regions as a
// whole (MLIR's region traits, checked once the regions are verified):
// symbol tables and isolation from above.
func verifyRegionTraits(op *Operation) *Diagnostic {
	def := op.def
	if def == nil {
		return nil
	}
	if def.Traits&TraitSymbolTable != 0 {
		if d := verifySymbolTable(op); d != nil {
			return d
		}
	}
	if def.Traits&TraitIsolatedFromAbove != 0 {
		if d := verifyIsolated(op); d != nil {
			return d
		}
	}
	return nil
}

// missingAttribute returns the first required attribute, by name, that op
// lacks.
func missingAttribute(op *Operation, def *OpDef) (string, bool) {
	first, missing := "", false
	for _, a := range def.Attributes {
		if !a.Optional && op.Attr(a.Name) == nil && (!missing || a.Name < first) {
			first, missing = a.Name, true
		}
	}
	return first, missing
}

// countWord spells counts as ODS messages do: "zero regions", "one region", "2 regions".
func countWord(n int, word string) string {
	switch n {
	case 0:
		return "zero " + word + "s"
	case 1:
		return "one " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func joinQuoted(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}

func verifySymbolTable(op *Operation) *Diagnostic {
	if len(op.regionList()) != 1 {
		return opErr(op, "Operations with a 'SymbolTable' must have exactly one region")
	}
	seen := map[string]*Operation{}
	for _, b := range op.regionList()[0].blocks {
		for o := b.first; o != nil; o = o.next {
			name, ok := SymbolName(o)
			if !ok {
				continue
			}
			if prev, dup := seen[name]; dup {
				d := Errorf(o.loc, "redefinition of symbol named '%s'", name)
				d.AttachNote(prev.loc, "see existing symbol definition here")
				d.Op = o
				return d
			}
			seen[name] = o
		}
	}
	return nil
}

func verifyIsolated(op *Operation) *Diagnostic {
	var fail *Diagnostic
	for _, r := range op.regionList() {
		for _, b := range r.blocks {
			for o := b.first; o != nil && fail == nil; o = o.next {
				o.Walk(func(inner *Operation) WalkResult {
					for _, v := range inner.Operands() {
						defRegion := v.ParentRegion()
						if defRegion == nil || !r.IsAncestor(defRegion) {
							fail = Errorf(inner.loc, "'%s' op using value defined outside the region", inner.name)
							fail.AttachNote(op.loc, "required by region isolation constraints")
							fail.Op = inner
							return WalkInterrupt
						}
					}
					return WalkAdvance
				})
			}
		}
	}
	return fail
}

// verifySymbolParent checks MLIR's Symbol trait rule: a symbol sits
// directly in a symbol table (a func.func nested in another is not a
// symbol anyone can name). Unregistered parents might be tables.
func verifySymbolParent(op *Operation) *Diagnostic {
	if !op.HasTrait(TraitSymbol) {
		return nil
	}
	if parent := op.ParentOp(); parent != nil && parent.def != nil && !parent.HasTrait(TraitSymbolTable) {
		return opErr(op, "symbol's parent must have the SymbolTable trait")
	}
	return nil
}
