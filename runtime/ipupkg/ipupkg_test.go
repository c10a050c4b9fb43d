package ipupkg

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ipuir/ipuir/elem"
)

// testdata/attention-tiny.ipupkg is the tiny attention block's package for
// test16, as ipu-translate --emit-package writes it (translate/pkgemit's
// golden test keeps it current).
func realPackage(t testing.TB) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/attention-tiny.ipupkg")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// small is a package built by hand: two tiles, one input gathered onto tile
// 0 by one exchange.
func small() *Package {
	box := func(lo, hi int64) []Span { return []Span{{lo, hi}, {0, 8}} }
	return &Package{
		Compiler: "test", Target: "two", Tiles: 2, SRAMBytes: 4096,
		Classes: []MemoryClass{{Name: "Std", Kind: "standard", Start: 0, End: 4096, Alignment: 8, HoldsCode: true}},
		Buffers: []Buffer{
			{Name: "x", Elem: elem.F16, Shape: []int64{4, 8}, End: 1, Layout: Layout{Order: 1, TileCount: 2, Replicas: 1, Axes: []Axis{{FromEnd: 2, Partitions: 2, PaddingGroups: 1, BlockSize: 1, PaddingMultiple: 1, ShardPadding: 1, Padding: 1}}},
				Pieces: []Piece{{Tile: 0, Address: 1024, Bytes: 32, Box: box(0, 2)}, {Tile: 1, Address: 1024, Bytes: 32, Box: box(2, 4)}}},
			{Name: "y", Elem: elem.F16, Shape: []int64{4, 8}, Start: 0, End: -1, Layout: Layout{Order: 1, TileCount: 1, Replicas: 1},
				Pieces: []Piece{{Tile: 0, Address: 1056, Bytes: 64, Box: box(0, 4)}}},
			{Name: "half", Elem: elem.F16, Shape: []int64{4, 8}, Start: 0, End: 1, Layout: Layout{Order: 1, TileCount: 1, Replicas: 1},
				Init: &Init{Splat: true, Data: []byte{0x00, 0x38}}, Pieces: []Piece{{Tile: 0, Address: 2048, Bytes: 2, Box: box(0, 4)}}},
			{Name: "view", Elem: elem.F16, Shape: []int64{32}, Layout: Layout{Order: 1, TileCount: 1, Replicas: 1}, End: -1, ViewOf: []int{1}, ViewKind: "reshape", Pieces: []Piece{{Tile: 0, Box: []Span{{0, 32}}}}},
		},
		Program: []Instruction{
			{Op: OpSync},
			{Op: OpExchange, Operands: []int{0, 1}, Params: []Param{{Key: ParamExchange, Ints: []int64{0}}}},
			{Op: OpVector, Superstep: 1, Operands: []int{1, 2, 1}, Params: []Param{{Key: ParamFn, IsString: true, Str: "mul"}}},
		},
		TileImages: []TileImage{{0, 512, 16, 176}, {0, 480, 16, 176}},
		Exchanges: []Exchange{{Phase: 0, Transfers: []Transfer{{Operand: 0, Src: 1, Dst: []int{0}, Words: 8, Box: box(2, 4)}},
			Horizon: 8, LowerBound: 8, Kind: "matching", Segments: []Segment{{0, 0, 8}}}},
		Streams:     []Stream{{Name: "x", Index: 0, Elem: elem.F16, Shape: []int64{4, 8}, Buffer: 0}, {Name: "y", Output: true, Index: 0, Elem: elem.F16, Shape: []int64{4, 8}, Buffer: 1, Text: true}},
		Checkpoints: []Checkpoint{{Name: "y", Buffer: 1, Line: 3, Column: 5}, {Name: "y transposed", Buffer: 1, Line: 4, Column: 5, Permutation: []int{1, 0}}},
		Source:      []byte("module {}\n"),
		Metadata:    []Entry{{"pipeline", "builtin.module(lower-to-tile-asm)"}},
	}
}

// streamedSmall is small with its input in streaming memory: a stream-in
// loads it at step 0, the step its buffer becomes live.
func streamedSmall() *Package {
	p := small()
	p.Program = append([]Instruction{{Op: OpStreamIn, Operands: []int{0}}}, p.Program...)
	p.Buffers[0].End = 2
	return p
}

