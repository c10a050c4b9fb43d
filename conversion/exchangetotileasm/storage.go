// Package exchangetotileasm lowers the exchange-level program to per-tile
// programs. Its first piece is storage: every laid-out value becomes, on
// each tile holding a shard of it, a buffer of the shard's bytes in the
// layout's memory class, live from the superstep that writes it to the
// last one that reads it (target/storage places them).
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

// PlaceStorage places the buffers of fn, a function at the exchange level,
// on every tile of tg (tiled.ValueBuffers, timed by supersteps).
func PlaceStorage(fn *ir.Operation, tg *target.Target) ([]TileStorage, error) {
	bufs, err := tiled.ValueBuffers(fn, tg, superstepOf)
	if err != nil {
		return nil, err
	}
	tiles := make([]TileStorage, tg.Tiles)
	for i := range tiles {
		p, err := storage.Place(tg, i, bufs[i])
		if err != nil {
			return nil, fn.EmitOpError("storage placement: %v", err)
		}
		tiles[i] = TileStorage{Tile: i, Buffers: bufs[i], Placement: p}
	}
	return tiles, nil
}
