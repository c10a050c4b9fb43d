// Package tileasm is the tile-asm dialect: the program as every tile runs
// it, with its storage placed. It is step 4 of the lowering
// pipeline.
//
// The program is written once for all tiles (they run the same supersteps
// in lockstep; a tile runs an instruction's piece when it holds a shard of
// the instruction's output), and what differs between tiles is data: where
// each buffer sits (#tileasm.per_tile, run-length over tiles) and how much
// support memory each tile needs. So tiles whose programs are identical up
// to addresses share one body, and a 1,472-tile program is as long as its
// op count.
//
//   - tileasm.buffer declares the storage of one value: its layout (the
//     type), its lifetime in supersteps, its address on every tile that
//     holds a shard, and, for the program's inputs and outputs, the host
//     stream it is filled from or read into; tileasm.view names buffers'
//     memory as another value (a free reshape, slice or broadcast);
//   - tileasm.amp, tileasm.vector, tileasm.reduce and tileasm.copy are the
//     instructions of the tiled ops' work; tileasm.exchange sends and
//     receives a phase's segments at their cycles, after a tileasm.sync;
//   - tileasm.memory, last, is each tile's memory map: the support memory
//     (code and exchange tables) placed first in a class that may hold
//     code, and its verifier checks that no two buffers live at the same
//     time overlap on any tile.
package tileasm

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ipuir/ipuir/dialects/exchange"
	"github.com/ipuir/ipuir/dialects/tiled"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/layout"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/target/irtarget"
	"github.com/ipuir/ipuir/target/storage"
)

// Name is the dialect's namespace.
const Name = "tileasm"

// Op names of the dialect.
const (
	BufferOpName   = "tileasm.buffer"
	ViewOpName     = "tileasm.view"
	AmpOpName      = "tileasm.amp"
	VectorOpName   = "tileasm.vector"
	ReduceOpName   = "tileasm.reduce"
	CopyOpName     = "tileasm.copy"
	ExchangeOpName = "tileasm.exchange"
	StreamInOpName = "tileasm.stream_in"
	SyncOpName     = "tileasm.sync"
	MemoryOpName   = "tileasm.memory"
)

// Attribute names.
const (
	NameAttr               = "name"
	LiveAttr               = "live"
	PlacementAttr          = "placement"
	HostInputAttr          = "host_input"
	InitAttr               = "init"
	SuperstepAttr          = "superstep"
	BlocksAttr             = "blocks"
	CodeBytesAttr          = "code_bytes"
	ExchangeTableBytesAttr = "exchange_table_bytes"
	HostCodeBytesAttr      = "host_code_bytes"
	SupportAttr            = "support"
	KindAttr               = "kind"
	// SupportBytesAttr, on a function whose storage placement failed, is
	// the busiest tile's support memory (code, exchange tables and
	// host-exchange code) as the placement sized it, when it is more than
	// the target's support reserve: what the compile driver plans again
	// beside (plan-gemms{support-bytes}).
	SupportBytesAttr = "tileasm.support_bytes"

	PerTileMnemonic = "per_tile"
)

var (
	perTileKind = ir.AttrKind{Desc: "#tileasm.per_tile attribute", Pred: func(a ir.Attribute) bool { _, ok := a.(*PerTileAttr); return ok }}
	liveKind    = ir.AttrKind{Desc: "i64 array [start, end] (end -1: to the program's end)", Pred: func(a ir.Attribute) bool {
		d, ok := a.(*ir.DenseArrayAttr)
		return ok && ir.DenseI64ArrayKind.Pred(a) && len(d.Ints) == 2 && d.Ints[0] >= 0 && (d.Ints[1] > d.Ints[0] || d.Ints[1] == -1)
	}}
	nonNegativeKind = ir.AttrKind{Desc: "non-negative i64", Pred: func(a ir.Attribute) bool {
		i, ok := a.(*ir.IntegerAttr)
		return ok && ir.I64AttrKind.Pred(a) && i.Int >= 0
	}}
	superstep = ir.AttrDef{Name: SuperstepAttr, Kind: nonNegativeKind, Doc: "the superstep the instruction runs in"}
	buffers   = ir.ValueDef{Name: "buffers", Type: tiled.LaidOutTensor, Kind: ir.Variadic}
)