// A package whose input is loaded from streaming memory reads back as
// itself, and names the load.
func TestStreamedInputRoundTrips(t *testing.T) {
	p := streamedSmall()
	q, _, err := Decode(p.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(p, q, ignoreVersion); d != "" {
		t.Errorf("decoded package differs (-want +got):\n%s", d)
	}
	if got := q.StreamedIn(q.Streams[0]); got != 0 {
		t.Errorf("input 0 is loaded by instruction %d, want 0", got)
	}
	if got := q.StreamedIn(q.Streams[1]); got != -1 {
		t.Errorf("an output is loaded by instruction %d", got)
	}
}

// Encode, decode and encode again gives the same package and the same
// bytes, for a package built by hand and for one the compiler wrote.
func TestRoundTrip(t *testing.T) {
	p := small()
	data := p.Encode()
	q, sections, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(p, q, ignoreVersion); d != "" {
		t.Errorf("decoded package differs (-want +got):\n%s", d)
	}
	if len(sections) != 9 {
		t.Errorf("%d sections", len(sections))
	}
	if again := q.Encode(); !bytes.Equal(again, data) {
		t.Error("encoding the decoded package gives other bytes")
	}
	real := realPackage(t)
	r, _, err := Decode(real)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(r.Encode(), real) {
		t.Error("the compiler's package does not re-encode to its own bytes")
	}
}

// ignoreVersion compares packages whatever version they were read from.
var ignoreVersion = cmpopts.IgnoreFields(Package{}, "Version")

// Older packages still read: testdata/attention-tiny-v1.ipupkg (written
// before the header said whether the target pairs tiles on shared buses)
// as a package without pairs, and both it and attention-tiny-v2.ipupkg
// (whose exchange instructions repeat their tables' phase) without the
// parameters the instruction table dropped. The v2 and v3 files are the
// current golden package as versions 2 and 3 wrote it (v3 storing every
// piece, transfer and segment field whole), so they read as one package;
// each is written again as the current version. Versions 1 to 5 read
// without the instructions' origins (attention-tiny-v5.ipupkg is the last
// golden package without them); versions 1 to 6 without checkpoint
// permutations (attention-tiny-v6.ipupkg, whose checkpoints need none).
// Those files were the golden package while the AMP was priced by T10's
// fit; attention-tiny-v7.ipupkg is that package as version 7 writes it,
// which they read as (the golden package itself has since been compiled
// under PopLibs' estimator, to other plans).
func TestReadsOlderVersions(t *testing.T) {
	v7, err := os.ReadFile("testdata/attention-tiny-v7.ipupkg")
	if err != nil {
		t.Fatal(err)
	}
	current, _, err := Decode(v7)
	if err != nil {
		t.Fatal(err)
	}
	if current.Version != FormatVersion {
		t.Fatalf("attention-tiny-v7.ipupkg is version %d; when the format moves on, compare with the newest", current.Version)
	}
	for _, c := range []struct {
		file    string
		version uint16
		same    bool // reads as the current golden package
	}{{"testdata/attention-tiny-v1.ipupkg", 1, false}, {"testdata/attention-tiny-v2.ipupkg", 2, true}, {"testdata/attention-tiny-v3.ipupkg", 3, true},
		{"testdata/attention-tiny-v4.ipupkg", 4, true}, {"testdata/attention-tiny-v5.ipupkg", 5, true}, {"testdata/attention-tiny-v6.ipupkg", 6, true}} {
		old, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		p, _, err := Decode(old)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if p.Version != c.version || p.Tiles != 16 || (c.version == 1 && p.ExchangeBusPairs) {
			t.Fatalf("%s: version %d, pairs %v, %d tiles", c.file, p.Version, p.ExchangeBusPairs, p.Tiles)
		}
		exchanges := 0
		for _, in := range p.Program {
			if in.Op == OpExchange {
				exchanges++
				if _, ok := in.Param("phase"); ok || len(in.Params) != 1 {
					t.Errorf("%s: an exchange keeps parameters %v", c.file, in.Params)
				}
			}
		}
		if exchanges == 0 {
			t.Fatalf("%s: no exchange instruction", c.file)
		}
		q, _, err := Decode(p.Encode())
		if err != nil {
			t.Fatal(err)
		}
		if q.Version != FormatVersion {
			t.Errorf("written as version %d", q.Version)
		}
		if d := cmp.Diff(p, q, ignoreVersion); d != "" {
			t.Errorf("%s: rewritten package differs (-old +current):\n%s", c.file, d)
		}
		// Version 2 wrote parameters in the IR's order, version 3 in the
		// table's.
		byKey := cmpopts.SortSlices(func(a, b Param) bool { return a.Key < b.Key })
		// Before version 6 instructions had no origins; the compiler that
		// wrote the old packages named buffers and checkpoints by number
		// and op, where it now names them as the source does.
		noOrigins := cmpopts.IgnoreFields(Instruction{}, "Origin")
		names := cmp.Options{cmpopts.IgnoreFields(Buffer{}, "Name"), cmpopts.IgnoreFields(Checkpoint{}, "Name")}
		if d := cmp.Diff(current, p, ignoreVersion, byKey, noOrigins, names); c.same && d != "" {
			t.Errorf("%s reads differently from attention-tiny-v7.ipupkg (-v7 +old):\n%s", c.file, d)
		}
	}
}

// reseal recomputes every section's checksum and the file's digest, so that
// a mutation reaches the structural checks instead of the checksums.
func reseal(data []byte) []byte {
	out := bytes.Clone(data)
	if len(out) < fileHeaderBytes+trailerBytes {
		return out
	}
	body := len(out) - trailerBytes
	count := int(binary.LittleEndian.Uint32(out[len(Magic)+4:]))
	off := fileHeaderBytes
	for range count {
		if off+sectionHeaderBytes > body {
			break
		}
		length := binary.LittleEndian.Uint64(out[off+4:])
		start := off + sectionHeaderBytes
		if length > uint64(body-start) {
			break
		}
		end := start + int(length)
		binary.LittleEndian.PutUint32(out[off+12:], crc32.Checksum(out[start:end], castagnoli))
		off = end
	}
	copy(out[body:], TrailerMagic)
	sum := sha256.Sum256(out[:body])
	copy(out[body+len(TrailerMagic):], sum[:])
	return out
}

// sectionStarts returns the file offsets of the section headers.
func sectionStarts(data []byte) []int {
	var out []int
	count := int(binary.LittleEndian.Uint32(data[len(Magic)+4:]))
	off := fileHeaderBytes
	for range count {
		out = append(out, off)
		off += sectionHeaderBytes + int(binary.LittleEndian.Uint64(data[off+4:]))
	}
	return out
}

// decodeSafely decodes, turning a panic into a test failure.
func decodeSafely(t *testing.T, what string, data []byte) (p *Package, err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("%s: the reader panicked: %v", what, r)
		}
	}()
	p, _, err = Decode(data)
	return p, err
}

