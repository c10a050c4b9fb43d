package exchange

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ipuir/ipuir/dialects/tiled"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/layout"
	"github.com/ipuir/ipuir/schedule"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/target/irtarget"
)

// Name is the dialect's namespace.
const Name = "exchange"

// Op and attribute names.
const (
	PhaseOpName = "exchange.phase"
	SyncOpName  = "exchange.sync"

	PhaseAttrName         = "phase"
	TransfersAttrName     = "transfers"
	ScheduleAttrName      = "schedule"
	SourceOffsetsAttrName = "source_offsets"
	SourceStridesAttrName = "source_strides"

	TransfersMnemonic = "transfers"
	ScheduleMnemonic  = "schedule"
)

var (
	// PhaseAttrs are a phase's attributes, which tile-asm's exchange
	// instruction keeps.
	PhaseAttrs = []ir.AttrDef{{Name: PhaseAttrName, Kind: ir.I64AttrKind, Doc: "the phase's number in the program"},
		{Name: TransfersAttrName, Kind: transfersKind}, {Name: ScheduleAttrName, Kind: scheduleKind},
		{Name: SourceOffsetsAttrName, Kind: ir.DenseI64ArrayKind, Optional: true, Doc: "per source and axis, where a result index starts in the source"},
		{Name: SourceStridesAttrName, Kind: ir.DenseI64ArrayKind, Optional: true, Doc: "per source and axis, the source step per result step"}}
	transfersKind = ir.AttrKind{Desc: "#exchange.transfers attribute", Pred: func(a ir.Attribute) bool { _, ok := a.(*TransfersAttr); return ok }}
	scheduleKind  = ir.AttrKind{Desc: "#exchange.schedule attribute", Pred: func(a ir.Attribute) bool { _, ok := a.(*ScheduleAttr); return ok }}
)

// The ops of the dialect.
var (
	// SyncOp is exchange.sync.
	SyncOp = &ir.OpDef{
		Name:    SyncOpName,
		Summary: "An all-tile synchronisation: the end of a superstep's compute.",
		Description: "Every tile waits here until all have arrived; the target's sync cost. The compute " +
			"before it and the exchange phase after it form one BSP superstep.",
		Example:        "exchange.sync",
		AssemblyFormat: "attr-dict",
	}

	// PhaseOp is exchange.phase.
	PhaseOp = &ir.OpDef{
		Name:    PhaseOpName,
		Summary: "One exchange phase: transfers between tiles, at compile-time cycles.",
		Description: "The result is laid out as its type says; each transfer sends the elements `box` " +
			"(in the result's index space) of source `operand` from tile `src` to every tile of `dst`, " +
			"`words` 32-bit words, as the schedule's segments say (one word per cycle each way per " +
			"tile; a multicast word reaches all its receivers in one cycle). Elements a result tile " +
			"already holds in a source are copied locally. A result element at index i reads source " +
			"element `source_offsets + source_strides · i` (per source, per axis; 0 and 1 by " +
			"default), which makes slices and concats phases too. The verifier checks that every " +
			"transfer reads inside the source shard on its sender and writes inside the result " +
			"shard on each receiver (the shard-view containment rule), that its words are its " +
			"elements', and that the schedule sends every word exactly once within its horizon, " +
			"no tile sending or receiving two words in a cycle.",
		Example:        "%1 = exchange.phase 3 %0 {schedule = #exchange.schedule<...>, transfers = #exchange.transfers<...>} : tensor<729x1152xf16, #layout> -> tensor<729x1152xf16, #layout1>",
		Operands:       []ir.ValueDef{{Name: "sources", Type: tiled.LaidOutTensor, Kind: ir.Variadic}},
		Results:        []ir.ValueDef{{Name: "result", Type: tiled.LaidOutTensor}},
		Attributes:     PhaseAttrs,
		AssemblyFormat: "custom<Int>($phase) $sources attr-dict `:` type($sources) `->` type($result)",
		VerifyEnv:      verifyPhase,
	}
)

// SuperstepAttr names the BSP superstep of each op of the tiled dialect
// (its compute set, run by the tiles of its result's layout) and of each
// phase. A superstep is compute, a sync, then an exchange: supersteps are
// counted from 0, a sync ends one's compute, and the phase after it is that
// superstep's exchange. A function records its count as SuperstepsAttr.
const (
	SuperstepAttr  = "exchange.superstep"
	SuperstepsAttr = "exchange.supersteps"
)

