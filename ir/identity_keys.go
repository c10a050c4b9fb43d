package ir

import (
	"hash/maphash"
	"reflect"
	"unsafe"
)

// Uniquing by the identity of parts. A composite type or attribute whose
// parts are themselves uniqued (a function type's types, a dictionary's
// values, a tensor type's element type) is equal to another exactly when
// its parts are the same objects and its plain data (names, dimensions,
// bytes) is equal. Such a value is uniqued by a 64-bit hash of those parts
// and compared part by part on a hash match: no key string is built, and
// a table entry is a word and the value. (String keys were a third of
// what parsing a 30 MB file with many distinct function types allocated,
// and their maps' growth a seventh of its time.)
//
// The hash is seeded per process, so that input crafted to collide on
// one run does not collide on another; colliding values still unique
// correctly, in a list per hash.

// IdentityKeyed is implemented by types and attributes that are uniqued
// by their parts' identities rather than by a key string (Keyed) or
// their printed form. HashParts feeds every part SameParts compares into
// h; SameParts reports whether other, a value of any Go type, is the same
// type with the same parts.
type IdentityKeyed interface {
	HashParts(h *PartsHash)
	SameParts(other any) bool
}

// PartsHash accumulates an IdentityKeyed value's parts.
type PartsHash struct{ h uint64 }

var (
	partsSeed = maphash.MakeSeed()
	partsInit = maphash.String(partsSeed, "ipuir parts")
)

func newPartsHash() PartsHash { return PartsHash{h: partsInit} }

// mix64 is a bijective finaliser (Pelle Evensen's rrmxmx), so that words
// fed one after another depend on each other and on the seed.
func mix64(x uint64) uint64 {
	x ^= x>>49 ^ x>>24
	x *= 0x9fb21c651e98df25
	x ^= x >> 28
	x *= 0x9fb21c651e98df25
	return x ^ x>>28
}

// Word feeds a plain number.
func (h *PartsHash) Word(w uint64) { h.h = mix64(h.h ^ w) }

// Int feeds a signed number.
func (h *PartsHash) Int(v int64) { h.Word(uint64(v)) }

// Bytes feeds a byte string, with its length.
func (h *PartsHash) Bytes(b []byte) {
	h.Word(uint64(len(b)))
	h.Word(maphash.Bytes(partsSeed, b))
}

// String feeds a string, with its length.
func (h *PartsHash) String(s string) {
	h.Word(uint64(len(s)))
	h.Word(maphash.String(partsSeed, s))
}

// Type feeds the identity of a uniqued type (nil included).
func (h *PartsHash) Type(t Type) {
	if t == nil {
		h.Word(0)
		return
	}
	h.identity(unsafe.Pointer(&t), reflect.TypeOf(t), func() string { return TypeString(t) })
}

// Attr feeds the identity of a uniqued attribute (nil included).
func (h *PartsHash) Attr(a Attribute) {
	if a == nil {
		h.Word(0)
		return
	}
	h.identity(unsafe.Pointer(&a), reflect.TypeOf(a), func() string { return AttrString(a) })
}

// identity feeds the two words of the interface at iface (its dynamic
// type and its pointer); a value that is not a pointer, which the context
// cannot have uniqued, is fed as its Go type and printed form, as
// appendIdentity keys it.
func (h *PartsHash) identity(iface unsafe.Pointer, rt reflect.Type, printed func() string) {
	if rt.Kind() != reflect.Pointer {
		h.String(rt.String())
		h.String(printed())
		return
	}
	words := (*[2]uintptr)(iface)
	h.Word(uint64(words[0]))
	h.Word(uint64(words[1]))
}

// Sum is the hash of what was fed.
func (h *PartsHash) Sum() uint64 { return h.h }

// SameType reports whether a and b are the same uniqued type, in the
// sense PartsHash.Type hashes.
func SameType(a, b Type) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	ra, rb := reflect.TypeOf(a), reflect.TypeOf(b)
	if ra != rb {
		return false
	}
	if ra.Kind() != reflect.Pointer {
		return TypeString(a) == TypeString(b)
	}
	return a == b
}

// SameAttr is SameType for attributes.
func SameAttr(a, b Attribute) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	ra, rb := reflect.TypeOf(a), reflect.TypeOf(b)
	if ra != rb {
		return false
	}
	if ra.Kind() != reflect.Pointer {
		return AttrString(a) == AttrString(b)
	}
	return a == b
}

func sameTypes(a, b []Type) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !SameType(a[i], b[i]) {
			return false
		}
	}
	return true
}