// The ops of the dialect.
var (
	// BufferOp is tileasm.buffer.
	BufferOp = &ir.OpDef{
		Name:    BufferOpName,
		Summary: "The storage of one value on every tile holding a shard of it.",
		Description: "The result type's layout says which tiles hold which shard; `placement` gives the " +
			"buffer's address on each of them, `live` the steps [start, end) in which it holds data " +
			"(end -1: to the program's end). `host_input` names the host stream that fills it before the " +
			"program (such a buffer is live from step 0 and no instruction writes it), or, for a weight in " +
			"streaming memory, the stream a tileasm.stream_in loads into it (live from that instruction's step); the host reads the " +
			"output streams from the buffers and views the function returns. `init` is a constant's value: a splat is one element " +
			"per tile, written when the buffer becomes live, any other value is loaded with the program " +
			"(and is live from superstep 0). The verifier checks that the placement covers exactly the tiles of the layout and " +
			"that every address is inside the layout's memory class and aligned to it.",
		Example: "%0 = tileasm.buffer \"argument 0\" {live = array<i64: 0, 1>, host_input = 0 : i64, placement = #tileasm.per_tile<[[0, 1457, 5120]]>} : tensor<729x1152xf16, #layout>",
		Results: []ir.ValueDef{{Name: "buffer", Type: tiled.LaidOutTensor}},
		Attributes: []ir.AttrDef{{Name: NameAttr, Kind: ir.StringAttrKind}, {Name: LiveAttr, Kind: liveKind},
			{Name: PlacementAttr, Kind: perTileKind}, {Name: HostInputAttr, Kind: nonNegativeKind, Optional: true},
			{Name: InitAttr, Kind: ir.ElementsAttrKind, Optional: true}},
		AssemblyFormat: "$name attr-dict `:` type($buffer)",
		VerifyEnv:      verifyBuffer,
	}

	// ViewOp is tileasm.view.
	ViewOp = &ir.OpDef{
		Name:    ViewOpName,
		Summary: "Buffers' memory seen as another value (no storage of its own).",
		Description: "A free reshape, transpose, slice, concat or broadcast of the tiled level: the result's " +
			"shards are the operands' memory on the same tiles. `kind` is the tiled op, and its attributes " +
			"(permutation, dimensions, offsets, sizes, strides, axis) say how the view's indices map to the " +
			"operands'.",
		Example:        "%3 = tileasm.view %2 {kind = \"reshape\"} : tensor<729x1152xf16, #layout> -> tensor<729x16x72xf16, #layout1>",
		Operands:       []ir.ValueDef{buffers},
		Results:        []ir.ValueDef{{Name: "view", Type: tiled.LaidOutTensor}},
		Attributes:     []ir.AttrDef{{Name: KindAttr, Kind: ir.StringAttrKind}},
		Traits:         ir.TraitPure,
		AssemblyFormat: "$buffers attr-dict `:` type($buffers) `->` type($view)",
		Verify:         verifyView,
	}

	// AmpOp is tileasm.amp.
	AmpOp = &ir.OpDef{
		Name:    AmpOpName,
		Summary: "AMP matmul blocks: each tile multiplies its shards of lhs and rhs into its shard of the output.",
		Description: "Operands: lhs, rhs, output. `plan` is the GEMM plan the shards follow; `blocks` the AMP " +
			"blocks of the busiest tile, [row groups, inner groups, column groups] as the target's AMP " +
			"takes them (6 rows, 16 inner, 16 columns for f16). A `partial` output holds each inner tile's " +
			"f32 partial sums.",
		Example: "tileasm.amp %0, %1, %2 {blocks = array<i64: 31, 48, 8>, plan = #gemm_plan, superstep = 1 : i64} : " +
			"tensor<729x1152xf16, #layout>, tensor<1152x3456xf16, #layout1>, tensor<3x729x3456xf32, #layout2>",
		Operands: []ir.ValueDef{buffers},
		Attributes: []ir.AttrDef{{Name: tiled.PlanAttrName, Kind: tiled.PlanAttrKind}, {Name: BlocksAttr, Kind: ir.DenseI64ArrayKind},
			{Name: tiled.PartialAttrName, Kind: ir.UnitAttrKind, Optional: true},
			{Name: tiled.PartialsTypeAttrName, Kind: ir.TypeAttrKind, Optional: true, Doc: "the type the AMP keeps partial sums in between blocks of inputs: f32 (the default) or f16"}, superstep},
		AssemblyFormat: "$buffers attr-dict `:` type($buffers)",
		VerifyEnv:      verifyAmp,
	}

	// VectorOp is tileasm.vector.
	VectorOp = &ir.OpDef{
		Name:           VectorOpName,
		Summary:        "An elementwise function on the vector unit, over each tile's shards.",
		Description:    "Operands: the inputs, then the output. `fn` is a tiled.elementwise function.",
		Example:        "tileasm.vector exp %4, %5 {superstep = 3 : i64} : tensor<16x729x729xf16, #layout>, tensor<16x729x729xf16, #layout>",
		Operands:       []ir.ValueDef{buffers},
		Attributes:     []ir.AttrDef{{Name: tiled.FnAttrName, Kind: ir.StringAttrKind}, superstep},
		AssemblyFormat: "custom<Name>($fn) $buffers attr-dict `:` type($buffers)",
		Verify:         verifyVector,
	}

	// ReduceOp is tileasm.reduce.
	ReduceOp = &ir.OpDef{
		Name:           ReduceOpName,
		Summary:        "A reduction of each tile's shard over axes (tiled.reduce's work).",
		Description:    "Operands: the input, then the output.",
		Example:        "tileasm.reduce max %4, %5 axes = [2] {superstep = 3 : i64} : tensor<16x729x729xf16, #layout>, tensor<16x729x4xf16, #layout1>",
		Operands:       []ir.ValueDef{buffers},
		Attributes:     []ir.AttrDef{{Name: tiled.FnAttrName, Kind: ir.StringAttrKind}, {Name: tiled.AxesAttrName, Kind: ir.DenseI64ArrayKind}, superstep},
		AssemblyFormat: "custom<Name>($fn) $buffers `axes` `=` custom<IndexList>($axes) attr-dict `:` type($buffers)",
		Verify: func(op *ir.Operation) error {
			if err := arity(2, 2)(op); err != nil {
				return err
			}
			return verifyReduce(op)
		},
	}

	// CopyOp is tileasm.copy.
	CopyOp = &ir.OpDef{
		Name:    CopyOpName,
		Summary: "A copy of each tile's shard into another buffer (a local relayout, transpose, reshape or broadcast).",
		Description: "Operands: the inputs, then the output. `kind` is the tiled op whose work it is " +
			"(relayout, transpose, reshape, broadcast, slice, concat, constant); its attributes keep that " +
			"op's (permutation, dimensions, offsets).",
		Example:        "tileasm.copy %6, %7 {kind = \"relayout\", superstep = 5 : i64} : tensor<16x729x729xf16, #layout>, tensor<16x729x729xf16, #layout1>",
		Operands:       []ir.ValueDef{buffers},
		Attributes:     []ir.AttrDef{{Name: KindAttr, Kind: ir.StringAttrKind}, superstep},
		AssemblyFormat: "$buffers attr-dict `:` type($buffers)",
		Verify:         verifyCopy,
	}

	// ExchangeOp is tileasm.exchange.
	ExchangeOp = &ir.OpDef{
		Name:    ExchangeOpName,
		Summary: "The sends and receives of one exchange phase, at their cycles.",
		Description: "Operands: the sources, then the destination. Each tile sends the segments of the " +
			"transfers it is the source of, and receives those it is a destination of, at the schedule's " +
			"cycles; the verifier is exchange.phase's (transfers inside the shards, the schedule valid).",
		Example:        "tileasm.exchange 0 %0, %6 {schedule = #schedule, superstep = 0 : i64, transfers = #transfers} : tensor<729x1152xf16, #layout>, tensor<729x1152xf16, #layout1>",
		Operands:       []ir.ValueDef{buffers},
		Attributes:     append(slices.Clip(exchange.PhaseAttrs), superstep),
		AssemblyFormat: "custom<Int>($phase) $buffers attr-dict `:` type($buffers)",
		VerifyEnv:      verifyExchange,
	}

	// StreamInOp is tileasm.stream_in.
	StreamInOp = &ir.OpDef{
		Name:    StreamInOpName,
		Summary: "Loads a host input from the chip's streaming memory into its buffer.",
		Description: "The operand is the buffer of a host input that the host writes to the chip's streaming " +
			"memory rather than to tiles (a weight of tiled.stream_in): the instruction fills every piece " +
			"of it, in the place of its superstep's exchange, and the buffer is live from this " +
			"instruction's step. It takes as long as the target's streaming transfer of the bytes it " +
			"writes (Target.StreamingCycles).",
		Example:        "tileasm.stream_in %3 {superstep = 1 : i64} : tensor<128x256xf16, #layout>",
		Operands:       []ir.ValueDef{buffers},
		Attributes:     []ir.AttrDef{superstep},
		AssemblyFormat: "$buffers attr-dict `:` type($buffers)",
		Verify: func(op *ir.Operation) error {
			if op.NumOperands() != 1 {
				return fmt.Errorf("takes one buffer, the input it fills; got %d", op.NumOperands())
			}
			if def := op.Operand(0).DefiningOp(); def == nil || !def.Is(BufferOp) || def.Attr(HostInputAttr) == nil {
				return fmt.Errorf("fills a buffer that is a host input (host_input)")
			}
			return nil
		},
	}

	// SyncOp is tileasm.sync.
	SyncOp = &ir.OpDef{
		Name:           SyncOpName,
		Summary:        "An all-tile synchronisation.",
		Example:        "tileasm.sync",
		AssemblyFormat: "attr-dict",
	}

	// MemoryOp is tileasm.memory.
	MemoryOp = &ir.OpDef{
		Name:    MemoryOpName,
		Summary: "Each tile's memory map: support memory placed first, and no two live buffers overlapping.",
		Description: "`code_bytes`, `exchange_table_bytes` and `host_code_bytes` are each tile's code, " +
			"exchange tables and host-exchange code; `support` is where they sit (one block per tile, at " +
			"the bottom of a class that may hold code, live throughout). The verifier checks every tile: the support block inside its class, " +
			"and no two buffers of the block (support included) that are live in the same superstep " +
			"overlapping (target/storage.Check).",
		Example: "tileasm.memory {code_bytes = #tileasm.per_tile<[[0, 1471, 3512]]>, exchange_table_bytes = #tileasm.per_tile<[[0, 1471, 4460]]>, host_code_bytes = #tileasm.per_tile<[[0, 1471, 176]]>, support = #tileasm.per_tile<[[0, 1471, 0]]>}",
		Attributes: []ir.AttrDef{{Name: CodeBytesAttr, Kind: perTileKind}, {Name: ExchangeTableBytesAttr, Kind: perTileKind},
			{Name: HostCodeBytesAttr, Kind: perTileKind}, {Name: SupportAttr, Kind: perTileKind}},
		AssemblyFormat: "attr-dict",
		VerifyEnv:      verifyMemory,
	}
)