// A real package with bytes flipped, truncated at every length, and section
// lengths rewritten is rejected every time with a reason; flips behind
// fixed-up checksums reach the structural checks and are either rejected
// with a reason or, when they change only free-form bytes (a name, the
// source text), read as a consistent package that reads back as itself.
func TestCorruptPackagesAreRejected(t *testing.T) {
	real := realPackage(t)
	rng := rand.New(rand.NewPCG(3, 4))
	tried, rejected, resealedAccepted := 0, 0, 0
	reject := func(what string, data []byte) {
		tried++
		_, err := decodeSafely(t, what, data)
		var fe *FormatError
		if err == nil || !errors.As(err, &fe) || fe.Msg == "" {
			t.Fatalf("%s: want a rejection with a reason, got %v", what, err)
		}
		rejected++
	}
	// Every byte flipped once (the digest, or a checksum, or the magic).
	for i := range real {
		c := bytes.Clone(real)
		c[i] ^= byte(1 + rng.IntN(255))
		reject("flip", c)
	}
	// Truncated at every length.
	for n := range len(real) {
		reject("truncate", real[:n])
	}
	// Each section's length rewritten, checksums and digest fixed up.
	for _, off := range sectionStarts(real) {
		length := binary.LittleEndian.Uint64(real[off+4:])
		for _, l := range []uint64{0, length - 1, length + 1, 1 << 40, ^uint64(0)} {
			c := bytes.Clone(real)
			binary.LittleEndian.PutUint64(c[off+4:], l)
			reject("section length", reseal(c))
		}
	}
	// Flips behind fixed-up checksums.
	for range 4000 {
		c := bytes.Clone(real)
		for range 1 + rng.IntN(3) {
			c[rng.IntN(len(c)-trailerBytes)] ^= byte(1 + rng.IntN(255))
		}
		c = reseal(c)
		tried++
		p, err := decodeSafely(t, "resealed flip", c)
		var fe *FormatError
		switch {
		case err == nil:
			if !bytes.Equal(p.Encode(), c) {
				q, _, err := Decode(p.Encode())
				if err != nil || !cmp.Equal(p, q, ignoreVersion) {
					t.Fatalf("a resealed flip was accepted, and its package does not read back as itself: %v\n%s", err, cmp.Diff(p, q))
				}
			}
			resealedAccepted++
		case errors.As(err, &fe) && fe.Msg != "":
			rejected++
		default:
			t.Fatalf("resealed flip: a rejection without a reason: %v", err)
		}
	}
	t.Logf("%d corrupt packages tried: %d rejected with a reason, %d resealed flips read as consistent packages", tried, rejected, resealedAccepted)
}

