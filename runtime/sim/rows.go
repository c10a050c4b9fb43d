package sim

import (
	"fmt"
	"slices"

	"github.com/ipuir/ipuir/numeric"
	"github.com/ipuir/ipuir/runtime/ipupkg"
)

// Rows are the fast path: elements along a tensor's last axis are
// consecutive in a piece (row-major storage), so a row is read or written
// with one range check and one writer check, and a view whose mapping
// keeps a row consecutive in one source reads it from there in one piece.

// readRow reads n elements of buffer b on tile from idx along the last
// axis into dst.
func (r *reader) readRow(b, tile int, idx []int64, n int, dst []float64) error {
	if n == 0 {
		return nil
	}
	if len(idx) == 0 {
		v, err := r.read(b, tile, idx)
		dst[0] = v
		return err
	}
	d := r.s.d
	buf := &d.pkg.Buffers[b]
	if len(idx) != len(buf.Shape) {
		return fmt.Errorf("reads buffer %s (rank %d) at a rank-%d index", buf.Name, len(buf.Shape), len(idx))
	}
	last := len(idx) - 1
	if m := r.s.views[b]; m != nil {
		return r.readRowVia(m, tile, idx, n, dst)
	}
	if buf.Init != nil && buf.Init.Splat {
		at := slices.Clone(idx)
		for k := range n {
			at[last] = idx[last] + int64(k)
			v, err := r.read(b, tile, at)
			if err != nil {
				return err
			}
			dst[k] = v
		}
		return nil
	}
	pc, addr, c, err := d.rowAddress(b, tile, idx, n, "reads")
	if err != nil {
		return err
	}
	m := &d.mem[tile]
	end := addr + int64(n*c.Bytes)
	for g := addr / granule; g <= (end-1)/granule; g++ {
		if w := m.writer[g]; int(w) != b+1 {
			at := max(addr, g*granule)
			if w == 0 {
				return fmt.Errorf("reads buffer %s at address %d, which no one wrote", buf.Name, at)
			}
			return fmt.Errorf("reads buffer %s at address %d, which buffer %s overwrote", buf.Name, at, d.pkg.Buffers[w-1].Name)
		}
	}
	_ = pc
	c.LoadRow(m.bytes[addr:end], dst[:n])
	return nil
}

// readRowVia reads a row through a mapping: from one source in one piece
// when the mapping keeps it consecutive there, element by element
// otherwise.
func (r *reader) readRowVia(m *mapping, tile int, idx []int64, n int, dst []float64) error {
	// Scratch per level of views, so that a view of a view keeps its own.
	f := r.frame(max(m.rank, len(idx)))
	r.depth++
	defer func() { r.depth-- }()
	if len(idx) == 0 {
		j, src := m.at(idx, f[0][:m.rank])
		v, err := r.read(m.srcs[j], tile, src)
		dst[0] = v
		return err
	}
	last := len(idx) - 1
	end := f[2][:len(idx)]
	copy(end, idx)
	end[last] += int64(n - 1)
	j0, s0 := m.at(idx, f[0][:m.rank])
	j1, s1 := m.at(end, f[1][:m.rank])
	if j0 == j1 && consecutive(s0, s1, n) {
		return r.readRow(m.srcs[j0], tile, s0, n, dst)
	}
	at := f[2][:len(idx)]
	copy(at, idx)
	// Element by element (a transpose moves the last axis): straight from
	// the source's piece when the source is stored, through read otherwise.
	d := r.s.d
	for k := range n {
		at[last] = idx[last] + int64(k)
		j, src := m.at(at, f[1][:m.rank])
		b := m.srcs[j]
		if r.s.views[b] == nil {
			if v, ok := d.fastGet(b, tile, src); ok {
				dst[k] = v
				continue
			}
		}
		v, err := r.read(b, tile, src)
		if err != nil {
			return err
		}
		dst[k] = v
	}
	return nil
}

// fastGet reads one element of a stored (not splat) buffer when every
// check passes; otherwise read says what is wrong.
func (d *Device) fastGet(b, tile int, idx []int64) (float64, bool) {
	buf := &d.pkg.Buffers[b]
	k := d.pieceOn[b][tile]
	if k < 0 || len(idx) != len(buf.Shape) || (buf.Init != nil && buf.Init.Splat) {
		return 0, false
	}
	pc := &buf.Pieces[k]
	if !contains(pc.Box, idx) {
		return 0, false
	}
	c := numeric.CodecOf(buf.Elem)
	addr := pc.Address + offsetIn(pc.Box, idx)*int64(c.Bytes)
	m := &d.mem[tile]
	if int(m.writer[addr/granule]) != b+1 {
		return 0, false
	}
	return c.Load(m.bytes[addr:]), true
}

// frame returns the scratch of the current view level, three index
// vectors of at least rank entries.
func (r *reader) frame(rank int) *[3][]int64 {
	for len(r.frames) <= r.depth {
		r.frames = append(r.frames, &[3][]int64{})
	}
	f := r.frames[r.depth]
	for i := range f {
		if len(f[i]) < rank {
			f[i] = make([]int64, rank)
		}
	}
	return f
}

