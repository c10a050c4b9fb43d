package tiled

import (
	"fmt"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/target/storage"
)

// ValueBuffers gives every laid-out value of fn, on each tile holding a
// shard of it, a buffer of the shard's bytes in the layout's memory class,
// and returns them by tile. time numbers the ops of fn's body (the
// tiled level counts ops in order; the exchange level, supersteps); ops it
// gives no time are not program steps (the return, syncs). A value is live
// from its producer's time (0 for an argument, which the host writes
// before the program runs) to just after its last reader's; a returned
// value, which the host reads after the program, to the end. A splat
// constant is one element per tile, written when its op runs; any other
// constant is loaded with the program, so it is live from the start. A value that only sees its operands'
// memory anew (Aliases: a free reshape, transpose, slice, concat or
// broadcast view) has no buffer: it keeps its operands' buffers live as
// long as it is read.
//
// Each buffer's ID indexes the values returned beside them; its name is
// what reports call its value (ir.DescribeValue).
func ValueBuffers(fn *ir.Operation, tg *target.Target, time func(*ir.Operation) (int, bool)) ([][]storage.Buffer, []*ir.Value, error) {
	out := make([][]storage.Buffer, tg.Tiles)
	var values []*ir.Value
	if fn.NumRegions() == 0 || fn.Region(0).Empty() {
		return out, nil, nil
	}
	entry := fn.Region(0).Front()
	var lastUse func(v *ir.Value) int
	lastUse = func(v *ir.Value) int {
		end := 0
		v.Uses(func(u *ir.OpOperand) {
			o := u.Owner()
			switch s, ok := time(o); {
			case ok && o.NumResults() == 1 && Aliases(o, tg):
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
		l, ok := LayoutOf(rt)
		if !ok {
			return nil
		}
		m, err := CheckLayout(l, rt, tg)
		if err != nil {
			return at.EmitOpError("%s: %v", name, err)
		}
		et, err := ElemTypeOf(rt.Elem)
		if err != nil {
			return at.EmitOpError("%s: %v", name, err)
		}
		end := max(start+1, lastUse(v))
		splat := false
		if def := v.DefiningOp(); def != nil && def.Is(ConstantOp) {
			d, ok := def.Attr(ValueAttrName).(*ir.DenseElementsAttr)
			splat = ok && d.Splat
			if !splat {
				start = 0 // loaded with the program
			}
		}
		id := len(values)
		values = append(values, v)
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
			out[tile] = append(out[tile], storage.Buffer{Name: name, Class: l.MemoryClass, Bytes: bytes, ID: id, Start: start, End: end})
		}
		return nil
	}
	for _, arg := range entry.Arguments() {
		if err := add(arg, ir.DescribeValue(arg), 0, fn); err != nil {
			return nil, nil, err
		}
	}
	for _, op := range entry.Ops() {
		s, ok := time(op)
		if !ok || Aliases(op, tg) {
			continue
		}
		for _, r := range op.Results() {
			if err := add(r, ir.DescribeValue(r), s, op); err != nil {
				return nil, nil, err
			}
		}
	}
	return out, values, nil
}

// SupportReserve is the buffer a tile keeps for its support memory before
// code is sized (target.SupportReserveBytes, in the class that holds
// code), live throughout.
func SupportReserve(tg *target.Target) (storage.Buffer, error) {
	for _, c := range tg.MemoryClasses {
		if c.HoldsCode {
			return storage.Buffer{Name: "support memory (reserved)", Class: c.Name, Bytes: tg.SupportReserveBytes, ID: -1, End: storage.Forever}, nil
		}
	}
	return storage.Buffer{}, fmt.Errorf("target %s has no memory class that may hold code", tg.Name)
}
