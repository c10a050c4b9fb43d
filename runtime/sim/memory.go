package sim

import (
	"fmt"
	"slices"

	"github.com/ipuir/ipuir/runtime/ipupkg"
)

// granule is the unit of memory whose writer the simulator records: the
// smallest alignment of any class, so no two buffers share one.
const granule = 8

// tileMemory is what one tile's package uses of its SRAM: per memory
// class, the bytes from the lowest address any buffer or support block
// there takes to the highest, and who last wrote each granule of them (a
// buffer's index + 1; 0: no one). A tile holds what its classes hold, not
// a span from byte 0: on ipu21 the interleaved class starts at 512 KiB,
// and a span would give every tile the unused top of its standard class.
type tileMemory struct {
	regions []region // disjoint, in address order
}

// region is one used range of a tile's addresses.
type region struct {
	lo, hi int64  // [lo, hi), lo a multiple of granule
	bytes  []byte // hi-lo bytes
	tags   tags   // one per granule from lo
}

// tags are the writer of each granule, in the narrowest integer that
// holds the package's buffer count: a package of 61 buffers spends one
// byte per 8-byte granule, not four.
type tags struct {
	w8  []uint8
	w16 []uint16
	w32 []uint32
}

// tagBytes is the width of one tag for a package of n buffers.
func tagBytes(n int) int {
	switch {
	case n < 1<<8-1:
		return 1
	case n < 1<<16-1:
		return 2
	}
	return 4
}

func (t *tags) get(g int64) uint32 {
	switch {
	case t.w8 != nil:
		return uint32(t.w8[g])
	case t.w16 != nil:
		return uint32(t.w16[g])
	}
	return t.w32[g]
}

// set records id as the writer of granules [lo, hi).
func (t *tags) set(lo, hi int64, id uint32) {
	switch {
	case t.w8 != nil:
		s := t.w8[lo:hi]
		for i := range s {
			s[i] = uint8(id)
		}
	case t.w16 != nil:
		s := t.w16[lo:hi]
		for i := range s {
			s[i] = uint16(id)
		}
	default:
		s := t.w32[lo:hi]
		for i := range s {
			s[i] = id
		}
	}
}

// other returns the first granule of [lo, hi) that id did not write, and
// its writer; ok when there is none.
func (t *tags) other(lo, hi int64, id uint32) (g int64, w uint32, ok bool) {
	switch {
	case t.w8 != nil:
		for i, v := range t.w8[lo:hi] {
			if uint32(v) != id {
				return lo + int64(i), uint32(v), false
			}
		}
	case t.w16 != nil:
		for i, v := range t.w16[lo:hi] {
			if uint32(v) != id {
				return lo + int64(i), uint32(v), false
			}
		}
	default:
		for i, v := range t.w32[lo:hi] {
			if v != id {
				return lo + int64(i), v, false
			}
		}
	}
	return 0, 0, true
}

// span is a range of a tile's memory: its bytes and their granules' tags.
type span struct {
	bytes []byte
	tags  *tags
	base  int64 // the region's first address
	off   int64 // bytes[0]'s offset in the region
}

// at returns the n bytes from addr; the caller (rowAddress, the
// package's validation) has checked that they lie in one buffer's piece,
// so in one region.
func (m *tileMemory) at(addr, n int64) (span, error) {
	for i := range m.regions {
		r := &m.regions[i]
		if addr >= r.lo && addr+n <= r.hi && n > 0 {
			off := addr - r.lo
			return span{bytes: r.bytes[off : off+n], tags: &r.tags, base: r.lo, off: off}, nil
		}
	}
	return span{}, fmt.Errorf("[%d, %d) is outside the memory the package uses on the tile", addr, addr+n)
}

// granules is the range of granules sp covers, from its region's start.
func (sp span) granules() (lo, hi int64) {
	return sp.off / granule, (sp.off+int64(len(sp.bytes))-1)/granule + 1
}

// written records buffer b as the writer of sp.
func (sp span) written(b int) {
	lo, hi := sp.granules()
	sp.tags.set(lo, hi, uint32(b+1))
}

