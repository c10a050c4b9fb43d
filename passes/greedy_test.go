package passes_test

import (
	"strings"
	"testing"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
	"github.com/ipuir/ipuir/passes"
	"github.com/ipuir/ipuir/tests/fixture"
	"github.com/ipuir/ipuir/tests/testdialect"
)

func TestGreedyFoldsToFixpoint(t *testing.T) {
	f := fixture.New()
	a := f.Fn("f", "", 1)
	// ((a - a) + 2) * (3 + 4) - 14 folds to 0 in steps: each fold exposes the next.
	x := f.Sub(f.Mul(f.Add(f.Sub(a[0], a[0]), f.C(2)), f.Add(f.C(3), f.C(4))), f.C(14))
	f.Ret(x)
	res := f.Canonicalize(t, passes.DefaultGreedyConfig())
	if !res.Changed || !res.Converged {
		t.Errorf("result %+v", res)
	}
	fixture.CheckLines(t, fixture.Show(t, f.Module), `
module {
  "test.func"() <{sym_name = "f"}> ({
  ^bb0(%arg0: i32):
    %0 = "test.constant"() <{value = 0 : i32}> : () -> i32
    "test.return"(%0) : (i32) -> ()
  }) : () -> ()
}`)
}

func TestGreedyBottomUpReachesTheSameFixpoint(t *testing.T) {
	for _, topDown := range []bool{true, false} {
		f := fixture.New()
		a := f.Fn("f", "", 1)
		f.Ret(f.Neg(f.Neg(f.Add(f.Mul(a[0], f.C(1)), f.C(0)))))
		cfg := passes.DefaultGreedyConfig()
		cfg.TopDown = topDown
		f.Canonicalize(t, cfg)
		fixture.CheckLines(t, fixture.Show(t, f.Module), `
module {
  "test.func"() <{sym_name = "f"}> ({
  ^bb0(%arg0: i32):
    "test.return"(%arg0) : (i32) -> ()
  }) : () -> ()
}`)
	}
}

func TestGreedyErasesDeadPureOpsOnly(t *testing.T) {
	f := fixture.New()
	a := f.Fn("f", "", 1)
	f.Add(a[0], a[0])     // dead
	s := f.Source()       // side effects: stays although unused
	f.Mul(s, f.Neg(a[0])) // dead, and so is its operand then
	f.Ret()
	res := f.Canonicalize(t, passes.DefaultGreedyConfig())
	if res.Rewrites < 3 {
		t.Errorf("rewrites %d", res.Rewrites)
	}
	fixture.CheckLines(t, fixture.Show(t, f.Module), `
module {
  "test.func"() <{sym_name = "f"}> ({
  ^bb0(%arg0: i32):
    %0 = "test.source"() : () -> i32
    "test.return"() : () -> ()
  }) : () -> ()
}`)
}

func TestGreedyHoistsAndMergesConstants(t *testing.T) {
	f := fixture.New()
	a := f.Fn("f", "", 1)
	x := f.Add(a[0], f.C(5))
	scope := f.B.Create(&ir.OperationState{Name: testdialect.Scope, NumRegions: 1})
	saved := f.B.InsertionBlock()
	f.B.CreateBlock(scope.Region(0), nil, nil)
	f.Use(f.Mul(x, f.C(5)), f.C(7))
	f.B.SetInsertionPointToEnd(saved)
	f.Use(f.C(7))
	f.Ret(x)
	f.Canonicalize(t, passes.DefaultGreedyConfig())
	fixture.CheckLines(t, fixture.Show(t, f.Module), `
module {
  "test.func"() <{sym_name = "f"}> ({
  ^bb0(%arg0: i32):
    %0 = "test.constant"() <{value = 7 : i32}> : () -> i32
    %1 = "test.constant"() <{value = 5 : i32}> : () -> i32
    %2 = "test.add"(%arg0, %1) : (i32, i32) -> i32
    "test.scope"() ({
      %3 = "test.mul"(%2, %1) : (i32, i32) -> i32
      "test.use"(%3, %0) : (i32, i32) -> ()
    }) : () -> ()
    "test.use"(%0) : (i32) -> ()
    "test.return"(%2) : (i32) -> ()
  }) : () -> ()
}`)
	// Hoisted and merged constants lose their location, as in MLIR.
	first := f.Module.Region(0).Front().First().Region(0).Front().First()
	if _, ok := first.Loc().(*ir.UnknownLoc); !ok {
		t.Errorf("hoisted constant at %s", ir.AttrString(first.Loc()))
	}
}

