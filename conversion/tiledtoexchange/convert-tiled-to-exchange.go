// Package tiledtoexchange lowers the tiled program to BSP supersteps: every
// movement of data between tiles becomes an exchange.sync and an
// exchange.phase with its transfers and schedule; compute stays in the
// tiled dialect's local ops. Its one pass, convert-tiled-to-exchange,
// follows the tiled lowering in the pipeline lower-to-exchange (package
// registry composes the pipelines).
package tiledtoexchange

import (
	"slices"

	"github.com/ipuir/ipuir/dialects/exchange"
	"github.com/ipuir/ipuir/dialects/tiled"
	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/layout"
	"github.com/ipuir/ipuir/numeric"
	"github.com/ipuir/ipuir/passes"
	"github.com/ipuir/ipuir/schedule"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/target/irtarget"
)

// ConvertTiledToExchange turns each tiled op that moves data between tiles
// into a superstep boundary and a scheduled phase:
//
//   - tiled.relayout between layouts that distribute differently: one
//     phase (between layouts that distribute alike it is a local copy and
//     stays);
//   - tiled.stream_in: a sync, then the load from the chip's streaming
//     memory in the place of the superstep's exchange;
//   - tiled.slice and tiled.concat that do not take whole shards: one
//     phase, reading each source through its offset and stride;
//   - tiled.combine: a phase gathering every partial a result tile needs,
//     then tiled.reduce of the gathered partials on each tile and a
//     tiled.reshape dropping the combined axes;
//   - tiled.matmul whose plan cuts the inner axis: a partial matmul (each
//     inner tile's f32 partial sums), a combine summing them into the
//     plan's result layout (lowered as above), and a convert; a temporal
//     plan's steps: slices of both operands into each step's layouts, the
//     step's matmul, an f32 accumulation (lowerSteps).
//
// Transfers come from layout.VisitPieces (the pieces the estimate priced);
// each phase is scheduled by package schedule and logged with its bound
// and horizon.
type ConvertTiledToExchange struct {
	NumPhases    passes.Statistic `statistic:"num-phases" help:"Number of exchange phases"`
	NumTransfers passes.Statistic `statistic:"num-transfers" help:"Number of transfers over all phases"`
	NumAtBound   passes.Statistic `statistic:"num-at-bound" help:"Number of phases whose horizon is their lower bound"`
}

func (*ConvertTiledToExchange) Name() string { return "convert-tiled-to-exchange" }
func (*ConvertTiledToExchange) Summary() string {
	return "Lower data movement between tiles to scheduled exchange phases after syncs"
}
func (*ConvertTiledToExchange) Anchor() string       { return ir.ModuleOpName }
func (*ConvertTiledToExchange) Requires() []*ir.Fact { return []*ir.Fact{irtarget.Named, tiled.Level} }
func (*ConvertTiledToExchange) Provides() []*ir.Fact { return []*ir.Fact{exchange.InSupersteps} }

func (p *ConvertTiledToExchange) Run(module *ir.Operation, pc *passes.PassContext) error {
	tg, err := irtarget.Of(module, pc.Env())
	if err != nil {
		return err
	}
	l := &lowering{ctx: pc.Context(), tg: tg, pass: p, log: pc.Logger()}
	type job struct {
		op    *ir.Operation
		lower func(*lowering, *ir.Operation) error
	}
	var todo []job
	module.Walk(func(op *ir.Operation) ir.WalkResult {
		for _, r := range lowerings {
			if op.Is(r.def) {
				todo = append(todo, job{op, r.lower})
			}
		}
		return ir.WalkAdvance
	})
	for _, j := range todo {
		if err := j.lower(l, j.op); err != nil {
			return err
		}
	}
	numberSupersteps(module, l.ctx)
	return nil
}

