package onnximport

import (
	"io"
	"unicode/utf8"
)

// Text is an imported module's text. It is held as pieces: the module's
// own text, and the initializers' raw data, which is written in hex only
// when the text is written out. A model's 100 MB of f32 weights are so
// held once, as the model's bytes, not a second time as 200 MB of hex
// (nor a third while the text is assembled).
type Text struct {
	pieces []piece
	size   int64
}

// piece is text, or blob: raw bytes written as hex digits (elem bytes an
// element, for Skeleton).
type piece struct {
	text []byte
	blob []byte
	elem int
}

// Len is the length of the text in bytes.
func (t *Text) Len() int64 { return t.size }

// WriteTo writes the text to w, the blobs' hex a chunk at a time.
func (t *Text) WriteTo(w io.Writer) (int64, error) {
	var n int64
	var chunk [64 << 10]byte
	for _, p := range t.pieces {
		if p.blob == nil {
			m, err := w.Write(p.text)
			n += int64(m)
			if err != nil {
				return n, err
			}
			continue
		}
		for data := p.blob; len(data) > 0; {
			k := min(len(data), len(chunk)/2)
			m, err := w.Write(appendHex(chunk[:0], data[:k]))
			n += int64(m)
			if err != nil {
				return n, err
			}
			data = data[k:]
		}
	}
	return n, nil
}

// Bytes is the whole text, in one buffer of its size.
func (t *Text) Bytes() []byte {
	out := make([]byte, 0, t.size)
	for _, p := range t.pieces {
		if p.blob == nil {
			out = append(out, p.text...)
		} else {
			out = appendHex(out, p.blob)
		}
	}
	return out
}

// Skeleton is the text with each blob cut to its first element, which
// the parser reads as a splat of the same type: a module that parses
// and verifies as the full text does, for checking what the importer
// wrote without holding its weights' hex. (A blob's length is checked
// against its type when the initializer is read.)
func (t *Text) Skeleton() []byte {
	var out []byte
	for _, p := range t.pieces {
		if p.blob == nil {
			out = append(out, p.text...)
		} else {
			out = appendHex(out, p.blob[:min(p.elem, len(p.blob))])
		}
	}
	return out
}

// hexPairs is every byte's two uppercase hex digits.
var hexPairs = func() (t [256][2]byte) {
	const digits = "0123456789ABCDEF"
	for i := range t {
		t[i] = [2]byte{digits[i>>4], digits[i&15]}
	}
	return t
}()

// appendHex appends data's uppercase hex digits to b.
func appendHex(b, data []byte) []byte {
	for _, byt := range data {
		b = append(b, hexPairs[byt][0], hexPairs[byt][1])
	}
	return b
}

// textBuilder builds a Text: an io.Writer for the module's own text, and
// blob for raw data.
type textBuilder struct {
	t   Text
	cur []byte
}

func (b *textBuilder) Write(p []byte) (int, error) {
	b.cur = append(b.cur, p...)
	return len(p), nil
}

func (b *textBuilder) WriteString(s string) (int, error) {
	b.cur = append(b.cur, s...)
	return len(s), nil
}

func (b *textBuilder) WriteByte(c byte) error {
	b.cur = append(b.cur, c)
	return nil
}

func (b *textBuilder) WriteRune(r rune) (int, error) {
	n := len(b.cur)
	b.cur = utf8.AppendRune(b.cur, r)
	return len(b.cur) - n, nil
}

// blob adds data, written in hex, elemBytes an element. The data is not
// copied: it must not change while the Text is in use.
func (b *textBuilder) blob(data []byte, elemBytes int) {
	b.flush()
	b.t.pieces = append(b.t.pieces, piece{blob: data, elem: elemBytes})
	b.t.size += 2 * int64(len(data))
}

func (b *textBuilder) flush() {
	if len(b.cur) > 0 {
		b.t.pieces = append(b.t.pieces, piece{text: b.cur})
		b.t.size += int64(len(b.cur))
		b.cur = nil
	}
}

// text is what was built.
func (b *textBuilder) text() *Text {
	b.flush()
	return &b.t
}