// Rejections say what is wrong and where.
func TestRejectionsNameTheProblem(t *testing.T) {
	real := realPackage(t)
	starts := sectionStarts(real)
	// The exchange-tables section's length runs past the end.
	c := bytes.Clone(real)
	binary.LittleEndian.PutUint64(c[starts[4]+4:], uint64(len(real)))
	_, _, err := Decode(reseal(c))
	want := "section exchange-tables at byte " + itoa(int64(starts[4]+4)) + ": length " + itoa(int64(len(real))) + " runs past the end of the file at byte "
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v\nwant %s", err, want)
	}
	for _, tc := range []struct {
		name string
		edit func(p *Package)
		want string
	}{
		{"tile out of range", func(p *Package) { p.Exchanges[0].Transfers[0].Src = 2 }, "section exchange-tables: phase 0: transfer 0: from tile 2 of 2"},
		{"address outside class", func(p *Package) { p.Buffers[0].Pieces[1].Address = 4090 }, "buffer 0 (x): tile 1: [4090, 4122) is not inside Std [0, 4096)"},
		{"misaligned", func(p *Package) { p.Buffers[0].Pieces[1].Address = 1025 }, "tile 1: address 1025 is not aligned to Std's 8 bytes"},
		{"tile images", func(p *Package) { p.TileImages = p.TileImages[:1] }, "1 tile images for 2 tiles"},
		{"schedule", func(p *Package) { p.Exchanges[0].Segments[0].Words = 4 }, "transfer 0 has 8 words, its segments send 4"},
		{"stream", func(p *Package) { p.Streams[0].Shape = []int64{8, 4} }, "stream 0 (x): f16 [8 4], but its buffer holds f16 [4 8]"},
		{"checkpoint permutation", func(p *Package) {
			p.Checkpoints = append(p.Checkpoints, Checkpoint{Name: "z", Buffer: 1, Permutation: []int{1, 1}})
		}, "checkpoint 2 (z) permutes its buffer's 2 axes by [1 1], which is not a permutation of them"},
		// A host stream's type is its buffer's, or i64 over i32 (computed
		// as i32): nothing else, i64 over f16 not either.
		{"stream of another type", func(p *Package) { p.Streams[0].Elem = elem.F32 }, "stream 0 (x): f32 [4 8], but its buffer holds f16 [4 8]"},
		{"i64 stream over f16", func(p *Package) { p.Streams[0].Elem = elem.I64 }, "stream 0 (x): i64 [4 8], but its buffer holds f16 [4 8]"},
		// Text is parsed into, and formatted from, the buffer's own type.
		{"text over a narrower buffer", func(p *Package) {
			p.Buffers[1].Elem, p.Buffers[1].Pieces[0].Bytes, p.Streams[1].Elem = elem.F32, 128, elem.F64
		}, "stream 1 (y): text read as f64, but its buffer holds f32"},
		{"output numbered past the outputs", func(p *Package) { p.Streams[1].Index = 5 }, "stream 1 (y) is output #5 of 1: the outputs are numbered 0 to 0, each once"},
		{"output twice", func(p *Package) { p.Streams = append(p.Streams, p.Streams[1]) }, "stream 2 (y): a second output stream #0"},
		{"input written by the program", func(p *Package) { p.Streams[0].Buffer = 1 }, "stream 0 (x): an input fills buffer 1 (y), which an instruction writes"},
		// A weight in streaming memory: its input's buffer is filled by one
		// stream-in, at the step the buffer becomes live.
		{"stream-in of no input", func(p *Package) {
			p.Program = append(p.Program, Instruction{Op: OpStreamIn, Superstep: 1, Operands: []int{1}})
		}, "instruction 3 (stream-in) loads buffer 1 (y), which no input stream fills"},
		{"stream-in after its buffer is live", func(p *Package) {
			p.Program = slices.Insert(p.Program, 2, Instruction{Op: OpStreamIn, Operands: []int{0}})
		}, "stream 0 (x): a stream-in loads buffer 0 (x) at step 1, but it is live from step 0"},
		{"stream-in twice", func(p *Package) {
			in := Instruction{Op: OpStreamIn, Operands: []int{0}}
			p.Program = append([]Instruction{in, in}, p.Program...)
		}, "instruction 1 (stream-in) loads buffer 0, which an earlier stream-in loaded"},
		{"operand", func(p *Package) { p.Program[2].Operands[1] = 9 }, "instruction 2 (vector): operand buffer 9 of 4"},
		// The instruction table's rules, checked when the package is read.
		{"unknown function", func(p *Package) { p.Program[2].Params[0].Str = "silly" }, "instruction 2 (vector): parameter 'fn': unknown value 'silly' (known: add, sub"},
		{"unknown parameter", func(p *Package) {
			p.Program[2].Params = append(p.Program[2].Params, Param{Key: "phase", Ints: []int64{1}})
		}, "instruction 2 (vector): unknown parameter 'phase' (it takes fn)"},
		{"parameter twice", func(p *Package) { p.Program[2].Params = append(p.Program[2].Params, p.Program[2].Params[0]) }, "parameter 'fn' given twice"},
		{"missing parameter", func(p *Package) { p.Program[2].Params = nil }, "instruction 2 (vector): no 'fn' parameter"},
		{"parameter of the wrong kind", func(p *Package) { p.Program[1].Params[0] = Param{Key: ParamExchange, IsString: true, Str: "0"} }, "parameter 'exchange': string \"0\" where an integer is wanted"},
		{"parameter out of range", func(p *Package) { p.Program[1].Params[0].Ints = []int64{-1} }, "parameter 'exchange': -1 is below the least value 0"},
		{"no such exchange table", func(p *Package) { p.Program[1].Params[0].Ints = []int64{3} }, "exchange table 3 of 1"},
		{"operand count", func(p *Package) { p.Program[1].Operands = p.Program[1].Operands[:1] }, "1 operand buffers, exchange takes 2 or more"},
		{"sync with operands", func(p *Package) { p.Program[0].Operands = []int{0} }, "1 operand buffers, sync takes 0"},
		{"unknown view kind", func(p *Package) { p.Buffers[3].ViewKind = "rotate" }, "buffer 3 (view): view kind 'rotate' (known: relayout, reshape"},
		{"view parameter", func(p *Package) { p.Buffers[3].ViewParams = []Param{{Key: ParamStrides, Ints: []int64{0}}} }, "buffer 3 (view): view: parameter 'strides': 0 is below the least value 1"},
		{"init", func(p *Package) { p.Buffers[2].Init.Data = nil }, "initial value of 0 bytes, want 2"},
	} {
		p := small()
		tc.edit(p)
		_, _, err := Decode(p.Encode())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v\nwant %s", tc.name, err, tc.want)
		}
	}
	// A newer version, an unknown required section, and an optional one.
	c = bytes.Clone(real)
	binary.LittleEndian.PutUint16(c[len(Magic):], FormatVersion+1)
	if _, _, err := Decode(reseal(c)); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("format version %d, this reader reads versions 1 to %d", FormatVersion+1, FormatVersion)) {
		t.Errorf("version: %v", err)
	}
	p := small()
	p.Extra = []RawSection{{ID: 200, Payload: []byte("later")}}
	q, _, err := Decode(p.Encode())
	if err != nil || len(q.Extra) != 1 || string(q.Extra[0].Payload) != "later" {
		t.Errorf("an unknown optional section is skipped and kept: %v", err)
	}
	p.Extra[0].Required = true
	if _, _, err := Decode(p.Encode()); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("is required, and this reader (format version %d) does not know it", FormatVersion)) {
		t.Errorf("unknown required section: %v", err)
	}
}