// Dialect is the tile-asm dialect.
var Dialect = &ir.Dialect{
	Name:    Name,
	Summary: "Per-tile programs with placed storage: buffers, instructions, exchanges, syncs.",
	Description: "Step 4 of the lowering pipeline: one body for all tiles, per-tile addresses and sizes as " +
		"run-length data, support memory (code, exchange tables) placed first.",
	Ops: []*ir.OpDef{BufferOp, ViewOp, AmpOp, VectorOp, ReduceOp, CopyOp, ExchangeOp, StreamInOp, SyncOp, MemoryOp},
	Attrs: []*ir.AttrDecl{
		{Mnemonic: PerTileMnemonic, Summary: "An integer per tile, run-length encoded (see PerTileAttr).",
			Syntax: "#tileasm.per_tile<[[first_tile, last_tile, value], ...]>", Parse: parsePerTile},
	},
	Directives: map[string]*ir.CustomDirective{"Int": ir.IntDirective, "IndexList": ir.IndexListDirective, "Name": tiled.NameDirective},
}

// AliasName makes per-tile values print through `#per_tile` aliases.
func (*PerTileAttr) AliasName() (string, bool) { return "per_tile", true }

func arity(least, most int) func(*ir.Operation) error {
	return func(op *ir.Operation) error {
		if n := op.NumOperands(); n < least || (most >= 0 && n > most) {
			if most == least {
				return fmt.Errorf("takes %d buffers, got %d", least, n)
			}
			return fmt.Errorf("takes %d or more buffers, got %d", least, n)
		}
		return nil
	}
}

