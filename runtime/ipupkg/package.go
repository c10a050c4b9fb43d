// Package ipupkg is the application package: what a device loads, written
// by ipu-translate --emit-package and read by a runner, possibly on
// another machine, months later. It knows nothing of passes or IR: a
// package is data, and Read treats every byte of it as untrusted.
//
// # File format (version 5)
//
// All integers are little endian. A file is
//
//	magic      8 bytes   "\x89IPUPKG\n"
//	version    u16       FormatVersion
//	reserved   u16       0
//	sections   u32       how many sections follow
//	section*             16-byte header, then the payload:
//	  id       u16       SectionID
//	  flags    u16       bit 0: required (a reader that does not know the id must refuse the file)
//	  length   u64       payload bytes
//	  crc      u32       CRC-32C (Castagnoli) of the payload
//	trailer    8 bytes   "IPUEND\x00\x00"
//	digest     32 bytes  SHA-256 of every byte before the trailer
//
// Known sections appear at most once and in increasing id order; a reader
// skips an unknown section that is not required, so later versions may add
// optional sections without breaking older readers (WebAssembly's custom
// sections, and PopEF's size-prefixed blobs, work the same way). Payloads
// are sequences of unsigned LEB128 integers (encoding/binary's Uvarint),
// zigzag varints for signed ones, and length-prefixed strings.
//
// # Contents
//
// The program is one body for all tiles (tile-asm's instructions, each
// with the buffers it reads and writes and its parameters); each tile's
// image says where its support memory (code, exchange tables, host-exchange
// code) sits. Every buffer has its element type, shape, memory class,
// layout descriptor, lifetime and, per tile, the piece it holds: address,
// bytes and the box of the tensor's index space it covers. Host streams
// name the buffers the host fills and reads; checkpoints name the buffers
// whose values a runner samples against a reference computed from the
// source function, which the package carries as text.
package ipupkg

import (
	"strconv"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/layout"
)

// Magic starts every package.
const Magic = "\x89IPUPKG\n"

// MetadataSourceRewrites is the metadata key that names, comma-separated,
// the rewrites of the tensor-level program that the compiler made and that
// change which of its values the package computes: a check replays them on
// the source (execution/check).
const MetadataSourceRewrites = "source-rewrites"

// TrailerMagic precedes the digest at the end of the file.
const TrailerMagic = "IPUEND\x00\x00"

// FormatVersion is the version this package writes. It reads every
// version from OldestFormatVersion on: version 1 lacks the header's
// ExchangeBusPairs, which reads as false; versions 1 and 2 keyed
// parameters by the IR's attribute names and gave exchange instructions
// the parameters their tables already hold (an instruction's Dropped),
// which read as absent; versions 1 to 3 stored pieces, transfers and
// segments field by field, where version 4 stores them against their
// neighbours; versions 1 to 4 store every piece's tile and box, which
// version 5 derives from the buffer's layout where they follow it
// (records.go); versions 1 to 5 lack the instructions' origins, which read
// as unknown; versions 1 to 6 lack a checkpoint's permutation, which reads
// as none.
const (
	FormatVersion       = 7
	OldestFormatVersion = 1
)

// SectionID identifies a section.
type SectionID uint16

// The sections of version 1.
const (
	SectionHeader SectionID = iota + 1
	SectionProgram
	SectionBuffers
	SectionTileImages
	SectionExchangeTables
	SectionHostStreams
	SectionCheckpoints
	SectionSource
	SectionMetadata
)

var sectionNames = map[SectionID]string{
	SectionHeader: "header", SectionProgram: "program", SectionBuffers: "buffers",
	SectionTileImages: "tile-images", SectionExchangeTables: "exchange-tables",
	SectionHostStreams: "host-streams", SectionCheckpoints: "checkpoints",
	SectionSource: "source", SectionMetadata: "metadata",
}

