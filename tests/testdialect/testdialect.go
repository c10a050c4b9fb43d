// Package testdialect declares the `test` dialect: a handful of small ops
// with folders, canonicalization patterns, symbols, branches and regions,
// so that the pass infrastructure, the rewrite drivers and the behaviour
// tests under tests/passes have registered ops to work on without
// depending on the model dialects. It plays the part of MLIR's test
// dialect, and lives with the tests, out of the production packages:
// ipu-opt built with the `ipuir_testing` build tag registers it (as the
// behaviour tests build it), the shipped ipu-opt does not.
//
// Integer arithmetic folds on signless integer and index types of up to
// 64 bits, wrapping as the type's width does.
package testdialect

import (
	"fmt"

	"github.com/ipuir/ipuir/ir"
)

// Op names of the dialect.
const (
	Constant      = "test.constant"
	Add           = "test.add"
	Sub           = "test.sub"
	Mul           = "test.mul"
	Neg           = "test.neg"
	Use           = "test.use"
	Source        = "test.source"
	Func          = "test.func"
	Return        = "test.return"
	Call          = "test.call"
	Symbol        = "test.symbol"
	Br            = "test.br"
	CondBr        = "test.cond_br"
	Scope         = "test.scope"
	IsolatedScope = "test.isolated_scope"
	Flip          = "test.flip"
	PureRegion    = "test.pure_region"
	Yield         = "test.yield"
)

// Dialect is the `test` dialect, declared once.
var Dialect = declare()

// Register adds the `test` dialect to ctx.
func Register(ctx *ir.Context) error { return ctx.RegisterDialect(Dialect) }

