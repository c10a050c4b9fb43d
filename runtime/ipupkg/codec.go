package ipupkg

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"

	"github.com/ipuir/ipuir/elem"
)

// codec is one direction of the format: writing appends each field to b,
// reading takes it from b into place. Each record's fields are listed once
// (records.go) as calls on a codec, so the encoder and the decoder are the
// same code and cannot drift apart; reading also bounds every count and
// index and its first error sticks.
type codec struct {
	writing bool
	b       []byte
	off     int
	base    int64 // file offset of b, for messages
	section string
	version uint16 // the format version being read or written
	err     error
	// Reading, boxes and tile lists are cut from slabs (one allocation
	// for many records), and the tiles that destination lists expand to
	// (progressions, predictions) are counted against maxRunTiles.
	spanSlab []Span
	intSlab  []int
	runTiles int64
}

// maxRunTiles bounds the tiles all of a package's destination lists
// expand to: a progression or a predicted list is a few bytes for any
// length, so the section's size alone does not bound what they make (the attention block's package on ipu21 has
// about 10^6). A variable only so that a test can lower it.
var maxRunTiles int64 = 1 << 24

// take is the next n items of a slab, a new slab made when it runs out.
func take[T any](slab *[]T, n int) []T {
	if len(*slab) < n {
		*slab = make([]T, max(n, 4096))
	}
	s := (*slab)[:n:n]
	*slab = (*slab)[n:]
	return s
}

func newWriter() *codec { return &codec{writing: true, version: FormatVersion} }

func (c *codec) fail(format string, args ...any) {
	if c.err == nil {
		c.err = &FormatError{Section: c.section, Offset: c.base + int64(c.off), Msg: fmt.Sprintf(format, args...)}
	}
}

// uvarint and varint are the format's integers: unsigned LEB128 and
// zigzag, each in its one shortest encoding, so that a package re-encodes
// to its bytes.
func (c *codec) uvarint(v *uint64) {
	if c.writing {
		c.b = binary.AppendUvarint(c.b, *v)
		return
	}
	*v = 0
	if c.err != nil {
		return
	}
	x, n := binary.Uvarint(c.b[c.off:])
	if n <= 0 {
		c.fail("a truncated or overlong integer")
		return
	}
	if n != uvarintLen(x) {
		c.fail("an integer in %d bytes where %d do", n, uvarintLen(x))
		return
	}
	c.off += n
	*v = x
}

func uvarintLen(v uint64) int { return (bits.Len64(v|1) + 6) / 7 }

func (c *codec) int64(v *int64) {
	if c.writing {
		c.b = binary.AppendVarint(c.b, *v)
		return
	}
	*v = 0
	if c.err != nil {
		return
	}
	x, n := binary.Varint(c.b[c.off:])
	if n <= 0 {
		c.fail("a truncated or overlong integer")
		return
	}
	if zig := uint64(x<<1) ^ uint64(x>>63); n != uvarintLen(zig) {
		c.fail("an integer in %d bytes where %d do", n, uvarintLen(zig))
		return
	}
	c.off += n
	*v = x
}

// index is a non-negative int no larger than limit.
func (c *codec) index(v *int, what string, limit int64) {
	u := uint64(*v)
	at := c.off
	c.uvarint(&u)
	if !c.writing {
		if c.err == nil && u > uint64(limit) {
			c.off = at
			c.fail("%s %d is more than %d", what, u, limit)
			u = 0
		}
		*v = int(u)
	}
}

// byteValue is an enumeration stored as a uvarint below 256.
func (c *codec) byteValue(v *uint8, what string) {
	n := int(*v)
	c.index(&n, what, math.MaxUint8)
	*v = uint8(n)
}

// reserved is a field written as 0 and read back bounded by limit.
func (c *codec) reserved(what string, limit int64) {
	n := 0
	c.index(&n, what, limit)
}

func (c *codec) bool(v *bool) {
	u := uint64(0)
	if *v {
		u = 1
	}
	at := c.off
	c.uvarint(&u)
	if !c.writing {
		if u > 1 {
			c.off = at
			c.fail("a flag that is %d, not 0 or 1", u)
		}
		*v = u == 1
	}
}

// bytes is a length-prefixed byte string; read back, an empty one is nil.
func (c *codec) bytes(v *[]byte, what string) {
	n := len(*v)
	at := c.off
	c.index(&n, what+" length", math.MaxInt32)
	if c.writing {
		c.b = append(c.b, *v...)
		return
	}
	*v = nil
	if c.err != nil {
		return
	}
	if n > len(c.b)-c.off {
		c.off = at
		c.fail("%s length %d runs past the end of the section", what, n)
		return
	}
	if n > 0 {
		*v = bytes.Clone(c.b[c.off : c.off+n])
	}
	c.off += n
}

func (c *codec) string(v *string, what string) {
	b := []byte(*v)
	c.bytes(&b, what)
	*v = string(b)
}