// check says who wrote sp when buffer b did not write all of it.
func (sp span) check(p *ipupkg.Package, b int, verb string) error {
	lo, hi := sp.granules()
	g, w, ok := sp.tags.other(lo, hi, uint32(b+1))
	if ok {
		return nil
	}
	at := sp.base + max(sp.off, g*granule)
	if w == 0 {
		return fmt.Errorf("%s buffer %s at address %d, which no one wrote", verb, p.Buffers[b].Name, at)
	}
	return fmt.Errorf("%s buffer %s at address %d, which buffer %s overwrote", verb, p.Buffers[b].Name, at, p.Buffers[w-1].Name)
}

// extent is a used address range of one tile.
type extent struct{ lo, hi int64 }

// usedExtents is, per tile, the range each memory class's buffers and
// support block take, overlapping ranges merged.
func usedExtents(p *ipupkg.Package) [][]extent {
	perClass := make([][]extent, p.Tiles) // tile → class → extent
	for t := range perClass {
		perClass[t] = make([]extent, len(p.Classes))
	}
	add := func(tile int, lo, hi int64) {
		if hi <= lo {
			return
		}
		for k, c := range p.Classes {
			if lo >= c.Start && hi <= c.End {
				e := &perClass[tile][k]
				if e.hi == e.lo {
					*e = extent{lo, hi}
				} else {
					*e = extent{min(e.lo, lo), max(e.hi, hi)}
				}
				return
			}
		}
	}
	for t, im := range p.TileImages {
		add(t, im.SupportAddress, im.SupportAddress+im.SupportBytes())
	}
	for _, buf := range p.Buffers {
		if len(buf.ViewOf) > 0 {
			continue
		}
		for _, pc := range buf.Pieces {
			add(pc.Tile, pc.Address, pc.Address+pc.Bytes)
		}
	}
	out := make([][]extent, p.Tiles)
	for t, es := range perClass {
		var used []extent
		for _, e := range es {
			if e.hi > e.lo {
				used = append(used, extent{e.lo - e.lo%granule, e.hi})
			}
		}
		slices.SortFunc(used, func(a, b extent) int { return int(a.lo - b.lo) })
		for _, e := range used {
			if n := len(out[t]); n > 0 && e.lo <= out[t][n-1].hi {
				out[t][n-1].hi = max(out[t][n-1].hi, e.hi)
				continue
			}
			out[t] = append(out[t], e)
		}
	}
	return out
}

// newMemories gives every tile its regions, carved from one arena outside
// Go's heap (so the collector neither scans nor paces on the chip's
// memory, and pages no one touches cost nothing), with tags wide enough
// for buffers buffers.
func newMemories(p *ipupkg.Package, buffers int) ([]tileMemory, *arena, error) {
	ext := usedExtents(p)
	w := int64(tagBytes(buffers))
	total := int64(0)
	for _, es := range ext {
		for _, e := range es {
			total += alignUp(e.hi-e.lo, granule) + alignUp((e.hi-e.lo+granule-1)/granule*w, granule)
		}
	}
	a, err := newArena(total)
	if err != nil {
		return nil, nil, fmt.Errorf("the simulated tiles' %d bytes of memory: %v", total, err)
	}
	mem := make([]tileMemory, p.Tiles)
	for t, es := range ext {
		mem[t].regions = make([]region, len(es))
		for i, e := range es {
			n := e.hi - e.lo
			g := (n + granule - 1) / granule
			r := region{lo: e.lo, hi: e.hi, bytes: a.take(n)}
			switch w {
			case 1:
				r.tags.w8 = a.take(g)
			case 2:
				r.tags.w16 = takeAs[uint16](a, g)
			default:
				r.tags.w32 = takeAs[uint32](a, g)
			}
			mem[t].regions[i] = r
		}
	}
	return mem, a, nil
}

func alignUp(n, m int64) int64 { return (n + m - 1) / m * m }

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
	if f.Tile < 0 { // the whole chip's (a load from streaming memory)
		return fmt.Sprintf("device fault: cycle %d, instruction %d (%s): %s", f.Cycle, f.Instruction, f.Op, f.Msg)
	}
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