func declare() *ir.Dialect {
	var f folders
	sameType := ir.TraitPure | ir.TraitSameOperandsAndResultType
	binary := []ir.ValueDef{{Name: "lhs", Type: intOrIndex}, {Name: "rhs", Type: intOrIndex}}
	one := []ir.ValueDef{{Name: "result", Type: intOrIndex}}
	return &ir.Dialect{
		Name:    "test",
		Summary: "Small ops for testing passes and rewrite drivers.",
		// As MLIR's test dialect: tests use ops it does not declare.
		AllowUnknownOps: true,
		Ops: []*ir.OpDef{
			{Name: Constant, Summary: "An integer constant.",
				Attributes: []ir.AttrDef{{Name: "value", Kind: ir.TypedAttrKind}},
				Results:    []ir.ValueDef{{Name: "result", Type: ir.AnyType}},
				Traits:     ir.TraitPure | ir.TraitConstantLike,
				Verify:     verifyConstant,
				Fold: func(op *ir.Operation, _ []ir.Attribute) ([]ir.FoldResult, bool) {
					return []ir.FoldResult{{Attr: op.Attr("value")}}, true
				}},
			{Name: Add, Summary: "Integer addition.", Operands: binary, Results: one,
				Traits: sameType | ir.TraitCommutative, Fold: f.add,
				Canonicalize: []ir.RewritePattern{&ir.Pattern{PatternName: "test.add-of-sub", RootOp: Add, Rewrite: addOfSub}}},
			{Name: Sub, Summary: "Integer subtraction.", Operands: binary, Results: one, Traits: sameType, Fold: f.sub},
			{Name: Mul, Summary: "Integer multiplication.", Operands: binary, Results: one,
				Traits: sameType | ir.TraitCommutative, Fold: f.mul},
			{Name: Neg, Summary: "Integer negation.", Operands: []ir.ValueDef{{Name: "operand", Type: intOrIndex}},
				Results: one, Traits: sameType, Fold: f.neg,
				Canonicalize: []ir.RewritePattern{&ir.Pattern{PatternName: "test.neg-neg", RootOp: Neg, Rewrite: negNeg}}},
			{Name: Use, Summary: "Uses its operands with a side effect, keeping them alive.",
				Operands: []ir.ValueDef{{Name: "operands", Type: ir.AnyType, Kind: ir.Variadic}}},
			{Name: Source, Summary: "Produces values with a side effect (never folded, merged or erased).",
				Results: []ir.ValueDef{{Name: "results", Type: ir.AnyType, Kind: ir.Variadic}}},
			{Name: Func, Summary: "A function-like op: an isolated symbol with one region.",
				Attributes: []ir.AttrDef{
					{Name: ir.SymbolAttrName, Kind: ir.StringAttrKind},
					{Name: ir.VisibilityAttrName, Kind: ir.StringAttrKind, Optional: true},
					{Name: "function_type", Kind: ir.FunctionTypeAttrKind, Optional: true},
				},
				Regions: []ir.RegionDef{{Name: "body"}},
				Traits:  ir.TraitIsolatedFromAbove | ir.TraitSymbol},
			{Name: Return, Summary: "Returns from a test.func.",
				Operands:  []ir.ValueDef{{Name: "operands", Type: ir.AnyType, Kind: ir.Variadic}},
				Traits:    ir.TraitTerminator | ir.TraitReturnLike,
				ParentOps: []string{Func}},
			{Name: Call, Summary: "Calls a symbol.",
				Attributes: []ir.AttrDef{{Name: "callee", Kind: ir.FlatSymbolRefKind}},
				Operands:   []ir.ValueDef{{Name: "operands", Type: ir.AnyType, Kind: ir.Variadic}},
				Results:    []ir.ValueDef{{Name: "results", Type: ir.AnyType, Kind: ir.Variadic}}},
			{Name: Symbol, Summary: "A symbol without a body, like a global.",
				Attributes: []ir.AttrDef{
					{Name: ir.SymbolAttrName, Kind: ir.StringAttrKind},
					{Name: ir.VisibilityAttrName, Kind: ir.StringAttrKind, Optional: true},
				},
				Traits: ir.TraitSymbol},
			{Name: Br, Summary: "Branches to its successor, passing its operands as block arguments.",
				Operands:   []ir.ValueDef{{Name: "operands", Type: ir.AnyType, Kind: ir.Variadic}},
				Successors: 1, Traits: ir.TraitTerminator,
				// All its operands go to its one successor.
				SuccessorOperands: func(op *ir.Operation, _ int) (int, int) { return 0, op.NumOperands() }},
			{Name: CondBr, Summary: "Branches to its first successor when the condition holds, else the second.",
				Operands:   []ir.ValueDef{{Name: "condition", Type: ir.TypeConstraint{Desc: "1-bit signless integer", Pred: isI1}}},
				Successors: 2, Traits: ir.TraitTerminator,
				// It passes none.
				SuccessorOperands: func(*ir.Operation, int) (int, int) { return 0, 0 }},
			{Name: Scope, Summary: "A region that sees the values around it (not isolated).",
				Regions: []ir.RegionDef{{Name: "body", SingleBlock: true}},
				Traits:  ir.TraitNoTerminator | ir.TraitSingleBlock},
			{Name: IsolatedScope, Summary: "An isolated region that is no symbol.",
				Regions: []ir.RegionDef{{Name: "body", SingleBlock: true}},
				Traits:  ir.TraitIsolatedFromAbove | ir.TraitNoTerminator | ir.TraitSingleBlock},
			{Name: PureRegion, Summary: "A pure op whose one-block region computes its results (test.yield): for merging ops with regions.",
				Operands: []ir.ValueDef{{Name: "operands", Type: ir.AnyType, Kind: ir.Variadic}},
				Results:  []ir.ValueDef{{Name: "results", Type: ir.AnyType, Kind: ir.Variadic}},
				Regions:  []ir.RegionDef{{Name: "body", SingleBlock: true}},
				Traits:   ir.TraitPure | ir.TraitSingleBlock},
			{Name: Yield, Summary: "Ends a test.pure_region, giving its results.",
				Operands:  []ir.ValueDef{{Name: "operands", Type: ir.AnyType, Kind: ir.Variadic}},
				Traits:    ir.TraitTerminator | ir.TraitReturnLike,
				ParentOps: []string{PureRegion}},
			{Name: Flip, Summary: "Its canonicalization toggles its state forever: a rewrite that never converges.",
				Attributes: []ir.AttrDef{{Name: "state", Kind: ir.IntegerAttrKind}},
				Canonicalize: []ir.RewritePattern{&ir.Pattern{PatternName: "test.flip-state", RootOp: Flip,
					Rewrite: func(op *ir.Operation, rw *ir.Rewriter) bool {
						s, _ := op.Attr("state").(*ir.IntegerAttr)
						rw.ModifyInPlace(op, func() { op.SetAttr(rw.Ctx, "state", rw.Ctx.Bool(s == nil || s.Int == 0)) })
						return true
					}}}},
		},
		MaterializeConstant: func(b *ir.Builder, a ir.Attribute, t ir.Type, loc ir.Location) *ir.Operation {
			ta, ok := a.(ir.TypedAttr)
			if !ok || ta.Type() != t {
				return nil
			}
			return b.Create(&ir.OperationState{Name: Constant, Loc: loc, ResultTypes: []ir.Type{t},
				Attrs: []ir.NamedAttr{{Name: "value", Value: a}}})
		},
	}
}

