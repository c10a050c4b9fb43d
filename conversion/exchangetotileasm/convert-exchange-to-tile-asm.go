package exchangetotileasm

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/ipuir/ipuir/dialects/exchange"
	"github.com/ipuir/ipuir/dialects/tileasm"
	"github.com/ipuir/ipuir/dialects/tiled"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/layout"
	"github.com/ipuir/ipuir/passes"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/target/irtarget"
	"github.com/ipuir/ipuir/target/storage"
)

// ConvertExchangeToTileAsm turns each function at the exchange level into
// its tile-asm program: a tileasm.buffer for every value that holds memory
// (its shards placed on every tile for its lifetime, support memory first),
// a tileasm.view for every value that only sees other values' memory, one
// instruction per tiled op and phase, and the tiles' memory map. The
// function's arguments become host input streams (host_input) and it
// takes nothing; its results stay its results, now the buffers and views
// the host reads the output streams from, in order.
//
// Support memory is sized by the target's code model (target.CodeModel):
// a skeleton per tile, a size per instruction a tile runs and per sync and
// exchange it takes part in, exchange tables by the segments a tile sends
// or receives, and host-exchange code on the tiles that hold a piece of a
// host stream (a buffer an output view reads counts as streamed).
type ConvertExchangeToTileAsm struct {
	NumBuffers passes.Statistic `statistic:"num-buffers" help:"Number of buffers placed"`
}

func (*ConvertExchangeToTileAsm) Name() string { return "convert-exchange-to-tile-asm" }
func (*ConvertExchangeToTileAsm) Summary() string {
	return "Lower an exchange-level program to per-tile programs with placed storage"
}
func (*ConvertExchangeToTileAsm) Anchor() string { return ir.ModuleOpName }
func (*ConvertExchangeToTileAsm) Requires() []*ir.Fact {
	return []*ir.Fact{irtarget.Named, exchange.InSupersteps}
}

func (p *ConvertExchangeToTileAsm) Run(module *ir.Operation, pc *passes.PassContext) error {
	tg, err := irtarget.Of(module, pc.Env())
	if err != nil {
		return err
	}
	var fns []*ir.Operation
	for _, op := range module.Region(0).Front().Ops() {
		if ir.Implements[ir.FunctionLike](op) && op.NumRegions() > 0 && !op.Region(0).Empty() {
			fns = append(fns, op)
		}
	}
	for _, fn := range fns {
		n, err := convertFunction(pc.Context(), fn, tg, pc.Logger())
		if err != nil {
			return err
		}
		p.NumBuffers.Add(uint64(n))
	}
	return nil
}

// participants are the tiles that run op's piece: those holding a shard
// of its result.
func participants(v *ir.Value, tg *target.Target) []int64 {
	rt, ok := v.Type().(*ir.RankedTensorType)
	if !ok {
		return nil
	}
	l, ok := tiled.LayoutOf(rt)
	if !ok {
		return nil
	}
	m, err := tiled.CheckLayout(l, rt, tg)
	if err != nil {
		return nil
	}
	return m.Tiles()
}

// support is each tile's support memory, by the code model.
type support struct {
	code, tables, host []int64
}

func (s support) bytes(tile int) int64 { return s.code[tile] + s.tables[tile] + s.host[tile] }

// tableEntries calls entry for each exchange-table entry of phase, with the
// tile that keeps it: every segment takes one on its sender and one on
// each receiver.
func tableEntries(phase *ir.Operation, entry func(tile int32)) {
	ta := phase.Attr(exchange.TransfersAttrName).(*exchange.TransfersAttr)
	sa := phase.Attr(exchange.ScheduleAttrName).(*exchange.ScheduleAttr)
	for _, seg := range sa.Segments {
		t := ta.List[seg.Transfer]
		entry(t.Src)
		for _, d := range t.Dst {
			entry(d)
		}
	}
}