// FuzzDecode reads arbitrary bytes as a package: a rejection, or a package
// that reads back as itself once encoded, never a panic. The fuzzer's bytes are
// resealed (checksums and digest fixed up) half the time, so that it
// explores the structure behind them.
func FuzzDecode(f *testing.F) {
	f.Add(realPackage(f), false)
	f.Add(small().Encode(), false)
	f.Add(small().Encode()[:100], true)
	f.Add(streamedSmall().Encode(), false)
	f.Fuzz(func(t *testing.T, data []byte, sealed bool) {
		if sealed {
			data = reseal(data)
		}
		p, _, err := Decode(data)
		if err != nil {
			return
		}
		q, _, err := Decode(p.Encode())
		if err != nil || !cmp.Equal(p, q, ignoreVersion) {
			t.Fatalf("accepted a package that does not read back as itself: %v", err)
		}
	})
}

// A list's count is bounded by its items' minimum size, computed from
// their fields (a lower bound: an element type's name takes more than the
// byte counted for it): a section of small items decodes, and a count
// that the bytes left cannot hold at that minimum is refused before
// anything is allocated.
func TestListBoundsComeFromTheFields(t *testing.T) {
	compared := 0
	check := func(name string, item []byte, min int, decode func(c *codec) int) {
		t.Helper()
		if len(item) < min {
			t.Errorf("%s: an item of %d bytes is smaller than the minimum %d", name, len(item), min)
		}
		for _, n := range []int{0, 1, 7, 300} {
			w := newWriter()
			w.index(&n, "count", math.MaxInt)
			w.b = append(w.b, bytes.Repeat(item, n)...)
			c := &codec{b: w.b, version: FormatVersion}
			if got := decode(c); c.err != nil || got != n || c.off != len(c.b) {
				t.Errorf("%s: %d items: decoded %d, %v", name, n, got, c.err)
			}
			if n == 0 {
				continue
			}
			w = newWriter()
			w.index(&n, "count", math.MaxInt)
			w.b = append(w.b, make([]byte, n*min-1)...)
			c = &codec{b: w.b, version: FormatVersion}
			if decode(c); c.err == nil || !strings.Contains(c.err.Error(), "count") {
				t.Errorf("%s: %d items in %d bytes: %v, want a count error", name, n, n*min-1, c.err)
			}
			compared++
		}
	}
	enc := func(fields func(w *codec)) []byte { w := newWriter(); fields(w); return w.b }
	check("instructions", enc(func(w *codec) { instructionFields(w, &Instruction{Op: OpSync}) }), minSize(instructionFields),
		func(c *codec) int { var v []Instruction; list(c, &v, "x", instructionFields); return len(v) })
	buffer := func(c *codec, b *Buffer) { bufferFields(c, &Package{}, b) }
	check("buffers", enc(func(w *codec) { buffer(w, &Buffer{Elem: elem.I1}) }), minSize(buffer),
		func(c *codec) int { var v []Buffer; list(c, &v, "x", buffer); return len(v) })
	var prev Piece
	pieces := func(c *codec, pc *Piece) { pieceFields(c, pc, &prev) }
	check("pieces", enc(func(w *codec) { pieceFields(w, &Piece{}, &Piece{}) }), minSize(pieces),
		func(c *codec) int { var v []Piece; list(c, &v, "x", pieces); return len(v) })
	check("streams", enc(func(w *codec) { streamFields(w, &Stream{Elem: elem.F16}) }), minSize(streamFields),
		func(c *codec) int { var v []Stream; list(c, &v, "x", streamFields); return len(v) })
	check("exchange tables", enc(func(w *codec) { exchangeFields(w, &Exchange{}) }), minSize(exchangeFields),
		func(c *codec) int { var v []Exchange; list(c, &v, "x", exchangeFields); return len(v) })
	check("checkpoints", enc(func(w *codec) { checkpointFields(w, &Checkpoint{}) }), minSize(checkpointFields),
		func(c *codec) int { var v []Checkpoint; list(c, &v, "x", checkpointFields); return len(v) })
	if compared != 6*3 {
		t.Fatalf("checked %d refusals", compared)
	}
	if got := minSize(buffer); got != 20 {
		t.Errorf("a buffer's smallest encoding is %d bytes, want 20 (19 before version 5's pieces flag; the hand count was 22)", got)
	}
}