var intOrIndex = ir.TypeConstraint{Desc: "signless integer or index", Pred: func(t ir.Type) bool {
	if it, ok := t.(*ir.IntegerType); ok {
		return it.Signedness == ir.Signless
	}
	_, ok := t.(*ir.IndexType)
	return ok
}}

func isI1(t ir.Type) bool {
	it, ok := t.(*ir.IntegerType)
	return ok && it.Width == 1 && it.Signedness == ir.Signless
}

func verifyConstant(op *ir.Operation) error {
	v, _ := op.Attr("value").(ir.TypedAttr)
	if v != nil && v.Type() != op.Result(0).Type() {
		return fmt.Errorf("requires attribute's type (%s) to match op's return type (%s)",
			ir.TypeString(v.Type()), ir.TypeString(op.Result(0).Type()))
	}
	return nil
}

// folders groups the dialect's fold hooks.
type folders struct{}

// smallInt returns a constant operand's value when it is an integer
// attribute of at most 64 bits.
func smallInt(a ir.Attribute) (int64, bool) {
	ia, ok := a.(*ir.IntegerAttr)
	if !ok || ia.Big != nil {
		return 0, false
	}
	return ia.Int, true
}

func (f folders) constant(op *ir.Operation, v int64) []ir.FoldResult {
	return []ir.FoldResult{{Attr: op.Context().IntegerAttr(op.Result(0).Type(), v)}}
}

func same(v *ir.Value) []ir.FoldResult { return []ir.FoldResult{{Value: v}} }

func (f folders) add(op *ir.Operation, c []ir.Attribute) ([]ir.FoldResult, bool) {
	l, lok := smallInt(c[0])
	r, rok := smallInt(c[1])
	switch {
	case lok && rok:
		return f.constant(op, l+r), true
	case rok && r == 0:
		return same(op.Operand(0)), true
	case lok && l == 0:
		return same(op.Operand(1)), true
	}
	return nil, false
}

func (f folders) sub(op *ir.Operation, c []ir.Attribute) ([]ir.FoldResult, bool) {
	l, lok := smallInt(c[0])
	r, rok := smallInt(c[1])
	switch {
	case lok && rok:
		return f.constant(op, l-r), true
	case op.Operand(0) == op.Operand(1):
		return f.constant(op, 0), true
	case rok && r == 0:
		return same(op.Operand(0)), true
	}
	return nil, false
}

func (f folders) mul(op *ir.Operation, c []ir.Attribute) ([]ir.FoldResult, bool) {
	l, lok := smallInt(c[0])
	r, rok := smallInt(c[1])
	switch {
	case lok && rok:
		return f.constant(op, l*r), true
	case (rok && r == 0) || (lok && l == 0):
		return f.constant(op, 0), true
	case rok && r == 1:
		return same(op.Operand(0)), true
	case lok && l == 1:
		return same(op.Operand(1)), true
	}
	return nil, false
}

func (f folders) neg(op *ir.Operation, c []ir.Attribute) ([]ir.FoldResult, bool) {
	if v, ok := smallInt(c[0]); ok {
		return f.constant(op, -v), true
	}
	return nil, false
}

// addOfSub rewrites (a - b) + b and b + (a - b) to a.
func addOfSub(op *ir.Operation, rw *ir.Rewriter) bool {
	for i := 0; i < 2; i++ {
		sub := op.Operand(i).DefiningOp()
		if sub != nil && sub.Name() == Sub && sub.Operand(1) == op.Operand(1-i) {
			rw.ReplaceOp(op, []*ir.Value{sub.Operand(0)})
			return true
		}
	}
	return false
}

// negNeg rewrites -(-x) to x.
func negNeg(op *ir.Operation, rw *ir.Rewriter) bool {
	inner := op.Operand(0).DefiningOp()
	if inner == nil || inner.Name() != Neg {
		return false
	}
	rw.ReplaceOp(op, []*ir.Value{inner.Operand(0)})
	return true
}
