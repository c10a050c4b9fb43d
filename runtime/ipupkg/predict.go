package ipupkg

import (
	"math"
	"slices"
)

// Version 4's exchange tables store each transfer and segment against a
// prediction from the records before it: a mask says which fields differ
// from their prediction, and only those are written, as their difference
// from it. A phase's transfers are regular (the next tile sends the next
// block to the same tiles), so most cost a byte or two. Predictions:
//   - operand and words: the previous record's;
//   - source tile, a box axis's start, a segment's transfer and start:
//     the previous one plus the step from the one before it;
//   - a box's rank and extents: the previous box's;
//   - destination tiles: the previous transfer's group (its destinations,
//     and its source where it was written as one of them) without this
//     transfer's source.
//
// An explicit destination list is arithmetic progressions (first tile as a
// delta from the previous progression's end, the first from the source;
// stride; length), optionally with the source among them, to be left out
// (all-to-all replication writes the group once).

// transferState is what a transfer's predictions come from.
type transferState struct {
	prev, before Transfer
	group        []int // the previous transfer's group
}

// The mask's bits.
const (
	explicitOperand = 1 << iota
	explicitSrc
	explicitWords
	explicitDst
	explicitRank
	explicitAxes // two bits an axis from here: start, extent
	axesShift    = 5
)

func transferFieldsV4(c *codec, t *Transfer, st *transferState) {
	prev, before := &st.prev, &st.before
	predSrc := int64(2*prev.Src - before.Src)
	axisStart := func(i int) int64 {
		if i >= len(prev.Box) {
			return 0
		}
		lo := prev.Box[i].Lo
		if i < len(before.Box) && len(before.Box) == len(prev.Box) {
			return 2*lo - before.Box[i].Lo
		}
		return lo
	}
	axisExtent := func(i int) int64 {
		if i >= len(prev.Box) {
			return 0
		}
		return prev.Box[i].Hi - prev.Box[i].Lo
	}
	var mask uint64
	if c.writing {
		if t.Operand != prev.Operand {
			mask |= explicitOperand
		}
		if int64(t.Src) != predSrc {
			mask |= explicitSrc
		}
		if t.Words != prev.Words {
			mask |= explicitWords
		}
		if !slices.Equal(t.Dst, without(st.group, t.Src)) {
			mask |= explicitDst
		}
		if len(t.Box) != len(prev.Box) {
			mask |= explicitRank
		}
		for i, s := range t.Box {
			if s.Lo != axisStart(i) {
				mask |= explicitAxes << (2 * i)
			}
			if s.Hi-s.Lo != axisExtent(i) {
				mask |= explicitAxes << (2*i + 1)
			}
		}
	}
	at := c.off
	c.uvarint(&mask)
	if !c.writing && c.err == nil && mask>>(axesShift+2*MaxRank) != 0 {
		c.off = at
		c.fail("transfer field mask %#x has bits beyond rank %d", mask, MaxRank)
		return
	}
	predicted := func(bit uint64, v *int64, pred int64) { c.predicted(mask&bit != 0, v, pred) }
	index := func(bit uint64, v *int, pred int64, what string, limit int64) {
		x := int64(*v)
		predicted(bit, &x, pred)
		if !c.writing && c.err == nil && (x < 0 || x > limit) {
			c.fail("%s %d is not in [0, %d]", what, x, limit)
			x = 0
		}
		*v = int(x)
	}
	index(explicitOperand, &t.Operand, int64(prev.Operand), "operand", math.MaxInt32)
	index(explicitSrc, &t.Src, predSrc, "tile", MaxTiles)
	predicted(explicitWords, &t.Words, prev.Words)
	group := st.group
	if mask&explicitDst != 0 {
		group = c.progressions(&t.Dst, t.Src, "destination tiles")
	} else if !c.writing && c.err == nil {
		if c.runTiles += int64(len(st.group)); c.runTiles > maxRunTiles {
			c.fail("destination tiles: %d in the package, more than %d", c.runTiles, maxRunTiles)
			return
		}
		dst := take(&c.intSlab, len(st.group))[:0]
		for _, d := range st.group {
			if d != t.Src {
				dst = append(dst, d)
			}
		}
		t.Dst = dst
	}
	rank := len(prev.Box)
	if mask&explicitRank != 0 {
		rank = len(t.Box)
		c.index(&rank, "box rank", MaxRank)
	}
	if c.err != nil {
		return
	}
	if !c.writing {
		if mask>>(axesShift+2*uint(rank)) != 0 {
			c.fail("transfer field mask %#x has bits beyond its box's rank %d", mask, rank)
			return
		}
		t.Box = take(&c.spanSlab, rank)
	}
	for i := range t.Box {
		s := &t.Box[i]
		ext := s.Hi - s.Lo
		predicted(explicitAxes<<(2*i), &s.Lo, axisStart(i))
		predicted(explicitAxes<<(2*i+1), &ext, axisExtent(i))
		s.Hi = s.Lo + ext
	}
	st.before, st.prev, st.group = st.prev, *t, group
}

// predicted is a field stored, when explicit, as its difference from
// pred, and otherwise not at all; an explicit field equal to its
// prediction is refused (a package has one encoding).
func (c *codec) predicted(explicit bool, v *int64, pred int64) {
	if !explicit {
		*v = pred
		return
	}
	d := *v - pred
	at := c.off
	c.int64(&d)
	if !c.writing {
		if d == 0 && c.err == nil {
			c.off = at
			c.fail("a field marked as differing from its prediction does not")
		}
		*v = pred + d
	}
}

