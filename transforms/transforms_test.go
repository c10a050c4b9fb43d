package transforms_test

import (
	"strings"
	"testing"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/passes"
	"github.com/ipuir/ipuir/tests/fixture"
	"github.com/ipuir/ipuir/tests/testdialect"
)

func TestCSE(t *testing.T) {
	f := fixture.New()
	a := f.Fn("f", "", 2)
	x := f.Add(a[0], a[1])
	y := f.Add(a[1], a[0]) // commutative: same as x
	z := f.Sub(a[0], a[1])
	w := f.Sub(a[1], a[0])           // not commutative: differs
	s1, s2 := f.Source(), f.Source() // side effects: never merged
	f.Add(a[0], a[0])                // dead: erased
	f.Region(testdialect.Scope, func() {
		// Sees x from the enclosing region; its own duplicate stays local.
		f.Use(f.Add(a[0], a[1]), f.Mul(a[0], a[0]))
	})
	f.Use(f.Mul(a[0], a[0])) // the mul inside the scope is not visible here
	f.Region(testdialect.IsolatedScope, func() {
		f.Use(f.C(1), f.C(1)) // isolated: a table of its own
	})
	f.Ret(x, y, z, w, s1, s2)
	if err := f.Run(t, "builtin.module(cse)", passes.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	fixture.CheckLines(t, fixture.Show(t, f.Module), `
module {
  "test.func"() <{sym_name = "f"}> ({
  ^bb0(%arg0: i32, %arg1: i32):
    %0 = "test.add"(%arg0, %arg1) : (i32, i32) -> i32
    %1 = "test.sub"(%arg0, %arg1) : (i32, i32) -> i32
    %2 = "test.sub"(%arg1, %arg0) : (i32, i32) -> i32
    %3 = "test.source"() : () -> i32
    %4 = "test.source"() : () -> i32
    "test.scope"() ({
      %6 = "test.mul"(%arg0, %arg0) : (i32, i32) -> i32
      "test.use"(%0, %6) : (i32, i32) -> ()
    }) : () -> ()
    %5 = "test.mul"(%arg0, %arg0) : (i32, i32) -> i32
    "test.use"(%5) : (i32) -> ()
    "test.isolated_scope"() ({
      %6 = "test.constant"() <{value = 1 : i32}> : () -> i32
      "test.use"(%6, %6) : (i32, i32) -> ()
    }) : () -> ()
    "test.return"(%0, %0, %1, %2, %3, %4) : (i32, i32, i32, i32, i32, i32) -> ()
  }) : () -> ()
}`)
}

func TestCSEStatisticsAndMultiBlockRegions(t *testing.T) {
	f := fixture.New()
	a := f.Fn("f", "", 2)
	fn := f.B.InsertionBlock().ParentOp()
	entry := f.B.InsertionBlock()
	x := f.Add(a[0], a[1])
	cond := testdialect.SourceValues(f.B, f.Ctx.I(1))[0]
	left := ir.NewBlock(nil, nil)
	right := ir.NewBlock(nil, nil)
	join := ir.NewBlock(nil, nil)
	for _, blk := range []*ir.Block{left, right, join} {
		fn.Region(0).AppendBlock(blk)
	}
	f.B.SetInsertionPointToEnd(entry)
	f.B.Create(&ir.OperationState{Name: testdialect.CondBr, Operands: []*ir.Value{cond}, Successors: []*ir.Block{left, right}})
	f.B.SetInsertionPointToEnd(left)
	l := f.Add(a[1], a[0]) // dominated by the entry: merged with x
	m := f.Mul(l, l)
	f.Use(m)
	f.B.Create(&ir.OperationState{Name: testdialect.Br, Successors: []*ir.Block{join}})
	f.B.SetInsertionPointToEnd(right)
	f.Use(f.Mul(x, x)) // the left block's mul does not dominate here
	f.B.Create(&ir.OperationState{Name: testdialect.Br, Successors: []*ir.Block{join}})
	f.B.SetInsertionPointToEnd(join)
	f.Use(f.Mul(x, x)) // nor here
	f.Ret()

	pm, err := fixture.Registry(t).ParsePipeline("builtin.module(test.func(cse))")
	if err != nil {
		t.Fatal(err)
	}
	f.Verify(t)
	opts := passes.DefaultOptions()
	opts.Timing = passes.NewTiming()
	mgr := passes.NewPassManager(f.Ctx, pm, opts)
	if err := mgr.Run(f.Module); err != nil {
		t.Fatal(err)
	}
	var timing strings.Builder
	opts.Timing.Report(&timing, passes.TimingTree)
	if !strings.Contains(timing.String(), "'test.func' Pipeline\n") || !strings.Contains(timing.String(), "      (A) DominanceInfo\n") {
		t.Errorf("the dominance analysis is not timed under CSE:\n%s", timing.String())
	}
	got := fixture.Show(t, f.Module)
	if strings.Count(got, `"test.add"`) != 1 || strings.Count(got, `"test.mul"`) != 3 {
		t.Errorf("unexpected result:\n%s", got)
	}
	var stats strings.Builder
	mgr.WriteStatistics(&stats, passes.StatisticsPipeline)
	want := `===-------------------------------------------------------------------------===
                         ... Pass statistics report ...
===-------------------------------------------------------------------------===
'test.func' Pipeline
  CSE
    (S) 1 num-cse'd - Number of operations CSE'd
    (S) 0 num-dce'd - Number of operations DCE'd

`
	if stats.String() != want {
		t.Errorf("statistics:\n%s\nwant:\n%s", stats.String(), want)
	}
}

func TestDCE(t *testing.T) {
	f := fixture.New()
	f.Fn("f", "", 1)
	fn := f.B.InsertionBlock().ParentOp()
	entry := f.B.InsertionBlock()
	next := ir.NewBlock(nil, nil)
	dead1 := ir.NewBlock([]ir.Type{f.I32}, nil)
	dead2 := ir.NewBlock(nil, nil)
	fn.Region(0).AppendBlock(dead1)
	fn.Region(0).AppendBlock(next)
	fn.Region(0).AppendBlock(dead2)
	f.B.SetInsertionPointToEnd(entry)
	v := f.Neg(f.Neg(f.C(1))) // all dead
	_ = v
	f.B.Create(&ir.OperationState{Name: testdialect.Br, Successors: []*ir.Block{next}})
	f.B.SetInsertionPointToEnd(dead1) // unreachable, branches to another unreachable block
	y := f.Add(dead1.Argument(0), dead1.Argument(0))
	f.Use(y)
	f.B.Create(&ir.OperationState{Name: testdialect.Br, Successors: []*ir.Block{dead2}})
	f.B.SetInsertionPointToEnd(dead2)
	f.B.Create(&ir.OperationState{Name: testdialect.Br, Operands: []*ir.Value{y}, Successors: []*ir.Block{dead1}})
	f.B.SetInsertionPointToEnd(next)
	f.Use(f.Source())
	f.Ret()
	f.Verify(t)
	pm, _ := fixture.Registry(t).ParsePipeline("builtin.module(dce)")
	mgr := passes.NewPassManager(f.Ctx, pm, passes.DefaultOptions())
	if err := mgr.Run(f.Module); err != nil {
		t.Fatal(err)
	}
	fixture.CheckLines(t, fixture.Show(t, f.Module), `
module {
  "test.func"() <{sym_name = "f"}> ({
  ^bb0(%arg0: i32):
    "test.br"()[^bb1] : () -> ()
  ^bb1:  // pred: ^bb0
    %0 = "test.source"() : () -> i32
    "test.use"(%0) : (i32) -> ()
    "test.return"() : () -> ()
  }) : () -> ()
}`)
	var stats strings.Builder
	mgr.WriteStatistics(&stats, passes.StatisticsList)
	for _, want := range []string{"  DCE\n", "(S) 2 num-erased-blocks ", "(S) 7 num-erased-ops    - Number of dead operations erased"} {
		if !strings.Contains(stats.String(), want) {
			t.Errorf("missing %q in\n%s", want, stats.String())
		}
	}
}

func TestSymbolDCE(t *testing.T) {
	f := fixture.New()
	sym := func(name, vis string) {
		f.B.SetInsertionPointToEnd(ir.ModuleBody(f.Module))
		attrs := []ir.NamedAttr{{Name: ir.SymbolAttrName, Value: f.Ctx.String(name)}}
		if vis != "" {
			attrs = append(attrs, ir.NamedAttr{Name: ir.VisibilityAttrName, Value: f.Ctx.String(vis)})
		}
		f.B.Create(&ir.OperationState{Name: testdialect.Symbol, Attrs: attrs})
	}
	f.Fn("public", "", 0)
	testdialect.CallSym(f.B, "used", nil)
	f.Ret()
	f.Fn("used", "private", 0)
	testdialect.CallSym(f.B, "chain", nil)
	f.Ret()
	f.Fn("chain", "private", 0)
	f.Ret()
	f.Fn("dead", "private", 0)
	testdialect.CallSym(f.B, "dead_only_from_dead", nil)
	f.Ret()
	f.Fn("dead_only_from_dead", "private", 0)
	f.Ret()
	f.Fn("self", "private", 0)
	testdialect.CallSym(f.B, "self", nil)
	f.Ret()
	sym("global_used", "private")
	sym("global_dead", "private")
	sym("nested_vis", "nested")
	// A non-symbol op at the top level is a root too.
	f.B.SetInsertionPointToEnd(ir.ModuleBody(f.Module))
	f.B.Create(&ir.OperationState{Name: testdialect.Use, Attrs: []ir.NamedAttr{{Name: "ref", Value: f.Ctx.Array(f.Ctx.SymbolRef("global_used"), f.Ctx.SymbolRef("missing"))}}})
	// A nested module: public, so live; its private symbols are judged inside it.
	inner := ir.NewModule(f.Ctx, nil)
	inner.SetAttr(f.Ctx, ir.SymbolAttrName, f.Ctx.String("inner"))
	ir.ModuleBody(f.Module).Append(inner)
	f.B.SetInsertionPointToEnd(ir.ModuleBody(inner))
	f.B.Create(&ir.OperationState{Name: testdialect.Symbol, Attrs: []ir.NamedAttr{
		{Name: ir.SymbolAttrName, Value: f.Ctx.String("inner_dead")}, {Name: ir.VisibilityAttrName, Value: f.Ctx.String("private")}}})
	f.B.Create(&ir.OperationState{Name: testdialect.Symbol, Attrs: []ir.NamedAttr{
		{Name: ir.SymbolAttrName, Value: f.Ctx.String("inner_used")}, {Name: ir.VisibilityAttrName, Value: f.Ctx.String("private")}}})
	f.B.SetInsertionPointToEnd(ir.ModuleBody(f.Module))
	f.B.Create(&ir.OperationState{Name: testdialect.Use, Attrs: []ir.NamedAttr{{Name: "ref", Value: f.Ctx.SymbolRef("inner", "inner_used")}}})

	pm, _ := fixture.Registry(t).ParsePipeline("builtin.module(symbol-dce)")
	f.Verify(t)
	mgr := passes.NewPassManager(f.Ctx, pm, passes.DefaultOptions())
	if err := mgr.Run(f.Module); err != nil {
		t.Fatal(err)
	}
	var names []string
	f.Module.Walk(func(o *ir.Operation) ir.WalkResult {
		if n, ok := ir.SymbolName(o); ok {
			names = append(names, n)
		}
		return ir.WalkAdvance
	})
	if got, want := strings.Join(names, " "), "public used chain global_used nested_vis inner inner_used"; got != want {
		t.Errorf("kept %s, want %s", got, want)
	}
	var stats strings.Builder
	mgr.WriteStatistics(&stats, passes.StatisticsPipeline)
	if !strings.Contains(stats.String(), "SymbolDCE\n  (S) 5 num-dce'd - Number of symbols DCE'd\n") {
		t.Errorf("statistics:\n%s", stats.String())
	}
}

func TestSymbolDCEErrors(t *testing.T) {
	f := fixture.New()
	f.Fn("f", "", 0)
	f.Ret()
	err := f.Run(t, "builtin.module(test.func(symbol-dce))", passes.DefaultOptions())
	want := "<unknown>:0: error: 'test.func' op  was scheduled to run under SymbolDCE, but does not define a symbol table"
	if err == nil || err.Error() != want {
		t.Errorf("got %v", err)
	}

	f = fixture.New()
	f.B.SetInsertionPointToEnd(ir.ModuleBody(f.Module))
	f.Ctx.AllowUnregisteredDialects = true
	f.B.Create(&ir.OperationState{Name: "x.unknown", NumRegions: 1})
	err = f.Run(t, "builtin.module(symbol-dce)", passes.DefaultOptions())
	if err == nil || !strings.Contains(err.Error(), "error: operation contains potentially unknown symbol table, meaning that we can't reliable compute symbol uses") {
		t.Errorf("got %v", err)
	}
}

func TestCanonicalizePass(t *testing.T) {
	build := func() *fixture.Fixture {
		f := fixture.New()
		a := f.Fn("f", "", 1)
		f.Ret(f.Neg(f.Neg(f.Add(a[0], f.C(0)))))
		f.Fn("g", "", 0)
		f.B.Create(&ir.OperationState{Name: testdialect.Flip, Attrs: []ir.NamedAttr{{Name: "state", Value: f.Ctx.Bool(true)}}})
		f.Ret()
		return f
	}
	// Non-convergence (test.flip) is a warning, and the rest is canonical.
	f := build()
	var warnings []string
	f.Ctx.SetDiagnosticHandler(func(d *ir.Diagnostic) { warnings = append(warnings, d.Error()) })
	if err := f.Run(t, "builtin.module(test.func(canonicalize{max-iterations=2}))", passes.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "warning: greedy pattern rewrite did not converge after 2 iterations; still firing: test.flip-state") {
		t.Errorf("warnings %q", warnings)
	}
	if got := fixture.Show(t, f.Module); !strings.Contains(got, `"test.return"(%arg0)`) {
		t.Errorf("not canonical:\n%s", got)
	}
	// With test-convergence it fails.
	f = build()
	err := f.Run(t, "builtin.module(test.func(canonicalize{max-iterations=2 test-convergence}))", passes.DefaultOptions())
	if err == nil || !strings.Contains(err.Error(), "did not converge") {
		t.Errorf("got %v", err)
	} else if n := err.(passes.Diagnostics)[0].Notes; len(n) != 1 || n[0].Message != "while running pass 'canonicalize' on 'test.func' operation: @g" {
		t.Errorf("notes %v", n)
	}
	// Disabled patterns do not fire; folds still happen.
	f = build()
	if err := f.Run(t, "builtin.module(test.func(canonicalize{disable-patterns=test.neg-neg,test.flip-state}))", passes.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	if got := fixture.Show(t, f.Module); strings.Count(got, `"test.neg"`) != 2 || strings.Contains(got, `"test.add"`) {
		t.Errorf("disable-patterns:\n%s", got)
	}
	// Only enabled patterns fire.
	f = build()
	if err := f.Run(t, "builtin.module(test.func(canonicalize{enable-patterns=test.neg-neg}))", passes.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	if got := fixture.Show(t, f.Module); !strings.Contains(got, `"test.return"(%arg0)`) {
		t.Errorf("enable-patterns:\n%s", got)
	}
}
