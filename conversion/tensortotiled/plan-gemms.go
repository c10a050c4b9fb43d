package tensortotiled

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/dialects/tiled"
	"github.com/ipuir/ipuir/dialects/tiled/plan"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/layout"
	"github.com/ipuir/ipuir/passes"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/target/irtarget"
)

// PlanGemms is the `plan-gemms` pass: for every tensor.matmul and
// tensor.batch_matmul (one batch axis) of each function it chooses a GEMM
// plan for the module's target (ipu.target) with the planner of
// dialects/tiled/plan, and records it on the op as `tiled.plan` with the
// plan's estimate as `tiled.estimate`.
//
// A matmul's plan may be pinned, wholly or in part, by a
// `tiled.constraint = #tiled.gemm_constraint<...>` attribute on the op, or
// by the `constraints` option, which names matmuls by their index in the
// module (walk order, from 0; the reference log's source_operation) and
// overrides the attribute: `constraints="source_operation = 2,
// orientation = swapped; source_operation = 4, inner_partitions = 1"`.
// A pinned plan that is infeasible fails the pass with the verifier's
// reason. The planner logs through the pass context's logger.
//
// Weights (function arguments and constants read only as matmul weights)
// are placed as the `weights` option says. Resident weights are delivered
// by the host in the layout their reading plan wants and stay there for
// the whole program: no exchange, but a plan's layout may replicate them
// (the QKV plan of the attention block holds each weight shard on 46
// tiles), and later matmuls are planned around the memory they hold. Home
// weights (tiled.HomeAttr) are stored once and brought into the plan's
// layout by an exchange phase just before the matmul, the copy freed
// after it: memory only around the use, for the exchange's cycles, which
// the planner prices. `auto`, the default, keeps a function's weights
// resident when its matmuls can be planned so; otherwise it makes the
// largest home (all weights of the largest size, then of the next, ...)
// until they can. A weight already marked tiled.home stays home. Once any
// weight is home, so are the parameters read only through broadcasts
// (biases, layer norms' scales), kept in kibibyte pieces.
//
// Each home's layout is then written on it: a weight is cut as the plan
// of its first reader cuts it, without the plan's replicas, each shard in
// as many pieces as the plan has replicas of it (layout.StoredOnce), so
// that a tile takes its shard as a few whole pieces, each sent once to
// all the tiles that need it, rather than as one piece per row of a
// layout cut another way: every piece takes an exchange-table entry on
// each tile it touches for the whole program. The function is then
// planned again from these homes, so that the estimates price the
// exchanges the program will run. The planner also reserves, beyond the
// target's support reserve, the exchange tables its plans' operand
// exchanges take on the busiest tile, which in a stack of layers grow
// with the layers.
//
// When even homes do not fit (weights=auto), the fewest weights go to the
// chip's streaming memory (tiled.StreamedAttr), largest first, found by
// bisection: each is loaded by a tiled.stream_in into its reader's plan
// layout just before the matmul and freed after it, and the plan pays
// the load (Target.StreamingCycles of every byte its layout stores, some
// 700 times slower than the exchange: the costliest placement, so the
// last tried). Only a weight read by matmuls as their right operand is
// streamed; the parts of a jointly planned matmul's weight (read through
// a concat) are streamed together. weights=streamed streams every such
// weight. A user places a weight by hand with
// tiled.home, tiled.streamed or tiled.resident (which automatic
// placement then leaves on the chip, neither home nor streamed); a
// streamed mark on a value that cannot be streamed is an error.
type PlanGemms struct {
	Finalists   int             `pass:"finalists" help:"Number of cheapest candidate plans kept and verified per matmul" default:"4" min:"1"`
	Constraints string          `pass:"constraints" help:"Plan constraints, ';'-separated, each 'source_operation = N, field = value, ...'"`
	Weights     WeightPlacement `pass:"weights" help:"Where weights (arguments and constants read as matmul weights) live between uses" default:"auto"`
	// RecordFinalists writes each matmul's verified finalists, cheapest
	// first, as tiled.finalists: the alternatives a tuner (ipu-tune)
	// measures, each pinned back through the constraints option.
	RecordFinalists bool `pass:"record-finalists" help:"Write each matmul's verified finalists, cheapest first, as tiled.finalists (for a tuner)"`
	// SupportBytes is the busiest tile's support memory that a failed
	// placement of this program measured (tileasm.SupportBytesAttr): the
	// compile driver plans again beside it.
	SupportBytes int64 `pass:"support-bytes" help:"The busiest tile's code and exchange tables, as a failed placement measured them, to plan beside (0: the target's support reserve and the planner's estimate of the tables)" default:"0" min:"0"`
	// SpreadStartTiles starts each plan of fewer tiles than the chip where
	// the plans before it hold the fewest bytes (its start_tile), instead
	// of at tile 0, where every small plan's weights and exchange tables
	// otherwise land. The compile driver turns it on when a program does
	// not fit as planned from tile 0, so that programs that fit keep their
	// plans.
	SpreadStartTiles bool `pass:"spread-start-tiles" help:"Start plans of fewer tiles than the chip where earlier plans hold the fewest bytes, instead of at tile 0"`

	NumPlanned    passes.Statistic `statistic:"num-planned" help:"Number of matmuls planned"`
	NumCandidates passes.Statistic `statistic:"num-candidates" help:"Number of candidate plans costed"`
	NumRejected   passes.Statistic `statistic:"num-rejected" help:"Number of finalists the verifier rejected"`
	NumHome       passes.Statistic `statistic:"num-home" help:"Number of weights stored in their home layout"`
	NumStreamed   passes.Statistic `statistic:"num-streamed" help:"Number of weights kept in streaming memory"`
	NumSearched   passes.Statistic `statistic:"num-searched" help:"Number of plan searches run"`
	NumRecalled   passes.Statistic `statistic:"num-recalled" help:"Number of plan searches answered by an identical earlier one (the same matmul in another layer, or in another planning)"`
}

