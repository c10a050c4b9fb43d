// Package toy is the example of docs/extending.md: a dialect with two ops,
// an attribute, a folder, a canonicalization pattern and a pass, plugged
// into ipuir from a module of its own.
package toy

import (
	"fmt"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
	"github.com/ipuir/ipuir/passes"
)

// Interval is the attribute #toy.interval<lo, hi>: the values a constant
// promises to stay within.
type Interval struct{ Lo, Hi int64 }

func (a *Interval) Print(p *ir.AsmPrinter) {
	p.WriteString(fmt.Sprintf("#toy.interval<%d, %d>", a.Lo, a.Hi))
}

// intervalSyntax is the attribute's body as a participle grammar.
type intervalSyntax struct {
	Lo int64 `parser:"'<' @('-'? Int) ','"`
	Hi int64 `parser:"@('-'? Int) '>'"`
}

var intervalGrammar = parser.MustGrammar[intervalSyntax]()

// Dialect declares toy.const, toy.neg and #toy.interval as data.
var Dialect = &ir.Dialect{
	Name:    "toy",
	Summary: "Integer constants and negation.",
	Attrs: []*ir.AttrDecl{{
		Mnemonic: "interval", Summary: "The values a constant stays within.", Syntax: "#toy.interval<lo, hi>",
		Parse: func(ctx *ir.Context, body string, _ ir.Type) (ir.Attribute, error) {
			s, err := intervalGrammar.Parse(ctx, body)
			if err != nil {
				return nil, err
			}
			if s.Lo > s.Hi {
				return nil, fmt.Errorf("#toy.interval: lo %d is above hi %d", s.Lo, s.Hi)
			}
			return ir.UniqueAttr(ctx, &Interval{s.Lo, s.Hi}), nil
		},
	}},
	Ops: []*ir.OpDef{ConstOp, NegOp},
	// Folding creates constants through the dialect.
	MaterializeConstant: func(b *ir.Builder, a ir.Attribute, t ir.Type, loc ir.Location) *ir.Operation {
		return b.Create(&ir.OperationState{Name: "toy.const", Loc: loc, ResultTypes: []ir.Type{t},
			Attrs: []ir.NamedAttr{{Name: "value", Value: a}}})
	},
}

// ConstOp is toy.const: an integer, optionally within an interval.
var ConstOp = &ir.OpDef{
	Name:    "toy.const",
	Summary: "An integer constant.",
	Attributes: []ir.AttrDef{{Name: "value", Kind: ir.IntegerAttrKind},
		{Name: "range", Kind: ir.AttrKind{Desc: "#toy.interval", Pred: func(a ir.Attribute) bool { _, ok := a.(*Interval); return ok }}, Optional: true}},
	Results: []ir.ValueDef{{Name: "result", Type: ir.AnyInteger}},
	Traits:  ir.TraitPure | ir.TraitConstantLike,
	Verify: func(op *ir.Operation) error {
		v, r := op.Attr("value").(*ir.IntegerAttr), op.Attr("range")
		if r != nil && (v.Int < r.(*Interval).Lo || v.Int > r.(*Interval).Hi) {
			return fmt.Errorf("value %d lies outside its range %s", v.Int, ir.AttrString(r))
		}
		return nil
	},
}

// NegOp is toy.neg, with a folder and a canonicalization.
var NegOp = &ir.OpDef{
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
	// The canonicalization: -(-x) is x. Ops are recognised by definition.
	Canonicalize: []ir.RewritePattern{&ir.Pattern{PatternName: "toy.neg-neg", RootOp: "toy.neg",
		Rewrite: func(op *ir.Operation, rw *ir.Rewriter) bool {
			inner := op.Operand(0).DefiningOp()
			if inner == nil || !inner.Is(op.Def()) {
				return false
			}
			rw.ReplaceOp(op, []*ir.Value{inner.Operand(0)})
			return true
		}}},
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
	for _, def := range Dialect.Ops {
		patterns.Add(def.Canonicalize...)
	}
	cfg := passes.DefaultGreedyConfig()
	cfg.MaxIterations = int(s.MaxIterations)
	res, err := passes.ApplyPatternsGreedily(op, patterns, cfg)
	s.NumRewrites.Add(uint64(res.Rewrites))
	return err
}

// RegisterPasses registers the dialect's pass.
func RegisterPasses(reg *passes.Registry) error { return reg.Register(&Simplify{}) }