// sizeSupport sizes every tile's code, exchange tables and host-exchange
// code (the reference log's size_tile_code).
func sizeSupport(fn *ir.Operation, tg *target.Target, bufs [][]storage.Buffer, hostValue func(id int) bool) support {
	s := support{code: make([]int64, tg.Tiles), tables: make([]int64, tg.Tiles), host: make([]int64, tg.Tiles)}
	for i := range s.code {
		s.code[i] = tg.Code.SkeletonBytes
	}
	for _, op := range fn.Region(0).Front().Ops() {
		switch {
		case op.Is(exchange.SyncOp):
			for i := range s.code {
				s.code[i] += tg.Code.SyncBytes
			}
		case op.Is(exchange.PhaseOp):
			takes := map[int32]bool{}
			tableEntries(op, func(tile int32) {
				s.tables[tile] += tg.Code.TableEntryBytes
				takes[tile] = true
			})
			for t := range takes {
				s.code[t] += tg.Code.ExchangeBytes
			}
		case isInstruction(op, tg) || op.Is(tiled.ConstantOp):
			cost := tg.Code.InstructionBytes
			if op.Is(tiled.MatmulOp) {
				cost = tg.Code.AMPBlockBytes
			}
			if d, ok := op.Attr(tiled.ValueAttrName).(*ir.DenseElementsAttr); op.Is(tiled.ConstantOp) && !(ok && d.Splat) {
				continue // loaded with the program: no code
			}
			for _, t := range participants(op.Result(0), tg) {
				s.code[t] += cost
			}
		}
	}
	for tile, list := range bufs {
		for _, b := range list {
			if hostValue(b.ID) {
				s.host[tile] += tg.Code.HostStreamBytes
			}
		}
		if s.host[tile] > 0 {
			s.host[tile] += tg.Code.HostSkeletonBytes
		}
	}
	return s
}