// WeightPlacement is plan-gemms' weights option.
type WeightPlacement int

const (
	WeightsAuto WeightPlacement = iota
	WeightsResident
	WeightsHome
	WeightsStreamed
)

var weightPlacementNames = []string{WeightsAuto: "auto", WeightsResident: "resident", WeightsHome: "home", WeightsStreamed: "streamed"}

func (w *WeightPlacement) String() string { return weightPlacementNames[*w] }

func (w *WeightPlacement) Set(s string) error {
	if i := slices.Index(weightPlacementNames, s); i >= 0 {
		*w = WeightPlacement(i)
		return nil
	}
	return fmt.Errorf("Cannot find option named '%s'!", s)
}

func (*WeightPlacement) Choices() []passes.Choice {
	return []passes.Choice{
		{Value: "auto", Help: "Resident when the function's matmuls can be planned so; else the largest home, size by size, until they can; else the fewest streamed, largest first."},
		{Value: "resident", Help: "In the reading plan's layout for the whole program (no exchange)."},
		{Value: "home", Help: "Stored once in the default layout, exchanged into the plan's layout before each use."},
		{Value: "streamed", Help: "In the chip's streaming memory, loaded into the plan's layout before each use."},
	}
}

func (*PlanGemms) Name() string { return "plan-gemms" }
func (*PlanGemms) Summary() string {
	return "Choose a GEMM plan (#tiled.gemm_plan) for every tensor matmul on the module's target"
}
func (*PlanGemms) Anchor() string       { return ir.ModuleOpName }
func (*PlanGemms) Requires() []*ir.Fact { return []*ir.Fact{irtarget.Named} }
func (*PlanGemms) Provides() []*ir.Fact { return []*ir.Fact{tiled.GemmsPlanned} }

