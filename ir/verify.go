package ir

import (
	"fmt"
	"strings"
)

// Verify checks op and everything nested in it, in a fixed order:
//  1. structure: block ownership, terminators, successors;
//  2. each op's declared constraints (operands, results, attributes,
//     regions, successors, traits, parents, symbol uniqueness);
//  3. each op's Verify hook;
//  4. each op's VerifyRegions hook, after its regions;
//  5. dominance of every use by its definition (graph regions excepted).
//
// It returns the first failure as a *Diagnostic. Diagnostics whose Op is
// set let tools attach "see current operation" notes.
func Verify(op *Operation) *Diagnostic {
	if d := verifyStructure(op); d != nil {
		return d
	}
	if d := verifyOps(op); d != nil {
		return d
	}
	return verifyDominance(op)
}

// VerifyOne runs the checks of steps 2 and 3 on op alone.
func VerifyOne(op *Operation) *Diagnostic {
	if d := verifyDeclared(op); d != nil {
		return d
	}
	if op.def != nil && op.def.Verify != nil {
		if err := op.def.Verify(op); err != nil {
			d := AsDiagnostic(err, op)
			if d.Op == nil {
				d.Op = op
			}
			return d
		}
	}
	return nil
}

func opErr(op *Operation, format string, args ...any) *Diagnostic {
	d := op.EmitOpError(format, args...)
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

func needsTerminator(r *Region) bool {
	op := r.parent
	if op.def == nil {
		return false
	}
	return op.def.Traits&TraitNoTerminator == 0
}

func verifyStructure(top *Operation) *Diagnostic {
	var fail *Diagnostic
	top.Walk(func(op *Operation) WalkResult {
		for i, o := range op.operands {
			if o.value == nil {
				fail = opErr(op, "null operand found")
				_ = i
				return WalkInterrupt
			}
		}
		for _, r := range op.regions {
			for bi, b := range r.blocks {
				if b.parent != r {
					fail = opErr(op, "block is not owned by its region")
					return WalkInterrupt
				}
				if b.first == nil {
					if needsTerminator(r) || (op.def == nil && len(r.blocks) > 1) {
						fail = opErr(op, "empty block: expect at least a terminator")
						return WalkInterrupt
					}
					continue
				}
				for o := b.first; o != nil; o = o.next {
					if o.block != b {
						fail = opErr(o, "operation is not owned by its block")
						return WalkInterrupt
					}
					if o.next != nil && (len(o.successors) > 0 || o.HasTrait(TraitTerminator)) {
						if len(o.successors) > 0 {
							fail = opErr(o, "operation with block successors must terminate its parent block")
						} else {
							fail = opErr(o, "must be the last operation in the parent block")
						}
						return WalkInterrupt
					}
					for _, s := range o.successors {
						if s.parent != r {
							fail = opErr(o, "reference to block defined in another region")
							return WalkInterrupt
						}
						if s == r.blocks[0] {
							fail = opErr(o, "entry block of region may not have predecessors")
							fail.Message = fmt.Sprintf("'%s' op %s", o.name, "entry block of region may not have predecessors")
							return WalkInterrupt
						}
					}
				}
				if needsTerminator(r) {
					last := b.last
					if last.def != nil && !last.HasTrait(TraitTerminator) {
						fail = Errorf(last.loc, "block with no terminator, has '%s'", last.name)
						fail.Op = last
						return WalkInterrupt
					}
				}
				_ = bi
			}
		}
		return WalkAdvance
	})
	return fail
}

func verifyOps(op *Operation) *Diagnostic {
	if d := VerifyOne(op); d != nil {
		return d
	}
	for _, r := range op.regions {
		for _, b := range r.blocks {
			for o := b.first; o != nil; o = o.next {
				if d := verifyOps(o); d != nil {
					return d
				}
			}
		}
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
	for _, a := range def.Attributes {
		v := op.Attr(a.Name)
		if v == nil {
			if !a.Optional {
				return opErr(op, "requires attribute '%s'", a.Name)
			}
			continue
		}
		if a.Kind.Pred != nil && !a.Kind.Pred(v) {
			return opErr(op, "attribute '%s' failed to satisfy constraint: %s", a.Name, a.Kind.Desc)
		}
	}
	variadicRegions := len(def.Regions) > 0 && def.Regions[len(def.Regions)-1].Variadic
	if (!variadicRegions && len(op.regions) != len(def.Regions)) || (variadicRegions && len(op.regions) < len(def.Regions)-1) {
		return opErr(op, "requires %s", countWord(len(def.Regions), "region"))
	}
	for i, r := range op.regions {
		if i < len(def.Regions) && def.Regions[i].SingleBlock && len(r.blocks) > 1 || def.Traits&TraitSingleBlock != 0 && len(r.blocks) > 1 {
			return opErr(op, "expects region #%d to have 0 or 1 blocks", i)
		}
	}
	if def.Successors >= 0 && len(op.successors) != def.Successors {
		return opErr(op, "requires %d successors but found %d", def.Successors, len(op.successors))
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
	if len(op.regions) != 1 {
		return opErr(op, "Operations with a 'SymbolTable' must have exactly one region")
	}
	seen := map[string]*Operation{}
	for _, b := range op.regions[0].blocks {
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
	for _, r := range op.regions {
		for _, b := range r.blocks {
			for o := b.first; o != nil && fail == nil; o = o.next {
				o.Walk(func(inner *Operation) WalkResult {
					for i, v := range inner.Operands() {
						defRegion := v.ParentRegion()
						if defRegion == nil || !r.IsAncestor(defRegion) {
							fail = Errorf(inner.loc, "'%s' op using value defined outside the region", inner.name)
							fail.AttachNote(op.loc, "required by region isolation constraints")
							fail.Op = inner
							_ = i
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
