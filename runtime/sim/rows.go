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
	sp, c, err := d.storedRow(b, tile, idx, n)
	if err != nil {
		return err
	}
	c.LoadRow(sp.bytes, dst[:n])
	return nil
}

// line is n elements of a stored buffer on one tile, each step bytes after
// the one before (step may be 0, or negative): where a row of a view
// lies in the buffer it sees.
type line struct {
	buf   int
	sp    span // the bytes from the lowest element's to the highest's
	first int64
	step  int64
	n     int
	c     numeric.Codec
}

// at is the bytes of element e.
func (l *line) at(e int) []byte {
	o := l.first + int64(e)*l.step
	return l.sp.bytes[o : o+int64(l.c.Bytes)]
}

// check says who wrote the line's elements when its buffer did not.
func (l *line) check(p *ipupkg.Package) error {
	if l.step == int64(l.c.Bytes) || l.n == 1 {
		return l.sp.check(p, l.buf, "reads")
	}
	for e := range l.n {
		o := l.first + int64(e)*l.step
		el := span{bytes: l.sp.bytes[o : o+int64(l.c.Bytes)], tags: l.sp.tags, base: l.sp.base, off: l.sp.off + o}
		if err := el.check(p, l.buf, "reads"); err != nil {
			return err
		}
	}
	return nil
}

// lineOf finds where n elements of b on tile from idx, each dir after the
// one before (nil: along the last axis), read through m first when it is
// not nil (a copy's mapping), lie in the
// stored buffer they come from. Every movement maps a straight line of
// indices to a straight line where its two ends do (the affine kinds
// always; reshape, whose row-major position is linear and whose operand
// index is the only in-range one with that position; concat, where both
// ends fall in one operand), so each level of views is checked at the
// row's first, second and last element. ok is false where the row is not
// one line of one stored buffer, or it leaves the tile's piece, or its
// buffer did not write it; the element-wise path then says which.
func (r *reader) lineOf(m *mapping, b, tile int, idx, dir []int64, n int) (line, bool) {
	d := r.s.d
	if n < 1 || len(idx) == 0 {
		return line{}, false
	}
	rank := len(idx)
	cur, delta := r.lineScratch(0, rank)
	copy(cur, idx)
	if dir != nil {
		copy(delta, dir)
	} else {
		clear(delta)
		delta[rank-1] = 1
	}
	srcs := []int(nil)
	if m != nil {
		srcs = m.srcs
	}
	for level := 0; ; level++ {
		if level > len(d.pkg.Buffers)+1 {
			return line{}, false
		}
		if m == nil {
			if b < 0 || b >= len(d.pkg.Buffers) {
				return line{}, false
			}
			if m = r.s.views[b]; m != nil {
				srcs = m.srcs
			}
		}
		if m == nil {
			break
		}
		// Map the first, second and last elements.
		f := r.lineFrame(level+1, max(m.rank, len(cur)))
		p1, pe := f[2][:len(cur)], f[3][:len(cur)]
		for i := range cur {
			p1[i] = cur[i] + delta[i]
			pe[i] = cur[i] + int64(n-1)*delta[i]
		}
		next, nd := r.lineScratch(level+1, m.rank)
		j0, t0 := m.at(cur, next)
		if n == 1 {
			clear(nd[:len(t0)])
			cur, delta = t0, nd[:len(t0)]
		} else {
			j1, t1 := m.at(p1, f[4][:m.rank])
			je, te := m.at(pe, f[5][:m.rank])
			if j0 != j1 || j0 != je || len(t1) != len(t0) || len(te) != len(t0) {
				return line{}, false
			}
			nd = nd[:len(t0)]
			for i := range t0 {
				nd[i] = t1[i] - t0[i]
				if te[i] != t0[i]+int64(n-1)*nd[i] {
					return line{}, false
				}
			}
			cur, delta = t0, nd
		}
		b, m = srcs[j0], nil
	}
	buf := &d.pkg.Buffers[b]
	if len(cur) != len(buf.Shape) || buf.Init != nil && buf.Init.Splat {
		return line{}, false
	}
	k := d.pieceOn[b][tile]
	if k < 0 {
		return line{}, false
	}
	pc := &buf.Pieces[k]
	end := make([]int64, len(cur))
	for i := range cur {
		end[i] = cur[i] + int64(n-1)*delta[i]
	}
	if !contains(pc.Box, cur) || !contains(pc.Box, end) {
		return line{}, false
	}
	c := numeric.CodecOf(buf.Elem)
	eb := int64(c.Bytes)
	step, stride := int64(0), int64(1)
	for i := len(pc.Box) - 1; i >= 0; i-- {
		step += delta[i] * stride
		stride *= pc.Box[i].Hi - pc.Box[i].Lo
	}
	step *= eb
	a0 := pc.Address + offsetIn(pc.Box, cur)*eb
	ae := a0 + int64(n-1)*step
	lo, hi := min(a0, ae), max(a0, ae)+eb
	if lo < pc.Address || hi > pc.Address+pc.Bytes {
		return line{}, false
	}
	sp, err := d.mem[tile].at(lo, hi-lo)
	if err != nil {
		return line{}, false
	}
	l := line{buf: b, sp: sp, first: a0 - lo, step: step, n: n, c: c}
	if l.check(d.pkg) != nil {
		return line{}, false
	}
	return l, true
}

// lineScratch is two index vectors of level's scratch, rank entries each:
// the line's start and direction there.
func (r *reader) lineScratch(level, rank int) ([]int64, []int64) {
	f := r.lineFrame(level, rank)
	return f[0][:rank], f[1][:rank]
}