// Version 4's predicted transfers and segments read back as written,
// whatever their regularity: random tables mixing regular runs (the
// next tile sending the next block to one group) with arbitrary records
// (unsorted destinations, the source among them or not, ranks changing),
// compared field by field after a round trip.
func TestPredictedRecordsRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	compared := 0
	for trial := range 200 {
		var x Exchange
		src, lo := r.IntN(64), int64(r.IntN(9))
		group := []int{r.IntN(8), 8 + r.IntN(8), 16 + r.IntN(8)}
		for i := range 1 + r.IntN(40) {
			tr := Transfer{Operand: r.IntN(2), Src: src, Words: int64(1 + r.IntN(3)), Box: []Span{{lo, lo + 1}, {0, 72}}}
			tr.Dst = without(group, src)
			switch r.IntN(4) {
			case 0: // arbitrary
				tr.Src = r.IntN(MaxTiles)
				tr.Dst = nil
				for range r.IntN(5) {
					tr.Dst = append(tr.Dst, r.IntN(2000))
				}
				rank := r.IntN(4)
				tr.Box = make([]Span, rank)
				for k := range tr.Box {
					a := int64(r.IntN(100) - 50)
					tr.Box[k] = Span{a, a + int64(r.IntN(5))}
				}
			case 1: // a stride
				tr.Dst = []int{3, 3 + 138, 3 + 2*138, 5}
			}
			x.Transfers = append(x.Transfers, tr)
			x.Segments = append(x.Segments, Segment{Transfer: i, Start: int64(i * 4), Words: tr.Words})
			if r.IntN(5) == 0 {
				x.Segments = append(x.Segments, Segment{Transfer: r.IntN(i + 1), Start: int64(r.IntN(100)), Words: 1})
			}
			src++
			lo++
		}
		w := newWriter()
		exchangeFields(w, &x)
		rd := &codec{b: w.b, version: FormatVersion}
		var back Exchange
		exchangeFields(rd, &back)
		if rd.err != nil || rd.off != len(w.b) {
			t.Fatalf("trial %d: %v (read %d of %d bytes)", trial, rd.err, rd.off, len(w.b))
		}
		if d := cmp.Diff(x, back, cmpopts.EquateEmpty()); d != "" {
			t.Fatalf("trial %d: read back differs (-written +read):\n%s", trial, d)
		}
		compared += len(x.Transfers) + len(x.Segments)
	}
	t.Logf("%d transfers and segments read back as written", compared)
}

