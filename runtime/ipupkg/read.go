package ipupkg

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"math"
	"math/bits"
	"slices"
	"strings"
)

// Limits a reader enforces beyond the file's own size.
const (
	// MaxTiles is the most tiles a package may name.
	MaxTiles = 1 << 20
	// MaxRank is the most axes a tensor may have.
	MaxRank = 16
	// MaxFileBytes is the largest package a reader reads.
	MaxFileBytes = 1 << 34
)

// FormatError is a package that Read refuses, with the reason.
type FormatError struct {
	Section string // "" for the file as a whole
	Offset  int64  // file offset of the problem
	Msg     string
}

func (e *FormatError) Error() string {
	switch {
	case e.Section == "":
		return fmt.Sprintf("invalid package: %s", e.Msg)
	case e.Offset < 0:
		return fmt.Sprintf("invalid package: section %s: %s", e.Section, e.Msg)
	}
	return fmt.Sprintf("invalid package: section %s at byte %d: %s", e.Section, e.Offset, e.Msg)
}

// SectionInfo is where a section lies in the file, for dumps.
type SectionInfo struct {
	ID       SectionID
	Required bool
	Offset   int64 // of the payload
	Length   int64
	CRC      uint32
}

// ReadFile reads and validates a package from r, which holds size bytes.
// It reads nothing beyond size and allocates no more than the file
// justifies.
func ReadFile(r io.Reader, size int64) (*Package, []SectionInfo, error) {
	if size < 0 || size > MaxFileBytes {
		return nil, nil, &FormatError{Msg: fmt.Sprintf("size %d is not a package's (at most %d bytes)", size, int64(MaxFileBytes))}
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(r, data); err != nil {
		return nil, nil, fmt.Errorf("reading the package: %w", err)
	}
	return Decode(data)
}

// VerifyDigest checks what a package's frame promises of data as a
// whole: its magic, a format version this reader reads, its trailer and
// the digest of its contents; a file cut short or corrupted anywhere fails
// it. Decode checks it first, then every section.
func VerifyDigest(data []byte) error {
	size := int64(len(data))
	if size < int64(fileHeaderBytes+trailerBytes) {
		return &FormatError{Msg: fmt.Sprintf("%d bytes is shorter than a package's header and trailer (%d bytes)", size, fileHeaderBytes+trailerBytes)}
	}
	if string(data[:len(Magic)]) != Magic {
		return &FormatError{Msg: fmt.Sprintf("not an ipuir package: the file starts %q, not %q", data[:len(Magic)], Magic)}
	}
	version := binary.LittleEndian.Uint16(data[len(Magic):])
	if version < OldestFormatVersion || version > FormatVersion {
		return &FormatError{Msg: fmt.Sprintf("format version %d, this reader reads versions %d to %d", version, OldestFormatVersion, FormatVersion)}
	}
	if r := binary.LittleEndian.Uint16(data[len(Magic)+2:]); r != 0 {
		return &FormatError{Msg: fmt.Sprintf("reserved header field is 0x%04x, not 0", r)}
	}
	return checkTrailer(data)
}

// checkTrailer checks the trailer that ends a package and a pod package
// alike: its magic, then the digest of every byte before it. data is at
// least trailerBytes long.
func checkTrailer(data []byte) error {
	body := len(data) - trailerBytes
	if string(data[body:body+len(TrailerMagic)]) != TrailerMagic {
		return &FormatError{Msg: fmt.Sprintf("no trailer at byte %d: the file is truncated or has bytes after its end", body)}
	}
	if sum := sha256.Sum256(data[:body]); !bytes.Equal(sum[:], data[body+len(TrailerMagic):]) {
		return &FormatError{Msg: "the digest does not match the contents: the file is corrupt"}
	}
	return nil
}

// Decode validates and decodes a whole package held in data.
func Decode(data []byte) (*Package, []SectionInfo, error) {
	if err := VerifyDigest(data); err != nil {
		return nil, nil, err
	}
	size := int64(len(data))
	version := binary.LittleEndian.Uint16(data[len(Magic):])
	body := size - int64(trailerBytes)
	count := int64(binary.LittleEndian.Uint32(data[len(Magic)+4:]))
	if count > (body-int64(fileHeaderBytes))/sectionHeaderBytes {
		return nil, nil, &FormatError{Msg: fmt.Sprintf("%d sections cannot fit in %d bytes", count, body)}
	}
	p := &Package{Version: version}
	var infos []SectionInfo
	seen := map[SectionID]bool{}
	last := SectionID(0)
	off := int64(fileHeaderBytes)
	for k := int64(0); k < count; k++ {
		if off+sectionHeaderBytes > body {
			return nil, nil, &FormatError{Msg: fmt.Sprintf("section %d of %d: its header at byte %d runs past the end of the sections at byte %d", k, count, off, body)}
		}
		h := data[off : off+sectionHeaderBytes]
		id := SectionID(binary.LittleEndian.Uint16(h[0:]))
		flags := binary.LittleEndian.Uint16(h[2:])
		length := binary.LittleEndian.Uint64(h[4:])
		crc := binary.LittleEndian.Uint32(h[12:])
		start := off + sectionHeaderBytes
		if length > uint64(body-start) {
			return nil, nil, &FormatError{Section: id.String(), Offset: off + 4, Msg: fmt.Sprintf("length %d runs past the end of the file at byte %d", length, body)}
		}
		payload := data[start : start+int64(length)]
		if got := crc32.Checksum(payload, castagnoli); got != crc {
			return nil, nil, &FormatError{Section: id.String(), Offset: off + 12, Msg: fmt.Sprintf("checksum 0x%08x does not match the contents (0x%08x)", crc, got)}
		}
		if flags&^flagRequired != 0 {
			return nil, nil, &FormatError{Section: id.String(), Offset: off + 2, Msg: fmt.Sprintf("unknown flags 0x%04x", flags)}
		}
		infos = append(infos, SectionInfo{ID: id, Required: flags&flagRequired != 0, Offset: start, Length: int64(length), CRC: crc})
		if _, known := sectionNames[id]; known {
			if seen[id] {
				return nil, nil, &FormatError{Section: id.String(), Offset: off, Msg: "appears twice"}
			}
			if id < last {
				return nil, nil, &FormatError{Section: id.String(), Offset: off, Msg: fmt.Sprintf("comes after section %s; known sections are in order", last)}
			}
			seen[id], last = true, id
			c := &codec{b: payload, base: start, section: id.String(), version: version}
			p.decodeSection(id, c)
			if c.err == nil && c.off != len(c.b) {
				c.fail("%d bytes after the section's contents", len(c.b)-c.off)
			}
			if c.err != nil {
				return nil, nil, c.err
			}
		} else if flags&flagRequired != 0 {
			return nil, nil, &FormatError{Section: id.String(), Offset: off, Msg: fmt.Sprintf("is required, and this reader (format version %d) does not know it", FormatVersion)}
		} else {
			p.Extra = append(p.Extra, RawSection{ID: id, Payload: bytes.Clone(payload)})
		}
		off = start + int64(length)
	}
	if off != body {
		return nil, nil, &FormatError{Msg: fmt.Sprintf("%d bytes between the last section and the trailer", body-off)}
	}
	for _, id := range []SectionID{SectionHeader, SectionProgram, SectionBuffers, SectionTileImages, SectionExchangeTables, SectionHostStreams} {
		if !seen[id] {
			return nil, nil, &FormatError{Msg: fmt.Sprintf("no %s section", id)}
		}
	}
	if err := p.Validate(); err != nil {
		return nil, nil, err
	}
	return p, infos, nil
}

// decodeSection reads a known section's payload into p.
func (p *Package) decodeSection(id SectionID, c *codec) {
	for _, s := range sections {
		if s.id == id {
			s.fields(c, p)
			return
		}
	}
}

// Validate checks a package's fields against each other and against its
// target's size: everything a device relies on before it loads anything.
func (p *Package) Validate() error {
	bad := func(section, format string, args ...any) error {
		return &FormatError{Section: section, Offset: -1, Msg: fmt.Sprintf(format, args...)}
	}
	if p.Tiles < 1 || p.Tiles > MaxTiles {
		return bad("header", "%d tiles (want 1 to %d)", p.Tiles, MaxTiles)
	}
	if p.SRAMBytes < 1 || p.SRAMBytes > 1<<40 {
		return bad("header", "%d bytes of SRAM per tile", p.SRAMBytes)
	}
	if len(p.Classes) == 0 {
		return bad("header", "no memory classes")
	}
	for i, c := range p.Classes {
		if c.Start < 0 || c.End <= c.Start || c.End > p.SRAMBytes || c.Alignment < 1 || bits.OnesCount64(uint64(c.Alignment)) != 1 {
			return bad("header", "memory class %d (%s) [%d, %d) aligned to %d is not a range of the tile's %d bytes with a power-of-two alignment", i, c.Name, c.Start, c.End, c.Alignment, p.SRAMBytes)
		}
	}
	if len(p.TileImages) != p.Tiles {
		return bad("tile-images", "%d tile images for %d tiles", len(p.TileImages), p.Tiles)
	}
	for t, im := range p.TileImages {
		if err := p.checkSupport(t, im); err != nil {
			return bad("tile-images", "%v", err)
		}
	}
	for i := range p.Buffers {
		if err := p.checkBuffer(i); err != nil {
			return bad("buffers", "buffer %d (%s): %v", i, p.Buffers[i].Name, err)
		}
	}
	for i, in := range p.Program {
		if err := p.checkInstruction(in); err != nil {
			return bad("program", "instruction %d (%s): %v", i, in.Op, err)
		}
	}
	for i := range p.Exchanges {
		if err := p.checkExchange(&p.Exchanges[i]); err != nil {
			return bad("exchange-tables", "phase %d: %v", p.Exchanges[i].Phase, err)
		}
	}
	// An input stream fills its buffer before the program, or, for a
	// weight the host writes to streaming memory, the one stream-in that
	// loads it does, at its step; no other instruction writes it.
	written := make([]bool, len(p.Buffers))
	loadedAt := map[int]int64{}
	loadedBy := map[int]int{}
	step := int64(0)
	for i, in := range p.Program {
		if in.Op == OpSync {
			continue
		}
		if n := len(in.Operands); n > 0 {
			out := in.Operands[n-1]
			if in.Op == OpStreamIn {
				if _, twice := loadedAt[out]; twice {
					return bad("program", "instruction %d (%s) loads buffer %d, which an earlier stream-in loaded", i, in.Op, out)
				}
				loadedAt[out], loadedBy[out] = step, i
			} else {
				written[out] = true
			}
		}
		step++
	}
	for _, b := range slices.Sorted(maps.Keys(loadedBy)) {
		i := loadedBy[b]
		if !slices.ContainsFunc(p.Streams, func(s Stream) bool { return !s.Output && s.Buffer == b }) {
			return bad("program", "instruction %d (%s) loads buffer %d (%s), which no input stream fills", i, OpStreamIn, b, p.Buffers[b].Name)
		}
	}
	seen := map[[2]int]bool{}
	count := [2]int{}
	for i, s := range p.Streams {
		if err := p.checkStream(s, seen, written, loadedAt); err != nil {
			return bad("host-streams", "stream %d (%s): %v", i, s.Name, err)
		}
		count[direction(s)]++
	}
	for i, s := range p.Streams {
		if n := count[direction(s)]; s.Index >= n {
			return bad("host-streams", "stream %d (%s) is %s #%d of %d: the %ss are numbered 0 to %d, each once", i, s.Name, directionName(s), s.Index, n, directionName(s), n-1)
		}
	}
	for i, c := range p.Checkpoints {
		if c.Buffer >= len(p.Buffers) {
			return bad("checkpoints", "checkpoint %d (%s) samples buffer %d of %d", i, c.Name, c.Buffer, len(p.Buffers))
		}
		if n := len(c.Permutation); n > 0 && !isPermutation(c.Permutation, len(p.Buffers[c.Buffer].Shape)) {
			return bad("checkpoints", "checkpoint %d (%s) permutes its buffer's %d axes by %v, which is not a permutation of them", i, c.Name, len(p.Buffers[c.Buffer].Shape), c.Permutation)
		}
	}
	return nil
}

func (p *Package) checkSupport(tile int, im TileImage) error {
	n := im.SupportBytes()
	if im.CodeBytes < 0 || im.ExchangeTableBytes < 0 || im.HostCodeBytes < 0 || n < 0 || n > p.SRAMBytes {
		return fmt.Errorf("tile %d: support memory of %d + %d + %d bytes", tile, im.CodeBytes, im.ExchangeTableBytes, im.HostCodeBytes)
	}
	if n == 0 {
		return nil
	}
	for _, c := range p.Classes {
		if c.HoldsCode && im.SupportAddress >= c.Start && im.SupportAddress <= c.End-n {
			return nil
		}
	}
	return fmt.Errorf("tile %d: support memory [%d, %d) is not inside a class that may hold code", tile, im.SupportAddress, im.SupportAddress+n)
}

func (p *Package) checkBuffer(i int) error {
	b := &p.Buffers[i]
	if !b.Elem.Valid() {
		return fmt.Errorf("no element type")
	}
	if len(b.Shape) > MaxRank {
		return fmt.Errorf("rank %d (at most %d)", len(b.Shape), MaxRank)
	}
	elems := int64(1)
	for _, d := range b.Shape {
		hi, lo := bits.Mul64(uint64(elems), uint64(max(d, 0)))
		if d < 0 || hi != 0 || lo > math.MaxInt64/8 {
			return fmt.Errorf("shape %v is negative or too large", b.Shape)
		}
		elems = int64(lo)
	}
	if b.Class >= len(p.Classes) {
		return fmt.Errorf("memory class %d of %d", b.Class, len(p.Classes))
	}
	if b.Start < 0 || (b.End != -1 && b.End <= b.Start) {
		return fmt.Errorf("lives over steps [%d, %d)", b.Start, b.End)
	}
	if len(b.Layout.Axes) > len(b.Shape) {
		return fmt.Errorf("its layout tiles %d axes of a rank-%d tensor", len(b.Layout.Axes), len(b.Shape))
	}
	for _, v := range b.ViewOf {
		if v >= i {
			return fmt.Errorf("views buffer %d, which is not an earlier buffer", v)
		}
	}
	if (len(b.ViewOf) > 0) != (b.ViewKind != "") {
		return fmt.Errorf("a view needs both the buffers it sees and its kind")
	}
	if b.ViewKind != "" && !slices.Contains(movementKinds(), b.ViewKind) {
		return fmt.Errorf("view kind '%s' (known: %s)", b.ViewKind, strings.Join(movementKinds(), ", "))
	}
	if err := checkParams(b.ViewParams, MovementParams); err != nil {
		return fmt.Errorf("view: %v", err)
	}
	if b.Init != nil {
		want := int64(b.Elem.Bytes())
		if !b.Init.Splat {
			want *= elems
		}
		if int64(len(b.Init.Data)) != want {
			return fmt.Errorf("initial value of %d bytes, want %d", len(b.Init.Data), want)
		}
	}
	class := p.Classes[b.Class]
	prev := -1
	for _, pc := range b.Pieces {
		if pc.Tile >= p.Tiles {
			return fmt.Errorf("a piece on tile %d of %d", pc.Tile, p.Tiles)
		}
		if pc.Tile <= prev {
			return fmt.Errorf("pieces on tile %d after tile %d: pieces are in tile order, one per tile", pc.Tile, prev)
		}
		prev = pc.Tile
		if len(b.ViewOf) > 0 && (pc.Address != 0 || pc.Bytes != 0) {
			return fmt.Errorf("tile %d: a view's piece has no memory of its own, but says [%d, %d)", pc.Tile, pc.Address, pc.Address+pc.Bytes)
		}
		if len(b.ViewOf) == 0 && (pc.Bytes < 0 || pc.Address < class.Start || pc.Address > class.End-pc.Bytes) {
			return fmt.Errorf("tile %d: [%d, %d) is not inside %s [%d, %d)", pc.Tile, pc.Address, pc.Address+pc.Bytes, class.Name, class.Start, class.End)
		}
		if pc.Address%class.Alignment != 0 {
			return fmt.Errorf("tile %d: address %d is not aligned to %s's %d bytes", pc.Tile, pc.Address, class.Name, class.Alignment)
		}
		if len(pc.Box) != len(b.Shape) {
			return fmt.Errorf("tile %d: a box of rank %d for a rank-%d tensor", pc.Tile, len(pc.Box), len(b.Shape))
		}
		n := int64(1)
		for k, s := range pc.Box {
			if s.Lo < 0 || s.Hi < s.Lo || s.Hi > b.Shape[k] {
				return fmt.Errorf("tile %d: box %v leaves the shape %v", pc.Tile, pc.Box, b.Shape)
			}
			n *= s.Hi - s.Lo
		}
		if len(b.ViewOf) == 0 && (b.Init == nil || !b.Init.Splat) {
			if n*int64(b.Elem.Bytes()) > pc.Bytes {
				return fmt.Errorf("tile %d: box %v holds %d elements, more than its %d bytes", pc.Tile, pc.Box, n, pc.Bytes)
			}
		}
	}
	return nil
}

func (p *Package) checkInstruction(in Instruction) error {
	spec, ok := in.Op.Spec()
	if !ok {
		return fmt.Errorf("unknown opcode")
	}
	if in.Superstep < 0 {
		return fmt.Errorf("superstep %d", in.Superstep)
	}
	if n := len(in.Operands); n < spec.MinOperands || (spec.MaxOperands >= 0 && n > spec.MaxOperands) {
		want := fmt.Sprintf("%d or more", spec.MinOperands)
		switch {
		case spec.MaxOperands == spec.MinOperands:
			want = itoa(int64(spec.MinOperands))
		case spec.MaxOperands >= 0:
			want = fmt.Sprintf("%d to %d", spec.MinOperands, spec.MaxOperands)
		}
		return fmt.Errorf("%d operand buffers, %s takes %s (%s)", n, spec.Name, want, spec.Doc)
	}
	for _, o := range in.Operands {
		if o >= len(p.Buffers) {
			return fmt.Errorf("operand buffer %d of %d", o, len(p.Buffers))
		}
	}
	if err := checkParams(in.Params, spec.Params); err != nil {
		return err
	}
	if in.Op == OpExchange {
		if x := in.Int(ParamExchange); x >= int64(len(p.Exchanges)) {
			return fmt.Errorf("exchange table %d of %d", x, len(p.Exchanges))
		}
	}
	return nil
}

func (p *Package) checkExchange(x *Exchange) error {
	sent := make([]int64, len(x.Transfers))
	for i, t := range x.Transfers {
		if t.Src >= p.Tiles || t.Words < 0 {
			return fmt.Errorf("transfer %d: from tile %d of %d, %d words", i, t.Src, p.Tiles, t.Words)
		}
		for _, d := range t.Dst {
			if d >= p.Tiles {
				return fmt.Errorf("transfer %d: to tile %d of %d", i, d, p.Tiles)
			}
		}
		if len(t.Dst) == 0 {
			return fmt.Errorf("transfer %d has no destination", i)
		}
	}
	if x.Horizon < 0 || x.LowerBound < 0 || x.LowerBound > x.Horizon {
		return fmt.Errorf("horizon %d, lower bound %d", x.Horizon, x.LowerBound)
	}
	for i, s := range x.Segments {
		if s.Transfer >= len(x.Transfers) {
			return fmt.Errorf("segment %d sends transfer %d of %d", i, s.Transfer, len(x.Transfers))
		}
		if s.Start < 0 || s.Words < 1 || s.Start > x.Horizon-s.Words {
			return fmt.Errorf("segment %d: %d words from cycle %d leave the horizon %d", i, s.Words, s.Start, x.Horizon)
		}
		sent[s.Transfer] += s.Words
	}
	for i, t := range x.Transfers {
		if sent[i] != t.Words {
			return fmt.Errorf("transfer %d has %d words, its segments send %d", i, t.Words, sent[i])
		}
	}
	return nil
}

// checkStream checks one host stream: an input fills a buffer of its
// own that the program only reads (live from the first step, no initial
// value, no view, written by no instruction), or one a stream-in loads
// from streaming memory (live from that step, written by nothing else);
// an output reads any buffer or view, and several outputs may read one.
func (p *Package) checkStream(s Stream, seen map[[2]int]bool, written []bool, loadedAt map[int]int64) error {
	if s.Buffer >= len(p.Buffers) {
		return fmt.Errorf("buffer %d of %d", s.Buffer, len(p.Buffers))
	}
	b := p.Buffers[s.Buffer]
	if !s.Carries(b.Elem) || !slices.Equal(s.Shape, b.Shape) {
		return fmt.Errorf("%v %v, but its buffer holds %v %v", s.Elem, s.Shape, b.Elem, b.Shape)
	}
	if s.Text && s.Elem != b.Elem {
		return fmt.Errorf("text read as %v, but its buffer holds %v", s.Elem, b.Elem)
	}
	if !s.Output {
		switch {
		case len(b.ViewOf) > 0:
			return fmt.Errorf("an input fills buffer %d, which is a view", s.Buffer)
		case b.Init != nil:
			return fmt.Errorf("an input fills buffer %d, which is a constant", s.Buffer)
		case written[s.Buffer]:
			return fmt.Errorf("an input fills buffer %d (%s), which an instruction writes", s.Buffer, b.Name)
		}
		if at, loaded := loadedAt[s.Buffer]; loaded {
			if s.Text {
				return fmt.Errorf("a stream-in loads buffer %d (%s), which is text: only numbers are streamed", s.Buffer, b.Name)
			}
			if b.Start != at {
				return fmt.Errorf("a stream-in loads buffer %d (%s) at step %d, but it is live from step %d", s.Buffer, b.Name, at, b.Start)
			}
		} else if b.Start != 0 {
			return fmt.Errorf("an input fills buffer %d (%s), which is live only from step %d", s.Buffer, b.Name, b.Start)
		}
	}
	key := [2]int{direction(s), s.Index}
	if seen[key] {
		return fmt.Errorf("a second %s stream #%d", directionName(s), s.Index)
	}
	seen[key] = true
	return nil
}

func direction(s Stream) int {
	if s.Output {
		return 1
	}
	return 0
}

func directionName(s Stream) string {
	if s.Output {
		return "output"
	}
	return "input"
}

// isPermutation reports whether p lists each of 0…rank−1 once.
func isPermutation(p []int, rank int) bool {
	if len(p) != rank {
		return false
	}
	seen := make([]bool, rank)
	for _, x := range p {
		if x < 0 || x >= rank || seen[x] {
			return false
		}
		seen[x] = true
	}
	return true
}