// segmentFieldsV4 is a segment against its predictions (transfer and
// start stepping as they did, words as before).
func segmentFieldsV4(c *codec, s *Segment, prev, before *Segment) {
	predTransfer := int64(2*prev.Transfer - before.Transfer)
	predStart := 2*prev.Start - before.Start
	var mask uint64
	if c.writing {
		if int64(s.Transfer) != predTransfer {
			mask |= 1
		}
		if s.Start != predStart {
			mask |= 2
		}
		if s.Words != prev.Words {
			mask |= 4
		}
	}
	at := c.off
	c.uvarint(&mask)
	if !c.writing && c.err == nil && mask > 7 {
		c.off = at
		c.fail("segment field mask %#x has bits beyond its three fields", mask)
		return
	}
	field := func(bit uint64, v *int64, pred int64) { c.predicted(mask&bit != 0, v, pred) }
	tr := int64(s.Transfer)
	field(1, &tr, predTransfer)
	if !c.writing && c.err == nil && (tr < 0 || tr > math.MaxInt32) {
		c.fail("segment transfer %d is not in [0, %d]", tr, int64(math.MaxInt32))
		tr = 0
	}
	s.Transfer = int(tr)
	field(2, &s.Start, predStart)
	field(4, &s.Words, prev.Words)
	*before, *prev = *prev, *s
}

// progressions is a tile list as arithmetic progressions; it returns the
// list's group (the list, with src among it when it was written so).
func (c *codec) progressions(v *[]int, src int, what string) []int {
	type prog struct{ first, stride, n int64 }
	withSrc := false
	if c.writing {
		split := func(ts []int) []prog {
			var ps []prog
			for i := 0; i < len(ts); {
				p := prog{first: int64(ts[i]), n: 1}
				if i+1 < len(ts) {
					p.stride = int64(ts[i+1] - ts[i])
					for i+int(p.n) < len(ts) && int64(ts[i+int(p.n)]) == p.first+p.n*p.stride {
						p.n++
					}
				}
				if p.n == 1 {
					p.stride = 0
				}
				ps = append(ps, p)
				i += int(p.n)
			}
			return ps
		}
		ps := split(*v)
		// With the source put back in order, a group minus its source
		// may be one progression.
		if g := withTile(*v, src); g != nil {
			if gs := split(g); len(gs) < len(ps) {
				ps, withSrc = gs, true
			}
		}
		c.bool(&withSrc)
		n := len(ps)
		c.index(&n, what+" progressions", math.MaxInt)
		end := int64(src)
		for _, p := range ps {
			d := p.first - end
			c.int64(&d)
			c.int64(&p.stride)
			k := int(p.n - 1)
			c.index(&k, what+" progression length", MaxTiles)
			end = p.first + p.n*p.stride
		}
		if withSrc {
			return withTile(*v, src)
		}
		return *v
	}
	*v = nil
	c.bool(&withSrc)
	at, n := c.off, 0
	c.index(&n, what+" progressions", math.MaxInt32)
	if c.err != nil {
		return nil
	}
	if n > (len(c.b)-c.off)/3 {
		c.off = at
		c.fail("%s: %d progressions cannot fit in the section", what, n)
		return nil
	}
	ps := make([]prog, n)
	total, end := int64(0), int64(src)
	for i := range ps {
		var d, stride int64
		k := 0
		c.int64(&d)
		c.int64(&stride)
		c.index(&k, what+" progression length", MaxTiles)
		if c.err != nil {
			return nil
		}
		p := prog{first: end + d, stride: stride, n: int64(k) + 1}
		last := p.first + (p.n-1)*p.stride
		if d < -MaxTiles || d > MaxTiles || stride < -MaxTiles || stride > MaxTiles || p.first < 0 || p.first >= MaxTiles || last < 0 || last >= MaxTiles {
			c.fail("%s: a progression of %d from tile %d by %d leaves [0, %d)", what, p.n, p.first, p.stride, MaxTiles)
			return nil
		}
		ps[i] = p
		total += p.n
		end = p.first + p.n*p.stride
	}
	if c.runTiles += total; total > MaxTiles || c.runTiles > maxRunTiles {
		c.fail("%s: %d tiles (%d in the package so far; at most %d in a list and %d in all)", what, total, c.runTiles, MaxTiles, maxRunTiles)
		return nil
	}
	group := take(&c.intSlab, int(total))
	i := 0
	for _, p := range ps {
		for k := range p.n {
			group[i] = int(p.first + k*p.stride)
			i++
		}
	}
	if withSrc {
		*v = without(group, src)
		if len(*v) == len(group) {
			c.fail("%s: written with the source tile %d among them, which they do not hold", what, src)
		}
	} else {
		*v = group
	}
	return group
}

// without is ts without tile t (ts itself when it does not hold it).
func without(ts []int, t int) []int {
	for i, x := range ts {
		if x == t {
			out := make([]int, 0, len(ts)-1)
			return append(append(out, ts[:i]...), ts[i+1:]...)
		}
	}
	return ts
}

// withTile is ascending ts with t put in its place, or nil where ts is
// not ascending or holds t already.
func withTile(ts []int, t int) []int {
	out := make([]int, 0, len(ts)+1)
	placed := false
	for i, x := range ts {
		if i > 0 && x <= ts[i-1] || x == t {
			return nil
		}
		if !placed && t < x {
			out = append(out, t)
			placed = true
		}
		out = append(out, x)
	}
	if !placed {
		out = append(out, t)
	}
	return out
}