func (p *PlanGemms) Run(module *ir.Operation, pc *passes.PassContext) error {
	tg, err := irtarget.Of(module, pc.Env())
	if err != nil {
		return err
	}
	pinned, err := p.parseConstraints(module)
	if err != nil {
		return err
	}
	index := 0 // source_operation numbering, module-wide
	ctx := pc.Context()
	// One memo for every planning below: the attempts with more weights
	// home ask again, of the matmuls whose weights did not move, what the
	// first asked.
	memo := plan.NewMemo()
	for _, fn := range functions(module) {
		if err := checkStreamed(fn); err != nil {
			return err
		}
		switch p.Weights {
		case WeightsHome:
			makeWeightsHome(ctx, fn, 0)
		case WeightsStreamed:
			makeWeightsStreamed(ctx, fn, 0)
		}
		// Later attempts, with weights home, start from the same
		// constraints and numbering.
		startIndex, startPinned := index, maps.Clone(pinned)
		prog, ops, err := gemmProgram(fn, pinned, &index, tg)
		if err != nil {
			return err
		}
		if len(ops) == 0 {
			continue
		}
		opts := plan.Options{Finalists: p.Finalists, Logger: pc.Logger(), Memo: memo, SupportBytes: p.SupportBytes}
		choices, err := plan.PlanProgram(prog, tg, opts)
		if err != nil && p.Weights == WeightsAuto {
			// The largest weights first: they free the most memory per
			// exchange they add. All weights of one size go home together,
			// so a stack of layers takes as many plannings as it has
			// weight sizes, not weights.
			for _, size := range residentWeightSizes(fn) {
				n := makeWeightsHome(ctx, fn, size)
				name, _ := ir.SymbolName(fn)
				pc.Logger().Info("plan-gemms: resident weights do not fit; planning with the largest home", "function", name,
					"weights", n, "elements_each_at_least", size, "reason", err.Error())
				index, pinned = startIndex, maps.Clone(startPinned)
				if prog, ops, err = gemmProgram(fn, pinned, &index, tg); err != nil {
					return err
				}
				if choices, err = plan.PlanProgram(prog, tg, opts); err == nil {
					break
				}
			}
			// Homes are weights held once on the chip; when even those do
			// not fit, the fewest weights go to streaming memory, largest
			// first, each loaded just before its reader: the costliest
			// placement (Target.StreamingCycles, some 700 times slower than
			// the exchange), so the last one tried. Streaming more frees
			// more memory, so the fewest are found by bisection.
			// replan plans the function again as its weights are now
			// placed, from the same constraints and numbering; err (and
			// prog, ops, choices) are the planning's, the error returned
			// one that stops the pass.
			replan := func() error {
				index, pinned = startIndex, maps.Clone(startPinned)
				var perr error
				if prog, ops, perr = gemmProgram(fn, pinned, &index, tg); perr != nil {
					return perr
				}
				choices, err = plan.PlanProgram(prog, tg, opts)
				return nil
			}
			if cands := streamOrder(fn); err != nil && len(cands) > 0 {
				planWith := func(k int) error {
					for i, g := range cands {
						for _, v := range g {
							if i < k {
								setStreamed(ctx, fn, v)
							} else {
								ir.SetArgumentAttr(ctx, fn, v.Index(), v.OwnerBlock().NumArguments(), tiled.StreamedAttr, nil)
								setHomeAttr(ctx, fn, v, ctx.Unit())
							}
						}
					}
					return replan()
				}
				if perr := planWith(len(cands)); perr != nil {
					return perr
				}
				if err == nil {
					// The homes alone failed; all streamed plan.
					plans := func(k int) (bool, error) { perr := planWith(k); return err == nil, perr }
					k, perr := leastThat(1, len(cands), plans)
					if perr != nil {
						return perr
					}
					name, _ := ir.SymbolName(fn)
					pc.Logger().Info("plan-gemms: home weights do not fit; streaming the fewest, largest first", "function", name,
						"streamed", k, "of", len(cands))
					// What streaming freed may hold some of the homes
					// resident again (no exchange before each use): the
					// most of them, in program order, by bisection.
					homes := entryValues(fn, func(v *ir.Value) bool { return isHome(v) && v.DefiningOp() == nil && readAsWeights(v) })
					keepResident := func(k int) error {
						for i, v := range homes {
							if i < k {
								setHomeAttr(ctx, fn, v, nil)
							} else {
								setHomeAttr(ctx, fn, v, ctx.Unit())
							}
						}
						return replan()
					}
					// The fewest left home, from all (which plans) down.
					if _, perr := leastThat(0, len(homes), func(j int) (bool, error) {
						perr := keepResident(len(homes) - j)
						return err == nil, perr
					}); perr != nil {
						return perr
					}
					if err != nil {
						return planError(err, prog, ops)
					}
				}
			}
		}
		if err != nil {
			return planError(err, prog, ops)
		}
		// When weights go home, memory is short: the parameters that are
		// read only through broadcasts (biases, normalization scales) go
		// home too, so that each layer's copies live only around their use
		// instead of from the start of the program.
		if len(entryValues(fn, isHome)) > 0 {
			for _, v := range broadcastParameters(fn) {
				setHomeAttr(ctx, fn, v, ctx.Unit())
			}
		}
		// Homes stored the way their first reader's plan cuts them, then
		// planned again, so that the estimates price the exchange from
		// where the weights are. Should that planning fail, the first
		// plans stand with default homes (spread as homeLayouts does, now
		// with the parameters among them, so their estimates price the
		// weights' exchanges from nearby tiles).
		if before := alignHomes(ctx, fn, ops, choices, tg); before != nil {
			endIndex, endPinned := index, pinned
			index, pinned = startIndex, maps.Clone(startPinned)
			prog2, ops2, err := gemmProgram(fn, pinned, &index, tg)
			if err != nil {
				return err
			}
			if choices2, err := plan.PlanProgram(prog2, tg, opts); err == nil {
				prog, ops, choices = prog2, ops2, choices2
			} else {
				before()
				index, pinned = endIndex, endPinned
				pc.Logger().Info("plan-gemms: homes cut as their plans read them do not plan; keeping the default homes", "reason", err.Error())
			}
		}
		if p.SpreadStartTiles {
			spreadPlans(prog, choices, tg)
		}
		p.NumHome.Add(uint64(len(entryValues(fn, isHome))))
		p.NumStreamed.Add(uint64(len(entryValues(fn, tiled.IsStreamedArgument))))
		for i, c := range choices {
			ops[i].SetAttr(ctx, tiled.PlanAnnotation, tiled.NewGemmPlanAttr(ctx, c.Plan))
			ops[i].SetAttr(ctx, tiled.EstimateAnnotation, tiled.NewEstimateAttr(ctx, c.Estimate))
			if p.RecordFinalists {
				var plans []ir.Attribute
				for _, f := range c.Finalists {
					plans = append(plans, tiled.NewGemmPlanAttr(ctx, f))
				}
				ops[i].SetAttr(ctx, tiled.FinalistsAnnotation, ctx.Array(plans...))
			}
			p.NumPlanned.Inc()
			p.NumCandidates.Add(uint64(c.Candidates))
			p.NumRejected.Add(uint64(c.Rejected))
		}
	}
	hits, runs := memo.Stats()
	p.NumRecalled.Add(uint64(hits))
	p.NumSearched.Add(uint64(runs))
	if len(pinned) > 0 {
		first := -1
		for n := range pinned {
			if first < 0 || n < first {
				first = n
			}
		}
		return module.EmitError("plan-gemms: constraint for source_operation %d, but the module has %d matmuls", first, index)
	}
	return nil
}

