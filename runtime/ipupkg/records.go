package ipupkg

import (
	"math"
	"slices"
)

// Each record's fields, in file order, once: the encoder and the decoder
// both run these (see codec). A field added here is written and read; a
// field that only some versions have is guarded by c.version.
//
// Version 4 stores pieces against the list's previous piece (integers as
// deltas, boxes axis by axis) and transfers and segments against
// predictions from the records before them (predict.go). Version 3 and
// before store each field whole. Version 5 derives a buffer's pieces'
// tiles and boxes from its layout where they follow it (as every buffer
// the compiler writes does), storing only their addresses and sizes.

// sections are the known sections in file order, with their contents.
var sections = []struct {
	id       SectionID
	required bool
	fields   func(c *codec, p *Package)
}{
	{SectionHeader, true, headerFields},
	{SectionProgram, true, func(c *codec, p *Package) { list(c, &p.Program, "instructions", instructionFields) }},
	{SectionBuffers, true, func(c *codec, p *Package) {
		list(c, &p.Buffers, "buffers", func(c *codec, b *Buffer) { bufferFields(c, p, b) })
	}},
	{SectionTileImages, true, func(c *codec, p *Package) { list(c, &p.TileImages, "tile images", tileImageFields) }},
	{SectionExchangeTables, true, func(c *codec, p *Package) { list(c, &p.Exchanges, "exchange tables", exchangeFields) }},
	{SectionHostStreams, true, func(c *codec, p *Package) { list(c, &p.Streams, "host streams", streamFields) }},
	{SectionCheckpoints, false, func(c *codec, p *Package) { list(c, &p.Checkpoints, "checkpoints", checkpointFields) }},
	{SectionSource, false, sourceFields},
	{SectionMetadata, false, func(c *codec, p *Package) { list(c, &p.Metadata, "metadata entries", entryFields) }},
}

func headerFields(c *codec, p *Package) {
	c.string(&p.Compiler, "compiler version")
	c.string(&p.Target, "target name")
	c.index(&p.Tiles, "tiles", MaxTiles)
	c.int64(&p.SRAMBytes)
	list(c, &p.Classes, "memory classes", memoryClassFields)
	// Version 1 lacks the exchange bus pairs, which read as false.
	if c.version >= 2 {
		c.bool(&p.ExchangeBusPairs)
	}
}

func memoryClassFields(c *codec, m *MemoryClass) {
	c.string(&m.Name, "class name")
	c.string(&m.Kind, "class kind")
	c.int64(&m.Start)
	c.int64(&m.End)
	c.int64(&m.Alignment)
	c.bool(&m.HoldsCode)
}

func instructionFields(c *codec, in *Instruction) {
	c.byteValue((*uint8)(&in.Op), "opcode")
	c.int64(&in.Superstep)
	c.indices(&in.Operands, "operand", math.MaxInt32)
	paramsFields(c, &in.Params)
	if c.version >= 6 {
		c.string(&in.Origin.Name, "origin name")
		c.index(&in.Origin.Line, "origin line", math.MaxInt32)
		c.index(&in.Origin.Column, "origin column", math.MaxInt32)
	}
	if !c.writing && c.version < 3 {
		if spec, ok := in.Op.Spec(); ok {
			in.Params = slices.DeleteFunc(in.Params, func(pr Param) bool { return slices.Contains(spec.Dropped, pr.Key) })
		}
	}
}

func paramsFields(c *codec, params *[]Param) {
	list(c, params, "parameters", func(c *codec, pr *Param) {
		c.string(&pr.Key, "parameter name")
		c.bool(&pr.IsString)
		if pr.IsString {
			c.string(&pr.Str, "parameter")
		} else {
			c.ints(&pr.Ints, "parameter")
		}
	})
}

func layoutFields(c *codec, l *Layout) {
	c.byteValue(&l.Order, "order")
	for _, v := range []*int64{&l.RowBlock, &l.ColumnBlock, &l.TileCount, &l.TileOffset, &l.Replicas, &l.ReplicaStride} {
		c.int64(v)
	}
	boundedList(c, &l.Axes, "layout axes", MaxRank, func(c *codec, a *Axis) {
		for _, v := range []*int64{&a.FromEnd, &a.Partitions, &a.PaddingGroups, &a.BlockSize, &a.PaddingMultiple, &a.ShardPadding, &a.TileStride} {
			c.int64(v)
		}
		c.byteValue(&a.Padding, "padding")
	})
}