func (id SectionID) String() string {
	if n, ok := sectionNames[id]; ok {
		return n
	}
	return "unknown section " + itoa(int64(id))
}

// Package is a decoded package.
type Package struct {
	// Version is the format version the package was read from (0 for a
	// package built in memory); Encode writes FormatVersion.
	Version uint16
	// Compiler is the version of the compiler that wrote the package.
	Compiler string
	// Target names the machine; Tiles and SRAMBytes are its size, and
	// Classes its memory classes, so that a reader can check every
	// address without knowing the target.
	Target    string
	Tiles     int
	SRAMBytes int64
	Classes   []MemoryClass
	// ExchangeBusPairs says the exchange schedules may deliver a word to
	// both tiles of a shared-bus pair through one port (target.Target's
	// fact of the same name); a device without such pairs refuses them.
	ExchangeBusPairs bool

	Program     []Instruction
	Buffers     []Buffer
	TileImages  []TileImage // one per tile
	Exchanges   []Exchange
	Streams     []Stream
	Checkpoints []Checkpoint
	// Source is the tensor-level module the package was compiled from, as
	// text (empty when it was compiled from lower-level IR).
	Source   []byte
	Metadata []Entry
	// Extra holds the optional sections this version does not know, kept
	// so that rewriting a package keeps them.
	Extra []RawSection
}

// MemoryClass is one memory class of the target.
type MemoryClass struct {
	Name       string
	Kind       string // "standard" or "interleaved"
	Start, End int64
	Alignment  int64
	HoldsCode  bool
}

// Layout is how a buffer's tensor is cut into shards and laid out in each
// shard (the tiled level's layout, as numbers).
type Layout struct {
	Order                   uint8 // 1 row major, 2 block major, 3 AMP left, 4 AMP right
	RowBlock, ColumnBlock   int64
	TileCount, TileOffset   int64
	Replicas, ReplicaStride int64
	Axes                    []Axis
}

// Axis is the tiling of one tensor axis.
type Axis struct {
	FromEnd                                                             int64 // 1 is the last axis
	Partitions, PaddingGroups, BlockSize, PaddingMultiple, ShardPadding int64
	TileStride                                                          int64
	Padding                                                             uint8 // 1 zero, 2 undefined
}

// LayoutOf is l as a package stores it (its memory class is the buffer's).
func LayoutOf(l *layout.Layout) Layout {
	out := Layout{Order: uint8(l.Order.Kind), RowBlock: l.Order.RowBlock, ColumnBlock: l.Order.ColumnBlock,
		TileCount: l.Tiling.TileCount, TileOffset: l.Tiling.TileOffset, Replicas: l.Tiling.Replicas, ReplicaStride: l.Tiling.ReplicaStride}
	for _, a := range l.Tiling.Axes {
		out.Axes = append(out.Axes, Axis{FromEnd: int64(a.FromEnd), Partitions: a.Partitions, PaddingGroups: a.PaddingGroups,
			BlockSize: a.BlockSize, PaddingMultiple: a.PaddingMultiple, ShardPadding: a.ShardPaddingMultiple, TileStride: a.TileStride, Padding: uint8(a.Padding)})
	}
	return out
}

// Tiled is the layout l stores, in the memory class named class: LayoutOf
// undone. An axis FromEnd beyond an int is left for the layout's checks
// to refuse.
func (l *Layout) Tiled(class string) layout.Layout {
	out := layout.Layout{Order: layout.Order{Kind: layout.OrderKind(l.Order), RowBlock: l.RowBlock, ColumnBlock: l.ColumnBlock},
		MemoryClass: class,
		Tiling:      layout.Tiling{TileCount: l.TileCount, TileOffset: l.TileOffset, Replicas: l.Replicas, ReplicaStride: l.ReplicaStride}}
	for _, a := range l.Axes {
		fromEnd := -1
		if a.FromEnd >= 0 && a.FromEnd <= MaxRank {
			fromEnd = int(a.FromEnd)
		}
		out.Tiling.Axes = append(out.Tiling.Axes, layout.AxisTiling{FromEnd: fromEnd, Partitions: a.Partitions, PaddingGroups: a.PaddingGroups,
			BlockSize: a.BlockSize, PaddingMultiple: a.PaddingMultiple, ShardPaddingMultiple: a.ShardPadding, TileStride: a.TileStride, Padding: layout.Padding(a.Padding)})
	}
	return out
}