// residentWeights are fn's arguments read only as matmul weights and such
// constants that are not splats (an ONNX model's initializers), not home.
func residentWeights(fn *ir.Operation) []*ir.Value {
	return entryValues(fn, func(v *ir.Value) bool {
		def := v.DefiningOp()
		if def == nil {
			return isResident(v) && !pinnedResident(v)
		}
		if !def.Is(tensor.ConstantOp) || !isResident(v) || !readAsWeights(v) {
			return false
		}
		d, ok := def.Attr("value").(*ir.DenseElementsAttr)
		return !ok || !d.Splat
	})
}

// leastThat returns the least k from lo to hi for which ok holds, given that
// ok holds at hi and, once it holds, at every larger k (bisection), having
// called ok last with it. It asks ok of hi first, and of lo only when
// nothing below hi holds.
func leastThat(lo, hi int, ok func(k int) (bool, error)) (int, error) {
	below := lo - 1 // ok does not hold here (or it is below lo)
	for hi-below > 1 {
		mid := (below + hi) / 2
		yes, err := ok(mid)
		if err != nil {
			return 0, err
		}
		if yes {
			hi = mid
		} else {
			below = mid
		}
	}
	if _, err := ok(hi); err != nil {
		return 0, err
	}
	return hi, nil
}

// checkStreamed refuses a streamed argument (tiled.StreamedAttr) that
// cannot be: one read otherwise than directly as matmuls' right operand,
// or also marked home or resident.
func checkStreamed(fn *ir.Operation) error {
	for _, v := range entryValues(fn, tiled.IsStreamedArgument) {
		switch {
		case !streamable(v):
			return fn.EmitOpError("argument #%d is marked '%s', but only a weight read by matmuls as their right operand (directly or through the concat of a jointly planned matmul) can be streamed", v.Index(), tiled.StreamedAttr)
		case isHome(v) || pinnedResident(v):
			return fn.EmitOpError("argument #%d is marked '%s' and also '%s' or '%s': a weight has one place", v.Index(), tiled.StreamedAttr, tiled.HomeAttr, tiled.ResidentAttr)
		}
		for _, w := range weightGroup(v) {
			if !isStreamed(w) {
				return fn.EmitOpError("argument #%d is marked '%s', but argument #%d, concatenated with it for one matmul, is not: the parts of a jointly planned matmul's weight are streamed together", v.Index(), tiled.StreamedAttr, w.Index())
			}
		}
	}
	return nil
}

