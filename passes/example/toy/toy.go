// Package toy is the example of docs/extending.md: a dialect with two ops,
// a folder, a canonicalization pattern and a pass, plugged into ipuir.
package toy

import (
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/passes"
)

// Dialect declares toy.const and toy.neg as data.
func Dialect() *ir.Dialect {
	return &ir.Dialect{
		Name:    "toy",
		Summary: "Integer constants and negation.",
		Ops: []*ir.OpDef{{
			Name:       "toy.const",
			Summary:    "An integer constant.",
			Attributes: []ir.AttrDef{{Name: "value", Kind: ir.IntegerAttrKind}},
			Results:    []ir.ValueDef{{Name: "result", Type: ir.AnyInteger}},
			Traits:     ir.TraitPure | ir.TraitConstantLike,
		}, {
			Name:     "toy.neg",
			Summary:  "Integer negation.",
			Operands: []ir.ValueDef{{Name: "x", Type: ir.AnyInteger}},
			Results:  []ir.ValueDef{{Name: "result", Type: ir.AnyInteger}},
			Traits:   ir.TraitPure | ir.TraitSameOperandsAndResultType,
			// The folder: the negation of a constant is a constant.
			Fold: func(op *ir.Operation, operands []ir.Attribute) ([]ir.FoldResult, bool) {
				c, ok := operands[0].(*ir.IntegerAttr)
				if !ok || c.Big != nil {
					return nil, false
				}
				return []ir.FoldResult{{Attr: op.Context().IntegerAttr(c.Typ, -c.Int)}}, true
			},
			// The canonicalization: -(-x) is x.
			Canonicalize: []ir.RewritePattern{&ir.Pattern{
				PatternName: "toy.neg-neg",
				RootOp:      "toy.neg",
				Rewrite: func(op *ir.Operation, rw *ir.Rewriter) bool {
					inner := op.Operand(0).DefiningOp()
					if inner == nil || inner.Name() != "toy.neg" {
						return false
					}
					rw.ReplaceOp(op, []*ir.Value{inner.Operand(0)})
					return true
				},
			}},
		}},
		// Folding creates constants through the dialect.
		MaterializeConstant: func(b *ir.Builder, a ir.Attribute, t ir.Type, loc ir.Location) *ir.Operation {
			return b.Create(&ir.OperationState{Name: "toy.const", Loc: loc, ResultTypes: []ir.Type{t},
				Attrs: []ir.NamedAttr{{Name: "value", Value: a}}})
		},
	}
}

// Simplify is the `toy-simplify` pass: the greedy driver with the toy
// dialect's canonicalization patterns (and every op's folder).
type Simplify struct {
	MaxIterations int64            `pass:"max-iterations" help:"Sweeps over the IR before giving up" default:"4"`
	NumRewrites   passes.Statistic `statistic:"num-rewrites" help:"Number of folds, rewrites and dead ops erased"`
}

func (*Simplify) Name() string    { return "toy-simplify" }
func (*Simplify) Summary() string { return "Fold and canonicalize toy ops" }
func (*Simplify) Anchor() string  { return "" } // any op

func (s *Simplify) Run(op *ir.Operation, pc *passes.PassContext) error {
	patterns := passes.NewPatternSet()
	for _, def := range pc.Context().Dialect("toy").Ops {
		patterns.Add(def.Canonicalize...)
	}
	cfg := passes.DefaultGreedyConfig()
	cfg.MaxIterations = int(s.MaxIterations)
	res, err := passes.ApplyPatternsGreedily(op, patterns, cfg)
	s.NumRewrites.Add(uint64(res.Rewrites))
	return err
}

// RegisterDialect and RegisterPasses have the shapes of the lists in
// tools/ipu-opt/dialects.go.
func RegisterDialect(ctx *ir.Context) error     { return ctx.RegisterDialect(Dialect()) }
func RegisterPasses(reg *passes.Registry) error { return reg.Register(&Simplify{}) }