// Span is a half-open range of indices [Lo, Hi).
type Span struct{ Lo, Hi int64 }

// Buffer is the storage of one value, or a view of other buffers.
type Buffer struct {
	Name  string
	Elem  elem.Type
	Shape []int64
	Class int // index into Package.Classes
	// Start and End are the steps (instructions) in which it holds data;
	// End -1 is the end of the program.
	Start, End int64
	Layout     Layout
	// ViewOf lists the buffers (earlier ones) whose memory a view sees; a
	// view's pieces say which indices each tile sees (their Address and
	// Bytes are 0: the memory is the sources'). ViewKind (reshape, transpose, slice,
	// concat, broadcast) and ViewParams (permutation, dimensions,
	// offsets, sizes, strides, axis) say how its indices map to theirs.
	ViewOf     []int
	ViewKind   string
	ViewParams []Param
	// Init is a constant's value: a splat (one element, written on every
	// tile when the buffer becomes live) or every element in row-major
	// order (loaded with the program).
	Init   *Init
	Pieces []Piece
}

// Init is a constant buffer's value.
type Init struct {
	Splat bool
	Data  []byte // little endian elements
}

// Piece is what one tile holds of a buffer.
type Piece struct {
	Tile    int
	Address int64
	Bytes   int64
	Box     []Span // the indices it covers, one span per axis
}

// Opcode is an instruction's kind.
type Opcode uint8

// The instructions of tile-asm; Instructions declares each.
const (
	OpAmp Opcode = iota + 1
	OpVector
	OpReduce
	OpCopy
	OpExchange
	OpSync
	OpStreamIn
)

// Instruction is one step of the program (a sync is not a step).
type Instruction struct {
	Op        Opcode
	Superstep int64
	Operands  []int // buffers, the output last
	Params    []Param
	Origin    Origin
}

// Origin is what an instruction was compiled from, for reports: Name in
// the user's words (the ONNX node's name, else the SSA names the source
// gave the op's results, else the op and its place) and Line and Column,
// the op's place in Source (0 when unknown). Reports only: nothing
// executes differently by it.
type Origin struct {
	Name         string
	Line, Column int
}

// OriginName is instruction i's origin name, "" when it has none or there
// is no instruction i (a run's cycles name instructions by index).
func (p *Package) OriginName(i int) string {
	if i < 0 || i >= len(p.Program) {
		return ""
	}
	return p.Program[i].Origin.Name
}

// The AMP instruction's "plan" parameter is [orientation, batch, row,
// column and inner partitions, result row and column partitions, output
// column block]; its orientation is one of these.
const (
	PlanNormal  = 0 // C = A·B, A's rows as AMP rows
	PlanSwapped = 1 // Cᵀ = Bᵀ·Aᵀ, B's columns as AMP rows
)

// Param is a named parameter of an instruction: integers or a string.
type Param struct {
	Key      string
	IsString bool
	Ints     []int64
	Str      string
}

// Param returns the parameter called key.
func (in *Instruction) Param(key string) (Param, bool) {
	for _, p := range in.Params {
		if p.Key == key {
			return p, true
		}
	}
	return Param{}, false
}

// TileImage is what a tile loads besides its buffers: its support memory.
type TileImage struct {
	SupportAddress     int64
	CodeBytes          int64
	ExchangeTableBytes int64
	HostCodeBytes      int64
}

// SupportBytes is the whole support block.
func (t TileImage) SupportBytes() int64 { return t.CodeBytes + t.ExchangeTableBytes + t.HostCodeBytes }

