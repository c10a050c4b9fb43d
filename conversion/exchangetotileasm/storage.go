// Package exchangetotileasm lowers the exchange-level program to per-tile
// programs. Its first piece is storage: every laid-out value becomes, on
// each tile holding a shard of it, a buffer of the shard's bytes in the
// layout's memory class, live from the superstep that writes it to the
// last one that reads it (target/storage places them).
package exchangetotileasm

import (
	"fmt"

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
// on every tile of tg. A value is live from its producer's superstep (0
// for an argument, which the host writes before the program runs) to the
// last superstep that reads it; a returned value, which the host reads
// after the program, to the end. A splat constant is one element per tile.
// A value that only sees its operands' memory anew (tiled.Aliases: a free
// reshape, transpose, slice or concat) has no buffer: it keeps its
// operands' buffers live as long as it is read.
func PlaceStorage(fn *ir.Operation, tg *target.Target) ([]TileStorage, error) {
	if fn.NumRegions() == 0 || fn.Region(0).Empty() {
		return nil, nil
	}
	entry := fn.Region(0).Front()
	tiles := make([]TileStorage, tg.Tiles)
	for i := range tiles {
		tiles[i].Tile = i
	}
	// lastUse is the superstep after the last read of v or of any alias of
	// it; storage.Forever when one is returned.
	var lastUse func(v *ir.Value) int
	lastUse = func(v *ir.Value) int {
		end := 0
		v.Uses(func(u *ir.OpOperand) {
			o := u.Owner()
			switch s, ok := superstepOf(o); {
			case ok && o.NumResults() == 1 && tiled.Aliases(o, tg):
				end = max(end, s+1, lastUse(o.Result(0)))
			case ok:
				end = max(end, s+1)
			case o.HasTrait(ir.TraitReturnLike):
				end = storage.Forever
			}
		})
		return end
	}
	add := func(v *ir.Value, name string, start int, at *ir.Operation) error {
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
			return at.EmitOpError("%s: %v", name, err)
		}
		et, err := tiled.ElemTypeOf(rt.Elem)
		if err != nil {
			return at.EmitOpError("%s: %v", name, err)
		}
		end := max(start+1, lastUse(v))
		splat := false
		if def := v.DefiningOp(); def != nil && def.Is(tiled.ConstantOp) {
			d, ok := def.Attr(tiled.ValueAttrName).(*ir.DenseElementsAttr)
			splat = ok && d.Splat
		}
		for _, tile := range m.Tiles() {
			shard, _ := m.OnTile(tile)
			n := int64(1)
			if !splat {
				for _, e := range shard.Extents {
					n *= e.PhysicalSize()
				}
			}
			bytes, err := tg.BytesFor(n, et)
			if err != nil {
				return at.EmitOpError("%s: %v", name, err)
			}
			tiles[tile].Buffers = append(tiles[tile].Buffers, storage.Buffer{Name: name, Class: l.MemoryClass,
				Bytes: bytes, Start: start, End: end})
		}
		return nil
	}
	for i, arg := range entry.Arguments() {
		if err := add(arg, fmt.Sprintf("argument %d", i), 0, fn); err != nil {
			return nil, err
		}
	}
	n := 0
	for _, op := range entry.Ops() {
		s, ok := superstepOf(op)
		if !ok || tiled.Aliases(op, tg) {
			continue
		}
		for _, r := range op.Results() {
			if err := add(r, fmt.Sprintf("%%%d (%s)", n, op.Name()), s, op); err != nil {
				return nil, err
			}
			n++
		}
	}
	for i := range tiles {
		p, err := storage.Place(tg, i, tiles[i].Buffers)
		if err != nil {
			return nil, fn.EmitOpError("storage placement: %v", err)
		}
		tiles[i].Placement = p
	}
	return tiles, nil
}
