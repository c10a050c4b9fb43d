package passes

import (
	"fmt"

	"github.com/ipuir/ipuir/ir"
)

// Dialect conversion rewrites ops until every op is legal for a
// ConversionTarget, changing types on the way with a TypeConverter, in
// the manner of MLIR's dialect conversion:
//
//   - ops are legalized parents first, in IR order; a legal op stays, an
//     illegal one is rewritten by the first pattern (by benefit) that
//     applies, and ops the pattern creates are legalized in turn;
//   - ConversionPatterns receive the op's operands already remapped to
//     their converted values (with target materializations where a value
//     does not yet have the converted type);
//   - ConversionRewriter.ReplaceOp accepts values of converted types:
//     users not yet converted keep working through a source
//     materialization (by default builtin.unrealized_conversion_cast);
//   - at the end, materializations nobody uses are erased and casts that
//     undo each other are folded away; those still needed remain;
//   - on failure the IR is restored as it was before the conversion
//     (from a copy taken at the start), and the error is MLIR's
//     "failed to legalize operation 'x'".
//
// Unlike MLIR, a pattern that succeeds is final: if an op it created
// cannot be legalized the conversion fails rather than trying the next
// pattern, and conversions are 1:1 in types.

// ConversionPattern rewrites an op given its converted operands.
type ConversionPattern struct {
	PatternName    string
	RootOp         string // "" for any op
	PatternBenefit int
	// TypeConverter converts the operands the pattern receives; nil uses
	// the conversion's own converter.
	TypeConverter *TypeConverter
	// Rewrite replaces or updates op through rw and reports whether it did;
	// when it returns false it must not have changed the IR.
	Rewrite func(op *ir.Operation, operands []*ir.Value, rw *ConversionRewriter) bool
}

func (p *ConversionPattern) Root() string { return p.RootOp }
func (p *ConversionPattern) Name() string { return p.PatternName }
func (p *ConversionPattern) Benefit() int {
	if p.PatternBenefit == 0 {
		return 1
	}
	return p.PatternBenefit
}

// MatchAndRewrite makes ConversionPattern a RewritePattern so that it can
// sit in a PatternSet; it only applies inside a conversion.
func (p *ConversionPattern) MatchAndRewrite(*ir.Operation, *ir.Rewriter) bool { return false }

// ConversionRewriter is the rewriter of a conversion: a Rewriter whose
// ReplaceOp accepts replacements of converted types.
type ConversionRewriter struct {
	*ir.Rewriter
	d *conversionDriver
}

// ReplaceOp replaces op's results with vals and erases op. Where a value's
// type differs from the result's, remaining users get a source
// materialization of the old type, and later patterns see the new value.
func (rw *ConversionRewriter) ReplaceOp(op *ir.Operation, vals []*ir.Value) {
	if len(vals) != op.NumResults() {
		panic(fmt.Sprintf("BUG: replacing %d results of '%s' with %d values", op.NumResults(), op.Name(), len(vals)))
	}
	fixed := make([]*ir.Value, len(vals))
	for i, r := range op.Results() {
		v := vals[i]
		if v.Type() != r.Type() && r.HasUses() {
			rw.SetInsertionPoint(op)
			v = rw.d.sourceCast(&rw.Builder, v, r.Type(), op.Loc())
		}
		fixed[i] = v
	}
	rw.Rewriter.ReplaceOp(op, fixed)
}

// ReplaceOpWithNew creates an op from st in op's place and replaces op
// with its results.
func (rw *ConversionRewriter) ReplaceOpWithNew(op *ir.Operation, st *ir.OperationState) *ir.Operation {
	rw.SetInsertionPoint(op)
	n := rw.Create(st)
	rw.ReplaceOp(op, n.Results())
	return n
}