// consecutive says whether s1 is s0 moved n-1 along the last axis.
func consecutive(s0, s1 []int64, n int) bool {
	if len(s0) != len(s1) || len(s0) == 0 {
		return false
	}
	last := len(s0) - 1
	for i := range last {
		if s0[i] != s1[i] {
			return false
		}
	}
	return s1[last]-s0[last] == int64(n-1)
}

// rowAddress checks that n elements from idx along the last axis lie in
// the tile's piece of b and returns where they start.
func (d *Device) rowAddress(b, tile int, idx []int64, n int, verb string) (*ipupkg.Piece, int64, numeric.Codec, error) {
	buf := &d.pkg.Buffers[b]
	c := numeric.CodecOf(buf.Elem)
	if len(idx) != len(buf.Shape) || len(buf.ViewOf) > 0 && verb == "writes" {
		return nil, 0, c, fmt.Errorf("%s buffer %s (rank %d) at a rank-%d index, or writes through a view", verb, buf.Name, len(buf.Shape), len(idx))
	}
	k := d.pieceOn[b][tile]
	if k < 0 {
		return nil, 0, c, fmt.Errorf("%s buffer %s on a tile that holds none of it", verb, buf.Name)
	}
	pc := &buf.Pieces[k]
	last := len(idx) - 1
	if !contains(pc.Box, idx) || idx[last]+int64(n) > pc.Box[last].Hi {
		if verb == "writes" {
			return nil, 0, c, fmt.Errorf("writes outside buffer %s: indices %v (+%d along the last axis) are not in the tile's piece %v", buf.Name, idx, n, pc.Box)
		}
		return nil, 0, c, fmt.Errorf("reads indices %v (+%d along the last axis) of buffer %s, which are not in the tile's piece %v", idx, n, buf.Name, pc.Box)
	}
	addr := pc.Address + offsetIn(pc.Box, idx)*int64(c.Bytes)
	if addr+int64(n*c.Bytes) > pc.Address+pc.Bytes {
		return nil, 0, c, fmt.Errorf("%s outside buffer %s: [%d, %d) is past its %d bytes at %d", verb, buf.Name, addr, addr+int64(n*c.Bytes), pc.Bytes, pc.Address)
	}
	return pc, addr, c, nil
}

// writeRow stores n values from idx along the last axis of buffer b.
func (d *Device) writeRow(b, tile int, idx []int64, vals []float64) error {
	n := len(vals)
	if n == 0 {
		return nil
	}
	if len(idx) == 0 {
		return d.write(b, tile, idx, vals[0])
	}
	_, addr, c, err := d.rowAddress(b, tile, idx, n, "writes")
	if err != nil {
		return err
	}
	m := &d.mem[tile]
	end := addr + int64(n*c.Bytes)
	c.StoreRow(m.bytes[addr:end], vals)
	for g := addr / granule; g <= (end-1)/granule; g++ {
		m.writer[g] = int32(b + 1)
	}
	return nil
}

// writeRowRaw stores n elements already encoded in raw (a host stream's
// or a constant's bytes) from idx along the last axis of buffer b.
func (d *Device) writeRowRaw(b, tile int, idx []int64, n int, raw []byte) error {
	if len(idx) == 0 {
		c := numeric.CodecOf(d.pkg.Buffers[b].Elem)
		return d.write(b, tile, idx, c.Load(raw))
	}
	_, addr, c, err := d.rowAddress(b, tile, idx, n, "writes")
	if err != nil {
		return err
	}
	m := &d.mem[tile]
	end := addr + int64(n*c.Bytes)
	copy(m.bytes[addr:end], raw[:n*c.Bytes])
	for g := addr / granule; g <= (end-1)/granule; g++ {
		m.writer[g] = int32(b + 1)
	}
	return nil
}

// forRows calls f with the first index of every row of box (the last
// axis's range is the row).
func forRows(box []ipupkg.Span, f func(idx []int64, n int) error) error {
	if len(box) == 0 {
		return f(nil, 1)
	}
	last := len(box) - 1
	n := int(box[last].Hi - box[last].Lo)
	if n <= 0 {
		return nil
	}
	outer := slices.Clone(box)
	outer[last] = ipupkg.Span{Lo: box[last].Lo, Hi: box[last].Lo + 1}
	return forEach(outer, func(idx []int64) error { return f(idx, n) })
}

// forRange calls f for the row pieces of box's elements [lo, hi) in
// row-major order: each call is n consecutive elements along the last
// axis from idx.
func forRange(box []ipupkg.Span, lo, hi int64, f func(idx []int64, n int) error) error {
	if lo >= hi {
		return nil
	}
	if len(box) == 0 {
		return f(nil, 1)
	}
	last := len(box) - 1
	width := box[last].Hi - box[last].Lo
	if width <= 0 {
		return nil
	}
	idx := make([]int64, len(box))
	for lin := lo; lin < hi; {
		// The index of element lin.
		rest := lin
		for i := last; i >= 0; i-- {
			size := box[i].Hi - box[i].Lo
			idx[i] = box[i].Lo + rest%size
			rest /= size
		}
		n := min(width-(idx[last]-box[last].Lo), hi-lin)
		if err := f(idx, int(n)); err != nil {
			return err
		}
		lin += n
	}
	return nil
}
