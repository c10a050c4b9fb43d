package tensortotiled

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/ipuir/ipuir/dialects/exchange"
	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/dialects/tiled"
	"github.com/ipuir/ipuir/dialects/tiled/plan"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/layout"
	"github.com/ipuir/ipuir/numeric"
	"github.com/ipuir/ipuir/passes"
	"github.com/ipuir/ipuir/runtime/pipeline"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/target/irtarget"
)

// PipelineStages is the `pipeline-stages` pass: it cuts each function of a
// tensor-level module into pipeline stages for a target of several chips
// (or the `stages` option's count, as phases of one chip), and writes each
// op's stage as `ipu.stage = k` (tensor.StageAttr). On a pod a stage spans
// one chip or several (`stage-chips`; by default the fewest of the pod's
// chips, a divisor of their count, with which every stage's weights fit),
// its program one over their tiles (target.Target.StageSpec), priced with
// its exchanges crossing the links; the function records the choice as
// `ipu.stage_chips`. The stages are contiguous
// runs of the function's ops in program order, so every value flows from a
// stage to a later one (a link transfer); constants belong to no stage:
// each stage that reads one gets its own copy.
//
// `balance=cycles` (the default) minimises the slowest stage's cycles
// under the target's cost model, which bounds the pipeline's steady
// state: a matmul costs its plan-space floor on the stage's chips (the
// planner's best plan for it alone, plan.MatmulFloor; with its weight
// streamed where no resident plan fits), every other op its vector
// passes over its result spread over the chip's tiles plus a sync, data
// movement one exchange of its result; a stage also pays the link
// transfer of what crosses into it (tensor.CrossingBytes; on one chip, where
// the stages are phases, its store to streaming memory and load back), so
// that a cut falls where little is live. `balance=bytes` minimises the
// largest stage's weight bytes instead (PopART's automatic sharding, the
// baseline). Either way a stage's weights (the arguments and constants it
// reads) must fit its chip's tile memory, less the support reserve.
//
// It writes the function's stage figures as `ipu.stage_cycles` and
// `ipu.stage_weight_bytes` (one per stage) and logs a line per stage;
// translate/podemit outlines the stages into one program per stage.
type PipelineStages struct {
	Stages     int          `pass:"stages" help:"Number of pipeline stages (0: the target's chips over stage-chips)" default:"0" min:"0"`
	StageChips int          `pass:"stage-chips" help:"Chips each stage spans on a pod (0: the pod's chips over stages, or without stages the fewest with which every stage fits)" default:"0" min:"0"`
	Balance    StageBalance `pass:"balance" help:"What the cut balances across stages" default:"cycles"`

	NumStages passes.Statistic `statistic:"num-stages" help:"Number of pipeline stages cut"`
}

// StageBalance is pipeline-stages' balance option.
type StageBalance int

const (
	BalanceCycles StageBalance = iota
	BalanceBytes
)

var stageBalanceNames = []string{BalanceCycles: "cycles", BalanceBytes: "bytes"}

func (b *StageBalance) String() string { return stageBalanceNames[*b] }

func (b *StageBalance) Set(s string) error {
	if i := slices.Index(stageBalanceNames, s); i >= 0 {
		*b = StageBalance(i)
		return nil
	}
	return fmt.Errorf("Cannot find option named '%s'!", s)
}

func (*StageBalance) Choices() []passes.Choice {
	return []passes.Choice{
		{Value: "cycles", Help: "The slowest stage's cycles under the target's cost model, the pipeline's steady state."},
		{Value: "bytes", Help: "The largest stage's weight bytes (PopART's automatic sharding), the baseline."},
	}
}

func (*PipelineStages) Name() string { return "pipeline-stages" }
func (*PipelineStages) Summary() string {
	return "Cut each function into pipeline stages of one or more chips, balanced by the cost model's cycles or by weight bytes"
}
func (*PipelineStages) Anchor() string       { return ir.ModuleOpName }
func (*PipelineStages) Requires() []*ir.Fact { return []*ir.Fact{irtarget.Named} }

