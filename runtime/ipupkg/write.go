package ipupkg

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
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