func bufferFields(c *codec, p *Package, b *Buffer) {
	c.string(&b.Name, "buffer name")
	c.elemType(&b.Elem, "element type")
	c.ints(&b.Shape, "shape")
	c.index(&b.Class, "memory class", math.MaxInt32)
	c.int64(&b.Start)
	c.int64(&b.End)
	layoutFields(c, &b.Layout)
	c.indices(&b.ViewOf, "view source", math.MaxInt32)
	c.string(&b.ViewKind, "view kind")
	paramsFields(c, &b.ViewParams)
	hasInit := b.Init != nil
	c.bool(&hasInit)
	if hasInit {
		if b.Init == nil {
			b.Init = &Init{}
		}
		c.bool(&b.Init.Splat)
		c.bytes(&b.Init.Data, "initial value")
	}
	var prev Piece
	fromLayout := false
	if c.version >= 5 {
		fromLayout = c.writing && piecesFollowLayout(p, b)
		c.bool(&fromLayout)
	}
	if !fromLayout {
		list(c, &b.Pieces, "pieces", func(c *codec, pc *Piece) { pieceFields(c, pc, &prev) })
		return
	}
	if !c.writing {
		c.layoutPieces(p, b)
	}
	for i := range b.Pieces {
		c.delta(&b.Pieces[i].Address, &prev.Address)
		c.delta(&b.Pieces[i].Bytes, &prev.Bytes)
	}
}

func pieceFields(c *codec, pc, prev *Piece) {
	if c.version < 4 {
		c.index(&pc.Tile, "tile", MaxTiles)
		c.int64(&pc.Address)
		c.int64(&pc.Bytes)
		c.spans(&pc.Box, "box")
		return
	}
	c.deltaIndex(&pc.Tile, &prev.Tile, "tile", MaxTiles)
	c.delta(&pc.Address, &prev.Address)
	c.delta(&pc.Bytes, &prev.Bytes)
	c.deltaSpans(&pc.Box, &prev.Box, "box")
}

func tileImageFields(c *codec, t *TileImage) {
	for _, v := range []*int64{&t.SupportAddress, &t.CodeBytes, &t.ExchangeTableBytes, &t.HostCodeBytes} {
		c.int64(v)
	}
}

func exchangeFields(c *codec, x *Exchange) {
	c.int64(&x.Phase)
	var st transferState
	list(c, &x.Transfers, "transfers", func(c *codec, t *Transfer) {
		if c.version < 4 {
			c.index(&t.Operand, "operand", math.MaxInt32)
			c.index(&t.Src, "tile", MaxTiles)
			c.indices(&t.Dst, "tile", MaxTiles)
			c.int64(&t.Words)
			c.spans(&t.Box, "box")
			return
		}
		transferFieldsV4(c, t, &st)
	})
	c.int64(&x.Horizon)
	c.int64(&x.LowerBound)
	c.string(&x.Kind, "schedule kind")
	var prevSeg, beforeSeg Segment
	list(c, &x.Segments, "segments", func(c *codec, s *Segment) {
		if c.version < 4 {
			c.index(&s.Transfer, "transfer", math.MaxInt32)
			c.int64(&s.Start)
			c.int64(&s.Words)
			return
		}
		segmentFieldsV4(c, s, &prevSeg, &beforeSeg)
	})
	c.ints(&x.SourceOffsets, "source offsets")
	c.ints(&x.SourceStrides, "source strides")
}

func streamFields(c *codec, s *Stream) {
	c.string(&s.Name, "stream name")
	c.bool(&s.Output)
	c.index(&s.Index, "stream index", math.MaxInt32)
	c.elemType(&s.Elem, "element type")
	c.ints(&s.Shape, "shape")
	c.index(&s.Buffer, "buffer", math.MaxInt32)
	if c.version >= 5 {
		c.bool(&s.Text)
	}
}

func checkpointFields(c *codec, cp *Checkpoint) {
	c.string(&cp.Name, "checkpoint name")
	c.index(&cp.Buffer, "buffer", math.MaxInt32)
	c.index(&cp.Line, "line", math.MaxInt32)
	c.index(&cp.Column, "column", math.MaxInt32)
	// A sample count in versions 1 and 2; runners decide what to compare,
	// so it is written as 0.
	c.reserved("reserved field (a sample count before)", math.MaxInt32)
	if c.version >= 7 {
		boundedList(c, &cp.Permutation, "checkpoint permutation", MaxRank, func(c *codec, x *int) { c.index(x, "checkpoint permutation", MaxRank) })
	}
}

// sourceFields is the whole payload: the source text, unframed.
func sourceFields(c *codec, p *Package) {
	if c.writing {
		c.b = append(c.b, p.Source...)
		return
	}
	if c.off < len(c.b) {
		p.Source = append([]byte(nil), c.b[c.off:]...)
	}
	c.off = len(c.b)
}

func entryFields(c *codec, m *Entry) {
	c.string(&m.Key, "key")
	c.string(&m.Value, "value")
}