// numberSupersteps sets SuperstepAttr on the compute ops and phases of
// every function, and the count on the function.
func numberSupersteps(module *ir.Operation, ctx *ir.Context) {
	module.Walk(func(fn *ir.Operation) ir.WalkResult {
		if !ir.Implements[ir.FunctionLike](fn) || fn.NumRegions() == 0 || fn.Region(0).Empty() {
			return ir.WalkAdvance
		}
		step := int64(0)
		for _, op := range fn.Region(0).Front().Ops() {
			switch {
			case op.Is(exchange.SyncOp):
				step++
			case op.Is(exchange.PhaseOp, tiled.StreamInOp):
				op.SetAttr(ctx, exchange.SuperstepAttr, ctx.IntegerAttr(ctx.I(64), step-1))
			case op.Def() != nil && op.Def().Dialect() == tiled.Dialect:
				op.SetAttr(ctx, exchange.SuperstepAttr, ctx.IntegerAttr(ctx.I(64), step))
			}
		}
		fn.SetAttr(ctx, exchange.SuperstepsAttr, ctx.IntegerAttr(ctx.I(64), step+1))
		return ir.WalkSkip
	})
}

type lowering struct {
	ctx   *ir.Context
	tg    *target.Target
	pass  *ConvertTiledToExchange
	log   interface{ Info(string, ...any) }
	phase int64
}

// lowerings are the tiled ops that can move data between tiles, each with
// how it becomes exchange phases (when it does: a relayout that keeps its
// shards on their tiles, or a matmul whose plan reduces on each tile,
// stays as it is). Every other tiled op computes where its shards lie.
var lowerings = []struct {
	def   *ir.OpDef
	lower func(*lowering, *ir.Operation) error
}{
	{tiled.RelayoutOp, (*lowering).lowerRelayout},
	{tiled.StreamInOp, (*lowering).lowerStreamIn},
	{tiled.SliceOp, (*lowering).lowerSliceOrConcat},
	{tiled.ConcatOp, (*lowering).lowerSliceOrConcat},
	{tiled.CombineOp, func(l *lowering, op *ir.Operation) error { _, err := l.lowerCombine(op, nil); return err }},
	{tiled.MatmulOp, (*lowering).lowerMatmul},
}

// lowerRelayout: a phase, unless the shards stay on their tiles (a local
// copy) or the value enters from the host without a layout.
func (l *lowering) lowerRelayout(op *ir.Operation) error {
	in, hasLayout := tiled.LayoutOf(op.Operand(0).Type())
	out, _ := tiled.LayoutOf(op.Result(0).Type())
	if !hasLayout || in.SameDistribution(out) {
		return nil
	}
	_, err := l.replaceByPhase(op, op.Operands(), nil)
	return err
}

// lowerStreamIn: an exchange of its own after a sync, with the chip's
// streaming memory rather than between tiles, in which no tile computes
// (the target's default: streaming and compute take turns); what it loads
// is there for the next superstep's readers.
func (l *lowering) lowerStreamIn(op *ir.Operation) error {
	b := ir.NewBuilder(l.ctx)
	b.SetInsertionPoint(op)
	b.Create(&ir.OperationState{Name: exchange.SyncOpName, Loc: op.Loc()})
	return nil
}

// lowerSliceOrConcat: a phase, unless each result shard is a whole shard
// of an operand on its tile.
func (l *lowering) lowerSliceOrConcat(op *ir.Operation) error {
	if tiled.ReinterpretsSlices(op) {
		return nil
	}
	_, err := l.replaceByPhase(op, op.Operands(), sourceMaps(op))
	return err
}

// reducesAcrossTiles reports whether op is a matmul whose plan adds
// partial sums across inner tiles (a spatial plan with inner partitions).
func reducesAcrossTiles(op *ir.Operation) bool {
	if !op.Is(tiled.MatmulOp) || op.Attr(tiled.PartialAttrName) != nil {
		return false
	}
	pa, ok := op.Attr(tiled.PlanAttrName).(*tiled.GemmPlanAttr)
	return ok && (pa.Plan.InnerPartitions > 1 || pa.Plan.Steps() > 1)
}