// elemType is an element type by its MLIR spelling.
func (c *codec) elemType(v *elem.Type, what string) {
	name := ""
	if c.writing && v.Valid() {
		name = v.String()
	}
	at := c.off
	c.string(&name, what)
	if c.writing || c.err != nil {
		return
	}
	t, err := elem.Parse(name)
	if err == nil && t.String() != name {
		err = fmt.Errorf("%q is spelled %q", name, t.String())
	}
	if err != nil {
		c.off = at
		c.fail("%s: %v", what, err)
	}
	*v = t
}

// list is every list in the format: a count, then each item's fields.
// Reading, the count is bounded by what the rest of the section can hold
// at the item's minimum size, which is computed from its fields (the
// encoding of a zero item), never counted by hand.
func list[T any](c *codec, items *[]T, what string, fields func(*codec, *T)) {
	n := len(*items)
	if c.writing {
		c.index(&n, what+" count", math.MaxInt)
		for i := range *items {
			fields(c, &(*items)[i])
		}
		return
	}
	*items = nil
	at := c.off
	c.index(&n, what+" count", math.MaxInt32)
	if c.err == nil && n > (len(c.b)-c.off)/minSize(fields) {
		c.off = at
		c.fail("%s count %d: the %d bytes left hold at most %d", what, n, len(c.b)-c.off, (len(c.b)-c.off)/minSize(fields))
		return
	}
	// Room for the first items at once; a count is checked against the
	// bytes left, but an item may be one byte and many times that in
	// memory, so a larger list grows as its items are read.
	if n > 0 {
		*items = make([]T, 0, min(n, 1<<12))
	}
	for range n {
		if c.err != nil {
			return
		}
		var x T
		fields(c, &x)
		*items = append(*items, x)
	}
}

// boundedList is a list of at most limit items (a rank), whatever the
// section could hold.
func boundedList[T any](c *codec, items *[]T, what string, limit int64, fields func(*codec, *T)) {
	if c.writing {
		list(c, items, what, fields)
		return
	}
	*items = nil
	at, n := c.off, 0
	c.index(&n, what, limit)
	if c.err != nil {
		return
	}
	if n > (len(c.b)-c.off)/minSize(fields) {
		c.off = at
		c.fail("%s %d cannot fit in the section", what, n)
		return
	}
	for range n {
		var x T
		fields(c, &x)
		*items = append(*items, x)
	}
}

// minSize is the fewest bytes an item of these fields encodes to.
func minSize[T any](fields func(*codec, *T)) int {
	w := newWriter()
	var zero T
	fields(w, &zero)
	return max(len(w.b), 1)
}

func (c *codec) ints(v *[]int64, what string) {
	list(c, v, what, func(c *codec, x *int64) { c.int64(x) })
}

func (c *codec) indices(v *[]int, what string, limit int64) {
	list(c, v, what, func(c *codec, x *int) { c.index(x, what, limit) })
}

// delta is v stored as its difference from *prev, the same field of the
// list's previous record (version 4: neighbouring transfers and pieces
// differ little), and then becomes *prev.
func (c *codec) delta(v, prev *int64) {
	d := *v - *prev
	c.int64(&d)
	if !c.writing {
		*v = *prev + d // a wrapped value is refused by validation
	}
	*prev = *v
}

// deltaIndex is an index stored as a delta, read back in [0, limit].
func (c *codec) deltaIndex(v, prev *int, what string, limit int64) {
	d := int64(*v) - int64(*prev)
	at := c.off
	c.int64(&d)
	if !c.writing {
		x := int64(*prev) + d
		if c.err == nil && (d > limit || d < -limit || x < 0 || x > limit) {
			c.off = at
			c.fail("%s %d is not in [0, %d]", what, x, limit)
			x = 0
		}
		*v = int(x)
	}
	*prev = *v
}

// deltaSpans is a box whose spans are stored against prev's: each axis's
// start as a delta, its extent as a delta of extents (boxes of one shape
// at another place cost a byte an axis).
func (c *codec) deltaSpans(v, prev *[]Span, what string) {
	n := len(*v)
	c.index(&n, what+" rank", MaxRank)
	if c.err != nil {
		return
	}
	if !c.writing {
		if n > len(c.b)-c.off {
			c.fail("%s rank %d cannot fit in the section", what, n)
			return
		}
		*v = take(&c.spanSlab, n)
	}
	for i := range *v {
		s := &(*v)[i]
		var lo, ext int64
		if i < len(*prev) {
			lo, ext = (*prev)[i].Lo, (*prev)[i].Hi-(*prev)[i].Lo
		}
		e := s.Hi - s.Lo
		c.delta(&s.Lo, &lo)
		c.delta(&e, &ext)
		if !c.writing {
			s.Hi = s.Lo + e
		}
	}
	*prev = *v
}

func (c *codec) spans(v *[]Span, what string) {
	boundedList(c, v, what+" rank", MaxRank, func(c *codec, s *Span) { c.int64(&s.Lo); c.int64(&s.Hi) })
}
