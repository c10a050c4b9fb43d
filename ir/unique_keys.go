package ir

import (
	"reflect"
	"strconv"
	"unsafe"
)

// Uniquing keys that avoid printing, for the attributes a parser creates
// once per op: every op's FileLineColLoc, and dictionaries (properties,
// attribute dictionaries) whose values may be large elements attributes
// that would otherwise be printed in full just to form a key. A
// dictionary's values are themselves uniqued, so the identity of each
// value stands for its content.

// UniqueKey keys a source location on its parts.
func (l *FileLineColLoc) UniqueKey() string {
	b := make([]byte, 0, len(l.File)+24)
	b = strconv.AppendInt(b, int64(l.Line), 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(l.Col), 10)
	b = append(b, ':')
	b = append(b, l.File...)
	return string(b)
}

// UniqueKey keys a dictionary on its names and the identity of its values.
func (d *DictAttr) UniqueKey() string {
	b := make([]byte, 0, 24*len(d.Entries))
	for _, e := range d.Entries {
		b = strconv.AppendInt(b, int64(len(e.Name)), 10)
		b = append(b, ':')
		b = append(b, e.Name...)
		b = appendIdentity(b, e.Value)
	}
	return string(b)
}

// UniqueKey keys a fused location on the identity of its parts.
func (l *FusedLoc) UniqueKey() string {
	b := make([]byte, 0, 17*(len(l.Locs)+1))
	b = appendIdentity(b, l.Metadata)
	for _, s := range l.Locs {
		b = appendIdentity(b, s)
	}
	return string(b)
}

// UniqueKey keys a call-site location on the identity of its parts.
func (l *CallSiteLoc) UniqueKey() string {
	b := make([]byte, 0, 34)
	return string(appendIdentity(appendIdentity(b, l.Callee), l.Caller))
}

// UniqueKey keys a function type on the identity of its types; the
// input count separates inputs from results.
func (t *FunctionType) UniqueKey() string {
	b := make([]byte, 0, 8+17*(len(t.Inputs)+len(t.Results)))
	b = strconv.AppendInt(b, int64(len(t.Inputs)), 10)
	b = append(b, ':')
	for _, x := range t.Inputs {
		b = appendTypeIdentity(b, x)
	}
	for _, x := range t.Results {
		b = appendTypeIdentity(b, x)
	}
	return string(b)
}

// UniqueKey keys a tuple type on the identity of its types.
func (t *TupleType) UniqueKey() string {
	b := make([]byte, 0, 17*len(t.Types))
	for _, x := range t.Types {
		b = appendTypeIdentity(b, x)
	}
	return string(b)
}

// UniqueKey keys an array on the identity of its elements.
func (a *ArrayAttr) UniqueKey() string {
	b := make([]byte, 0, 17*len(a.Elems))
	for _, e := range a.Elems {
		b = appendIdentity(b, e)
	}
	return string(b)
}

// appendIdentity appends what identifies a uniqued attribute: its dynamic
// type and its pointer. An attribute that is not a pointer (which the
// context could not have uniqued by identity) is keyed by its printed form.
func appendIdentity(b []byte, a Attribute) []byte {
	if a == nil {
		return append(b, 0)
	}
	rt := reflect.TypeOf(a)
	if rt.Kind() != reflect.Pointer {
		b = append(b, 1)
		b = append(b, rt.String()...)
		b = append(b, 0)
		return append(b, AttrString(a)...)
	}
	return appendWords(b, unsafe.Pointer(&a))
}

// appendTypeIdentity is appendIdentity for types.
func appendTypeIdentity(b []byte, t Type) []byte {
	if t == nil {
		return append(b, 0)
	}
	rt := reflect.TypeOf(t)
	if rt.Kind() != reflect.Pointer {
		b = append(b, 1)
		b = append(b, rt.String()...)
		b = append(b, 0)
		return append(b, TypeString(t)...)
	}
	return appendWords(b, unsafe.Pointer(&t))
}

// appendWords appends the two words of the interface value at iface: its
// type and its pointer.
func appendWords(b []byte, iface unsafe.Pointer) []byte {
	words := (*[2]uintptr)(iface)
	b = append(b, 2)
	for _, w := range words {
		for i := 0; i < 8; i++ {
			b = append(b, byte(w>>(8*i)))
		}
	}
	return b
}