func targetOf(env *ir.Env) (*target.Target, error) {
	tg, ok := irtarget.FromEnv(env)
	if !ok {
		return nil, fmt.Errorf("needs the module's target: the module has no '%s' attribute naming one (known targets: %s)",
			irtarget.ModuleAttr, strings.Join(target.Names(), ", "))
	}
	return tg, nil
}

// Live returns a buffer's lifetime as storage counts it.
func Live(op *ir.Operation) (int, int) {
	d := op.Attr(LiveAttr).(*ir.DenseArrayAttr).Ints
	end := int(d[1])
	if d[1] < 0 {
		end = storage.Forever
	}
	return int(d[0]), end
}

// ShardBytes returns a buffer's bytes on each tile holding a shard (a
// splat constant's is one element).
func ShardBytes(op *ir.Operation, tg *target.Target) (*layout.ShardMap, func(tile int64) int64, error) {
	rt := op.Result(0).Type().(*ir.RankedTensorType)
	l, _ := tiled.LayoutOf(rt)
	m, err := tiled.CheckLayout(l, rt, tg)
	if err != nil {
		return nil, nil, err
	}
	et, err := tiled.ElemTypeOf(rt.Elem)
	if err != nil {
		return nil, nil, err
	}
	splat := false
	if d, ok := op.Attr(InitAttr).(*ir.DenseElementsAttr); ok {
		splat = d.Splat
	}
	return m, func(tile int64) int64 {
		n := int64(1)
		if !splat {
			shard, _ := m.OnTile(tile)
			for _, e := range shard.Extents {
				n *= e.PhysicalSize()
			}
		}
		b, _ := tg.BytesFor(n, et)
		return b
	}, nil
}

