package ipupkg

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Encode returns the package's bytes: the same package always gives the
// same bytes.
func (p *Package) Encode() []byte {
	type section struct {
		id       SectionID
		required bool
		payload  []byte
	}
	var secs []section
	for _, s := range sections {
		w := newWriter()
		s.fields(w, p)
		secs = append(secs, section{s.id, s.required, w.b})
	}
	for _, x := range p.Extra {
		secs = append(secs, section{x.ID, x.Required, x.Payload})
	}
	var out bytes.Buffer
	out.WriteString(Magic)
	var hdr [8]byte
	binary.LittleEndian.PutUint16(hdr[0:], FormatVersion)
	binary.LittleEndian.PutUint32(hdr[4:], uint32(len(secs)))
	out.Write(hdr[:])
	for _, s := range secs {
		var sh [sectionHeaderBytes]byte
		binary.LittleEndian.PutUint16(sh[0:], uint16(s.id))
		if s.required {
			binary.LittleEndian.PutUint16(sh[2:], flagRequired)
		}
		binary.LittleEndian.PutUint64(sh[4:], uint64(len(s.payload)))
		binary.LittleEndian.PutUint32(sh[12:], crc32.Checksum(s.payload, castagnoli))
		out.Write(sh[:])
		out.Write(s.payload)
	}
	return seal(&out)
}

// seal ends a file, a package or a pod package: the trailer, then the
// SHA-256 digest of every byte before it.
func seal(out *bytes.Buffer) []byte {
	sum := sha256.Sum256(out.Bytes())
	out.WriteString(TrailerMagic)
	out.Write(sum[:])
	return out.Bytes()
}

// WriteTo writes the package to w.
func (p *Package) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(p.Encode())
	return int64(n), err
}

const (
	fileHeaderBytes    = len(Magic) + 8
	sectionHeaderBytes = 16
	trailerBytes       = len(TrailerMagic) + sha256.Size
	flagRequired       = 1
)

// Marshal is Encode checked by the reader: the bytes are decoded as
// ipu-run decodes them, so that a package breaking a limit the reader
// enforces (MaxFileBytes, the tiles its destination lists expand to, any
// count or index bound) is refused where it is made, naming the limit,
// rather than written and then refused by the runtime. Reading and
// writing share each record's fields (records.go); this checks the limits
// only the reading side applies.
func (p *Package) Marshal() ([]byte, error) {
	data := p.Encode()
	if int64(len(data)) > MaxFileBytes {
		return nil, &LimitError{Err: &FormatError{Msg: fmt.Sprintf("%d bytes, more than the %d a package may hold", len(data), int64(MaxFileBytes))}}
	}
	if _, _, err := Decode(data); err != nil {
		return nil, &LimitError{Err: err}
	}
	return data, nil
}

// Marshal is Pod.Encode checked by the reader (DecodePod), as
// Package.Marshal is.
func (p *Pod) Marshal() ([]byte, error) {
	data := p.Encode()
	if int64(len(data)) > MaxFileBytes {
		return nil, &LimitError{Err: &FormatError{Msg: fmt.Sprintf("%d bytes, more than the %d a package may hold", len(data), int64(MaxFileBytes))}}
	}
	if _, err := DecodePod(data); err != nil {
		return nil, &LimitError{Err: err}
	}
	return data, nil
}

// LimitError is a package the compiler made that its reader would refuse.
type LimitError struct{ Err error }

func (e *LimitError) Error() string {
	return "the compiled package would be refused by its reader (ipu-run): " + e.Err.Error()
}

func (e *LimitError) Unwrap() error { return e.Err }