// Dialect is the exchange dialect.
var Dialect = &ir.Dialect{
	Name:    Name,
	Summary: "BSP supersteps: syncs and compile-time-scheduled exchange phases between tiles.",
	Description: "Step 3 of the lowering pipeline. The tiled program's compute ops stay as they are, one " +
		"compute set each (the tiles of its result's layout); every movement of data between tiles is an " +
		"exchange.phase after an exchange.sync, with its transfers and their schedule.",
	Ops: []*ir.OpDef{SyncOp, PhaseOp, LinkPhaseOp},
	Attrs: []*ir.AttrDecl{
		{Mnemonic: TransfersMnemonic, Summary: "A phase's transfers (see TransfersAttr).",
			Syntax: "#exchange.transfers<[{src = S, dst = [D, ...], words = W, box = [[lo, hi], ...]}, ...]> or #exchange.transfers<rank = R, packed = [...]>",
			Parse:  parseTransfers},
		{Mnemonic: ScheduleMnemonic, Summary: "A phase's schedule (see ScheduleAttr).",
			Syntax: "#exchange.schedule<horizon = H, lower_bound = B, kind = K, segments = [[transfer, start, words], ...]>",
			Parse:  parseSchedule},
	},
	Directives: map[string]*ir.CustomDirective{"Int": ir.IntDirective},
}

// Register adds the exchange dialect to ctx.
func Register(ctx *ir.Context) error { return ctx.RegisterDialect(Dialect) }

// AliasName makes transfer lists print through `#transfers` aliases.
func (*TransfersAttr) AliasName() (string, bool) { return "transfers", true }

// AliasName makes schedules print through `#schedule` aliases.
func (*ScheduleAttr) AliasName() (string, bool) { return "schedule", true }

// FabricOf is what the scheduler needs to know of tg's exchange.
func FabricOf(tg *target.Target) schedule.Fabric {
	return schedule.Fabric{Tiles: tg.Tiles, Pairs: tg.ExchangeBusPairs}
}

// ScheduleTransfers is the phase's transfers as the scheduler sees them.
func ScheduleTransfers(a *TransfersAttr) []schedule.Transfer {
	out := make([]schedule.Transfer, len(a.List))
	for i, t := range a.List {
		out[i] = schedule.Transfer{Src: t.Src, Dst: t.Dst, Words: t.Words}
	}
	return out
}

// SourceMap returns, for source k of a phase, the offset and stride per
// axis that map a result index to the source's.
func SourceMap(op *ir.Operation, k, rank int) (offsets, strides []int64) {
	offsets, strides = make([]int64, rank), make([]int64, rank)
	for i := range strides {
		strides[i] = 1
	}
	if a, ok := op.Attr(SourceOffsetsAttrName).(*ir.DenseArrayAttr); ok && len(a.Ints) >= (k+1)*rank {
		copy(offsets, a.Ints[k*rank:])
	}
	if a, ok := op.Attr(SourceStridesAttrName).(*ir.DenseArrayAttr); ok && len(a.Ints) >= (k+1)*rank {
		copy(strides, a.Ints[k*rank:])
	}
	return offsets, strides
}

func verifyPhase(op *ir.Operation, env *ir.Env) error {
	return VerifyPhase(op, op.Operands(), op.Result(0), env)
}

// VerifyPhase checks a phase's transfers and schedule (op's attributes)
// against its sources and its destination value: exchange.phase's rule,
// which tile-asm's exchange instruction follows too.
func VerifyPhase(op *ir.Operation, sources []*ir.Value, dest *ir.Value, env *ir.Env) error {
	tg, ok := irtarget.FromEnv(env)
	if !ok {
		return fmt.Errorf("needs the module's target to check its transfers: the module has no '%s' attribute naming one (known targets: %s)",
			irtarget.ModuleAttr, strings.Join(target.Names(), ", "))
	}
	// The verdict depends on these alone, all uniqued and immutable: a
	// phase verified after convert-tiled-to-exchange is not checked word
	// by word again when later passes, or tile-asm's exchange instruction
	// carrying the same tables, are verified.
	types := make([]ir.Type, len(sources))
	for i, v := range sources {
		types[i] = v.Type()
	}
	key := phaseKey{tg, op.Attr(TransfersAttrName), op.Attr(ScheduleAttrName), op.Attr(SourceOffsetsAttrName), op.Attr(SourceStridesAttrName),
		op.Context().Tuple(types...), dest.Type()}
	return op.Context().CheckOnce(key, func() error { return verifyPhaseOnce(op, sources, dest, tg) })
}

// phaseKey is what VerifyPhase's verdict depends on.
type phaseKey struct {
	tg                                    *target.Target
	transfers, schedule, offsets, strides ir.Attribute
	sources                               *ir.TupleType
	dest                                  ir.Type
}

