package passes_test

import (
	"strings"
	"testing"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/passes"
	"github.com/ipuir/ipuir/tests/fixture"
	"github.com/ipuir/ipuir/tests/testdialect"
	"github.com/ipuir/ipuir/tests/testpasses"
)

// indexFixture builds a function over index values: neg, add and a use
// that stays unconverted.
func indexFixture() (*fixture.Fixture, *ir.Operation) {
	f := fixture.New()
	idx := f.Ctx.Index()
	fn, entry := testdialect.NewFunc(f.B, f.Module, "f", "", idx, idx)
	a := entry.Arguments()
	n := testdialect.Unary(f.B, testdialect.Neg, a[0])
	s := testdialect.Binary(f.B, testdialect.Add, n, a[1])
	f.Use(s)
	f.Ret(s)
	return f, fn
}

func TestPartialConversion(t *testing.T) {
	f, _ := indexFixture()
	if err := f.Run(t, "builtin.module(test-legalize)", passes.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	fixture.CheckLines(t, fixture.Show(t, f.Module), `
module {
  "test.func"() <{sym_name = "f"}> ({
  ^bb0(%arg0: index, %arg1: index):
    %0 = builtin.unrealized_conversion_cast %arg0 : index to i64
    %1 = "test.constant"() <{value = 0 : i64}> : () -> i64
    %2 = "test.sub"(%1, %0) : (i64, i64) -> i64
    %3 = builtin.unrealized_conversion_cast %arg1 : index to i64
    %4 = "test.add"(%2, %3) : (i64, i64) -> i64
    %5 = builtin.unrealized_conversion_cast %4 : i64 to index
    "test.use"(%5) : (index) -> ()
    "test.return"(%5) : (index) -> ()
  }) : () -> ()
}`)
}

func TestConversionFailureRollsBack(t *testing.T) {
	f, _ := indexFixture()
	f.B.SetInsertionPoint(f.Module.Region(0).Front().First().Region(0).Front().Last())
	flip := f.B.Create(&ir.OperationState{Name: testdialect.Flip, Attrs: []ir.NamedAttr{{Name: "state", Value: f.Ctx.Bool(true)}}})
	flip.SetLoc(f.Ctx.FileLineCol("test.ipuir", 7, 5))
	before := fixture.Show(t, f.Module)
	err := f.Run(t, "builtin.module(test-legalize)", passes.DefaultOptions())
	if err == nil || err.Error() != "test.ipuir:7:5: error: failed to legalize operation 'test.flip' that was explicitly marked illegal" {
		t.Errorf("got %v", err)
	}
	if after := fixture.Show(t, f.Module); after != before {
		t.Errorf("IR not restored:\n%s\nwas:\n%s", after, before)
	}
}

func TestFullConversion(t *testing.T) {
	// Unknown ops must be converted in a full conversion.
	f, _ := indexFixture()
	f.Ctx.AllowUnregisteredDialects = true
	f.B.SetInsertionPointToEnd(ir.ModuleBody(f.Module))
	f.B.Create(&ir.OperationState{Name: "other.op", Loc: f.Ctx.FileLineCol("test.ipuir", 9, 1)})
	if err := f.Run(t, "builtin.module(test-legalize{full=true})", passes.DefaultOptions()); err == nil ||
		err.Error() != "test.ipuir:9:1: error: failed to legalize operation 'other.op'" {
		t.Errorf("got %v", err)
	}
	// Without it the full conversion succeeds.
	f, _ = indexFixture()
	if err := f.Run(t, "builtin.module(test-legalize{full=true})", passes.DefaultOptions()); err != nil {
		t.Error(err)
	}
}

func TestConversionTargetLegality(t *testing.T) {
	f, fn := indexFixture()
	ops := fn.Region(0).Front().Ops()
	neg, add, use := ops[0], ops[1], ops[2]
	target := passes.NewConversionTarget()
	target.AddLegalDialect("test")
	target.AddIllegalOp(testdialect.Neg)
	target.AddDynamicallyLegalOp(testdialect.Add, func(op *ir.Operation) bool { return op.NumOperands() == 3 })
	check := func(op *ir.Operation, legal, known bool) {
		t.Helper()
		if l, k := target.Legality(op); l != legal || k != known {
			t.Errorf("%s: legal %v known %v", op.Name(), l, k)
		}
	}
	check(neg, false, true)
	check(add, false, true)
	check(use, true, true)
	check(f.Module, false, false)
	target.AddDynamicallyLegalDialect("builtin", func(*ir.Operation) bool { return true })
	check(f.Module, true, true)
	target.AddIllegalDialect("test")
	check(use, false, true)
	target.AddLegalOp(testdialect.Use)
	check(use, true, true)
	other := passes.NewConversionTarget()
	other.MarkUnknownOpDynamicallyLegal(func(op *ir.Operation) bool { return op.Name() == testdialect.Use })
	if l, k := other.Legality(use); !l || !k {
		t.Error("unknown-op legality")
	}
	if l, _ := other.Legality(neg); l {
		t.Error("unknown-op legality")
	}
}

func TestTypeConverter(t *testing.T) {
	ctx := ir.NewContext()
	tc := &passes.TypeConverter{}
	if tc.ConvertType(ctx.I(32)) != nil {
		t.Error("a converter without conversions converts")
	}
	tc.AddConversion(func(t ir.Type) (ir.Type, bool) { return t, true })
	tc.AddConversion(func(t ir.Type) (ir.Type, bool) {
		if _, ok := t.(*ir.IndexType); ok {
			return ctx.I(64), true
		}
		if it, ok := t.(*ir.IntegerType); ok && it.Width == 7 {
			return nil, true // i7 cannot be converted
		}
		return nil, false
	})
	if tc.ConvertType(ctx.Index()) != ctx.I(64) || tc.ConvertType(ctx.F32()) != ctx.F32() || tc.ConvertType(ctx.I(7)) != nil {
		t.Error("conversions")
	}
	if tc.IsLegal(ctx.Index()) || !tc.IsLegal(ctx.I(64)) {
		t.Error("legality")
	}
	if tc.IsSignatureLegal(ctx.Function([]ir.Type{ctx.I(64)}, []ir.Type{ctx.Index()})) ||
		!tc.IsSignatureLegal(ctx.Function([]ir.Type{ctx.I(64)}, nil)) {
		t.Error("signature legality")
	}
}

// TestConvertRegionTypes converts a function's signature with a pattern
// that rewrites block argument types, and a source materialization of the
// user's choosing.
func TestConvertRegionTypes(t *testing.T) {
	f, _ := indexFixture()
	ctx := f.Ctx
	tc := testpasses.IndexToI64(ctx)
	var materialized int
	tc.AddSourceMaterialization(func(b *ir.Builder, t ir.Type, in []*ir.Value, loc ir.Location) *ir.Value {
		materialized++
		return b.Create(&ir.OperationState{Name: testdialect.Source, Loc: loc, ResultTypes: []ir.Type{t}}).Result(0)
	})
	target := passes.NewConversionTarget()
	target.AddLegalDialect("test", "builtin")
	// Legal once every entry argument is legal.
	target.AddDynamicallyLegalOp(testdialect.Func, func(op *ir.Operation) bool {
		for _, a := range op.Region(0).Front().Arguments() {
			if !tc.IsLegal(a.Type()) {
				return false
			}
		}
		return true
	})
	patterns := passes.NewPatternSet(&passes.ConversionPattern{PatternName: "sig", RootOp: testdialect.Func,
		Rewrite: func(op *ir.Operation, _ []*ir.Value, rw *passes.ConversionRewriter) bool {
			return rw.ConvertRegionTypes(op.Region(0), nil) == nil
		}})
	if err := passes.ApplyPartialConversion(f.Module, target, patterns, tc); err != nil {
		t.Fatal(err)
	}
	got := fixture.Show(t, f.Module)
	if !strings.Contains(got, "^bb0(%arg0: i64, %arg1: i64):") || materialized != 2 || strings.Count(got, `"test.source"`) != 2 {
		t.Errorf("materialized %d:\n%s", materialized, got)
	}
}