// lineFrame is level's scratch: the start and direction (0, 1), the
// second and last indices (2, 3), and their images (4, 5).
func (r *reader) lineFrame(level, rank int) *[6][]int64 {
	for len(r.lines) <= level {
		r.lines = append(r.lines, &[6][]int64{})
	}
	f := r.lines[level]
	for i := range f {
		if len(f[i]) < rank {
			f[i] = make([]int64, rank)
		}
	}
	return f
}

// readRowVia reads a row through a mapping: from one source in one piece
// when the mapping keeps it consecutive there, element by element
// otherwise.
func (r *reader) readRowVia(m *mapping, tile int, idx []int64, n int, dst []float64) error {
	if l, ok := r.lineOf(m, -1, tile, idx, nil, n); ok {
		if l.step == int64(l.c.Bytes) {
			l.c.LoadRow(l.sp.bytes[l.first:l.first+int64(n*l.c.Bytes)], dst[:n])
			return nil
		}
		for e := range n {
			dst[e] = l.c.Load(l.at(e))
		}
		return nil
	}
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

// storedRow is the memory of n elements of stored (not view, not splat)
// buffer b on tile from idx along the last axis, once it is checked that
// they lie in the tile's piece and that b wrote them.
func (d *Device) storedRow(b, tile int, idx []int64, n int) (span, numeric.Codec, error) {
	_, addr, c, err := d.rowAddress(b, tile, idx, n, "reads")
	if err != nil {
		return span{}, c, err
	}
	sp, err := d.mem[tile].at(addr, int64(n*c.Bytes))
	if err == nil {
		err = sp.check(d.pkg, b, "reads")
	}
	return sp, c, err
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
	sp, err := d.mem[tile].at(addr, int64(c.Bytes))
	if err != nil || sp.check(d.pkg, b, "reads") != nil {
		return 0, false
	}
	return c.Load(sp.bytes), true
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
	if !contains(pc.Box, idx) || last < 0 && n != 1 || last >= 0 && idx[last]+int64(n) > pc.Box[last].Hi {
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
	sp, err := d.mem[tile].at(addr, int64(n*c.Bytes))
	if err != nil {
		return err
	}
	c.StoreRow(sp.bytes, vals)
	sp.written(b)
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
	sp, err := d.mem[tile].at(addr, int64(n*c.Bytes))
	if err != nil {
		return err
	}
	copy(sp.bytes, raw[:n*c.Bytes])
	sp.written(b)
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

// lineAxis is the axis along which box's elements, in row-major order,
// run: the last whose extent is over 1 (the last axis when there is none).
func lineAxis(box []ipupkg.Span) int {
	for i := len(box) - 1; i > 0; i-- {
		if box[i].Hi-box[i].Lo > 1 {
			return i
		}
	}
	return max(len(box)-1, 0)
}

// forLines calls f for the lines of box's elements [lo, hi) in row-major
// order: each call is n consecutive elements along axis (lineAxis(box):
// a box one index deep in its trailing axes runs along an earlier one)
// from idx.
func forLines(box []ipupkg.Span, lo, hi int64, f func(idx []int64, axis, n int) error) error {
	if lo >= hi || len(box) == 0 {
		if lo < hi {
			return f(nil, 0, 1)
		}
		return nil
	}
	axis := lineAxis(box)
	width := box[axis].Hi - box[axis].Lo
	if width <= 0 {
		return nil
	}
	idx := make([]int64, len(box))
	for lin := lo; lin < hi; {
		rest := lin
		for i := len(box) - 1; i >= 0; i-- {
			size := box[i].Hi - box[i].Lo
			idx[i] = box[i].Lo + rest%size
			rest /= size
		}
		n := min(width-(idx[axis]-box[axis].Lo), hi-lin)
		if err := f(idx, axis, int(n)); err != nil {
			return err
		}
		lin += n
	}
	return nil
}

// writeLine stores the elements of l (of b's element type) at n indices
// of stored buffer b on tile from idx along axis, as their bytes. It
// returns false, having written nothing, where they are not all in the
// tile's piece: the element-wise path then says why.
func (d *Device) writeLine(b, tile int, idx []int64, axis int, l *line) (bool, error) {
	buf := &d.pkg.Buffers[b]
	k := d.pieceOn[b][tile]
	if k < 0 || len(buf.ViewOf) > 0 || len(idx) != len(buf.Shape) || buf.Elem != l.c.Elem {
		return false, nil
	}
	pc := &buf.Pieces[k]
	if !contains(pc.Box, idx) || idx[axis]+int64(l.n) > pc.Box[axis].Hi {
		return false, nil
	}
	eb := int64(l.c.Bytes)
	step := eb
	for i := len(pc.Box) - 1; i > axis; i-- {
		step *= pc.Box[i].Hi - pc.Box[i].Lo
	}
	a0 := pc.Address + offsetIn(pc.Box, idx)*eb
	hi := a0 + int64(l.n-1)*step + eb
	if hi > pc.Address+pc.Bytes {
		return false, nil
	}
	sp, err := d.mem[tile].at(a0, hi-a0)
	if err != nil {
		return true, err
	}
	if step == eb && l.step == eb {
		copy(sp.bytes, l.sp.bytes[l.first:l.first+int64(l.n)*eb])
		sp.written(b)
		return true, nil
	}
	for e := range l.n {
		o := int64(e) * step
		el := span{bytes: sp.bytes[o : o+eb], tags: sp.tags, base: sp.base, off: sp.off + o}
		copy(el.bytes, l.at(e))
		el.written(b)
	}
	return true, nil
}