func (p *PipelineStages) Run(module *ir.Operation, pc *passes.PassContext) error {
	tg, err := irtarget.Of(module, pc.Env())
	if err != nil {
		return err
	}
	if !tg.MultiChip() && p.StageChips > 1 {
		return module.EmitOpError("pipeline-stages: stage-chips=%d on %s, which has one chip", p.StageChips, tg.Name)
	}
	ctx := pc.Context()
	for _, fn := range tensor.Functions(module) {
		var cut *tensor.StageCut
		var span int
		var firstErr error
		for _, k := range p.spans(tg) {
			stages := p.Stages
			if stages == 0 {
				stages = max(tg.Chips/k, 1)
			}
			if tg.MultiChip() && stages*k > tg.Chips {
				if k == 1 {
					return module.EmitOpError("pipeline-stages: %d stages on %s, which has %d chips", stages, tg.Name, tg.Chips)
				}
				return module.EmitOpError("pipeline-stages: %d stages of %d chips each on %s, which has %d chips", stages, k, tg.Name, tg.Chips)
			}
			stageTarget := tg
			if tg.MultiChip() {
				if stageTarget, err = tg.Stage(k); err != nil {
					return module.EmitOpError("pipeline-stages: %v", err)
				}
			}
			costs := &stageCosts{tg: stageTarget, links: tg, span: k, matmuls: map[layout.MatmulShape]int64{}}
			if cut, err = p.cutFunction(ctx, fn, stages, costs); err == nil {
				span = k
				break
			}
			firstErr = cmp.Or(firstErr, err)
			cut = nil
		}
		if cut == nil {
			return firstErr
		}
		if span > 1 {
			fn.SetAttr(ctx, tensor.StageChipsAttr, ctx.IntegerAttr(ctx.IntegerType(64, ir.Signless), int64(span)))
		} else {
			fn.SetAttr(ctx, tensor.StageChipsAttr, nil)
		}
		if tg.MultiChip() {
			if err := scheduleLinkPhase(ctx, fn, tg, span, pc); err != nil {
				return err
			}
		}
		fn.SetAttr(ctx, tensor.StageCyclesAttr, ctx.DenseI64Array(cut.Cycles...))
		fn.SetAttr(ctx, tensor.StageWeightBytesAttr, ctx.DenseI64Array(cut.WeightBytes...))
		for k := range cut.Cycles {
			name, _ := ir.SymbolName(fn)
			pc.Logger().Info("pipeline stage", "function", name, "stage", k, "chips", span, "ops", cut.Ops[k],
				"estimated_cycles", cut.Cycles[k], "link_cycles", cut.LinkCycles[k], "weight_bytes", cut.WeightBytes[k], "balance", p.Balance.String())
		}
		p.NumStages.Add(uint64(len(cut.Cycles)))
	}
	return nil
}

// spans are the chips a stage may span, in the order to try them: the
// option's, or the pod's chips over the stages asked for, or each divisor
// of the pod's chips from one up (the fewest with which every stage's
// weights fit). One chip (phases) spans 1.
func (p *PipelineStages) spans(tg *target.Target) []int {
	switch {
	case !tg.MultiChip():
		return []int{1}
	case p.StageChips > 0:
		return []int{p.StageChips}
	case p.Stages > 0:
		return []int{max(tg.Chips/p.Stages, 1)}
	}
	var ks []int
	for k := 1; k <= tg.Chips; k++ {
		if tg.Chips%k == 0 {
			ks = append(ks, k)
		}
	}
	return ks
}