func verifyBuffer(op *ir.Operation, env *ir.Env) error {
	// Older programs named output streams on their buffers; the outputs
	// are the function's results now, so such a program would lose them.
	if op.Attr("host_output") != nil {
		return fmt.Errorf("'host_output' is not a buffer's attribute: the host reads the output streams from the values the function returns (func.return)")
	}
	if op.Attr(HostInputAttr) != nil && op.Attr(InitAttr) != nil {
		return fmt.Errorf("a host input cannot have an initial value ('init')")
	}
	tg, err := targetOf(env)
	if err != nil {
		return err
	}
	m, bytesOn, err := ShardBytes(op, tg)
	if err != nil {
		return fmt.Errorf("layout is not valid: %v", err)
	}
	class, err := tg.ClassByName(m.Layout.MemoryClass)
	if err != nil {
		return err
	}
	if init, ok := op.Attr(InitAttr).(ir.TypedAttr); ok {
		it, ok := init.Type().(*ir.RankedTensorType)
		rt := op.Result(0).Type().(*ir.RankedTensorType)
		if !ok || !slices.Equal(it.Dims, rt.Dims) || it.Elem != rt.Elem {
			return fmt.Errorf("'init' has type %s, which is not the buffer's shape and element type", ir.TypeString(init.Type()))
		}
	}
	pl := op.Attr(PlacementAttr).(*PerTileAttr)
	tiles := m.Tiles()
	if pl.Tiles() != int64(len(tiles)) {
		return fmt.Errorf("is placed on %d tiles but its layout puts shards on %d", pl.Tiles(), len(tiles))
	}
	for _, tile := range tiles {
		addr, ok := pl.At(tile)
		if !ok {
			return fmt.Errorf("tile %d holds a shard but the buffer has no address there", tile)
		}
		if b := bytesOn(tile); addr < class.Start || addr+b > class.End {
			return fmt.Errorf("on tile %d at [%d, %d) it leaves %s [%d, %d)", tile, addr, addr+b, class.Name, class.Start, class.End)
		}
		if addr%class.Alignment != 0 {
			return fmt.Errorf("on tile %d at %d it is not aligned to %s's %d bytes", tile, addr, class.Name, class.Alignment)
		}
	}
	return nil
}

func verifyExchange(op *ir.Operation, env *ir.Env) error {
	return exchange.VerifyPhase(op, op.Operands()[:op.NumOperands()-1], op.Operand(op.NumOperands()-1), env)
}

// SupportClass is the class the support memory goes in: the first that
// may hold code.
func SupportClass(tg *target.Target) (target.MemoryClass, error) {
	for _, c := range tg.MemoryClasses {
		if c.HoldsCode {
			return c, nil
		}
	}
	return target.MemoryClass{}, fmt.Errorf("target %s has no memory class that may hold code", tg.Name)
}