func TestGreedyMovesConstantsOfCommutativeOpsLast(t *testing.T) {
	f := fixture.New()
	a := f.Fn("f", "", 1)
	f.Ret(f.Mul(f.C(3), a[0]))
	f.Canonicalize(t, passes.DefaultGreedyConfig())
	if got := fixture.Show(t, f.Module); !strings.Contains(got, `"test.mul"(%arg0, %0)`) {
		t.Errorf("constant not moved last:\n%s", got)
	}
}

func TestGreedyReportsNonConvergence(t *testing.T) {
	f := fixture.New()
	f.Fn("f", "", 0)
	f.B.Create(&ir.OperationState{Name: testdialect.Flip, Attrs: []ir.NamedAttr{{Name: "state", Value: f.Ctx.Bool(false)}}})
	f.Ret()
	cfg := passes.DefaultGreedyConfig()
	cfg.MaxIterations = 3
	res, err := passes.ApplyPatternsGreedily(f.Module, passes.CanonicalizationPatterns(f.Ctx), cfg)
	if err == nil {
		t.Fatal("no error")
	}
	if res.Converged || res.Iterations != 3 || !res.Changed {
		t.Errorf("result %+v", res)
	}
	want := "test.ipuir:1:1: error: greedy pattern rewrite did not converge after 3 iterations; still firing: test.flip-state ("
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got  %s\nwant %s", err, want)
	}
}

func TestGreedyMaxNumRewrites(t *testing.T) {
	f := fixture.New()
	a := f.Fn("f", "", 1)
	f.Ret(f.Neg(f.Neg(f.Neg(f.Neg(a[0])))))
	cfg := passes.DefaultGreedyConfig()
	cfg.MaxNumRewrites = 1
	res := f.Canonicalize(t, cfg)
	if !res.Converged || res.Iterations < 3 {
		t.Errorf("one rewrite per sweep should take several sweeps: %+v", res)
	}
	if got := fixture.Show(t, f.Module); !strings.Contains(got, `"test.return"(%arg0)`) {
		t.Errorf("not simplified:\n%s", got)
	}
	cfg.MaxIterations = 1
	f2 := fixture.New()
	a2 := f2.Fn("f", "", 1)
	f2.Ret(f2.Neg(f2.Neg(f2.Neg(f2.Neg(a2[0])))))
	if _, err := passes.ApplyPatternsGreedily(f2.Module, passes.CanonicalizationPatterns(f2.Ctx), cfg); err == nil ||
		!strings.Contains(err.Error(), "did not converge after 1 iterations; still firing: ") ||
		!strings.Contains(err.Error(), "test.neg-neg (1)") {
		t.Errorf("got %v", err)
	}
}

