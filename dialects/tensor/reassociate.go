package tensor

import (
	"slices"

	"github.com/ipuir/ipuir/ir"
)

// Reassociation moves a matmul's scaling to the side of it with fewer
// elements, where it costs less: equal in exact arithmetic, and within a
// rounding of each other in floating point.
//
//   - A constant factor of the product moves onto the smaller operand:
//     (a·b)·c becomes (a·c)·b. Attention's score scale so multiplies
//     q [16, 729, 72], not the scores [16, 729, 729].
//   - A row normalisation of the left operand moves onto the product:
//     (e / s)·v becomes (e·v) / s, s broadcast along the rows. Softmax's
//     division so divides the context [16, 729, 72], not the
//     probabilities [16, 729, 729].
//
// Each applies only where the scaled value has no other use, so nothing
// else changes.

// SourceRewritesAttr names, on the op a pass ran on (a module or a
// function), the rewrites that changed which values its program computes,
// so that a package built from it says so and a check can replay them
// (runtime/ipupkg's MetadataSourceRewrites).
const SourceRewritesAttr = "tensor.source_rewrites"

// MarkSourceRewrite adds name to op's SourceRewritesAttr.
func MarkSourceRewrite(op *ir.Operation, name string) {
	ctx := op.Context()
	var names []ir.Attribute
	if a, ok := op.Attr(SourceRewritesAttr).(*ir.ArrayAttr); ok {
		for _, e := range a.Elems {
			if s, ok := e.(*ir.StringAttr); ok && s.Val == name {
				return
			}
		}
		names = append(names, a.Elems...)
	}
	op.SetAttr(ctx, SourceRewritesAttr, ctx.Array(append(names, ctx.String(name))...))
}

// SourceRewrites are the rewrites named on op and on the ops nested in
// it, in the order first met.
func SourceRewrites(op *ir.Operation) []string {
	var out []string
	op.Walk(func(o *ir.Operation) ir.WalkResult {
		if a, ok := o.Attr(SourceRewritesAttr).(*ir.ArrayAttr); ok {
			for _, e := range a.Elems {
				if s, ok := e.(*ir.StringAttr); ok && !slices.Contains(out, s.Val) {
					out = append(out, s.Val)
				}
			}
		}
		return ir.WalkAdvance
	})
	return out
}

// reassociation is one rewrite: match returns the replacement's builder
// for op, or nil.
type reassociation struct {
	name  string
	match func(op *ir.Operation) func(d decomposer) *ir.Value
}

var reassociations = []reassociation{
	{"scale-to-smaller-operand", matchScaledProduct},
	{"normalise-after-product", matchNormalisedOperand},
}

// Reassociate applies the reassociations to every op nested in root until
// none applies, and reports how many it applied.
func Reassociate(root *ir.Operation) (int, error) {
	rw := ir.NewRewriter(root.Context(), nil)
	applied := 0
	// Rounds: the ops that match, collected in one walk, then rewritten
	// each if it still matches (a rewrite may take another's operand). A
	// rewrite removes a mul or div from a matmul's result or operand, so
	// there are at most as many as there are such ops.
	for {
		var candidates []*ir.Operation
		root.Walk(func(o *ir.Operation) ir.WalkResult {
			for _, r := range reassociations {
				if r.match(o) != nil {
					candidates = append(candidates, o)
					break
				}
			}
			return ir.WalkAdvance
		})
		round := 0
		erased := map[*ir.Operation]bool{}
		for _, op := range candidates {
			if erased[op] {
				continue
			}
			var build func(decomposer) *ir.Value
			for _, r := range reassociations {
				if build = r.match(op); build != nil {
					break
				}
			}
			if build == nil {
				continue
			}
			rw.SetInsertionPoint(op)
			out := build(decomposer{rw: rw, loc: op.Loc()})
			// The op's operands (the old product or quotient, and what
			// only they read) lose their uses: erased after it.
			dead := op.Operands()
			rw.ReplaceOp(op, []*ir.Value{out})
			for _, v := range dead {
				eraseUnused(rw, v, erased)
			}
			round++
		}
		if round == 0 {
			return applied, nil
		}
		applied += round
	}
}

