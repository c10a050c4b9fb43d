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
	words := (*[2]uintptr)(unsafe.Pointer(&a))
	b = append(b, 2)
	for _, w := range words {
		for i := 0; i < 8; i++ {
			b = append(b, byte(w>>(8*i)))
		}
	}
	return b
}