func TestGreedyPatternBenefitOrder(t *testing.T) {
	var tried []string
	mk := func(name string, benefit int, apply bool) ir.RewritePattern {
		return &ir.Pattern{PatternName: name, RootOp: testdialect.Use, PatternBenefit: benefit,
			Rewrite: func(op *ir.Operation, rw *ir.Rewriter) bool {
				tried = append(tried, name)
				if apply {
					rw.EraseOp(op)
				}
				return apply
			}}
	}
	f := fixture.New()
	f.Fn("f", "", 0)
	f.Use()
	f.Ret()
	set := passes.NewPatternSet(mk("low", 1, true), mk("high", 5, false), mk("mid", 3, false),
		&ir.Pattern{PatternName: "any", PatternBenefit: 4, Rewrite: func(op *ir.Operation, rw *ir.Rewriter) bool {
			if op.Name() == testdialect.Use {
				tried = append(tried, "any")
			}
			return false
		}})
	if _, err := passes.ApplyPatternsGreedily(f.Module, set, passes.DefaultGreedyConfig()); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(tried, ","); got != "high,any,mid,low" {
		t.Errorf("tried %s", got)
	}
	if set.Len() != 4 || len(set.Filter(nil, []string{"low"}).All()) != 3 || len(set.Filter([]string{"low"}, nil).All()) != 1 {
		t.Error("filter")
	}
}

// recorder is a listener that logs changes.
type recorder struct{ log []string }

func (r *recorder) OpInserted(op *ir.Operation) { r.log = append(r.log, "insert "+op.Name()) }
func (r *recorder) OpErased(op *ir.Operation)   { r.log = append(r.log, "erase "+op.Name()) }
func (r *recorder) OpModified(op *ir.Operation) { r.log = append(r.log, "modify "+op.Name()) }
func (r *recorder) OpReplaced(op *ir.Operation, _ []*ir.Value) {
	r.log = append(r.log, "replace "+op.Name())
}

func TestGreedyListener(t *testing.T) {
	f := fixture.New()
	f.Fn("f", "", 0)
	f.Ret(f.Add(f.C(1), f.C(2)))
	rec := &recorder{}
	cfg := passes.DefaultGreedyConfig()
	cfg.Listener = rec
	f.Canonicalize(t, cfg)
	got := strings.Join(rec.log, "; ")
	for _, want := range []string{"insert test.constant", "replace test.add", "erase test.add", "modify test.return", "erase test.constant"} {
		if !strings.Contains(got, want) {
			t.Errorf("listener missed %q: %s", want, got)
		}
	}
}

func TestGreedyWithoutMaterializer(t *testing.T) {
	// A dialect that cannot materialize constants keeps the op it would
	// fold to a constant.
	ctx := ir.NewContext()
	ctx.MustRegisterDialect(&ir.Dialect{Name: "nomat", Ops: []*ir.OpDef{
		{Name: "nomat.c", Attributes: []ir.AttrDef{{Name: "value", Kind: ir.TypedAttrKind}},
			Results: []ir.ValueDef{{Name: "r", Type: ir.AnyType}}, Traits: ir.TraitPure | ir.TraitConstantLike},
		{Name: "nomat.twice", Operands: []ir.ValueDef{{Name: "x", Type: ir.AnyType}}, Results: []ir.ValueDef{{Name: "r", Type: ir.AnyType}},
			Traits: ir.TraitPure,
			Fold: func(op *ir.Operation, c []ir.Attribute) ([]ir.FoldResult, bool) {
				if v, ok := c[0].(*ir.IntegerAttr); ok {
					return []ir.FoldResult{{Attr: op.Context().IntegerAttr(v.Typ, 2*v.Int)}}, true
				}
				return nil, false
			}},
		{Name: "nomat.use", Operands: []ir.ValueDef{{Name: "x", Type: ir.AnyType}}},
	}})
	m := ir.NewModule(ctx, nil)
	b := ir.NewBuilder(ctx)
	b.SetInsertionPointToEnd(ir.ModuleBody(m))
	c := b.Create(&ir.OperationState{Name: "nomat.c", ResultTypes: []ir.Type{ctx.I(8)}, Attrs: []ir.NamedAttr{{Name: "value", Value: ctx.IntegerAttr(ctx.I(8), 3)}}})
	tw := b.Create(&ir.OperationState{Name: "nomat.twice", Operands: c.Results(), ResultTypes: []ir.Type{ctx.I(8)}})
	b.Create(&ir.OperationState{Name: "nomat.use", Operands: tw.Results()})
	res, err := passes.ApplyPatternsGreedily(m, passes.NewPatternSet(), passes.DefaultGreedyConfig())
	if err != nil || res.Changed {
		t.Errorf("res %+v err %v", res, err)
	}
	if ir.ModuleBody(m).NumOps() != 3 {
		t.Errorf("ops changed: %d", ir.ModuleBody(m).NumOps())
	}
}