// lowerMatmul makes a matmul's reduction explicit: the matmul leaves each
// inner tile's partial sums (f32, tiled.PartialsLayout), a tiled.combine
// sums them into the plan's result layout, lowered to a phase like any
// combine, and a convert rounds them to the result's type. The reduction
// is one phase whatever the plan's staging (the planner prices a pairwise
// plan's halvings; they are not lowered separately yet).
func (l *lowering) lowerMatmul(op *ir.Operation) error {
	if !reducesAcrossTiles(op) {
		return nil
	}
	plan := &op.Attr(tiled.PlanAttrName).(*tiled.GemmPlanAttr).Plan
	s, err := tiled.MatmulShapeOf(op.Operand(0).Type(), op.Operand(1).Type(), op.Result(0).Type())
	if err != nil {
		return op.EmitOpError("%v", err)
	}
	if plan.Steps() > 1 {
		return l.lowerSteps(op, plan, s)
	}
	pl, err := layout.PartialsLayout(plan, s, l.tg)
	if err != nil {
		return op.EmitOpError("%v", err)
	}
	out := op.Result(0).Type().(*ir.RankedTensorType)
	resLayout, _ := tiled.LayoutOf(out)
	f32 := l.ctx.F32()
	b := ir.NewBuilder(l.ctx)
	b.SetInsertionPoint(op)
	attrs := append([]ir.NamedAttr{{Name: tiled.PlanAttrName, Value: op.Attr(tiled.PlanAttrName)}, {Name: tiled.PartialAttrName, Value: l.ctx.Unit()}},
		partialsTypeOf(op)...)
	partials := b.Create(&ir.OperationState{Name: tiled.MatmulOpName, Loc: op.Loc(), Operands: op.Operands(),
		ResultTypes: []ir.Type{tiled.WithLayout(l.ctx, &ir.RankedTensorType{Dims: layout.PartialsShape(plan, s), Elem: f32}, pl)},
		Attrs:       attrs})
	sumType := tiled.WithLayout(l.ctx, &ir.RankedTensorType{Dims: out.Dims, Elem: f32}, *resLayout)
	combine := b.Create(&ir.OperationState{Name: tiled.CombineOpName, Loc: op.Loc(), Operands: partials.Results(),
		ResultTypes: []ir.Type{sumType},
		Attrs:       []ir.NamedAttr{{Name: tiled.FnAttrName, Value: l.ctx.String("sum")}, {Name: tiled.AxesAttrName, Value: l.ctx.DenseI64Array(0)}}})
	result, err := l.lowerCombine(combine, out)
	if err != nil {
		return err
	}
	op.Result(0).ReplaceAllUsesWith(result)
	op.Erase()
	return nil
}

// sourceMaps returns per source the offsets and strides from result
// indices to its indices.
func sourceMaps(op *ir.Operation) [][2][]int64 {
	rank := len(op.Result(0).Type().(*ir.RankedTensorType).Dims)
	var maps [][2][]int64
	if op.Is(tiled.SliceOp) {
		off := op.Attr(tiled.OffsetsAttrName).(*ir.DenseArrayAttr).Ints
		str := op.Attr(tiled.StridesAttrName).(*ir.DenseArrayAttr).Ints
		return [][2][]int64{{slices.Clone(off), slices.Clone(str)}}
	}
	axis := int(op.Attr(tiled.AxisAttrName).(*ir.IntegerAttr).Int)
	start := int64(0)
	for _, v := range op.Operands() {
		off, str := make([]int64, rank), make([]int64, rank)
		for i := range str {
			str[i] = 1
		}
		off[axis] = -start
		maps = append(maps, [2][]int64{off, str})
		start += v.Type().(*ir.RankedTensorType).Dims[axis]
	}
	return maps
}

// replaceByPhase replaces op (whose result is the phase's) by a sync and
// a phase moving sources into op's result type.
func (l *lowering) replaceByPhase(op *ir.Operation, sources []*ir.Value, maps [][2][]int64) (*ir.Value, error) {
	b := ir.NewBuilder(l.ctx)
	b.SetInsertionPoint(op)
	v, err := l.buildPhase(b, op, sources, maps, op.Result(0).Type().(*ir.RankedTensorType))
	if err != nil {
		return nil, err
	}
	if v == nil {
		return op.Result(0), nil // every element is where it is needed: a local copy
	}
	op.Result(0).ReplaceAllUsesWith(v)
	op.Erase()
	return v, nil
}