func verifyPhaseOnce(op *ir.Operation, sources []*ir.Value, dest *ir.Value, tg *target.Target) error {
	out := dest.Type().(*ir.RankedTensorType)
	rank := len(out.Dims)
	for _, name := range []string{SourceOffsetsAttrName, SourceStridesAttrName} {
		if a, ok := op.Attr(name).(*ir.DenseArrayAttr); ok && len(a.Ints) != len(sources)*rank {
			return fmt.Errorf("'%s' has %d entries, want %d (the result's rank for each of %d sources)", name, len(a.Ints), len(sources)*rank, len(sources))
		}
	}
	if a, ok := op.Attr(SourceStridesAttrName).(*ir.DenseArrayAttr); ok && slices.ContainsFunc(a.Ints, func(s int64) bool { return s < 1 }) {
		return fmt.Errorf("'%s' must be positive", SourceStridesAttrName)
	}
	et, err := tiled.ElemTypeOf(out.Elem)
	if err != nil {
		return err
	}
	resMap, err := tiled.CheckLayout(mustLayout(out), out, tg)
	if err != nil {
		return fmt.Errorf("result layout is not valid: %v", err)
	}
	srcMaps := make([]*layout.ShardMap, len(sources))
	for k := range srcMaps {
		in := sources[k].Type().(*ir.RankedTensorType)
		if in.Elem != out.Elem || len(in.Dims) != rank {
			return fmt.Errorf("source #%d must have the result's element type and rank", k)
		}
		if srcMaps[k], err = tiled.CheckLayout(mustLayout(in), in, tg); err != nil {
			return fmt.Errorf("source #%d layout is not valid: %v", k, err)
		}
	}
	ta := op.Attr(TransfersAttrName).(*TransfersAttr)
	boxes := map[int64]layout.Box{} // result shard boxes by tile
	resultBox := func(tile int32) (layout.Box, bool) {
		if b, ok := boxes[int64(tile)]; ok {
			return b, true
		}
		b, ok := resMap.BoxOnTile(int64(tile))
		if ok {
			boxes[int64(tile)] = b
		}
		return b, ok
	}
	for i, t := range ta.List {
		if int(t.Operand) >= len(sources) {
			return fmt.Errorf("transfer %d reads source #%d, but the phase has %d", i, t.Operand, len(sources))
		}
		if len(t.Box) != rank {
			return fmt.Errorf("transfer %d has a box of rank %d, the result rank %d", i, len(t.Box), rank)
		}
		n := t.Box.Elements()
		if words := (n*int64(et.Bytes()) + int64(tg.ExchangeWordBytes) - 1) / int64(tg.ExchangeWordBytes); n <= 0 || t.Words != words {
			return fmt.Errorf("transfer %d sends %d words, but its box %s holds %d elements (%d words)", i, t.Words, t.Box, n, words)
		}
		offsets, strides := SourceMap(op, int(t.Operand), rank)
		src := make(layout.Box, rank)
		for a, s := range t.Box {
			src[a] = layout.Span{Lo: offsets[a] + strides[a]*s.Lo, Hi: offsets[a] + strides[a]*(s.Hi-1) + 1}
		}
		if b, ok := srcMaps[t.Operand].BoxOnTile(int64(t.Src)); !ok || !b.Contains(src) {
			err := srcMaps[t.Operand].CheckCovers(int64(t.Src), src)
			return fmt.Errorf("transfer %d reads source #%d where tile %d does not hold it: %v", i, t.Operand, t.Src, err)
		}
		for _, d := range t.Dst {
			if b, ok := resultBox(d); !ok || !b.Contains(t.Box) {
				err := resMap.CheckCovers(int64(d), t.Box)
				return fmt.Errorf("transfer %d writes where tile %d holds no such part of the result: %v", i, d, err)
			}
		}
	}
	sa := op.Attr(ScheduleAttrName).(*ScheduleAttr)
	transfers := ScheduleTransfers(ta)
	if err := schedule.Verify(transfers, FabricOf(tg), sa.Segments, sa.Horizon); err != nil {
		return fmt.Errorf("schedule is not valid: %v", err)
	}
	if lb := schedule.LowerBound(transfers, FabricOf(tg)); lb != sa.LowerBound {
		return fmt.Errorf("schedule's lower_bound is %d but the transfers' is %d", sa.LowerBound, lb)
	}
	return nil
}

func mustLayout(t *ir.RankedTensorType) *layout.Layout {
	l, _ := tiled.LayoutOf(t)
	return l
}

// InSupersteps is the fact that convert-tiled-to-exchange has made the
// program bulk-synchronous: every function with a body records its
// supersteps.
var InSupersteps = &ir.Fact{Name: "exchange.supersteps", Doc: "every function is in supersteps (its " + SuperstepsAttr + " attribute)",
	Lacking: func(root *ir.Operation, _ *ir.Env) *ir.Operation {
		return root.Find(func(op *ir.Operation) bool {
			return ir.Implements[ir.FunctionLike](op) && op.NumRegions() > 0 && !op.Region(0).Empty() && op.Attr(SuperstepsAttr) == nil
		})
	}}