// streamableWeights are fn's arguments that may be streamed (streamable)
// and are not yet, nor pinned to tile memory.
func streamableWeights(fn *ir.Operation) []*ir.Value {
	return entryValues(fn, func(v *ir.Value) bool { return streamable(v) && !isStreamed(v) && !pinnedResident(v) })
}

// streamOrder is fn's streamable weights, in groups streamed together
// (weightGroup), in the order automatic placement streams them: largest
// first, and among equals the one read last first. A weight on the chip
// holds its memory from the program's start to its reader, so streaming a
// late layer's frees memory for every layer before it, and an early
// layer's hardly any.
func streamOrder(fn *ir.Operation) [][]*ir.Value {
	firstRead := map[*ir.Value]int{}
	for i, op := range fn.Region(0).Front().Ops() {
		for _, v := range op.Operands() {
			if _, seen := firstRead[v]; !seen {
				firstRead[v] = i
			}
		}
	}
	var groups [][]*ir.Value
	grouped := map[*ir.Value]bool{}
	for _, v := range streamableWeights(fn) {
		if grouped[v] {
			continue
		}
		g := weightGroup(v)
		ok := true
		for _, w := range g {
			grouped[w] = true
			ok = ok && streamable(w) && !isStreamed(w) && !pinnedResident(w)
		}
		if ok {
			groups = append(groups, g)
		}
	}
	size := func(g []*ir.Value) (n int64) {
		for _, v := range g {
			n += elements(v)
		}
		return n
	}
	slices.SortStableFunc(groups, func(a, b []*ir.Value) int {
		return cmp.Or(cmp.Compare(size(b), size(a)), cmp.Compare(firstRead[b[0]], firstRead[a[0]]))
	})
	return groups
}

// makeWeightsStreamed marks fn's streamable weights of at least
// minElements elements streamed; it returns how many.
func makeWeightsStreamed(ctx *ir.Context, fn *ir.Operation, minElements int64) int {
	n := 0
	for _, g := range streamOrder(fn) {
		for _, v := range g {
			if elements(v) >= minElements {
				setStreamed(ctx, fn, v)
				n++
			}
		}
	}
	return n
}

// broadcastParameters are fn's arguments and non-splat constants, not
// home, that are read only as the input of broadcasts (a bias, a layer
// norm's scale after tiled-prepare).
func broadcastParameters(fn *ir.Operation) []*ir.Value {
	return entryValues(fn, func(v *ir.Value) bool {
		if def := v.DefiningOp(); def != nil {
			d, ok := def.Attr("value").(*ir.DenseElementsAttr)
			if !def.Is(tensor.ConstantOp) || !ok || d.Splat {
				return false
			}
		}
		if isHome(v) || !v.HasUses() {
			return false
		}
		only := true
		v.Uses(func(u *ir.OpOperand) { only = only && u.Owner().Is(tensor.BroadcastOp) && u.Index() == 0 })
		return only
	})
}

func elements(v *ir.Value) int64 {
	if rt, ok := v.Type().(*ir.RankedTensorType); ok {
		return ir.NumElements(rt.Dims)
	}
	return 0
}