// buildPhase builds, at b, a sync and the phase that fills a value of type
// out from sources, and returns the phase's result; nil when nothing moves
// between tiles.
func (l *lowering) buildPhase(b *ir.Builder, at *ir.Operation, sources []*ir.Value, maps [][2][]int64, out *ir.RankedTensorType) (*ir.Value, error) {
	outLayout, _ := tiled.LayoutOf(out)
	resMap, err := tiled.CheckLayout(outLayout, out, l.tg)
	if err != nil {
		return nil, at.EmitOpError("cannot be lowered to an exchange: %v", err)
	}
	et, err := tiled.ElemTypeOf(out.Elem)
	if err != nil {
		return nil, at.EmitOpError("%v", err)
	}
	rank := len(out.Dims)
	needs := layout.ShardNeeds(resMap)
	var list []exchange.Transfer
	for k, src := range sources {
		st := src.Type().(*ir.RankedTensorType)
		sl, _ := tiled.LayoutOf(st)
		srcMap, err := tiled.CheckLayout(sl, st, l.tg)
		if err != nil {
			return nil, at.EmitOpError("cannot be lowered to an exchange: operand #%d: %v", k, err)
		}
		off, str := make([]int64, rank), make([]int64, rank)
		for i := range str {
			str[i] = 1
		}
		if maps != nil {
			off, str = maps[k][0], maps[k][1]
		}
		// Needs in the source's index space: the bounding box of what each
		// result shard reads there.
		mapped := make([]layout.Need, 0, len(needs))
		for _, n := range needs {
			box := make(layout.Box, rank)
			empty := false
			for a, s := range n.Box {
				lo, hi := off[a]+str[a]*s.Lo, off[a]+str[a]*(s.Hi-1)+1
				box[a] = layout.Span{Lo: max(lo, 0), Hi: min(hi, st.Dims[a])}
				empty = empty || box[a].Len() == 0
			}
			if !empty {
				mapped = append(mapped, layout.Need{Tile: n.Tile, Box: box})
			}
		}
		layout.VisitPieces(srcMap, mapped, func(pc layout.Piece) {
			if len(pc.Dst) == 0 {
				return
			}
			// Back to the result's index space: the indices j whose source
			// index off + str·j falls in the piece.
			box := make(layout.Box, rank)
			for a, s := range pc.Box {
				lo := numeric.CeilDiv(s.Lo-off[a], str[a])
				hi := numeric.FloorDiv(s.Hi-1-off[a], str[a]) + 1
				box[a] = layout.Span{Lo: max(lo, 0), Hi: min(hi, out.Dims[a])}
			}
			n := box.Elements()
			if n == 0 {
				return
			}
			words := (n*int64(et.Bytes()) + int64(l.tg.ExchangeWordBytes) - 1) / int64(l.tg.ExchangeWordBytes)
			dst := make([]int32, len(pc.Dst))
			for i, d := range pc.Dst {
				dst[i] = int32(d)
			}
			if !l.tg.ExchangeMulticast {
				for _, d := range dst {
					list = append(list, exchange.Transfer{Operand: int32(k), Src: int32(pc.Src), Dst: []int32{d}, Words: words, Box: box})
				}
				return
			}
			list = append(list, exchange.Transfer{Operand: int32(k), Src: int32(pc.Src), Dst: dst, Words: words, Box: box})
		})
	}
	if len(list) == 0 {
		return nil, nil
	}
	transfers := make([]schedule.Transfer, len(list))
	for i, t := range list {
		transfers[i] = schedule.Transfer{Src: t.Src, Dst: t.Dst, Words: t.Words}
	}
	res, err := schedule.Schedule(transfers, exchange.FabricOf(l.tg))
	if err != nil {
		return nil, at.EmitOpError("BUG: the exchange's transfers do not schedule: %v", err)
	}
	if res.Kind == schedule.ExpandedMatching {
		// The schedule sends a unicast copy per receiver.
		var copies []exchange.Transfer
		for _, t := range list {
			for _, d := range t.Dst {
				c := t
				c.Dst = []int32{d}
				copies = append(copies, c)
			}
		}
		list = copies
	}
	phase := l.phase
	l.phase++
	words := int64(0)
	for _, t := range list {
		words += t.Words * int64(len(t.Dst))
	}
	l.log.Info("prepared exchange phase", "phase", phase, "operation", ir.DescribeOp(at), "transfers", len(list), "received_words", words)
	if res.PairedHorizon > 0 {
		l.log.Info("compared ordinary and paired exchange schedules", "phase", phase,
			"ordinary_horizon", res.OrdinaryHorizon, "paired_horizon", res.PairedHorizon, "use_paired", res.Kind == schedule.PairedGroupMatching)
	}
	l.log.Info("scheduled exchange phase", "phase", phase, "initial_horizon", res.InitialHorizon,
		"selected_horizon", res.Horizon, "endpoint_lower_bound", res.LowerBound, "lower_bound_gap", res.Gap(),
		"selected_kind", string(res.Kind), "segments", len(res.Segments), "receive_configurations", res.ReceiveConfigurations)
	l.pass.NumPhases.Inc()
	l.pass.NumTransfers.Add(uint64(len(list)))
	if res.Gap() == 0 {
		l.pass.NumAtBound.Inc()
	}
	b.Create(&ir.OperationState{Name: exchange.SyncOpName, Loc: at.Loc()})
	attrs := []ir.NamedAttr{
		{Name: exchange.PhaseAttrName, Value: l.ctx.IntegerAttr(l.ctx.I(64), phase)},
		{Name: exchange.TransfersAttrName, Value: exchange.NewTransfersAttr(l.ctx, rank, list)},
		{Name: exchange.ScheduleAttrName, Value: exchange.NewScheduleAttr(l.ctx, exchange.ScheduleAttr{
			Horizon: res.Horizon, LowerBound: res.LowerBound, Kind: res.Kind, Segments: res.Segments})},
	}
	if maps != nil {
		var offs, strs []int64
		for _, m := range maps {
			offs = append(offs, m[0]...)
			strs = append(strs, m[1]...)
		}
		attrs = append(attrs, ir.NamedAttr{Name: exchange.SourceOffsetsAttrName, Value: l.ctx.DenseI64Array(offs...)},
			ir.NamedAttr{Name: exchange.SourceStridesAttrName, Value: l.ctx.DenseI64Array(strs...)})
	}
	ph := b.Create(&ir.OperationState{Name: exchange.PhaseOpName, Loc: at.Loc(), Operands: sources,
		ResultTypes: []ir.Type{out}, Attrs: attrs})
	return ph.Result(0), nil
}