// Version 5 leaves out the tiles and boxes of pieces that follow their
// buffer's layout (every buffer of the compiler's package), keeps them for
// pieces that do not, and reads both back as written.
func TestPiecesFromLayout(t *testing.T) {
	real, _, err := Decode(realPackage(t))
	if err != nil {
		t.Fatal(err)
	}
	derived := 0
	for i := range real.Buffers {
		if !piecesFollowLayout(real, &real.Buffers[i]) {
			t.Errorf("buffer %d (%s): the compiler's pieces do not follow its layout", i, real.Buffers[i].Name)
		}
		derived += len(real.Buffers[i].Pieces)
	}
	if derived == 0 {
		t.Fatal("no piece compared")
	}
	p := small()
	for i, want := range []bool{true, true, true, true} {
		if got := piecesFollowLayout(p, &p.Buffers[i]); got != want {
			t.Errorf("small buffer %d: follows its layout %v, want %v", i, got, want)
		}
	}
	// A piece moved to another tile, a box cut short, a piece too many:
	// each is written whole and read back as it was.
	moved, cut, extra := small(), small(), small()
	moved.Buffers[1].Pieces[0].Tile = 1
	cut.Buffers[0].Pieces[1].Box = []Span{{2, 3}, {0, 8}}
	extra.Buffers[1].Pieces = append(extra.Buffers[1].Pieces, Piece{Tile: 1, Address: 1056, Bytes: 64, Box: []Span{{0, 4}, {0, 8}}})
	for name, q := range map[string]*Package{"moved": moved, "cut": cut, "extra": extra} {
		if piecesFollowLayout(q, &q.Buffers[0]) && piecesFollowLayout(q, &q.Buffers[1]) {
			t.Errorf("%s: taken as following its layout", name)
		}
		c := newWriter()
		c.section = "buffers"
		for i := range q.Buffers {
			bufferFields(c, q, &q.Buffers[i])
		}
		r := &codec{b: c.b, version: FormatVersion, section: "buffers"}
		back := make([]Buffer, len(q.Buffers))
		for i := range back {
			bufferFields(r, q, &back[i])
		}
		if r.err != nil || r.off != len(r.b) {
			t.Fatalf("%s: %v, %d of %d bytes read", name, r.err, r.off, len(r.b))
		}
		if d := cmp.Diff(q.Buffers, back); d != "" {
			t.Errorf("%s: read back differently (-written +read):\n%s", name, d)
		}
	}
	t.Logf("%d pieces of the compiler's package derived from their layouts", derived)
}