func hashOf(k IdentityKeyed) uint64 {
	h := newPartsHash()
	// The Go type first: values of two types with the same parts differ.
	h.Word(uint64(uintptr((*[2]unsafe.Pointer)(unsafe.Pointer(&k))[0])))
	k.HashParts(&h)
	return h.Sum()
}

// identityTable holds values by the hash of their parts. Nearly every
// hash names one value (first); the values of a hash that more than one
// value has are in more, in the order they came.
type identityTable[V IdentityKeyed] struct {
	first map[uint64]V
	more  map[uint64][]V
}

func (t *identityTable[V]) lookup(h uint64, probe IdentityKeyed) (V, bool) {
	return t.find(h, func(v V) bool { return v.SameParts(probe) })
}

// find returns the value under h that same accepts.
func (t *identityTable[V]) find(h uint64, same func(V) bool) (V, bool) {
	if v, ok := t.first[h]; ok {
		if same(v) {
			return v, true
		}
		for _, v := range t.more[h] {
			if same(v) {
				return v, true
			}
		}
	}
	var zero V
	return zero, false
}

// insert stores v under h; the caller has looked it up and not found it.
func (t *identityTable[V]) insert(h uint64, v V) {
	if t.first == nil {
		t.first = map[uint64]V{}
	}
	if _, taken := t.first[h]; !taken {
		t.first[h] = v
		return
	}
	if t.more == nil {
		t.more = map[uint64][]V{}
	}
	t.more[h] = append(t.more[h], v)
}

// reserve makes room for n more values.
func (t *identityTable[V]) reserve(n int) {
	if want := len(t.first) + n; n > 0 && want > 2*len(t.first) {
		grown := make(map[uint64]V, want)
		for k, v := range t.first {
			grown[k] = v
		}
		t.first = grown
	}
}

func (t *identityTable[V]) len() int {
	n := len(t.first)
	for _, vs := range t.more {
		n += len(vs)
	}
	return n
}