// lowerCombine gathers, on every tile of the result, the partials of its
// shard (one phase), reduces them there (tiled.reduce over the combined
// axes, now whole on each tile), and drops the axes (tiled.reshape). When
// to is not nil (a matmul's f32 partial sums for a result of to's type),
// the sum is converted to to's element type where it is reduced, before
// the copy into the result's in-tile order, so that the copy moves the
// narrow type (half the bytes for f16) and its value is the result.
func (l *lowering) lowerCombine(op *ir.Operation, to *ir.RankedTensorType) (*ir.Value, error) {
	in := op.Operand(0).Type().(*ir.RankedTensorType)
	out := op.Result(0).Type().(*ir.RankedTensorType)
	axes := op.Attr(tiled.AxesAttrName).(*ir.DenseArrayAttr).Ints
	outLayout, _ := tiled.LayoutOf(out)
	var kept []int
	for i := range in.Dims {
		if !slices.Contains(axes, int64(i)) {
			kept = append(kept, i)
		}
	}
	gathered := layout.ExpandLayout(outLayout, len(in.Dims), kept)
	gType := tiled.WithLayout(l.ctx, &ir.RankedTensorType{Dims: in.Dims, Elem: in.Elem}, gathered)
	b := ir.NewBuilder(l.ctx)
	b.SetInsertionPoint(op)
	g, err := l.buildPhase(b, op, op.Operands(), nil, gType)
	if err != nil {
		return nil, err
	}
	if g == nil { // every tile holds the partials it combines
		g = b.Create(&ir.OperationState{Name: tiled.RelayoutOpName, Loc: op.Loc(), Operands: op.Operands(),
			ResultTypes: []ir.Type{gType}}).Result(0)
	}
	partial, pshape := layout.PartialLayout(&gathered, in.Dims, axes)
	reduce := b.Create(&ir.OperationState{Name: tiled.ReduceOpName, Loc: op.Loc(), Operands: []*ir.Value{g},
		ResultTypes: []ir.Type{tiled.WithLayout(l.ctx, &ir.RankedTensorType{Dims: pshape, Elem: in.Elem}, partial)},
		Attrs:       []ir.NamedAttr{{Name: tiled.FnAttrName, Value: op.Attr(tiled.FnAttrName)}, {Name: tiled.AxesAttrName, Value: op.Attr(tiled.AxesAttrName)}}})
	final, ok := layout.ReshapeLayout(&partial, pshape, out.Dims)
	if !ok {
		return nil, op.EmitOpError("BUG: the gathered partials do not reshape onto the result")
	}
	var v *ir.Value = b.Create(&ir.OperationState{Name: tiled.ReshapeOpName, Loc: op.Loc(), Operands: reduce.Results(),
		ResultTypes: []ir.Type{tiled.WithLayout(l.ctx, &ir.RankedTensorType{Dims: out.Dims, Elem: out.Elem}, final)}}).Result(0)
	resultType := out
	if to != nil && to.Elem != out.Elem {
		resultType = to
		v = b.Create(&ir.OperationState{Name: tiled.ElementwiseOpName, Loc: op.Loc(), Operands: []*ir.Value{v},
			ResultTypes: []ir.Type{tiled.WithLayout(l.ctx, &ir.RankedTensorType{Dims: out.Dims, Elem: to.Elem}, final)},
			Attrs:       []ir.NamedAttr{{Name: tiled.FnAttrName, Value: l.ctx.String("convert")}}}).Result(0)
	}
	if !final.Equal(outLayout) {
		if !final.SameDistribution(outLayout) {
			return nil, op.EmitOpError("BUG: the combined result lands in %s, not where its layout %s puts it", &final, outLayout)
		}
		v = b.Create(&ir.OperationState{Name: tiled.RelayoutOpName, Loc: op.Loc(), Operands: []*ir.Value{v},
			ResultTypes: []ir.Type{resultType}}).Result(0)
	}
	if to == nil {
		op.Result(0).ReplaceAllUsesWith(v)
	}
	op.Erase()
	return v, nil
}