func convertFunction(ctx *ir.Context, fn *ir.Operation, tg *target.Target, log *slog.Logger) (int, error) {
	if _, ok := fn.Attr(exchange.SuperstepsAttr).(*ir.IntegerAttr); !ok {
		return 0, fn.EmitOpError("is not at the exchange level: it has no '%s' attribute (run convert-tiled-to-exchange, or the lower-to-tile-asm pipeline, first)", exchange.SuperstepsAttr)
	}
	entry := fn.Region(0).Front()
	bufs, values, err := tiled.ValueBuffers(fn, tg, steps(fn, tg))
	if err != nil {
		return 0, err
	}
	argIndex := map[*ir.Value]int{}
	for i, a := range entry.Arguments() {
		argIndex[a] = i
	}
	streamed := streamedValues(entry, tg)
	hostValue := func(id int) bool { return streamed[values[id]] }
	sup := sizeSupport(fn, tg, bufs, hostValue)
	class, err := tileasm.SupportClass(tg)
	if err != nil {
		return 0, fn.EmitOpError("%v", err)
	}
	where, supportAt, err := placeValues(fn, tg, bufs, values, sup, class.Name, log)
	if err != nil {
		return 0, err
	}
	// Buffers, at the top of the body.
	b := ir.NewBuilder(ctx)
	b.SetInsertionPointToStart(entry)
	bufferOf := map[*ir.Value]*ir.Value{}
	old := entry.Ops()
	for id, v := range values {
		tiles, addresses, start, end := where[id].tiles, where[id].addresses, where[id].start, where[id].end
		liveEnd := int64(end)
		if end == storage.Forever {
			liveEnd = -1
		}
		attrs := []ir.NamedAttr{{Name: tileasm.NameAttr, Value: ctx.String(where[id].name)},
			{Name: tileasm.LiveAttr, Value: ctx.DenseI64Array(int64(start), liveEnd)},
			{Name: tileasm.PlacementAttr, Value: tileasm.NewPerTileAttr(ctx, tiles, addresses)}}
		if i, ok := hostInput(v, argIndex); ok {
			attrs = append(attrs, ir.NamedAttr{Name: tileasm.HostInputAttr, Value: ctx.IntegerAttr(ctx.I(64), int64(i))})
		}
		if def := v.DefiningOp(); def != nil && def.Is(tiled.ConstantOp) {
			attrs = append(attrs, ir.NamedAttr{Name: tileasm.InitAttr, Value: def.Attr(tiled.ValueAttrName)})
		}
		buf := b.Create(&ir.OperationState{Name: tileasm.BufferOpName, Loc: locOf(v, fn), ResultTypes: []ir.Type{v.Type()}, Attrs: attrs})
		bufferOf[v] = buf.Result(0)
	}
	// Instructions, op by op.
	for _, op := range old {
		if op.HasTrait(ir.TraitReturnLike) {
			continue
		}
		b.SetInsertionPoint(op)
		if err := emitInstruction(ctx, b, op, tg, bufferOf); err != nil {
			return 0, err
		}
	}
	// The memory map, then the return, now of nothing.
	term := entry.Last()
	b.SetInsertionPoint(term)
	all := make([]int64, tg.Tiles)
	for i := range all {
		all[i] = int64(i)
	}
	b.Create(&ir.OperationState{Name: tileasm.MemoryOpName, Loc: fn.Loc(), Attrs: []ir.NamedAttr{
		{Name: tileasm.CodeBytesAttr, Value: tileasm.NewPerTileAttr(ctx, all, sup.code)},
		{Name: tileasm.ExchangeTableBytesAttr, Value: tileasm.NewPerTileAttr(ctx, all, sup.tables)},
		{Name: tileasm.HostCodeBytesAttr, Value: tileasm.NewPerTileAttr(ctx, all, sup.host)},
		{Name: tileasm.SupportAttr, Value: tileasm.NewPerTileAttr(ctx, all, supportAt)}}})
	for i := len(old) - 1; i >= 0; i-- {
		if old[i] != term {
			for _, r := range old[i].Results() {
				if r.HasUses() {
					r.ReplaceAllUsesWith(bufferOf[r])
				}
			}
		}
	}
	for i := len(old) - 1; i >= 0; i-- {
		if old[i] != term {
			old[i].Erase()
		}
	}
	for _, a := range entry.Arguments() {
		a.ReplaceAllUsesWith(bufferOf[a])
	}
	for i := entry.NumArguments() - 1; i >= 0; i-- {
		entry.EraseArgument(i)
	}
	fn.SetAttr(ctx, "arg_attrs", nil)
	fn.SetAttr(ctx, "res_attrs", nil)
	// The results stay the function's: the return names, in order, the
	// buffers and views the host reads its output streams from (a value
	// returned twice is streamed twice).
	if f, ok := ir.Interface[ir.FunctionLike](fn); ok {
		f.SetFunctionType(fn, ctx.Function(nil, term.OperandTypes()))
	}
	return len(values), nil
}

// placed is where one value's buffer lives: its name, its tiles and
// their addresses, and the steps it is live over.
type placed struct {
	name             string
	tiles, addresses []int64
	start, end       int
}

// placeValues places every tile's buffers, support memory first in class,
// and gathers each value's addresses and each tile's support address.
func placeValues(fn *ir.Operation, tg *target.Target, bufs [][]storage.Buffer, values []*ir.Value, sup support, class string,
	log *slog.Logger) ([]placed, []int64, error) {
	where := make([]placed, len(values))
	supportAt := make([]int64, tg.Tiles)
	busiest, busiestBytes := 0, int64(-1)
	peaks := map[string]int64{}
	lists := make([][]storage.Buffer, tg.Tiles)
	for tile := range tg.Tiles {
		lists[tile] = append([]storage.Buffer{{Name: "support memory", Class: class, Bytes: sup.bytes(tile), ID: -1, End: storage.Forever}}, bufs[tile]...)
	}
	placements, err := storage.PlaceAll(tg, lists)
	if err != nil {
		return nil, nil, placementError(fn, values, lists, err, sup, tg)
	}
	for tile, pl := range placements {
		list := lists[tile]
		supportAt[tile] = pl.Address[0]
		for k, b := range list[1:] {
			w := &where[b.ID]
			w.name = b.Name
			w.tiles = append(w.tiles, int64(tile))
			w.addresses = append(w.addresses, pl.Address[k+1])
			w.start, w.end = b.Start, b.End
		}
		total := int64(0)
		for c, v := range pl.Peak {
			total += v
			peaks[c] = max(peaks[c], v)
		}
		if total > busiestBytes {
			busiest, busiestBytes = tile, total
		}
	}
	log.Info("allocated tile support memory", "tiles", tg.Tiles, "generated_code_bytes", slices.Max(sup.code),
		"exchange_table_bytes", slices.Max(sup.tables), "host_code_bytes", slices.Max(sup.host), "class", class)
	args := []any{"tiles", tg.Tiles, "buffers", len(values), "busiest_tile", busiest, "busiest_tile_bytes", busiestBytes}
	for _, c := range tg.MemoryClasses {
		args = append(args, "peak_"+strings.ToLower(c.Kind.String())+"_bytes", peaks[c.Name])
	}
	log.Info("placed tile storage", args...)
	return where, supportAt, nil
}