// Exchange is one phase's exchange table: its transfers and schedule.
type Exchange struct {
	Phase                        int64
	Transfers                    []Transfer
	Horizon, LowerBound          int64
	Kind                         string
	Segments                     []Segment
	SourceOffsets, SourceStrides []int64
}

// Transfer sends Box of source Operand from tile Src to the tiles Dst.
type Transfer struct {
	Operand int
	Src     int
	Dst     []int
	Words   int64
	Box     []Span
}

// Segment sends Words words of transfer Transfer from cycle Start.
type Segment struct {
	Transfer     int
	Start, Words int64
}

// Stream is a host input or output.
type Stream struct {
	Name   string
	Output bool
	Index  int // position among the inputs or the outputs
	// Elem is the host's element type: the buffer's, or i64 over an i32
	// buffer or f64 over an f32 one (the machines compute i64 as i32 and
	// f64 as f32: a runner narrows each input, refusing a value beyond
	// the narrow type's range, and widens each output).
	Elem   elem.Type
	Shape  []int64
	Buffer int
	// Text says the host holds this stream's values as strings (version
	// 5): it reads each input string as a number of the buffer's type,
	// and writes each output number as the shortest string that reads
	// back as it (eval.ParseNumbers, eval.FormatNumbers), since no tile
	// holds text. Elem is then the buffer's type.
	Text bool
}

// StreamedIn is the index in Program of the stream-in that loads input
// stream s from the chip's streaming memory, or -1 for a stream the host
// writes to tiles (and for an output).
func (p *Package) StreamedIn(s Stream) int {
	if s.Output {
		return -1
	}
	for i, in := range p.Program {
		if in.Op == OpStreamIn && len(in.Operands) == 1 && in.Operands[0] == s.Buffer {
			return i
		}
	}
	return -1
}

// Bytes is the size of the stream's value as the host holds it.
func (s *Stream) Bytes() int64 {
	bytes := int64(s.Elem.Bytes())
	for _, d := range s.Shape {
		bytes *= d
	}
	return bytes
}

// Carries reports whether a stream of s's element type may have a buffer of
// device elements: the same type, or the type the machines compute it in
// (ComputedAs).
func (s Stream) Carries(device elem.Type) bool {
	return s.Elem == device || ComputedAs(s.Elem) == device
}

// ComputedAs is the type the machines compute values of e in: i64 and the
// unsigned integers as i32 (narrow-i64, widen-unsigned), f64 and bf16 as
// f32 (narrow-f64, widen-bf16), every other type as itself.
func ComputedAs(e elem.Type) elem.Type {
	switch {
	case e == elem.I64 || e.IsUnsigned():
		return elem.I32
	case e == elem.F64 || e == elem.BF16:
		return elem.F32
	}
	return e
}

// Checkpoint names a buffer that holds a source op's value, which a
// runner compares with the reference's.
type Checkpoint struct {
	Name   string
	Buffer int
	Line   int // the source op's place in Source
	Column int
	// Permutation, when not empty, says the buffer holds the source op's
	// value with its axes rearranged (a channels-first model computed
	// channels-last): the source's value is the buffer's transposed by it,
	// source axis i being the buffer's axis Permutation[i] (version 7).
	Permutation []int
}

// SourceShape is the shape of the source op's value that checkpoint c of
// a buffer of shape shape samples: shape, with c's permutation applied.
func (c *Checkpoint) SourceShape(shape []int64) []int64 {
	if len(c.Permutation) == 0 || len(c.Permutation) != len(shape) {
		return shape
	}
	out := make([]int64, len(shape))
	for i, p := range c.Permutation {
		out[i] = shape[p]
	}
	return out
}

// Entry is a metadata key and value.
type Entry struct{ Key, Value string }

// RawSection is a section kept as bytes.
type RawSection struct {
	ID       SectionID
	Required bool
	Payload  []byte
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