// A reader derives pieces from a layout only within what the package and
// the bytes left justify, and names the buffer when it cannot.
func TestLayoutPiecesAreBounded(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(p *Package, b *Buffer)
		left   int
		want   string
	}{
		{"more shards than bytes", func(p *Package, b *Buffer) {}, 3, "more than the 1 this layout may place"},
		{"tile count beyond the package's", func(p *Package, b *Buffer) { b.Layout.TileCount = 3 }, 64, "exceeds the 2 tiles"},
		{"no such class", func(p *Package, b *Buffer) { b.Class = 4 }, 64, "memory class"},
		{"no tiles", func(p *Package, b *Buffer) { p.Tiles = 0 }, 64, "no tiles"},
		{"two shards on a tile", func(p *Package, b *Buffer) {
			p.Tiles, b.Layout.TileCount, b.Layout.Axes[0].TileStride, b.Layout.Replicas, b.Layout.ReplicaStride = 4, 4, 1, 2, 1
		}, 64, "both map to tile 1"},
		{"axis beyond the rank", func(p *Package, b *Buffer) { b.Layout.Axes[0].FromEnd = 1 << 40 }, 64, "does not exist"},
		{"huge partitions", func(p *Package, b *Buffer) { b.Layout.Axes[0].Partitions = 1 << 40 }, 64, "partitions"},
	} {
		p := small()
		b := &p.Buffers[0]
		c.change(p, b)
		r := &codec{b: make([]byte, c.left), version: FormatVersion, section: "buffers"}
		r.layoutPieces(p, b)
		if r.err == nil || !strings.Contains(r.err.Error(), c.want) || !strings.Contains(r.err.Error(), `buffer "x"`) {
			t.Errorf("%s: %v, want an error naming buffer \"x\" and %q", c.name, r.err, c.want)
		}
	}
}

// The writer refuses what the reader refuses: a package whose destination
// lists expand to more tiles than the reader takes (mobilenet_v2's held
// 19,145,145, and ipu-run refused the package ipu-translate had written)
// fails Marshal with the reader's message, and Encode alone would have
// written it.
func TestMarshalRefusesWhatTheReaderRefuses(t *testing.T) {
	p := small()
	data, err := p.Marshal()
	if err != nil {
		t.Fatalf("a valid package: %v", err)
	}
	if !bytes.Equal(data, p.Encode()) {
		t.Fatal("Marshal's bytes differ from Encode's")
	}
	defer func(old int64) { maxRunTiles = old }(maxRunTiles)
	maxRunTiles = 0
	if _, _, err := Decode(p.Encode()); err == nil {
		t.Fatal("the reader takes a package over its limit: the test checks nothing")
	}
	_, err = p.Marshal()
	var limit *LimitError
	if !errors.As(err, &limit) || !strings.Contains(err.Error(), "would be refused by its reader") || !strings.Contains(err.Error(), "destination tiles") {
		t.Fatalf("Marshal over the reader's limit: %v", err)
	}
	pod := &Pod{Compiler: "test", Target: "two", Chips: 1, MicroBatches: 1, Stages: []PodStage{{Package: p}}}
	if _, err := pod.Marshal(); !errors.As(err, &limit) || !strings.Contains(err.Error(), "destination tiles") {
		t.Fatalf("Pod.Marshal over the reader's limit: %v", err)
	}
}