// cutFunction finds fn's stages and writes each op's.
func (p *PipelineStages) cutFunction(ctx *ir.Context, fn *ir.Operation, stages int, costs *stageCosts) (*tensor.StageCut, error) {
	body := fn.Region(0).Front()
	if body == nil {
		return nil, fn.EmitOpError("pipeline-stages: the function has no body")
	}
	var items []tensor.StageItem
	var ops []*ir.Operation
	for _, op := range body.Ops() {
		if tensor.StagelessOp(op) {
			continue
		}
		cycles, err := costs.of(op)
		if err != nil {
			return nil, op.EmitOpError("pipeline-stages: %v", err)
		}
		items = append(items, tensor.StageItem{Cycles: cycles, Reads: tensor.WeightReads(op)})
		ops = append(ops, op)
	}
	tg := costs.links
	// A stage that starts at an op first takes, over the links from the
	// stage before, what earlier ops computed and it or later ops read
	// (one hop: the stages sit on neighbouring chips).
	// On one chip, where the stages are phases, what crosses is stored to
	// streaming memory after one phase and loaded before the next.
	if tg.MultiChip() || tg.Streaming.BytesPerChip > 0 {
		for i, bytes := range tensor.CrossingBytes(ops) {
			var cycles int64
			var err error
			if tg.MultiChip() || costs.span > 1 {
				// Into a stage of K chips from the one before: forward
				// from its first chip to this one's last, 2K − 1 hops.
				if cycles, err = costs.links.LinkTransferCycles(bytes, 0, 1); err == nil {
					cycles = numeric.SatMul(cycles, int64(2*costs.span-1))
				}
			} else if cycles, err = tg.StreamingCycles(bytes); err == nil {
				cycles *= 2
			}
			if err != nil {
				return nil, ops[i].EmitOpError("pipeline-stages: %v", err)
			}
			items[i].EntryCycles = cycles
		}
	}
	capacity := numeric.SatMul(int64(costs.tg.Tiles), costs.tg.SRAMBytesPerTile-costs.tg.SupportReserveBytes)
	cut, err := tensor.CutStages(items, stages, capacity, p.Balance == BalanceBytes)
	if err != nil {
		d := fn.EmitOpError("pipeline-stages: %v", err)
		if errors.Is(err, tensor.ErrStageWeights) {
			d = d.WithCause(target.ErrTileMemory) // more stages may fit
		}
		return nil, d
	}
	for i, op := range ops {
		op.SetAttr(ctx, tensor.StageAttr, ctx.IntegerAttr(ctx.IntegerType(64, ir.Signless), int64(cut.StageOf[i])))
	}
	return cut, nil
}

// scheduleLinkPhase writes fn's link phase: an exchange.link_phase before
// its return, with every value a stage computes that a later stage reads
// (on a pod, stage k runs on chip k), each once for each stage that reads
// it, and their schedule over the ring (pipeline.Schedule, the one a pod
// package carries). A phase an earlier run wrote is replaced; nothing is
// written when no value crosses.
func scheduleLinkPhase(ctx *ir.Context, fn *ir.Operation, tg *target.Target, span int, pc *passes.PassContext) error {
	body := fn.Region(0).Front()
	stageOf := func(op *ir.Operation) (int, bool) {
		if a, ok := op.Attr(tensor.StageAttr).(*ir.IntegerAttr); ok {
			return int(a.Int), true
		}
		return 0, false
	}
	type crossing struct {
		v  *ir.Value
		to int
	}
	var values []*ir.Value
	var reqs []pipeline.LinkRequest
	seen := map[crossing]bool{}
	for _, op := range body.Ops() {
		if op.Is(exchange.LinkPhaseOp) {
			op.Erase()
			continue
		}
		k, ok := stageOf(op)
		if !ok {
			continue
		}
		for _, v := range op.Operands() {
			def := v.DefiningOp()
			if def == nil {
				continue // a model input: the host delivers it to each chip
			}
			j, ok := stageOf(def)
			if !ok || j == k || seen[crossing{v, k}] {
				continue // a constant, copied into each stage that reads it
			}
			seen[crossing{v, k}] = true
			rt, _ := v.Type().(*ir.RankedTensorType)
			et, err := tiled.ElemTypeOf(rt.Elem)
			if err != nil {
				return op.EmitOpError("pipeline-stages: an operand crossing chips: %v", err)
			}
			values = append(values, v)
			reqs = append(reqs, exchange.StageLinkRequest(j, k, span, numeric.SatMul(ir.NumElements(rt.Dims), int64(et.Bytes()))))
		}
	}
	if len(values) == 0 {
		return nil
	}
	hops, phase, err := pipeline.Schedule(reqs, tg)
	if err != nil {
		return fn.EmitOpError("pipeline-stages: the link phase: %v", err)
	}
	b := ir.NewBuilder(ctx)
	b.SetInsertionPoint(body.Last())
	b.Create(&ir.OperationState{Name: exchange.LinkPhaseOpName, Loc: fn.Loc(), Operands: values,
		Attrs: exchange.LinkPhaseAttrs(ctx, exchange.LinkSchedule{Requests: reqs, Hops: hops, StageChips: span}, phase)})
	name, _ := ir.SymbolName(fn)
	pc.Logger().Info("scheduled link phase", "function", name, "transfers", phase.Transfers, "bytes", phase.Bytes,
		"cycles", phase.Cycles, "lower_bound", phase.LowerBound)
	return nil
}

