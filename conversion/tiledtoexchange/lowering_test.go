package tiledtoexchange_test

import (
	"testing"

	"github.com/ipuir/ipuir/dialects/exchange"
	"github.com/ipuir/ipuir/dialects/tiled"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/registry"
	"github.com/ipuir/ipuir/registry/registrytest"
	"github.com/ipuir/ipuir/target/irtarget"
	"github.com/ipuir/ipuir/translate/exchangejson"
)

func lower(t testing.TB, file, pipeline string) (*ir.Context, *ir.Operation, *ir.Env) {
	t.Helper()
	ctx, module, _ := registrytest.ParseFile(t, "../../examples/"+file)
	run(t, ctx, module, pipeline)
	env, err := irtarget.EnvOfModule(module)
	if err != nil {
		t.Fatal(err)
	}
	return ctx, module, env
}

func run(t testing.TB, ctx *ir.Context, module *ir.Operation, pipeline string) {
	t.Helper()
	if _, err := registrytest.Run(t, ctx, module, pipeline); err != nil {
		t.Fatal(err)
	}
}

// Every data movement of the attention block becomes a verified phase on
// its lower bound, after a sync; no tiled op that moves data is left; the
// JSON lists the same phases.
func TestAttentionPhases(t *testing.T) {
	_, module, env := lower(t, "attention.ipuir", registry.LowerToExchange)
	tg, _ := irtarget.FromEnv(env)
	if d := ir.VerifyIn(module, env); d != nil {
		t.Fatal(d)
	}
	var phases []*ir.Operation
	module.Walk(func(op *ir.Operation) ir.WalkResult {
		switch {
		case op.Is(exchange.PhaseOp):
			if prev := op.Prev(); prev == nil || !prev.Is(exchange.SyncOp) {
				t.Errorf("phase %d without a sync before it", len(phases))
			}
			phases = append(phases, op)
		case op.Is(tiled.CombineOp):
			t.Errorf("tiled.combine left")
		case op.Is(tiled.MatmulOp):
			if p := op.Attr(tiled.PlanAttrName).(*tiled.GemmPlanAttr).Plan; p.InnerPartitions > 1 && op.Attr(tiled.PartialAttrName) == nil {
				t.Errorf("a matmul still reduces across tiles inside itself")
			}
		case op.Is(tiled.RelayoutOp):
			// What stays a relayout moves nothing between tiles.
			if e, err := tiled.EstimateOp(op, tg); err != nil || e.ExchangeWords != 0 {
				t.Errorf("a relayout that exchanges is left (%v)", err)
			}
		}
		return ir.WalkAdvance
	})
	// x into the projections' layout; the heads (3 × 2); the softmax's
	// two combines; the context into the output projection; and the
	// partial sums of the three matmuls with inner partitions.
	if len(phases) != 13 {
		t.Errorf("%d phases, want 13", len(phases))
	}
	js := exchangejson.ToJSON(module)
	if len(js.Phases) != len(phases) {
		t.Fatalf("JSON has %d phases, the IR %d", len(js.Phases), len(phases))
	}
	for i, op := range phases {
		s := op.Attr(exchange.ScheduleAttrName).(*exchange.ScheduleAttr)
		if s.Horizon != s.LowerBound {
			t.Errorf("phase %d: horizon %d, bound %d", i, s.Horizon, s.LowerBound)
		}
		if js.Phases[i].Schedule.Horizon != s.Horizon || len(js.Phases[i].Transfers) != len(op.Attr(exchange.TransfersAttrName).(*exchange.TransfersAttr).List) {
			t.Errorf("phase %d: JSON and IR differ", i)
		}
	}
}

// Scheduling every phase of the attention block: the exchange lowering
// alone, from the tiled program.
func BenchmarkAttentionExchange(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		ctx, module, _ := lower(b, "attention.ipuir", registry.LowerTensorToTiled)
		b.StartTimer()
		run(b, ctx, module, "convert-tiled-to-exchange")
	}
}

// The tiled level's estimates are the exchange's: every relayout, combine
// and matmul reduction of the attention block was priced with the words
// its busiest tile moves, and the phase it becomes is scheduled in exactly
// that many cycles (its lower bound, which the scheduler reaches).
func TestEstimatesMatchPhases(t *testing.T) {
	ctx, module, _ := lower(t, "attention.ipuir", registry.LowerTensorToTiled)
	var priced []int64
	module.Walk(func(op *ir.Operation) ir.WalkResult {
		if op.Is(tiled.RelayoutOp, tiled.CombineOp, tiled.MatmulOp) {
			e := op.Attr(tiled.EstimateAttrName).(*tiled.EstimateAttr).Estimate
			if e.ExchangeWords > 0 {
				priced = append(priced, max(e.ExchangeWords, e.ExchangeSentWords))
			}
		}
		return ir.WalkAdvance
	})
	run(t, ctx, module, "convert-tiled-to-exchange")
	var scheduled []int64
	module.Walk(func(op *ir.Operation) ir.WalkResult {
		if op.Is(exchange.PhaseOp) {
			scheduled = append(scheduled, op.Attr(exchange.ScheduleAttrName).(*exchange.ScheduleAttr).Horizon)
		}
		return ir.WalkAdvance
	})
	if len(priced) != len(scheduled) {
		t.Fatalf("%d priced exchanges, %d phases", len(priced), len(scheduled))
	}
	for i := range priced {
		if priced[i] != scheduled[i] {
			t.Errorf("exchange %d: priced at %d words, scheduled in %d cycles", i, priced[i], scheduled[i])
		}
	}
}