// Erasing a cycle of unreachable blocks drops every operand first, so that
// the blocks can go in any order; the driver's erase hook then sees ops
// whose operands are nil and must not follow them.
func TestGreedyErasesUnreachableBlocksThatUseEachOther(t *testing.T) {
	ctx := testdialect.NewContext()
	module, err := parser.ParseSourceString(ctx, []byte(`
"test.func"() <{sym_name = "f"}> ({
^bb0(%a: i32):
  "test.br"()[^bb2] : () -> ()
^bb1(%x: i32):
  %y = "test.add"(%x, %x) : (i32, i32) -> i32
  "test.use"(%y) : (i32) -> ()
  "test.br"()[^bb3] : () -> ()
^bb2:
  "test.return"(%a) : (i32) -> ()
^bb3:
  "test.br"(%y)[^bb1] : (i32) -> ()
}) : () -> ()
`), parser.Config{Filename: "unreachable.ipuir"})
	if err != nil {
		t.Fatal(err)
	}
	if d := ir.Verify(module); d != nil {
		t.Fatal(d)
	}
	if _, err := passes.ApplyPatternsGreedily(module, passes.CanonicalizationPatterns(ctx), passes.DefaultGreedyConfig()); err != nil {
		t.Fatal(err)
	}
	fixture.CheckLines(t, fixture.Show(t, module), `
module {
  "test.func"() <{sym_name = "f"}> ({
  ^bb0(%arg0: i32):
    "test.br"()[^bb1] : () -> ()
  ^bb1:  // pred: ^bb0
    "test.return"(%arg0) : (i32) -> ()
  }) : () -> ()
}`)
}

// A pattern that creates its replacement without choosing a place gets
// the op it matched as the insertion point, as in MLIR, so the new op is
// in the IR and the result prints and verifies.
func TestGreedySetsTheInsertionPointForEachPattern(t *testing.T) {
	f := fixture.New()
	a := f.Fn("f", "", 1)
	f.Ret(f.Neg(a[0]))
	negToSub := &ir.Pattern{PatternName: "neg-to-sub", RootOp: testdialect.Neg,
		Rewrite: func(op *ir.Operation, rw *ir.Rewriter) bool {
			zero := rw.Create(&ir.OperationState{Name: testdialect.Constant, Loc: op.Loc(),
				ResultTypes: []ir.Type{op.Result(0).Type()},
				Attrs:       []ir.NamedAttr{{Name: "value", Value: rw.Ctx.IntegerAttr(op.Result(0).Type(), 0)}}})
			sub := rw.Create(&ir.OperationState{Name: testdialect.Sub, Loc: op.Loc(),
				Operands: []*ir.Value{zero.Result(0), op.Operand(0)}, ResultTypes: op.ResultTypes()})
			rw.ReplaceOp(op, sub.Results())
			return true
		}}
	cfg := passes.DefaultGreedyConfig()
	cfg.MaxIterations = 1
	passes.ApplyPatternsGreedily(f.Module, passes.NewPatternSet(negToSub), cfg)
	if d := ir.Verify(f.Module); d != nil {
		t.Fatalf("the rewritten IR does not verify: %v\n%s", d, fixture.Show(t, f.Module))
	}
	if out := fixture.Show(t, f.Module); strings.Contains(out, "UNKNOWN") || !strings.Contains(out, `"test.sub"(%0, %arg0)`) {
		t.Errorf("rewritten IR:\n%s", out)
	}
}
