package sim

import (
	"fmt"

	"github.com/ipuir/ipuir/runtime/ipupkg"
)

// granule is the unit of memory whose writer the simulator records: the
// smallest alignment of any class, so no two buffers share one.
const granule = 8

// tileMemory is one tile's SRAM, up to the highest byte the package uses,
// and who last wrote each granule (buffer index + 1; 0: no one).
type tileMemory struct {
	bytes  []byte
	writer []int32
}

func newTileMemory(size int64) tileMemory {
	return tileMemory{bytes: make([]byte, size), writer: make([]int32, (size+granule-1)/granule)}
}

// Fault is a package doing what no program may: reading memory no one
// wrote (or that another buffer overwrote), writing outside a buffer, or
// breaking its exchange schedule.
type Fault struct {
	Tile        int
	Cycle       int64
	Instruction int
	Op          string
	Msg         string
}

func (f *Fault) Error() string {
	return fmt.Sprintf("device fault: tile %d, cycle %d, instruction %d (%s): %s", f.Tile, f.Cycle, f.Instruction, f.Op, f.Msg)
}

// boxShape is a box's extent per axis.
func boxShape(box []ipupkg.Span) []int {
	out := make([]int, len(box))
	for i, s := range box {
		out[i] = int(s.Hi - s.Lo)
	}
	return out
}

// boxExtents is a box's extent per axis, as the target's cost model
// takes shapes.
func boxExtents(box []ipupkg.Span) []int64 {
	out := make([]int64, len(box))
	for i, s := range box {
		out[i] = s.Hi - s.Lo
	}
	return out
}

func boxElements(box []ipupkg.Span) int64 {
	n := int64(1)
	for _, s := range box {
		n *= s.Hi - s.Lo
	}
	return n
}

func contains(box []ipupkg.Span, idx []int64) bool {
	for i, s := range box {
		if idx[i] < s.Lo || idx[i] >= s.Hi {
			return false
		}
	}
	return true
}

// offsetIn is idx's row-major position inside box (the simulator stores
// each piece's elements row major over its box).
func offsetIn(box []ipupkg.Span, idx []int64) int64 {
	off := int64(0)
	for i, s := range box {
		off = off*(s.Hi-s.Lo) + idx[i] - s.Lo
	}
	return off
}

// forEach calls f with every index of box in row-major order (idx is
// reused between calls).
func forEach(box []ipupkg.Span, f func(idx []int64) error) error {
	if boxElements(box) == 0 {
		return nil
	}
	idx := make([]int64, len(box))
	for i, s := range box {
		idx[i] = s.Lo
	}
	for {
		if err := f(idx); err != nil {
			return err
		}
		k := len(idx) - 1
		for ; k >= 0; k-- {
			idx[k]++
			if idx[k] < box[k].Hi {
				break
			}
			idx[k] = box[k].Lo
		}
		if k < 0 {
			return nil
		}
	}
}