// lowerSteps makes a temporal plan's steps explicit. Step s slices the
// inner range of both operands from their home layouts into the step
// plan's layouts (tiled.slice, lowered to a phase), runs the step's
// spatial matmul into f32 (its partial sums, with inner partitions), and
// adds it to the accumulator; after the last step the accumulator is
// reduced across inner tiles (a combine) and converted to the result's
// type. The slices are of whole inner groups; the last may be shorter,
// and its matmul has layouts of its own.
func (l *lowering) lowerSteps(op *ir.Operation, plan *layout.GemmPlan, s layout.MatmulShape) error {
	g, err := layout.AMPGroups(l.tg, s.Elem)
	if err != nil {
		return op.EmitOpError("%v", err)
	}
	step := plan.StepPlan()
	per := s.StepShape(plan, g).K
	a, b := op.Operand(0), op.Operand(1)
	at, bt := a.Type().(*ir.RankedTensorType), b.Type().(*ir.RankedTensorType)
	out := op.Result(0).Type().(*ir.RankedTensorType)
	resLayout, _ := tiled.LayoutOf(out)
	f32 := l.ctx.F32()
	rank := len(out.Dims)
	bld := ir.NewBuilder(l.ctx)
	bld.SetInsertionPoint(op)
	slice := func(v *ir.Value, t *ir.RankedTensorType, axis int, k0, k1 int64, layout layout.Layout) (*ir.Value, error) {
		off, sizes, strides := make([]int64, rank), slices.Clone(t.Dims), make([]int64, rank)
		for i := range strides {
			strides[i] = 1
		}
		off[axis], sizes[axis] = k0, k1-k0
		sl := bld.Create(&ir.OperationState{Name: tiled.SliceOpName, Loc: op.Loc(), Operands: []*ir.Value{v},
			ResultTypes: []ir.Type{tiled.WithLayout(l.ctx, &ir.RankedTensorType{Dims: sizes, Elem: t.Elem}, layout)},
			Attrs: []ir.NamedAttr{{Name: tiled.OffsetsAttrName, Value: l.ctx.DenseI64Array(off...)},
				{Name: tiled.SizesAttrName, Value: l.ctx.DenseI64Array(sizes...)},
				{Name: tiled.StridesAttrName, Value: l.ctx.DenseI64Array(strides...)}}})
		if tiled.ReinterpretsSlices(sl) {
			return sl.Result(0), nil
		}
		return l.replaceByPhase(sl, sl.Operands(), sourceMaps(sl))
	}
	var acc *ir.Value
	var accType ir.Type
	for k0 := int64(0); k0 < s.K; k0 += per {
		k1 := min(k0+per, s.K)
		ss := s
		ss.K = k1 - k0
		ss.ResultElem = elem.F32
		ls, err := layout.LayoutsForPlan(&step, ss, l.tg)
		if err != nil {
			return op.EmitOpError("step over inner elements %d to %d: %v", k0, k1, err)
		}
		sa, err := slice(a, at, rank-1, k0, k1, ls.LHS)
		if err != nil {
			return err
		}
		sb, err := slice(b, bt, rank-2, k0, k1, ls.RHS)
		if err != nil {
			return err
		}
		st := &ir.OperationState{Name: tiled.MatmulOpName, Loc: op.Loc(), Operands: []*ir.Value{sa, sb},
			Attrs: append([]ir.NamedAttr{{Name: tiled.PlanAttrName, Value: tiled.NewGemmPlanAttr(l.ctx, step)}}, partialsTypeOf(op)...)}
		if step.InnerPartitions > 1 {
			pl, err := layout.PartialsLayout(&step, ss, l.tg)
			if err != nil {
				return op.EmitOpError("%v", err)
			}
			st.ResultTypes = []ir.Type{tiled.WithLayout(l.ctx, &ir.RankedTensorType{Dims: layout.PartialsShape(&step, ss), Elem: f32}, pl)}
			st.Attrs = append(st.Attrs, ir.NamedAttr{Name: tiled.PartialAttrName, Value: l.ctx.Unit()})
		} else {
			st.ResultTypes = []ir.Type{tiled.WithLayout(l.ctx, &ir.RankedTensorType{Dims: out.Dims, Elem: f32}, ls.Result)}
		}
		part := bld.Create(st).Result(0)
		if acc == nil {
			acc, accType = part, part.Type()
			continue
		}
		if part.Type() != accType {
			return op.EmitOpError("BUG: the steps of a temporal plan accumulate in different layouts")
		}
		acc = bld.Create(&ir.OperationState{Name: tiled.ElementwiseOpName, Loc: op.Loc(), Operands: []*ir.Value{acc, part},
			ResultTypes: []ir.Type{accType}, Attrs: []ir.NamedAttr{{Name: tiled.FnAttrName, Value: l.ctx.String("add")}}}).Result(0)
	}
	result := acc
	if step.InnerPartitions > 1 {
		sumType := tiled.WithLayout(l.ctx, &ir.RankedTensorType{Dims: out.Dims, Elem: f32}, *resLayout)
		combine := bld.Create(&ir.OperationState{Name: tiled.CombineOpName, Loc: op.Loc(), Operands: []*ir.Value{acc},
			ResultTypes: []ir.Type{sumType},
			Attrs:       []ir.NamedAttr{{Name: tiled.FnAttrName, Value: l.ctx.String("sum")}, {Name: tiled.AxesAttrName, Value: l.ctx.DenseI64Array(0)}}})
		if result, err = l.lowerCombine(combine, out); err != nil {
			return err
		}
	}
	if result.Type() != ir.Type(out) && out.Elem != f32 {
		result = bld.Create(&ir.OperationState{Name: tiled.ElementwiseOpName, Loc: op.Loc(), Operands: []*ir.Value{result},
			ResultTypes: []ir.Type{out}, Attrs: []ir.NamedAttr{{Name: tiled.FnAttrName, Value: l.ctx.String("convert")}}}).Result(0)
	}
	op.Result(0).ReplaceAllUsesWith(result)
	op.Erase()
	return nil
}

// partialsTypeOf is op's partials_type attribute, for the matmuls it is
// lowered to; none when it has none.
func partialsTypeOf(op *ir.Operation) []ir.NamedAttr {
	if a := op.Attr(tiled.PartialsTypeAttrName); a != nil {
		return []ir.NamedAttr{{Name: tiled.PartialsTypeAttrName, Value: a}}
	}
	return nil
}