// residentWeightSizes are the element counts of fn's resident weights,
// each once, largest first.
func residentWeightSizes(fn *ir.Operation) []int64 {
	var sizes []int64
	for _, v := range residentWeights(fn) {
		sizes = append(sizes, elements(v))
	}
	slices.Sort(sizes)
	slices.Reverse(sizes)
	return slices.Compact(sizes)
}

// makeWeightsHome marks fn's resident weights of at least minElements
// elements with tiled.HomeAttr; it returns how many.
func makeWeightsHome(ctx *ir.Context, fn *ir.Operation, minElements int64) int {
	n := 0
	for _, v := range residentWeights(fn) {
		if elements(v) < minElements {
			continue
		}
		setHomeAttr(ctx, fn, v, ctx.Unit())
		n++
	}
	return n
}

// alignHomes gives every home weight of fn an explicit layout
// (tiled.home = #tiled.layout<...>): for one its first planned reader
// takes as its right operand (directly, or as a part of a concat planned
// jointly), the layout that stores the plan's layout of it once
// (layout.StoredOnce), or, read by a temporal plan, the blocks of its
// steps' layouts (layout.StepHome); for the others the default. Each starts where the
// previous home ended, as homeLayouts spreads them. It returns a function
// that restores the attributes as they were, or nil when fn has no home
// or every home already has a layout.
func alignHomes(ctx *ir.Context, fn *ir.Operation, ops []*ir.Operation, choices []plan.Choice, tg *target.Target) func() {
	homes := entryValues(fn, isHome)
	if len(homes) == 0 || !slices.ContainsFunc(homes, func(v *ir.Value) bool { _, ok := homeAttr(v).(*tiled.LayoutAttr); return !ok }) {
		return nil
	}
	standard, err := tg.Class(target.Standard)
	if err != nil {
		return nil
	}
	cut := map[*ir.Value]layout.Layout{}
	for i, op := range ops {
		w, rhs := op.Operand(1), &choices[i].Layouts.RHS
		if step := choices[i].Layouts.Step; step != nil {
			// A temporal plan reads its weight a step at a time, where it
			// is stored: in the blocks each step's shards are.
			if _, done := cut[w]; !done && isHome(w) {
				if h, ok := layout.StepHome(&step.RHS, step.RHSShape, w.Type().(*ir.RankedTensorType).Dims, int64(tg.Tiles), standard.Name); ok {
					cut[w] = h
				}
			}
			continue
		}
		shape := w.Type().(*ir.RankedTensorType).Dims
		parts := []*ir.Value{w}
		ranges := [][2]int64{{0, shape[len(shape)-1]}}
		if cuts := concatCuts(w); cuts != nil {
			parts = w.DefiningOp().Operands()
			ranges = ranges[:0]
			lo := int64(0)
			for _, hi := range append(cuts, shape[len(shape)-1]) {
				ranges = append(ranges, [2]int64{lo, hi})
				lo = hi
			}
		}
		for j, part := range parts {
			if _, done := cut[part]; done || !isHome(part) {
				continue
			}
			l := *rhs
			if len(parts) > 1 {
				var ok bool
				if l, ok = layout.SliceLayout(rhs, shape, len(shape)-1, ranges[j][0], ranges[j][1]); !ok {
					continue
				}
			}
			rt := part.Type().(*ir.RankedTensorType)
			et, err := tiled.ElemTypeOf(rt)
			if err != nil {
				continue
			}
			if h, ok := layout.StoredOnce(&l, rt.Dims, int64(et.Bytes()), int64(tg.Tiles), standard.Name); ok {
				cut[part] = h
			}
		}
	}
	old := make([]ir.Attribute, len(homes))
	placer := newTilePlacer(int64(tg.Tiles))
	for i, v := range homes {
		old[i] = homeAttr(v)
		l, ok := cut[v]
		if !ok {
			if l, err = defaultHome(v, tg); err != nil {
				continue
			}
		}
		placer.placeHome(&l, v.Type().(*ir.RankedTensorType))
		setHomeAttr(ctx, fn, v, tiled.NewLayoutAttr(ctx, l))
	}
	return func() {
		for i, v := range homes {
			setHomeAttr(ctx, fn, v, old[i])
		}
	}
}

