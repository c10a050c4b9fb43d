package ir

import "sync/atomic"

// DistinctAttr is MLIR's distinct[N]<attr>: it wraps a referenced attribute
// and has an identity of its own, so two DistinctAttrs with equal
// referenced attributes are still different attributes (== compares
// identity). It is the one builtin attribute the Context does not unique
// by content: it exists to give IR (debug info, access groups) a handle
// that no other construction can produce by accident.
//
// The N of the text is not part of the attribute: the parser maps each N
// of a file to one DistinctAttr, and the printer numbers them afresh from 0
// in the order they print, as mlir-opt does.
type DistinctAttr struct {
	Referenced Attribute
	serial     uint64 // context-wide identity, spelled only in uniquing keys
}

// distinctSerials hands out the identities of DistinctAttrs. One counter
// for all contexts keeps NewDistinct free of the context's lock.
var distinctSerials atomic.Uint64

// NewDistinct returns a new distinct attribute referring to inner (unit
// when inner is nil, as `distinct[N]<>` reads): a fresh identity each call.
func (c *Context) NewDistinct(inner Attribute) *DistinctAttr {
	if inner == nil {
		inner = c.Unit()
	}
	return &DistinctAttr{Referenced: inner, serial: distinctSerials.Add(1)}
}

// Print spells d as `distinct[N]<referenced>`, `distinct[N]<>` when the
// referenced attribute is unit. N numbers the distinct attributes p has
// printed, from 0 in order of first print (MLIR's AsmState numbering), so
// it is stable across parses. A uniquing key instead spells the identity,
// so that attributes holding different DistinctAttrs (an array of one, a
// dictionary) are not uniqued into one.
func (d *DistinctAttr) Print(p *AsmPrinter) {
	p.WriteString("distinct[")
	if p.identityKeys {
		p.WriteUint(d.serial)
	} else {
		p.WriteUint(p.distinctID(d))
	}
	p.WriteString("]<")
	if _, unit := d.Referenced.(*UnitAttr); !unit {
		p.PrintAttr(d.Referenced)
	}
	p.WriteByte('>')
}

// distinctID is the number d prints with in p, given on first print.
func (p *AsmPrinter) distinctID(d *DistinctAttr) uint64 {
	if id, ok := p.distinctIDs[d]; ok {
		return id
	}
	if p.distinctIDs == nil {
		p.distinctIDs = map[*DistinctAttr]uint64{}
	}
	id := uint64(len(p.distinctIDs))
	p.distinctIDs[d] = id
	return id
}

// DistinctMatcher tells whether attributes of two IRs are the same up to
// the identities of their distinct attributes, which is what printing an
// IR and parsing it back changes (each parse makes new DistinctAttrs, as
// in MLIR). Each side numbers its distinct attributes in the order Same
// meets them, so over all calls the k-th of one side must stand wherever
// the k-th of the other does. Attributes that hold no distinct attribute
// must be identical, as uniqued attributes are.
type DistinctMatcher struct {
	a, b distinctSide
}

type distinctSide struct {
	p    AsmPrinter
	seen bool // the last print met a DistinctAttr
}

// Same reports whether x and y are the same attribute up to the identities
// of the distinct attributes in them.
func (m *DistinctMatcher) Same(x, y Attribute) bool {
	if x == y {
		return true
	}
	if x == nil || y == nil {
		return false
	}
	tx, dx := m.a.print(x)
	ty, dy := m.b.print(y)
	return dx && dy && tx == ty
}

// print spells a with the side's numbering and says whether it holds a
// DistinctAttr.
func (s *distinctSide) print(a Attribute) (string, bool) {
	s.p.Hook = s
	s.p.Reset()
	s.seen = false
	s.p.PrintAttr(a)
	return s.p.String(), s.seen
}

func (s *distinctSide) HookType(*AsmPrinter, Type) bool { return false }

func (s *distinctSide) HookAttr(_ *AsmPrinter, a Attribute, _ bool) bool {
	if _, ok := a.(*DistinctAttr); ok {
		s.seen = true
	}
	return false
}
