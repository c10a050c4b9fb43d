package ipupkg

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"hash/crc32"
	"io"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// encoder appends a payload's integers and strings.
type encoder struct{ b []byte }

func (e *encoder) u(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) i(v int64)  { e.b = binary.AppendVarint(e.b, v) }
func (e *encoder) n(v int)    { e.u(uint64(v)) }
func (e *encoder) bool(v bool) {
	if v {
		e.u(1)
	} else {
		e.u(0)
	}
}
func (e *encoder) str(s string)    { e.n(len(s)); e.b = append(e.b, s...) }
func (e *encoder) raw(b []byte)    { e.n(len(b)); e.b = append(e.b, b...) }
func (e *encoder) ints(v []int64)  { list(e, v, e.i) }
func (e *encoder) indices(v []int) { list(e, v, e.n) }
func (e *encoder) spans(v []Span) {
	list(e, v, func(s Span) { e.i(s.Lo); e.i(s.Hi) })
}

// list encodes a count, then each item: every list in the format.
func list[T any](e *encoder, items []T, item func(T)) {
	e.n(len(items))
	for _, x := range items {
		item(x)
	}
}

// section encodes one section's payload.
func section(fill func(e *encoder)) []byte {
	var e encoder
	fill(&e)
	return e.b
}

// Encode returns the package's bytes: the same package always gives the
// same bytes.
func (p *Package) Encode() []byte {
	type section struct {
		id       SectionID
		required bool
		payload  []byte
	}
	secs := []section{
		{SectionHeader, true, p.encodeHeader()},
		{SectionProgram, true, p.encodeProgram()},
		{SectionBuffers, true, p.encodeBuffers()},
		{SectionTileImages, true, p.encodeTileImages()},
		{SectionExchangeTables, true, p.encodeExchanges()},
		{SectionHostStreams, true, p.encodeStreams()},
		{SectionCheckpoints, false, p.encodeCheckpoints()},
		{SectionSource, false, p.Source},
		{SectionMetadata, false, p.encodeMetadata()},
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

func (p *Package) encodeHeader() []byte {
	return section(func(e *encoder) {
		e.str(p.Compiler)
		e.str(p.Target)
		e.n(p.Tiles)
		e.i(p.SRAMBytes)
		list(e, p.Classes, func(c MemoryClass) {
			e.str(c.Name)
			e.str(c.Kind)
			e.i(c.Start)
			e.i(c.End)
			e.i(c.Alignment)
			e.bool(c.HoldsCode)
		})
		e.bool(p.ExchangeBusPairs)
	})
}

func (p *Package) encodeProgram() []byte {
	return section(func(e *encoder) {
		list(e, p.Program, func(in Instruction) {
			e.u(uint64(in.Op))
			e.i(in.Superstep)
			e.indices(in.Operands)
			encodeParams(e, in.Params)
		})
	})
}

func encodeParams(e *encoder, params []Param) {
	list(e, params, func(pr Param) {
		e.str(pr.Key)
		e.bool(pr.IsString)
		if pr.IsString {
			e.str(pr.Str)
		} else {
			e.ints(pr.Ints)
		}
	})
}

func encodeLayout(e *encoder, l Layout) {
	e.u(uint64(l.Order))
	for _, v := range []int64{l.RowBlock, l.ColumnBlock, l.TileCount, l.TileOffset, l.Replicas, l.ReplicaStride} {
		e.i(v)
	}
	list(e, l.Axes, func(a Axis) {
		for _, v := range []int64{a.FromEnd, a.Partitions, a.PaddingGroups, a.BlockSize, a.PaddingMultiple, a.ShardPadding, a.TileStride} {
			e.i(v)
		}
		e.u(uint64(a.Padding))
	})
}

func (p *Package) encodeBuffers() []byte {
	return section(func(e *encoder) {
		list(e, p.Buffers, func(b Buffer) {
			e.str(b.Name)
			e.str(b.Elem.String())
			e.ints(b.Shape)
			e.n(b.Class)
			e.i(b.Start)
			e.i(b.End)
			encodeLayout(e, b.Layout)
			e.indices(b.ViewOf)
			e.str(b.ViewKind)
			encodeParams(e, b.ViewParams)
			e.bool(b.Init != nil)
			if b.Init != nil {
				e.bool(b.Init.Splat)
				e.raw(b.Init.Data)
			}
			list(e, b.Pieces, func(pc Piece) {
				e.n(pc.Tile)
				e.i(pc.Address)
				e.i(pc.Bytes)
				e.spans(pc.Box)
			})
		})
	})
}

func (p *Package) encodeTileImages() []byte {
	return section(func(e *encoder) {
		list(e, p.TileImages, func(t TileImage) {
			for _, v := range []int64{t.SupportAddress, t.CodeBytes, t.ExchangeTableBytes, t.HostCodeBytes} {
				e.i(v)
			}
		})
	})
}

func (p *Package) encodeExchanges() []byte {
	return section(func(e *encoder) {
		list(e, p.Exchanges, func(x Exchange) {
			e.i(x.Phase)
			list(e, x.Transfers, func(t Transfer) {
				e.n(t.Operand)
				e.n(t.Src)
				e.indices(t.Dst)
				e.i(t.Words)
				e.spans(t.Box)
			})
			e.i(x.Horizon)
			e.i(x.LowerBound)
			e.str(x.Kind)
			list(e, x.Segments, func(s Segment) {
				e.n(s.Transfer)
				e.i(s.Start)
				e.i(s.Words)
			})
			e.ints(x.SourceOffsets)
			e.ints(x.SourceStrides)
		})
	})
}

func (p *Package) encodeStreams() []byte {
	return section(func(e *encoder) {
		list(e, p.Streams, func(s Stream) {
			e.str(s.Name)
			e.bool(s.Output)
			e.n(s.Index)
			e.str(s.Elem.String())
			e.ints(s.Shape)
			e.n(s.Buffer)
		})
	})
}

func (p *Package) encodeCheckpoints() []byte {
	return section(func(e *encoder) {
		list(e, p.Checkpoints, func(c Checkpoint) {
			e.str(c.Name)
			// The last field was a sample count in versions 1 and 2;
			// runners decide what to compare, so it is written as 0.
			for _, v := range []int{c.Buffer, c.Line, c.Column, 0} {
				e.n(v)
			}
		})
	})
}

func (p *Package) encodeMetadata() []byte {
	return section(func(e *encoder) {
		list(e, p.Metadata, func(m Entry) { e.str(m.Key); e.str(m.Value) })
	})
}