// parseConstraints reads the constraints option into pinned constraints by
// source operation.
func (p *PlanGemms) parseConstraints(module *ir.Operation) (map[int]*layout.GemmConstraint, error) {
	out := map[int]*layout.GemmConstraint{}
	for _, text := range strings.Split(p.Constraints, ";") {
		if strings.TrimSpace(text) == "" {
			continue
		}
		c, err := tiled.ParseGemmConstraint(text)
		if err != nil {
			return nil, module.EmitError("plan-gemms: %v", err)
		}
		if c.SourceOperation < 0 {
			return nil, module.EmitError("plan-gemms: constraint %q does not say which matmul it is for (source_operation = N)", strings.TrimSpace(text))
		}
		n := int(c.SourceOperation)
		if _, dup := out[n]; dup {
			return nil, module.EmitError("plan-gemms: two constraints for source_operation %d", n)
		}
		c.SourceOperation = -1
		out[n] = &c
	}
	return out, nil
}

// gemmProgram describes fn's matmuls for the planner: each operand's
// derivation root (derivationRoot: the value it derives from through
// movements) is its Value, roots that are resident (isResident) are marked
// so, and constraints come from the option (by module-wide index,
// consuming them) or the op's tiled.constraint attribute.
func gemmProgram(fn *ir.Operation, pinned map[int]*layout.GemmConstraint, index *int, tg *target.Target) (plan.Program, []*ir.Operation, error) {
	var prog plan.Program
	var ops []*ir.Operation
	ids := map[*ir.Value]int{}
	id := func(v *ir.Value) int {
		if n, ok := ids[v]; ok {
			return n
		}
		ids[v] = len(ids)
		return ids[v]
	}
	homes, _, err := homeLayouts(fn, tg)
	if err != nil {
		return plan.Program{}, nil, fn.EmitOpError("%v", err)
	}
	operand := func(v *ir.Value) plan.Operand {
		root, chain := derivationRoot(v)
		o := plan.Operand{Resident: isResident(root), Home: isHome(root), Streamed: isStreamed(root), Value: id(root), Derive: deriveThrough(chain, tg)}
		if l, ok := homes[root]; ok {
			o.Source = &l // where tiled-assign-layouts stores it
			return o
		}
		if root.DefiningOp() == nil && !o.Resident && !o.Streamed {
			if rt, ok := root.Type().(*ir.RankedTensorType); ok {
				if l, err := layout.DefaultLayout(rt.Dims, tg); err == nil {
					o.Source = &l // where tiled-assign-layouts puts an argument
				}
			}
		}
		return o
	}
	var fail error
	fn.Walk(func(op *ir.Operation) ir.WalkResult {
		if !isMatmul(op) {
			return ir.WalkAdvance
		}
		shape, err := tiled.MatmulShapeOf(op.Operand(0).Type(), op.Operand(1).Type(), op.Result(0).Type())
		if err != nil {
			fail = op.EmitOpError("cannot be planned: %v", err)
			return ir.WalkInterrupt
		}
		shape.Partials = tiled.PartialsOf(op)
		m := plan.Matmul{Name: ir.DescribeOp(op), Shape: shape, LHS: operand(op.Operand(0)), RHS: operand(op.Operand(1)),
			Result: id(op.Result(0)), NCuts: concatCuts(op.Operand(1))}
		if c, ok := pinned[*index]; ok {
			m.Constraint = c
			delete(pinned, *index)
		} else if a := op.Attr(tiled.ConstraintAnnotation); a != nil {
			ca, ok := a.(*tiled.GemmConstraintAttr)
			if !ok {
				fail = op.EmitOpError("attribute '%s' must be a #tiled.gemm_constraint, got %s", tiled.ConstraintAnnotation, ir.AttrString(a))
				return ir.WalkInterrupt
			}
			c := ca.Constraint
			m.Constraint = &c
		}
		*index++
		prog.Matmuls = append(prog.Matmuls, m)
		ops = append(ops, op)
		return ir.WalkAdvance
	})
	return prog, ops, fail
}

// planError locates a planner error at the matmul it names.
func planError(err error, prog plan.Program, ops []*ir.Operation) error {
	for i, m := range prog.Matmuls {
		if prefix := m.Name + ": "; strings.HasPrefix(err.Error(), prefix) {
			return ops[i].EmitOpError("cannot be planned: %s", strings.TrimPrefix(err.Error(), prefix)).WithCause(err)
		}
	}
	return err
}