// emitInstruction builds op's tile-asm instruction (instructions) at b,
// over the buffers bufferOf holds, recording the value of a view.
func emitInstruction(ctx *ir.Context, b *ir.Builder, op *ir.Operation, tg *target.Target, bufferOf map[*ir.Value]*ir.Value) error {
	r := instructionFor(op, tg)
	if r == nil {
		return op.EmitOpError("has no tile-asm form (run the exchange lowering first)")
	}
	ins := make([]*ir.Value, op.NumOperands())
	if r.noOperands {
		ins = nil
	}
	for i, v := range op.Operands()[:len(ins)] {
		m, ok := bufferOf[v]
		if !ok {
			return op.EmitOpError("cannot be lowered to tile-asm: operand #%d has no buffer", i)
		}
		ins[i] = m
	}
	if r.to == "" {
		return nil
	}
	var attrs []ir.NamedAttr
	if r.kind {
		attrs = append(attrs, ir.NamedAttr{Name: tileasm.KindAttr, Value: ctx.String(op.Name()[len(tiled.Name)+1:])})
	}
	for _, n := range r.keep {
		if a := op.Attr(n); a != nil {
			attrs = append(attrs, ir.NamedAttr{Name: n, Value: a})
		}
	}
	if r.derive != nil {
		more, err := r.derive(ctx, op, tg)
		if err != nil {
			return op.EmitOpError("%v", err)
		}
		attrs = append(attrs, more...)
	}
	st := &ir.OperationState{Name: r.to, Loc: op.Loc(), Operands: ins}
	switch r.result {
	case writesResult:
		step, _ := superstepOf(op)
		st.Operands = append(st.Operands, bufferOf[op.Result(0)])
		attrs = append(attrs, ir.NamedAttr{Name: tileasm.SuperstepAttr, Value: ctx.IntegerAttr(ctx.I(64), int64(step))})
	case isView:
		st.ResultTypes = op.ResultTypes()
	}
	st.Attrs = attrs
	if in := b.Create(st); r.result == isView {
		bufferOf[op.Result(0)] = in.Result(0)
	}
	return nil
}

// instruction is how ops of the tiled and exchange levels become tile-asm
// instructions: which instruction, the attributes it keeps, those it
// derives, and what becomes of the op's result.
type instruction struct {
	from []*ir.OpDef
	// when, if set, must hold too (a data movement is a view only when its
	// result aliases its operands' memory).
	when func(op *ir.Operation, tg *target.Target) bool
	to   string // the tile-asm op; "" for none (a constant: its buffer holds its value)
	// kind: the op's name in its dialect becomes the kind attribute (the
	// movement of a copy or a view).
	kind bool
	// noOperands: the instruction takes only the result's buffer (a load
	// from streaming memory, whose operand no tile holds).
	noOperands bool
	keep       []string
	derive     func(ctx *ir.Context, op *ir.Operation, tg *target.Target) ([]ir.NamedAttr, error)
	result     resultRule
}

// resultRule is what becomes of the op's result.
type resultRule uint8