// internByParts returns the context's value with v's parts, storing v if
// it is the first.
func internByParts(c *Context, v IdentityKeyed) IdentityKeyed {
	h := hashOf(v)
	c.mu.RLock()
	old, ok := c.byParts.lookup(h, v)
	c.mu.RUnlock()
	if ok {
		return old
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.byParts.lookup(h, v); ok {
		return old
	}
	c.byParts.insert(h, v)
	return v
}

// internByPartsCopy is internByParts for a probe that holds its caller's
// scratch slices: keep builds the value to store (with copies) only when
// it is new.
func internByPartsCopy(c *Context, probe IdentityKeyed, keep func() IdentityKeyed) IdentityKeyed {
	h := hashOf(probe)
	c.mu.RLock()
	old, ok := c.byParts.lookup(h, probe)
	c.mu.RUnlock()
	if ok {
		return old
	}
	v := keep()
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.byParts.lookup(h, v); ok {
		return old
	}
	c.byParts.insert(h, v)
	return v
}

// ---- The builtin values keyed by their parts ----

func (t *FunctionType) HashParts(h *PartsHash) {
	h.Word(uint64(len(t.Inputs)))
	for _, x := range t.Inputs {
		h.Type(x)
	}
	h.Word(uint64(len(t.Results)))
	for _, x := range t.Results {
		h.Type(x)
	}
}

func (t *FunctionType) SameParts(other any) bool {
	o, ok := other.(*FunctionType)
	return ok && sameTypes(t.Inputs, o.Inputs) && sameTypes(t.Results, o.Results)
}

func (t *TupleType) HashParts(h *PartsHash) {
	h.Word(uint64(len(t.Types)))
	for _, x := range t.Types {
		h.Type(x)
	}
}

func (t *TupleType) SameParts(other any) bool {
	o, ok := other.(*TupleType)
	return ok && sameTypes(t.Types, o.Types)
}

func (t *RankedTensorType) HashParts(h *PartsHash) { hashTensorParts(h, t.Dims, t.Elem, t.Encoding) }

func hashTensorParts(h *PartsHash, dims []int64, elem Type, enc Attribute) {
	h.Type(elem)
	h.Attr(enc)
	h.Word(uint64(len(dims)))
	for _, d := range dims {
		h.Int(d)
	}
}

func (t *RankedTensorType) SameParts(other any) bool {
	o, ok := other.(*RankedTensorType)
	return ok && t.hasParts(o.Dims, o.Elem, o.Encoding)
}

func (t *RankedTensorType) hasParts(dims []int64, elem Type, enc Attribute) bool {
	return SameType(t.Elem, elem) && SameAttr(t.Encoding, enc) && equalInts(t.Dims, dims)
}

func equalInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (d *DictAttr) HashParts(h *PartsHash) {
	h.Word(uint64(len(d.Entries)))
	for _, e := range d.Entries {
		h.String(e.Name)
		h.Attr(e.Value)
	}
}

func (d *DictAttr) SameParts(other any) bool {
	o, ok := other.(*DictAttr)
	if !ok || len(d.Entries) != len(o.Entries) {
		return false
	}
	for i, e := range d.Entries {
		if e.Name != o.Entries[i].Name || !SameAttr(e.Value, o.Entries[i].Value) {
			return false
		}
	}
	return true
}

func (a *ArrayAttr) HashParts(h *PartsHash) {
	h.Word(uint64(len(a.Elems)))
	for _, e := range a.Elems {
		h.Attr(e)
	}
}

func (a *ArrayAttr) SameParts(other any) bool {
	o, ok := other.(*ArrayAttr)
	if !ok || len(a.Elems) != len(o.Elems) {
		return false
	}
	for i, e := range a.Elems {
		if !SameAttr(e, o.Elems[i]) {
			return false
		}
	}
	return true
}

func (l *FusedLoc) HashParts(h *PartsHash) {
	h.Attr(l.Metadata)
	h.Word(uint64(len(l.Locs)))
	for _, s := range l.Locs {
		h.Attr(s)
	}
}

func (l *FusedLoc) SameParts(other any) bool {
	o, ok := other.(*FusedLoc)
	if !ok || len(l.Locs) != len(o.Locs) || !SameAttr(l.Metadata, o.Metadata) {
		return false
	}
	for i, s := range l.Locs {
		if !SameAttr(s, o.Locs[i]) {
			return false
		}
	}
	return true
}

func (l *CallSiteLoc) HashParts(h *PartsHash) {
	h.Attr(l.Callee)
	h.Attr(l.Caller)
}

func (l *CallSiteLoc) SameParts(other any) bool {
	o, ok := other.(*CallSiteLoc)
	return ok && SameAttr(l.Callee, o.Callee) && SameAttr(l.Caller, o.Caller)
}

func (a *DenseElementsAttr) HashParts(h *PartsHash) {
	h.Type(a.Typ)
	if a.Splat {
		h.Word(1)
	} else {
		h.Word(2)
	}
	h.Bytes(a.Data)
}

func (a *DenseElementsAttr) SameParts(other any) bool {
	o, ok := other.(*DenseElementsAttr)
	return ok && a.Splat == o.Splat && SameType(a.Typ, o.Typ) && string(a.Data) == string(o.Data)
}

func (a *DenseStringElementsAttr) HashParts(h *PartsHash) {
	h.Type(a.Typ)
	if a.Splat {
		h.Word(1)
	} else {
		h.Word(2)
	}
	h.Word(uint64(len(a.Vals)))
	for _, v := range a.Vals {
		h.String(v)
	}
}

func (a *DenseStringElementsAttr) SameParts(other any) bool {
	o, ok := other.(*DenseStringElementsAttr)
	if !ok || a.Splat != o.Splat || !SameType(a.Typ, o.Typ) || len(a.Vals) != len(o.Vals) {
		return false
	}
	for i, v := range a.Vals {
		if v != o.Vals[i] {
			return false
		}
	}
	return true
}

// untypedString reports whether a string attribute is untyped: a typed
// `none` is the same attribute, as in MLIR.
func (a *StringAttr) untypedString() bool {
	_, none := a.Typ.(*NoneType)
	return a.Typ == nil || none
}

func (a *StringAttr) HashParts(h *PartsHash) {
	if a.untypedString() {
		h.Word(0)
	} else {
		h.Type(a.Typ)
	}
	h.String(a.Val)
}

func (a *StringAttr) SameParts(other any) bool {
	o, ok := other.(*StringAttr)
	if !ok || a.Val != o.Val {
		return false
	}
	if a.untypedString() || o.untypedString() {
		return a.untypedString() && o.untypedString()
	}
	return SameType(a.Typ, o.Typ)
}

// ReserveUniqued makes room for about parts more values uniqued by their
// parts and tensors more ranked tensor types, so that a parser that can
// estimate them from its input's length grows the tables once.
func (c *Context) ReserveUniqued(parts, tensors int) {
	c.mu.Lock()
	c.byParts.reserve(parts)
	c.mu.Unlock()
	u := &c.tables
	u.lock()
	u.tensors.reserve(tensors)
	u.mu.Unlock()
}
