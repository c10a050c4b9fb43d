// Package exchangetotileasm lowers the exchange-level program to per-tile
// programs. Its first piece is storage: every laid-out value becomes, on
// each tile holding a shard of it, a buffer of the shard's bytes in the
// layout's memory class, live from the step (instruction) that writes it to
// the last one that reads it (target/storage places them).
package exchangetotileasm

import (
	"github.com/ipuir/ipuir/dialects/exchange"
	"github.com/ipuir/ipuir/dialects/tiled"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/target/storage"
)

// TileStorage is one tile's buffers and their placement.
type TileStorage struct {
	Tile      int
	Buffers   []storage.Buffer
	Placement storage.Placement
}

// superstepOf reads the exchange.superstep an op was given by the
// exchange lowering.
func superstepOf(op *ir.Operation) (int, bool) {
	a, ok := op.Attr(exchange.SuperstepAttr).(*ir.IntegerAttr)
	if !ok {
		return 0, false
	}
	return int(a.Int), true
}

// isInstruction says whether op becomes a tile-asm instruction: a phase,
// or a tiled op that computes or copies (not a view, not a constant).
func isInstruction(op *ir.Operation, tg *target.Target) bool {
	if op.Is(exchange.PhaseOp) {
		return true
	}
	return op.Def() != nil && op.Def().Dialect() == tiled.Dialect && !op.Is(tiled.ConstantOp) && !tiled.Aliases(op, tg)
}

// steps numbers fn's ops as the program's steps, the tile-asm
// instructions in order: an instruction's step is its index; a view or a
// constant takes the step of the instruction after it (a splat constant is
// written as that step starts); syncs and the return are not steps.
// Storage lives over steps, which are finer than supersteps: a value made
// and consumed inside one superstep frees its space for the next op.
func steps(fn *ir.Operation, tg *target.Target) func(*ir.Operation) (int, bool) {
	at := map[*ir.Operation]int{}
	n := 0
	for _, op := range fn.Region(0).Front().Ops() {
		if op.Is(exchange.SyncOp) || op.HasTrait(ir.TraitReturnLike) {
			continue
		}
		at[op] = n
		if isInstruction(op, tg) {
			n++
		}
	}
	return func(op *ir.Operation) (int, bool) { s, ok := at[op]; return s, ok }
}

// PlaceStorage places the buffers of fn, a function at the exchange level,
// on every tile of tg (tiled.ValueBuffers, timed by steps).
func PlaceStorage(fn *ir.Operation, tg *target.Target) ([]TileStorage, error) {
	bufs, _, err := tiled.ValueBuffers(fn, tg, steps(fn, tg))
	if err != nil {
		return nil, err
	}
	placements, err := storage.PlaceAll(tg, bufs)
	if err != nil {
		return nil, fn.EmitOpError("storage placement: %v", err).WithCause(err)
	}
	tiles := make([]TileStorage, tg.Tiles)
	for i := range tiles {
		tiles[i] = TileStorage{Tile: i, Buffers: bufs[i], Placement: placements[i]}
	}
	return tiles, nil
}