const (
	// writesResult: the instruction takes the result's buffer as its last
	// operand and runs in the op's superstep.
	writesResult resultRule = iota
	// isView: the instruction's result is the value, seen in its
	// operands' memory.
	isView
	// noResult: a sync.
	noResult
)

// movementOps and movementAttrs are the tiled ops that move data and the
// attributes that say how their indices map.
var (
	movementOps   = []*ir.OpDef{tiled.RelayoutOp, tiled.TransposeOp, tiled.ReshapeOp, tiled.BroadcastOp, tiled.SliceOp, tiled.ConcatOp}
	movementAttrs = []string{tiled.PermutationAttrName, tiled.DimensionsAttrName, tiled.OffsetsAttrName, tiled.SizesAttrName,
		tiled.StridesAttrName, tiled.AxisAttrName}
)

// instructions is the lowering, first matching row first.
var instructions = []instruction{
	{from: []*ir.OpDef{exchange.SyncOp}, to: tileasm.SyncOpName, result: noResult},
	{from: []*ir.OpDef{tiled.ConstantOp}},
	{from: movementOps, when: tiled.Aliases, to: tileasm.ViewOpName, kind: true, keep: movementAttrs, result: isView},
	{from: []*ir.OpDef{exchange.PhaseOp}, to: tileasm.ExchangeOpName, keep: []string{exchange.PhaseAttrName, exchange.TransfersAttrName,
		exchange.ScheduleAttrName, exchange.SourceOffsetsAttrName, exchange.SourceStridesAttrName}},
	{from: []*ir.OpDef{tiled.StreamInOp}, to: tileasm.StreamInOpName, noOperands: true},
	{from: []*ir.OpDef{tiled.MatmulOp}, to: tileasm.AmpOpName, keep: []string{tiled.PlanAttrName, tiled.PartialAttrName, tiled.PartialsTypeAttrName}, derive: ampBlocks},
	{from: []*ir.OpDef{tiled.ElementwiseOp}, to: tileasm.VectorOpName, keep: []string{tiled.FnAttrName}},
	{from: []*ir.OpDef{tiled.ReduceOp}, to: tileasm.ReduceOpName, keep: []string{tiled.FnAttrName, tiled.AxesAttrName}},
	{from: movementOps, to: tileasm.CopyOpName, kind: true, keep: movementAttrs},
}

// instructionFor is op's row of instructions, or nil.
func instructionFor(op *ir.Operation, tg *target.Target) *instruction {
	for i := range instructions {
		r := &instructions[i]
		if slices.ContainsFunc(r.from, func(d *ir.OpDef) bool { return op.Is(d) }) && (r.when == nil || r.when(op, tg)) {
			return r
		}
	}
	return nil
}

// ampBlocks derives the AMP instruction's blocks from its operands'
// layouts and its plan.
func ampBlocks(ctx *ir.Context, op *ir.Operation, tg *target.Target) ([]ir.NamedAttr, error) {
	plan := op.Attr(tiled.PlanAttrName).(*tiled.GemmPlanAttr).Plan
	blocks, err := tileasm.AMPBlocks(op.Operand(0), op.Operand(1), plan.Orientation == layout.Swapped, tg)
	if err != nil {
		return nil, fmt.Errorf("its AMP blocks: %v", err)
	}
	return []ir.NamedAttr{{Name: tileasm.BlocksAttr, Value: ctx.DenseI64Array(blocks...)}}, nil
}

func locOf(v *ir.Value, fn *ir.Operation) ir.Location {
	if def := v.DefiningOp(); def != nil {
		return def.Loc()
	}
	return fn.Loc()
}