// ConvertRegionTypes converts the types of the arguments of every block of
// r with tc (the conversion's converter when nil). Users of an argument
// whose type changes keep a source materialization of the old type.
func (rw *ConversionRewriter) ConvertRegionTypes(r *ir.Region, tc *TypeConverter) error {
	if tc == nil {
		tc = rw.d.tc
	}
	for _, b := range r.Blocks() {
		for _, a := range b.Arguments() {
			old := a.Type()
			nt := tc.ConvertType(old)
			if nt == nil {
				return fmt.Errorf("failed to convert type '%s' of a block argument", ir.TypeString(old))
			}
			if nt == old {
				continue
			}
			a.SetType(nt)
			if !a.HasUses() {
				continue
			}
			users := []*ir.OpOperand{}
			a.Uses(func(u *ir.OpOperand) { users = append(users, u) })
			rw.SetInsertionPointToStart(b)
			c := rw.d.sourceCast(&rw.Builder, a, old, a.Loc())
			for _, u := range users {
				u.Set(c)
			}
		}
	}
	return nil
}

// RemappedValue returns the value v stands for after the replacements made
// so far (v itself when it was not replaced).
func (rw *ConversionRewriter) RemappedValue(v *ir.Value) *ir.Value { return rw.d.lookup(v) }

// ApplyPartialConversion legalizes the ops nested in op: ops the target
// marks illegal must be converted, ops it does not know may stay.
func ApplyPartialConversion(op *ir.Operation, target *ConversionTarget, patterns *PatternSet, tc *TypeConverter) error {
	return applyConversion(op, target, patterns, tc, false)
}

// ApplyFullConversion legalizes the ops nested in op: every op must end
// legal.
func ApplyFullConversion(op *ir.Operation, target *ConversionTarget, patterns *PatternSet, tc *TypeConverter) error {
	return applyConversion(op, target, patterns, tc, true)
}

type conversionDriver struct {
	ctx      *ir.Context
	target   *ConversionTarget
	patterns *PatternSet
	tc       *TypeConverter
	full     bool
	rw       *ConversionRewriter

	// mapping sends the result of a source materialization to the
	// converted value it stands for.
	mapping map[*ir.Value]*ir.Value
	casts   map[*ir.Operation]bool // materializations the conversion created
	erased  map[*ir.Operation]bool
	created []*ir.Operation // ops inserted by the pattern being applied
}

// maxLegalizationDepth bounds the legalization of ops created to legalize
// others, against patterns that undo each other.
const maxLegalizationDepth = 16

func applyConversion(op *ir.Operation, target *ConversionTarget, patterns *PatternSet, tc *TypeConverter, full bool) error {
	ctx := op.Context()
	d := &conversionDriver{ctx: ctx, target: target, patterns: patterns, tc: tc, full: full,
		mapping: map[*ir.Value]*ir.Value{}, casts: map[*ir.Operation]bool{}, erased: map[*ir.Operation]bool{}}
	d.rw = &ConversionRewriter{Rewriter: ir.NewRewriter(ctx, d), d: d}
	backup := op.Clone(ctx, nil)
	var order []*ir.Operation
	op.Walk(func(o *ir.Operation) ir.WalkResult {
		if o != op {
			order = append(order, o)
		}
		return ir.WalkAdvance
	})
	for _, o := range order {
		if d.erased[o] {
			continue
		}
		if err := d.legalize(o, 0); err != nil {
			restore(op, backup)
			return err
		}
	}
	d.finalize()
	backup.DropAllReferences()
	return nil
}

// restore puts backup's regions in place of op's.
func restore(op, backup *ir.Operation) {
	for i, r := range op.Regions() {
		for _, b := range r.Blocks() {
			for o := b.First(); o != nil; o = o.Next() {
				o.DropAllReferences()
			}
		}
		for _, b := range append([]*ir.Block(nil), r.Blocks()...) {
			r.RemoveBlock(b)
		}
		r.TakeBody(backup.Region(i))
	}
}