// derivationRoot walks back from v through the ops that keep data on its
// tiles (layout-preserving elementwise ops, transposes, reshapes) to the
// value whose layout determines v's, and returns it with the transposes
// and reshapes on the way, last first.
func derivationRoot(v *ir.Value) (*ir.Value, []*ir.Operation) {
	var chain []*ir.Operation
	for {
		def := v.DefiningOp()
		switch {
		case def == nil:
			return v, chain
		case preservesLayout(def):
		case def.Is(tensor.TransposeOp, tensor.ReshapeOp):
			chain = append(chain, def)
		default:
			return v, chain
		}
		v = def.Operand(0)
	}
}

// deriveThrough maps a layout of a chain's root to the layout its last
// op leaves (as tiled-assign-layouts derives them); nil for no chain.
func deriveThrough(chain []*ir.Operation, tg *target.Target) func(*layout.Layout) (layout.Layout, bool) {
	if len(chain) == 0 {
		return nil
	}
	return func(l *layout.Layout) (layout.Layout, bool) {
		cur := *l
		for _, op := range slices.Backward(chain) {
			if op.Is(tensor.TransposeOp) {
				cur = layout.PermuteLayout(&cur, op.Attr(tensor.PermutationAttr).(*ir.DenseArrayAttr).Ints)
				continue
			}
			_, out, err := tiled.ReshapeLayouts(&cur, op.Operand(0).Type().(*ir.RankedTensorType), op.Result(0).Type().(*ir.RankedTensorType), tg)
			if err != nil {
				return layout.Layout{}, false
			}
			cur = out
		}
		return cur, true
	}
}

// concatCuts returns, for weights that are a concat along their last axis
// (a jointly planned matmul's, from tiled-prepare), where each part ends
// but the last.
func concatCuts(w *ir.Value) []int64 {
	def := w.DefiningOp()
	if def == nil || !def.Is(tensor.ConcatOp) {
		return nil
	}
	rank := len(w.Type().(*ir.RankedTensorType).Dims)
	if a, ok := def.Attr(tensor.AxisAttr).(*ir.IntegerAttr); !ok || a.Int != int64(rank-1) {
		return nil
	}
	var cuts []int64
	var at int64
	for _, in := range def.Operands()[:def.NumOperands()-1] {
		at += in.Type().(*ir.RankedTensorType).Dims[rank-1]
		cuts = append(cuts, at)
	}
	return cuts
}

// spreadPlans gives each spatial plan of fewer tiles than the chip, in
// program order, the start tile where the plans before it hold the fewest
// bytes (tilePlacer): its resident operands' shards, and for every plan a
// kibibyte a tile standing for its exchange tables and operands. Plans
// that span the chip, temporal plans and pinned start tiles stay.
func spreadPlans(prog plan.Program, choices []plan.Choice, tg *target.Target) {
	const nominal = 1024
	placer := newTilePlacer(int64(tg.Tiles))
	for i := range choices {
		c, m := &choices[i], &prog.Matmuls[i]
		tiles := c.Plan.Tiles()
		if tiles >= int64(tg.Tiles) || c.Plan.Steps() > 1 || c.Plan.StartTile != 0 {
			continue
		}
		planned := c.Plan
		c.Plan.StartTile = placer.window(tiles)
		ls, err := layout.LayoutsForPlan(&c.Plan, m.Shape, tg)
		if err != nil {
			c.Plan = planned
			continue
		}
		bytes := int64(nominal)
		for k, o := range []plan.Operand{m.LHS, m.RHS} {
			if !o.Resident {
				continue
			}
			l, shape := []*layout.Layout{&ls.LHS, &ls.RHS}[k], [][]int64{ls.LHSShape, ls.RHSShape}[k]
			if sm, err := layout.NewShardMap(l, shape, int64(tg.Tiles)); err == nil {
				bytes += sm.MaxShardElements() * int64(m.Shape.Elem.Bytes())
			}
		}
		span := make([]int64, tiles)
		for t := range span {
			span[t] = c.Plan.StartTile + int64(t)
		}
		placer.claim(span, bytes, c.Plan.StartTile+tiles)
	}
}