// eraseUnused erases the tensor op defining v when nothing reads its
// results, and then what only it read.
func eraseUnused(rw *ir.Rewriter, v *ir.Value, erased map[*ir.Operation]bool) {
	d := v.DefiningOp()
	if d == nil || erased[d] || specFor(d.Name()) == nil {
		return
	}
	for _, r := range d.Results() {
		if r.HasUses() {
			return
		}
	}
	operands := d.Operands()
	erased[d] = true
	rw.EraseOp(d)
	for _, o := range operands {
		eraseUnused(rw, o, erased)
	}
}

// elements is the element count of a static tensor type (-1 otherwise).
func elements(t ir.Type) int64 {
	shape := shapeOf(t)
	if shape == nil {
		return -1
	}
	n := int64(1)
	for _, d := range shape {
		n *= int64(d)
	}
	return n
}

// attrsOf is op's attributes, to build an op like it.
func attrsOf(op *ir.Operation) []ir.NamedAttr {
	if a := op.Attrs(); a != nil {
		return a.Entries
	}
	return nil
}

// isProduct says whether op is a matmul or batch matmul.
func isProduct(op *ir.Operation) bool { return op != nil && op.Is(MatmulOp, BatchMatmulOp) }

// matchScaledProduct matches mul(matmul(a, b), splat c), either operand
// order, the product used only here and its smaller operand smaller than
// it: matmul(mul(a, c), b), c splat at a's type (or b's).
func matchScaledProduct(op *ir.Operation) func(decomposer) *ir.Value {
	if !op.Is(MulOp) {
		return nil
	}
	for i := range 2 {
		prod, factor := op.Operand(i), op.Operand(1-i)
		mm := prod.DefiningOp()
		c, ok := splatFactor(factor)
		if !ok || !isProduct(mm) || !prod.HasOneUse() {
			continue
		}
		side := 0
		if elements(mm.Operand(1).Type()) < elements(mm.Operand(0).Type()) {
			side = 1
		}
		if elements(mm.Operand(side).Type()) >= elements(prod.Type()) {
			continue
		}
		return func(d decomposer) *ir.Value {
			operands := slices.Clone(mm.Operands())
			operands[side] = d.binary(MulOpName, operands[side], d.splat(operands[side], c))
			return d.op(mm.Name(), operands, attrsOf(mm)...)
		}
	}
	return nil
}

// splatFactor is the value of a splat float constant, or of a broadcast
// or reshape of one (as an importer writes a scalar's broadcast).
func splatFactor(v *ir.Value) (float64, bool) {
	def := v.DefiningOp()
	for def != nil && def.Is(BroadcastOp, ReshapeOp) {
		def = def.Operand(0).DefiningOp()
	}
	if def == nil || !def.Is(ConstantOp) {
		return 0, false
	}
	s, ok := splatValue(def.Attr("value"))
	if !ok || !s.Kind.IsFloat() {
		return 0, false
	}
	return s.Data[0], true
}

// matchNormalisedOperand matches matmul(div(e, broadcast(s)), v), s
// broadcast along the last axis (one factor per row) and the quotient
// used only here, where the product is smaller than e:
// div(matmul(e, v), broadcast(s)).
func matchNormalisedOperand(op *ir.Operation) func(decomposer) *ir.Value {
	if !isProduct(op) {
		return nil
	}
	q := op.Operand(0)
	div := q.DefiningOp()
	if div == nil || !div.Is(DivOp) || !q.HasOneUse() || elements(op.Result(0).Type()) >= elements(q.Type()) {
		return nil
	}
	e, bs := div.Operand(0), div.Operand(1)
	b := bs.DefiningOp()
	if b == nil || !b.Is(BroadcastOp) || !rowBroadcast(b) {
		return nil
	}
	s := b.Operand(0)
	return func(d decomposer) *ir.Value {
		operands := slices.Clone(op.Operands())
		operands[0] = e
		prod := d.op(op.Name(), operands, attrsOf(op)...)
		return d.binary(DivOpName, prod, d.broadcastBack(s, prod, len(shapeOf(prod.Type()))-1))
	}
}

// rowBroadcast says whether broadcast b spreads one value per row along
// its result's last axis: dimensions 0..r-2 of a rank-r result.
func rowBroadcast(b *ir.Operation) bool {
	shape := shapeOf(b.Result(0).Type())
	dims, err := opAttrs(b).ints(DimensionsAttr)
	if err != nil || len(shape) < 1 || len(dims) != len(shape)-1 {
		return false
	}
	for i, d := range dims {
		if d != i {
			return false
		}
	}
	return true
}
