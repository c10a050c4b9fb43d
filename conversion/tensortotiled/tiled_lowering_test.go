package tensortotiled_test

import (
	"testing"

	funcd "github.com/ipuir/ipuir/dialects/func"
	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/dialects/tiled"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/passes"
	"github.com/ipuir/ipuir/registry"
	"github.com/ipuir/ipuir/registry/registrytest"
	"github.com/ipuir/ipuir/target/irtarget"
)

// parseExample parses one of the checked-in examples with the dialects the
// lowering needs.
func parseExample(t testing.TB, name string) (*ir.Context, *ir.Operation) {
	t.Helper()
	ctx, module, _ := registrytest.ParseFile(t, "../../examples/"+name)
	return ctx, module
}

func lowerToTiled(t testing.TB, ctx *ir.Context, module *ir.Operation) {
	t.Helper()
	if _, err := registrytest.Run(t, ctx, module, registry.LowerTensorToTiled); err != nil {
		t.Fatal(err)
	}
}

// The attention block lowers completely: no model-level matmul left, six
// tiled.matmuls with plans and estimates, every value laid out but the
// constant (whose type is its value's), and the result verifies.
func TestLowerAttentionToTiled(t *testing.T) {
	ctx, module := parseExample(t, "attention.ipuir")
	lowerToTiled(t, ctx, module)
	env, err := irtarget.EnvOfModule(module)
	if err != nil {
		t.Fatal(err)
	}
	if d := ir.VerifyIn(module, env); d != nil {
		t.Fatal(d)
	}
	var matmuls int
	module.Walk(func(op *ir.Operation) ir.WalkResult {
		if op.Def() != nil && op.Def().Dialect() == tensor.Dialect {
			t.Errorf("%s left after the lowering", op.Name())
		}
		if op.Is(tiled.MatmulOp) {
			matmuls++
		}
		if op.Def() != nil && op.Def().Dialect() == tiled.Dialect {
			if _, ok := op.Attr(tiled.EstimateAttrName).(*tiled.EstimateAttr); !ok {
				t.Errorf("%s without an estimate", op.Name())
			}
		}
		for _, r := range op.Results() {
			if _, ok := tiled.LayoutOf(r.Type()); !ok && !op.Is(funcd.FuncOp) {
				t.Errorf("%s result %s has no layout", op.Name(), ir.TypeString(r.Type()))
			}
		}
		return ir.WalkAdvance
	})
	// q, k and v are planned as one wider matmul; then scores, context and
	// the output projection.
	if matmuls != 4 {
		t.Errorf("%d tiled.matmuls, want 4", matmuls)
	}
	sum, ok := module.Attr(tiled.SummaryAnnotation).(*tiled.SummaryAttr)
	if !ok {
		t.Fatalf("module has no %s", tiled.SummaryAnnotation)
	}
	s := sum.Summary
	if s.ComputeBoundCycles != 54075 {
		t.Errorf("compute bound %d cycles, want 54075 (5.09 G MAC over 1,472 tiles × 64 MAC/cycle)", s.ComputeBoundCycles)
	}
	if s.Cycles != s.ComputeCycles+s.ExchangeCycles+s.ReductionCycles+s.SyncCycles || s.Cycles < s.ComputeBoundCycles || s.Cycles >= 406211/2 {
		t.Errorf("summary %s: want the sum of its parts, above the bound and under half the reference log's 406,211", &s)
	}
}

// Planning the projections jointly lowers the block's estimate.
func TestJointPlanningPays(t *testing.T) {
	cycles := func(pipeline string) int64 {
		ctx, module := parseExample(t, "attention.ipuir")
		r := registry.NewPassRegistry()
		pm, err := r.ParsePipeline("builtin.module(" + pipeline + ")")
		if err != nil {
			t.Fatal(err)
		}
		opts := passes.DefaultOptions()
		if opts.Env, err = irtarget.EnvOfModule(module); err != nil {
			t.Fatal(err)
		}
		if err := passes.NewPassManager(ctx, pm, opts).Run(module); err != nil {
			t.Fatal(err)
		}
		return module.Attr(tiled.SummaryAnnotation).(*tiled.SummaryAttr).Summary.Cycles
	}
	joint := cycles(registry.LowerTensorToTiled)
	separate := cycles("tiled-prepare{fuse-shared-lhs=false},plan-gemms,tiled-assign-layouts,convert-tensor-to-tiled,tiled-estimate")
	if joint >= separate {
		t.Errorf("joint planning: %d cycles, separate: %d", joint, separate)
	}
	t.Logf("attention block: %d cycles planned jointly, %d separately", joint, separate)
}

func BenchmarkLowerAttentionToTiled(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		ctx, module := parseExample(b, "attention.ipuir")
		b.StartTimer()
		lowerToTiled(b, ctx, module)
	}
}