// placementError is a failed placement as a diagnostic at the op that
// defines the buffer that did not fit.
//
// When a tile's support memory outgrows what the planner reserved for it
// (the target's support reserve; a long program's code and exchange tables
// can take more), the plans were chosen for memory the program does not
// have: the function records the busiest tile's support bytes
// (tileasm.SupportBytesAttr), which a compile driver plans again beside,
// and the message says so and what to do.
func placementError(fn *ir.Operation, values []*ir.Value, lists [][]storage.Buffer, err error, sup support, tg *target.Target) error {
	var nf *storage.NoFitError
	at := fn
	if errors.As(err, &nf) {
		if id := lists[nf.Tile][nf.Buffer].ID; id >= 0 {
			if def := values[id].DefiningOp(); def != nil {
				at = def
			}
		}
	}
	busiest, most := 0, int64(0)
	for tile := range tg.Tiles {
		if b := sup.bytes(tile); b > most {
			busiest, most = tile, b
		}
	}
	if most > tg.SupportReserveBytes {
		fn.SetAttr(fn.Context(), tileasm.SupportBytesAttr, fn.Context().IntegerAttr(fn.Context().IntegerType(64, ir.Signless), most))
		return at.EmitOpError("storage placement: %v; the program's code and exchange tables take %d bytes on tile %d "+
			"(code %d, host-exchange code %d, exchange tables %d%s), "+
			"beyond the %d the planner kept for them (the target's support reserve): place more weights home or streamed "+
			"(tiled.home, tiled.streamed, plan-gemms{weights=...}), or cut the model into phases (--phases)",
			err, most, busiest, sup.code[busiest], sup.host[busiest], sup.tables[busiest], largestTables(fn, tg, busiest), tg.SupportReserveBytes).WithCause(err)
	}
	return at.EmitOpError("storage placement: %v", err).WithCause(err)
}

// largestTables names the exchange phases whose tables take the most of
// tile's support memory (at most three, counted as sizeSupport counts), for a
// placement diagnostic: " (most for %x: N bytes in K phases; %y: ...)",
// grouped by the source name of what each phase moves.
func largestTables(fn *ir.Operation, tg *target.Target, tile int) string {
	type share struct {
		name          string
		bytes, phases int64
	}
	var shares []*share
	by := map[string]*share{}
	for _, op := range fn.Region(0).Front().Ops() {
		if !op.Is(exchange.PhaseOp) {
			continue
		}
		var n int64
		tableEntries(op, func(t int32) {
			if int(t) == tile {
				n += tg.Code.TableEntryBytes
			}
		})
		if n == 0 {
			continue
		}
		name := fn.Context().SourceName(op.Loc())
		if name == "" {
			name = "unnamed values"
		}
		sh := by[name]
		if sh == nil {
			sh = &share{name: name}
			by[name] = sh
			shares = append(shares, sh)
		}
		sh.bytes += n
		sh.phases++
	}
	slices.SortStableFunc(shares, func(a, b *share) int { return cmp.Compare(b.bytes, a.bytes) })
	var parts []string
	for _, sh := range shares[:min(3, len(shares))] {
		parts = append(parts, fmt.Sprintf("%s: %d bytes in %d phases", sh.name, sh.bytes, sh.phases))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (most for " + strings.Join(parts, "; ") + ")"
}

// hostInput is the host input that fills v's buffer: v's own argument
// index, or for a load from streaming memory (tiled.stream_in), its
// argument's.
func hostInput(v *ir.Value, argIndex map[*ir.Value]int) (int, bool) {
	if def := v.DefiningOp(); def != nil && def.Is(tiled.StreamInOp) {
		v = def.Operand(0)
	}
	i, ok := argIndex[v]
	return i, ok
}

// streamedValues are the values whose storage a host stream reads or
// fills: the arguments, the loads from streaming memory, the returned
// values, and the values a returned view sees (through any chain of views).
func streamedValues(entry *ir.Block, tg *target.Target) map[*ir.Value]bool {
	var results []*ir.Value
	if term := entry.Last(); term != nil && term.HasTrait(ir.TraitReturnLike) {
		results = term.Operands()
	}
	out := ir.BackwardSlice(results, func(def *ir.Operation) bool {
		return def.Def() != nil && def.Def().Dialect() == tiled.Dialect && tiled.Aliases(def, tg)
	})
	for _, a := range entry.Arguments() {
		out[a] = true
	}
	for _, op := range entry.Ops() {
		if op.Is(tiled.StreamInOp) {
			out[op.Result(0)] = true
		}
	}
	return out
}
