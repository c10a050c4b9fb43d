package filecheck

import (
	"bytes"
	"strings"
)

// ref is a slice of a source buffer that remembers where it lies, the
// counterpart of the StringRefs FileCheck parses: errors point at them.
type ref struct {
	buf        *sourceBuffer
	start, end int
}

func (r ref) str() string        { return string(r.buf.text[r.start:r.end]) }
func (r ref) bytes() []byte      { return r.buf.text[r.start:r.end] }
func (r ref) len() int           { return r.end - r.start }
func (r ref) empty() bool        { return r.start == r.end }
func (r ref) loc() location      { return location{r.buf, r.start} }
func (r ref) at(i int) byte      { return r.buf.text[r.start+i] }
func (r ref) sub(i, j int) ref   { return ref{r.buf, r.start + i, r.start + j} }
func (r ref) from(i int) ref     { return ref{r.buf, min(r.start+i, r.end), r.end} }
func (r ref) take(n int) ref     { return ref{r.buf, r.start, min(r.start+n, r.end)} }
func (r ref) dropBack(n int) ref { return ref{r.buf, r.start, r.end - n} }

func (r ref) hasPrefix(s string) bool {
	return r.len() >= len(s) && string(r.buf.text[r.start:r.start+len(s)]) == s
}

func (r *ref) consume(s string) bool {
	if r.hasPrefix(s) {
		r.start += len(s)
		return true
	}
	return false
}

// index returns the position of s in r, or -1.
func (r ref) index(s string) int { return bytes.Index(r.bytes(), []byte(s)) }

func (r ref) indexByte(c byte) int { return bytes.IndexByte(r.bytes(), c) }

// trimLeft drops leading bytes found in cutset.
func (r ref) trimLeft(cutset string) ref {
	for r.start < r.end && strings.IndexByte(cutset, r.buf.text[r.start]) >= 0 {
		r.start++
	}
	return r
}

// trimRight drops trailing bytes found in cutset.
func (r ref) trimRight(cutset string) ref {
	for r.end > r.start && strings.IndexByte(cutset, r.buf.text[r.end-1]) >= 0 {
		r.end--
	}
	return r
}

// spaceChars are the horizontal spaces FileCheck trims in expressions.
const spaceChars = " \t"