// stageCosts prices ops on a stage's chips for the cut (matmuls cached by
// shape: a stack of layers repeats a few): tg is the stage's target (one
// chip, or span chips of the pod as one program), links the pod's.
type stageCosts struct {
	tg, links *target.Target
	span      int
	matmuls   map[layout.MatmulShape]int64
}

// vectorPasses is how many passes of simple and transcendental vector work
// an op makes over its result in the cut's model (the decompositions of
// tensor-decompose: softmax is max, subtract, exp, sum, divide; layer_norm
// mean, subtract, square, mean, rsqrt, scale and shift; gelu's tanh form
// seven multiplies and adds around a tanh).
var vectorPasses = map[string][2]int64{
	tensor.AddOpName: {1, 0}, tensor.SubOpName: {1, 0}, tensor.MulOpName: {1, 0}, tensor.MaxOpName: {1, 0},
	tensor.ConvertOpName: {1, 0}, tensor.DivOpName: {0, 1}, tensor.ExpOpName: {0, 1}, tensor.RsqrtOpName: {0, 1},
	tensor.TanhOpName: {0, 1}, tensor.ErfOpName: {0, 1}, tensor.GeluOpName: {7, 1},
	tensor.SoftmaxOpName: {3, 2}, tensor.LayerNormOpName: {6, 1},
	tensor.ReduceSumOpName: {1, 0}, tensor.ReduceMaxOpName: {1, 0},
}

// of is op's cycles on the stage's chips.
func (c *stageCosts) of(op *ir.Operation) (int64, error) {
	t := c.tg
	if op.Name() == tensor.MatmulOpName || op.Name() == tensor.BatchMatmulOpName {
		s, err := tiled.MatmulShapeOf(op.Operand(0).Type(), op.Operand(1).Type(), op.Result(0).Type())
		if err != nil {
			return 0, err
		}
		if v, ok := c.matmuls[s]; ok {
			return v, nil
		}
		choice, err := plan.MatmulFloor(s, t)
		if err != nil && t.Streaming.BytesPerChip > 0 {
			// No resident plan holds its weight: plan-gemms will stream it.
			if streamed, serr := plan.MatmulStreamedFloor(s, t); serr == nil {
				choice, err = streamed, nil
			}
		}
		if err != nil {
			return 0, err
		}
		c.matmuls[s] = choice.Estimate.Cycles
		return choice.Estimate.Cycles, nil
	}
	if op.NumResults() == 0 {
		return 0, nil
	}
	var total int64
	for _, r := range op.Results() {
		rt, ok := r.Type().(*ir.RankedTensorType)
		if !ok {
			continue
		}
		n := ir.NumElements(rt.Dims)
		if op.Name() == tensor.ReduceSumOpName || op.Name() == tensor.ReduceMaxOpName {
			if in, ok := op.Operand(0).Type().(*ir.RankedTensorType); ok {
				n = ir.NumElements(in.Dims)
			}
		}
		perTile := numeric.CeilDiv(max(n, 0), int64(t.Tiles))
		et, err := tiled.ElemTypeOf(rt.Elem)
		if err != nil || !target.Computes(et) {
			continue // host-side values (strings) cost the chip nothing
		}
		passesOf, ok := vectorPasses[op.Name()]
		if !ok {
			// Data movement, and any op without a model: one exchange of
			// its result spread over the chip.
			words, err := t.ExchangeWords(numeric.SatMul(perTile, int64(et.Bytes())))
			if err != nil {
				return 0, err
			}
			// Across the chips of a span, its bytes spread evenly.
			phase, sync, err := t.ExchangeStepCycles(words, t.UniformChipBytes(numeric.SatMul(n, int64(et.Bytes())), t.SpanChips()))
			if err != nil {
				return 0, err
			}
			total = numeric.SatAdd(total, phase+sync)
			continue
		}
		for class, k := range map[target.OpClass]int64{target.Simple: passesOf[0], target.Transcendental: passesOf[1]} {
			if k == 0 {
				continue
			}
			cyc, err := t.ElementwiseCycles(perTile, et, class)
			if err != nil {
				return 0, err
			}
			total = numeric.SatAdd(total, numeric.SatMul(k, cyc))
		}
		total = numeric.SatAdd(total, int64(t.SyncCycles))
	}
	return total, nil
}