func (d *conversionDriver) legalize(op *ir.Operation, depth int) error {
	if d.casts[op] {
		return nil
	}
	legal, known := d.target.Legality(op)
	if legal {
		return nil
	}
	if depth < maxLegalizationDepth {
		for _, p := range d.patterns.forOp(op.Name()) {
			d.created = nil
			if !d.apply(p, op) {
				continue
			}
			created := d.created
			d.created = nil
			for _, c := range created {
				if d.erased[c] {
					continue
				}
				if err := d.legalize(c, depth+1); err != nil {
					return err
				}
			}
			if !d.erased[op] {
				// Updated in place: it must now be legal, or legalized anew.
				return d.legalize(op, depth+1)
			}
			return nil
		}
	}
	if d.full {
		return op.EmitError("failed to legalize operation '%s'", op.Name())
	}
	if known {
		return op.EmitError("failed to legalize operation '%s' that was explicitly marked illegal", op.Name())
	}
	return nil
}

// apply runs one pattern on op.
func (d *conversionDriver) apply(p ir.RewritePattern, op *ir.Operation) bool {
	cp, ok := p.(*ConversionPattern)
	if !ok {
		return p.MatchAndRewrite(op, d.rw.Rewriter)
	}
	tc := cp.TypeConverter
	if tc == nil {
		tc = d.tc
	}
	operands := make([]*ir.Value, op.NumOperands())
	var casts []*ir.Operation
	for i := range operands {
		v := d.lookup(op.Operand(i))
		if tc != nil {
			want := tc.ConvertType(op.Operand(i).Type())
			if want == nil {
				for _, c := range casts {
					d.rw.EraseOp(c)
				}
				return false
			}
			if v.Type() != want {
				d.rw.SetInsertionPoint(op)
				var cast *ir.Operation
				v, cast = materialize(tc.targetMaterializations(), &d.rw.Builder, want, []*ir.Value{v}, op.Loc())
				if cast != nil {
					d.casts[cast] = true
					casts = append(casts, cast)
				} else if def := v.DefiningOp(); def != nil {
					casts = append(casts, def)
				}
			}
		}
		operands[i] = v
	}
	if cp.Rewrite(op, operands, d.rw) {
		return true
	}
	for _, c := range casts {
		if c.UseEmpty() {
			d.rw.EraseOp(c)
		}
	}
	return false
}

// lookup follows source materializations back to the converted value.
func (d *conversionDriver) lookup(v *ir.Value) *ir.Value {
	for {
		w, ok := d.mapping[v]
		if !ok {
			return v
		}
		v = w
	}
}

// sourceCast builds a value of type t standing for the converted value v.
func (d *conversionDriver) sourceCast(b *ir.Builder, v *ir.Value, t ir.Type, loc ir.Location) *ir.Value {
	r, cast := materialize(d.tc.sourceMaterializations(), b, t, []*ir.Value{v}, loc)
	if cast != nil {
		d.casts[cast] = true
	} else if def := r.DefiningOp(); def != nil {
		d.casts[def] = true
	}
	d.mapping[r] = v
	return r
}

// finalize folds pairs of casts that undo each other and erases the
// materializations nobody uses.
func (d *conversionDriver) finalize() {
	for changed := true; changed; {
		changed = false
		for c := range d.casts {
			if d.erased[c] || c.Block() == nil {
				continue
			}
			if c.UseEmpty() {
				d.rw.EraseOp(c)
				changed = true
				continue
			}
			if c.NumOperands() != 1 || c.NumResults() != 1 {
				continue
			}
			in := c.Operand(0).DefiningOp()
			if in != nil && d.casts[in] && in.NumOperands() == 1 && in.Operand(0).Type() == c.Result(0).Type() {
				c.Result(0).ReplaceAllUsesWith(in.Operand(0))
				changed = true
			}
		}
	}
}

// ---- ir.Listener ----

func (d *conversionDriver) OpInserted(op *ir.Operation)           { d.created = append(d.created, op) }
func (d *conversionDriver) OpErased(op *ir.Operation)             { d.erased[op] = true }
func (d *conversionDriver) OpModified(*ir.Operation)              {}
func (d *conversionDriver) OpReplaced(*ir.Operation, []*ir.Value) {}
