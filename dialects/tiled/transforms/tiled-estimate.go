package transforms

import (
	"github.com/ipuir/ipuir/dialects/tiled"
	"github.com/ipuir/ipuir/dialects/tiled/plan"
	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/layout"
	"github.com/ipuir/ipuir/passes"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/target/irtarget"
	"github.com/ipuir/ipuir/target/storage"
)

// TiledEstimate sets the `estimate` of every op of the tiled dialect (a
// matmul's from its plan with its operands in place, every other op's
// from tiled.EstimateOp) and the module's tiled.summary: the program's
// cycles split into compute, exchange, reduction and sync, beside the
// compute bound of its matmuls. It logs the summary.
type TiledEstimate struct {
	NumEstimated passes.Statistic `statistic:"num-estimated" help:"Number of tiled ops given an estimate"`
}

func (*TiledEstimate) Name() string { return "tiled-estimate" }
func (*TiledEstimate) Summary() string {
	return "Estimate the cost of every tiled op and of the whole program (module attribute tiled.summary)"
}
func (*TiledEstimate) Anchor() string       { return ir.ModuleOpName }
func (*TiledEstimate) Requires() []*ir.Fact { return []*ir.Fact{irtarget.Named, tiled.Level} }

func (p *TiledEstimate) Run(module *ir.Operation, pc *passes.PassContext) error {
	tg, err := irtarget.Of(module, pc.Env())
	if err != nil {
		return err
	}
	ctx := pc.Context()
	var sum tiled.Summary
	var macsElem elem.Type
	var failed error
	module.Walk(func(op *ir.Operation) ir.WalkResult {
		if op.Def() == nil || op.Def().Dialect() != tiled.Dialect || op.Is(tiled.ShardOp, tiled.ViewOp) {
			return ir.WalkAdvance
		}
		var e tiled.Estimate
		var err error
		if op.Is(tiled.MatmulOp) {
			var s layout.MatmulShape
			s, err = tiled.MatmulShapeOfOp(op)
			if err == nil {
				e, err = plan.Estimate(&op.Attr(tiled.PlanAttrName).(*tiled.GemmPlanAttr).Plan, s, tg)
				sum.MACs += s.MACs()
				macsElem = s.Elem
			}
		} else {
			e, err = tiled.EstimateOp(op, tg)
		}
		if err != nil {
			failed = op.EmitOpError("cannot be estimated: %v", err)
			return ir.WalkInterrupt
		}
		op.SetAttr(ctx, tiled.EstimateAttrName, tiled.NewEstimateAttr(ctx, e))
		sum.Add(&e)
		sum.Ops++
		p.NumEstimated.Inc()
		return ir.WalkAdvance
	})
	if failed != nil {
		return failed
	}
	if sum.MACs > 0 {
		bound, err := tg.ComputeLowerBoundCycles(sum.MACs, macsElem)
		if err != nil {
			return module.EmitError("tiled-estimate: %v", err)
		}
		sum.ComputeBoundCycles = bound
	}
	sum.Total()
	if err := programMemory(module, tg, &sum); err != nil {
		return err
	}
	module.SetAttr(ctx, tiled.SummaryAnnotation, tiled.NewSummaryAttr(ctx, sum))
	pc.Logger().Info("estimated tiled program", "target", tg.Name, "estimated_cycles", sum.Cycles,
		"compute_cycles", sum.ComputeCycles, "exchange_cycles", sum.ExchangeCycles, "reduction_cycles", sum.ReductionCycles,
		"sync_cycles", sum.SyncCycles, "peak_standard_bytes", sum.PeakStandardBytes, "peak_interleaved_bytes", sum.PeakInterleavedBytes,
		"ops", sum.Ops, "macs", sum.MACs, "compute_bound_cycles", sum.ComputeBoundCycles)
	return nil
}

// programMemory places every value of every function on its tiles, live
// from its producer to its last reader in program order, and records the
// busiest tile's footprint per memory kind: each op was planned with its
// own operands in mind, and this is where the program as a whole finds out
// whether it fits (a diagnostic naming the tile, the buffer and the bytes
// short when it does not). Each tile keeps the target's support reserve
// at the bottom of the class that holds code; the peaks are the data's,
// above it.
//
// The summary's peaks are the larger of that footprint and the largest
// op's own peak (an op's temporaries, a matmul's partial sums, are not
// values at this level).
func programMemory(module *ir.Operation, tg *target.Target, sum *tiled.Summary) error {
	var failed error
	module.Walk(func(fn *ir.Operation) ir.WalkResult {
		if !ir.Implements[ir.FunctionLike](fn) || fn.NumRegions() == 0 || fn.Region(0).Empty() {
			return ir.WalkAdvance
		}
		order := map[*ir.Operation]int{}
		for i, op := range fn.Region(0).Front().Ops() {
			if op.Def() != nil && op.Def().Dialect() == tiled.Dialect {
				order[op] = i
			}
		}
		bufs, _, err := tiled.ValueBuffers(fn, tg, func(op *ir.Operation) (int, bool) { i, ok := order[op]; return i, ok })
		if err != nil {
			failed = err
			return ir.WalkInterrupt
		}
		reserve, err := tiled.SupportReserve(tg)
		if err != nil {
			failed = fn.EmitOpError("%v", err)
			return ir.WalkInterrupt
		}
		withReserve := make([][]storage.Buffer, len(bufs))
		for tile, b := range bufs {
			withReserve[tile] = append([]storage.Buffer{reserve}, b...)
		}
		placements, err := storage.PlaceAll(tg, withReserve)
		if err != nil {
			failed = fn.EmitOpError("the program does not fit tile memory: %v", err).WithCause(err)
			return ir.WalkInterrupt
		}
		for _, p := range placements {
			for _, c := range tg.MemoryClasses {
				peak := p.Peak[c.Name]
				if c.Name == reserve.Class {
					peak -= reserve.Bytes // the data's, above the reserve
				}
				switch c.Kind {
				case target.Standard:
					sum.PeakStandardBytes = max(sum.PeakStandardBytes, peak)
				case target.Interleaved:
					sum.PeakInterleavedBytes = max(sum.PeakInterleavedBytes, peak)
				}
			}
		}
		return ir.WalkSkip
	})
	return failed
}