// TileBuffers returns, for each tile, the buffers of the block holding op
// (support memory first) as target/storage sees them, with their
// addresses.
func TileBuffers(op *ir.Operation, tg *target.Target) ([][]storage.Buffer, [][]int64, error) {
	class, err := SupportClass(tg)
	if err != nil {
		return nil, nil, err
	}
	bufs := make([][]storage.Buffer, tg.Tiles)
	addrs := make([][]int64, tg.Tiles)
	support := op.Attr(SupportAttr).(*PerTileAttr)
	for tile := range tg.Tiles {
		n := SupportBytes(op, int64(tile))
		if n == 0 {
			continue
		}
		a, ok := support.At(int64(tile))
		if !ok {
			return nil, nil, fmt.Errorf("tile %d has %d bytes of code and exchange tables but no support address", tile, n)
		}
		bufs[tile] = append(bufs[tile], storage.Buffer{Name: "support memory", Class: class.Name, Bytes: n, End: storage.Forever})
		addrs[tile] = append(addrs[tile], a)
	}
	for _, o := range op.Block().Ops() {
		if !o.Is(BufferOp) {
			continue
		}
		m, bytesOn, err := ShardBytes(o, tg)
		if err != nil {
			return nil, nil, err
		}
		start, end := Live(o)
		name := o.Attr(NameAttr).(*ir.StringAttr).Val
		pl := o.Attr(PlacementAttr).(*PerTileAttr)
		for _, tile := range m.Tiles() {
			a, ok := pl.At(tile)
			if !ok {
				continue // the buffer's verifier says so
			}
			bufs[tile] = append(bufs[tile], storage.Buffer{Name: name, Class: m.Layout.MemoryClass, Bytes: bytesOn(tile), Start: start, End: end})
			addrs[tile] = append(addrs[tile], a)
		}
	}
	return bufs, addrs, nil
}

// SupportBytes is a tile's support memory in a tileasm.memory op: code,
// exchange tables and host-exchange code.
func SupportBytes(op *ir.Operation, tile int64) int64 {
	n := int64(0)
	for _, name := range []string{CodeBytesAttr, ExchangeTableBytesAttr, HostCodeBytesAttr} {
		v, _ := op.Attr(name).(*PerTileAttr).At(tile)
		n += v
	}
	return n
}

func verifyMemory(op *ir.Operation, env *ir.Env) error {
	tg, err := targetOf(env)
	if err != nil {
		return err
	}
	bufs, addrs, err := TileBuffers(op, tg)
	if err != nil {
		return err
	}
	for tile := range bufs {
		if err := storage.Check(tg, tile, bufs[tile], addrs[tile]); err != nil {
			return err
		}
	}
	for _, rule := range []func(*ir.Operation) error{checkLiveAtUses, checkStreams, checkSupersteps} {
		if err := rule(op); err != nil {
			return err
		}
	}
	return nil
}

// IsInstruction says whether op is one of the program's steps: an
// instruction (it runs in a superstep).
func IsInstruction(op *ir.Operation) bool {
	return op.Is(AmpOp, VectorOp, ReduceOp, CopyOp, ExchangeOp, StreamInOp)
}

// checkLiveAtUses checks that every buffer an instruction reads or writes
// (through views) is live in the instruction's step: the instructions in
// order are the steps the buffers' lifetimes count.
func checkLiveAtUses(memory *ir.Operation) error {
	step := 0
	var stack []*ir.Value
	seen := map[*ir.Value]bool{}
	for _, op := range memory.Block().Ops() {
		if !IsInstruction(op) {
			continue
		}
		stack = append(stack[:0], op.Operands()...)
		clear(seen)
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[v] {
				continue
			}
			seen[v] = true
			def := v.DefiningOp()
			switch {
			case def == nil:
			case def.Is(ViewOp):
				stack = append(stack, def.Operands()...)
			case def.Is(BufferOp):
				if start, end := Live(def); step < start || step >= end {
					name := def.Attr(NameAttr).(*ir.StringAttr).Val
					return fmt.Errorf("buffer %s is live in steps %s, but %s (step %d) uses it",
						name, storage.Steps(storage.Buffer{Start: start, End: end}), op.Name(), step)
				}
			}
		}
		step++
	}
	return nil
}
