package sim

import (
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/numeric"
	"github.com/ipuir/ipuir/runtime/device"
	"github.com/ipuir/ipuir/runtime/ipupkg"
	"github.com/ipuir/ipuir/target"
)

// gather is a package for test16: x (4×8 f16, two rows on each of tiles 0
// and 1) is gathered onto tile 0 as y by one exchange, and z = y × 0.5 (a
// splat constant) is the output.
func gather(t testing.TB) (*ipupkg.Package, *target.Target) {
	t.Helper()
	tg, err := target.Lookup("test16")
	if err != nil {
		t.Fatal(err)
	}
	box := func(lo, hi int64) []ipupkg.Span { return []ipupkg.Span{{Lo: lo, Hi: hi}, {Lo: 0, Hi: 8}} }
	rows := ipupkg.Layout{Order: 1, TileCount: 2, Replicas: 1, Axes: []ipupkg.Axis{{FromEnd: 2, Partitions: 2, PaddingGroups: 1, BlockSize: 1, PaddingMultiple: 1, ShardPadding: 1, Padding: 1}}}
	one := ipupkg.Layout{Order: 1, TileCount: 1, Replicas: 1}
	p := &ipupkg.Package{Compiler: "test", Target: tg.Name, Tiles: tg.Tiles, SRAMBytes: tg.SRAMBytesPerTile,
		Buffers: []ipupkg.Buffer{
			{Name: "x", Elem: elem.F16, Shape: []int64{4, 8}, End: 1, Layout: rows,
				Pieces: []ipupkg.Piece{{Tile: 0, Address: 1024, Bytes: 32, Box: box(0, 2)}, {Tile: 1, Address: 1024, Bytes: 32, Box: box(2, 4)}}},
			{Name: "y", Elem: elem.F16, Shape: []int64{4, 8}, End: 2, Layout: one, Pieces: []ipupkg.Piece{{Tile: 0, Address: 1088, Bytes: 64, Box: box(0, 4)}}},
			{Name: "half", Elem: elem.F16, Shape: []int64{4, 8}, Start: 1, End: 2, Layout: one,
				Init: &ipupkg.Init{Splat: true, Data: []byte{0x00, 0x38}}, Pieces: []ipupkg.Piece{{Tile: 0, Address: 2048, Bytes: 2, Box: box(0, 4)}}},
			{Name: "z", Elem: elem.F16, Shape: []int64{4, 8}, Start: 1, End: -1, Layout: one, Pieces: []ipupkg.Piece{{Tile: 0, Address: 1152, Bytes: 64, Box: box(0, 4)}}},
		},
		Program: []ipupkg.Instruction{
			{Op: ipupkg.OpSync},
			{Op: ipupkg.OpExchange, Operands: []int{0, 1}, Params: []ipupkg.Param{{Key: ipupkg.ParamExchange, Ints: []int64{0}}}},
			{Op: ipupkg.OpVector, Superstep: 1, Operands: []int{1, 2, 3}, Params: []ipupkg.Param{{Key: ipupkg.ParamFn, IsString: true, Str: "mul"}}},
		},
		Exchanges: []ipupkg.Exchange{{Transfers: []ipupkg.Transfer{{Src: 1, Dst: []int{0}, Words: 8, Box: box(2, 4)}},
			Horizon: 8, LowerBound: 8, Kind: "matching", Segments: []ipupkg.Segment{{Transfer: 0, Start: 0, Words: 8}}}},
		Streams: []ipupkg.Stream{{Name: "x", Elem: elem.F16, Shape: []int64{4, 8}, Buffer: 0}, {Name: "z", Output: true, Elem: elem.F16, Shape: []int64{4, 8}, Buffer: 3}},
	}
	for _, c := range tg.MemoryClasses {
		p.Classes = append(p.Classes, ipupkg.MemoryClass{Name: c.Name, Kind: c.Kind.String(), Start: c.Start, End: c.End, Alignment: c.Alignment, HoldsCode: c.HoldsCode})
	}
	p.TileImages = make([]ipupkg.TileImage, tg.Tiles)
	for i := range p.TileImages {
		p.TileImages[i] = ipupkg.TileImage{CodeBytes: 512}
	}
	return p, tg
}

func f16s(vals ...float64) []byte {
	var b []byte
	for _, v := range vals {
		b = binary.LittleEndian.AppendUint16(b, numeric.F16FromFloat64(v))
	}
	return b
}

func run(t *testing.T, p *ipupkg.Package, tg *target.Target, input []byte) (*session, error) {
	t.Helper()
	d := New(tg, nil)
	if err := d.Attach(); err != nil {
		t.Fatal(err)
	}
	if err := d.Initialize(); err != nil {
		t.Fatal(err)
	}
	if err := d.Load(p); err != nil {
		return nil, err
	}
	s, err := d.Session()
	if err != nil {
		t.Fatal(err)
	}
	if input != nil {
		if err := s.Write(0, input); err != nil {
			t.Fatal(err)
		}
	}
	return s.(*session), s.Run()
}

// runGather runs a gather-like package on x[i] = i − 7.5 and returns the
// session and x.
func runGather(t *testing.T, p *ipupkg.Package, tg *target.Target) (*session, []float64) {
	t.Helper()
	in := make([]float64, 32)
	for i := range in {
		in[i] = float64(i) - 7.5
	}
	s, err := run(t, p, tg, f16s(in...))
	if err != nil {
		t.Fatal(err)
	}
	return s, in
}

// expectOutput checks output stream index against want, element by element.
func expectOutput(t *testing.T, s *session, index int, want []float64) {
	t.Helper()
	out, err := s.Read(index)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range want {
		if got := numeric.F16ToFloat64(binary.LittleEndian.Uint16(out[2*i:])); got != v {
			t.Fatalf("output %d [%d] = %v, want %v", index, i, got, v)
		}
	}
}

func scaled(in []float64, by float64) []float64 {
	out := make([]float64, len(in))
	for i, v := range in {
		out[i] = v * by
	}
	return out
}

// The program moves the words and computes on them: z is x × 0.5, with
// tile 1's rows gathered by the exchange; the cycles are the sync, the
// phase and the busiest tile's compute.
func TestRunsTheProgram(t *testing.T) {
	p, tg := gather(t)
	s, in := runGather(t, p, tg)
	expectOutput(t, s, 0, scaled(in, 0.5))
	c := s.Cycles()
	phase, _ := tg.ExchangePhaseCycles(8)
	if len(c.Supersteps) != 2 || c.Supersteps[0].Sync != int64(tg.SyncCycles) || c.Supersteps[0].Exchange != phase || c.Supersteps[1].Compute == 0 {
		t.Errorf("cycles: %+v", c.Supersteps)
	}
	if c.Total != c.Supersteps[0].Sync+c.Supersteps[0].Exchange+c.Supersteps[1].Compute {
		t.Errorf("total %d of %+v", c.Total, c.Supersteps)
	}
}

// A transfer sent in two segments, the later words first, arrives whole:
// each segment carries the next words of its transfer.
func TestSegmentsInCycleOrder(t *testing.T) {
	p, tg := gather(t)
	x := &p.Exchanges[0]
	x.Horizon = 12
	x.Segments = []ipupkg.Segment{{Transfer: 0, Start: 8, Words: 4}, {Transfer: 0, Start: 0, Words: 4}}
	s, in := runGather(t, p, tg)
	expectOutput(t, s, 0, scaled(in, 0.5))
	phase, _ := tg.ExchangePhaseCycles(12)
	if s.Cycles().Supersteps[0].Exchange != phase {
		t.Errorf("the phase costs %d, want its horizon's %d", s.Cycles().Supersteps[0].Exchange, phase)
	}
}

// Faults name the tile, the cycle and the instruction: a read of memory no
// one wrote (the host never sent the input), a read of a buffer another
// one overwrote (two live buffers placed on the same bytes), and a
// schedule on which a tile sends two words in one cycle.
func TestFaults(t *testing.T) {
	p, tg := gather(t)
	_, err := run(t, p, tg, nil)
	var f *Fault
	if !errors.As(err, &f) || f.Instruction != 1 || f.Op != "exchange" || !strings.Contains(err.Error(), "reads buffer x at address 1024, which no one wrote") {
		t.Errorf("an input never written: %v", err)
	}

	p, tg = gather(t)
	p.Buffers[2].Pieces[0].Address = 1088 // the splat on y's bytes, both live in step 1
	_, err = run(t, p, tg, f16s(make([]float64, 32)...))
	if !errors.As(err, &f) || f.Tile != 0 || f.Instruction != 2 || !strings.Contains(err.Error(), "which buffer half overwrote") {
		t.Errorf("overlapping live buffers: %v", err)
	}
	if !strings.Contains(err.Error(), "device fault: tile 0, cycle ") {
		t.Errorf("the fault says where: %v", err)
	}

	p, tg = gather(t)
	x := &p.Exchanges[0]
	x.Transfers = []ipupkg.Transfer{
		{Src: 1, Dst: []int{0}, Words: 4, Box: []ipupkg.Span{{Lo: 2, Hi: 3}, {Lo: 0, Hi: 8}}},
		{Src: 1, Dst: []int{0}, Words: 4, Box: []ipupkg.Span{{Lo: 3, Hi: 4}, {Lo: 0, Hi: 8}}},
	}
	x.Segments = []ipupkg.Segment{{Transfer: 0, Start: 0, Words: 4}, {Transfer: 1, Start: 2, Words: 4}}
	if _, err := run(t, p, tg, f16s(make([]float64, 32)...)); err == nil || !strings.Contains(err.Error(), "exchange table 0") {
		t.Errorf("a tile sending two words in a cycle: %v", err)
	}
}

// pairedGather is gather with y on tiles 2 and 3, a pair sharing an
// exchange bus on test16, both receiving all of x: tiles 0 and 1 send
// their halves in the same 8 cycles, the pair taking two words a cycle;
// z = y × 0.5 is computed on tile 3 from its copy, and y is read from tile
// 2's.
func pairedGather(t testing.TB) (*ipupkg.Package, *target.Target) {
	p, tg := gather(t)
	all := []ipupkg.Span{{Lo: 0, Hi: 4}, {Lo: 0, Hi: 8}}
	y, half, z := &p.Buffers[1], &p.Buffers[2], &p.Buffers[3]
	y.Layout = ipupkg.Layout{Order: 1, TileCount: 4, Replicas: 2, ReplicaStride: 1, TileOffset: 2}
	y.Pieces = []ipupkg.Piece{{Tile: 2, Address: 1088, Bytes: 64, Box: all}, {Tile: 3, Address: 1088, Bytes: 64, Box: all}}
	y.End = -1
	for _, b := range []*ipupkg.Buffer{half, z} {
		b.Layout = ipupkg.Layout{Order: 1, TileCount: 4, Replicas: 1, TileOffset: 3}
		b.Pieces[0].Tile = 3
	}
	p.Exchanges[0] = ipupkg.Exchange{Transfers: []ipupkg.Transfer{
		{Src: 0, Dst: []int{2, 3}, Words: 8, Box: []ipupkg.Span{{Lo: 0, Hi: 2}, {Lo: 0, Hi: 8}}},
		{Src: 1, Dst: []int{2, 3}, Words: 8, Box: []ipupkg.Span{{Lo: 2, Hi: 4}, {Lo: 0, Hi: 8}}},
	}, Horizon: 8, LowerBound: 8, Kind: "matching-paired", Segments: []ipupkg.Segment{{Transfer: 0, Start: 0, Words: 8}, {Transfer: 1, Start: 0, Words: 8}}}
	p.Streams = append(p.Streams, ipupkg.Stream{Name: "y", Output: true, Index: 1, Elem: elem.F16, Shape: []int64{4, 8}, Buffer: 1})
	p.ExchangeBusPairs = true
	return p, tg
}

// A word both tiles of a pair take arrives on both, two such words a
// cycle; a device without pairs, or a package that does not say it uses
// them, refuses the schedule at load.
func TestPairedDelivery(t *testing.T) {
	p, tg := pairedGather(t)
	s, in := runGather(t, p, tg)
	expectOutput(t, s, 0, scaled(in, 0.5)) // z, from tile 3's copy of y
	expectOutput(t, s, 1, in)              // y, as tile 2 holds it
	if phase, _ := tg.ExchangePhaseCycles(8); s.Cycles().Supersteps[0].Exchange != phase {
		t.Errorf("the phase costs %d, want its horizon's %d", s.Cycles().Supersteps[0].Exchange, phase)
	}

	p, tg = pairedGather(t)
	tg.ExchangeBusPairs = false
	if _, err := run(t, p, tg, nil); err == nil || !strings.Contains(err.Error(), "deliver words to shared-bus tile pairs, which this device (test16) does not have") {
		t.Errorf("a paired package on a device without pairs: %v", err)
	}
	p, tg = pairedGather(t)
	p.ExchangeBusPairs = false
	if _, err := run(t, p, tg, nil); err == nil || !strings.Contains(err.Error(), "exchange table 0 (phase 0): tile 2 receives two words in cycle 0") {
		t.Errorf("a paired schedule in a package without pairs: %v", err)
	}
}

// A package for another machine is refused at load.
func TestLoadChecksTheTarget(t *testing.T) {
	p, _ := gather(t)
	tg, _ := target.Lookup("ipu21")
	d := New(tg, nil)
	d.Attach()
	if err := d.Load(p); err == nil || !strings.Contains(err.Error(), "the package is for test16") {
		t.Errorf("%v", err)
	}
}

// streamedGather is gather with x a weight in streaming memory: a
// stream-in loads it at step 0, after the first sync, and the steps after
// it move on by one.
func streamedGather(t testing.TB) (*ipupkg.Package, *target.Target) {
	p, tg := gather(t)
	p.Program = slices.Insert(p.Program, 1, ipupkg.Instruction{Op: ipupkg.OpStreamIn, Operands: []int{0}})
	p.Buffers[0].End = 2
	p.Buffers[1].End = 3
	p.Buffers[2].Start, p.Buffers[2].End = 2, 3
	p.Buffers[3].Start = 2
	return p, tg
}

// A weight in streaming memory reaches its tiles at its stream-in, which
// costs the superstep's exchange the target's streaming transfer of the
// bytes it writes, and the run counts it; a stream-in whose input was
// never written is a fault of the whole chip, not of a tile.
func TestStreamIn(t *testing.T) {
	p, tg := streamedGather(t)
	s, in := runGather(t, p, tg)
	expectOutput(t, s, 0, scaled(in, 0.5))
	c := s.Cycles()
	load, _ := tg.StreamingCycles(64)
	if c.Streamed != (device.StreamedLoads{Loads: 1, Bytes: 64, Waited: load}) {
		t.Errorf("streamed loads %+v, want one of 64 bytes waited %d cycles", c.Streamed, load)
	}
	phase, _ := tg.ExchangePhaseCycles(8)
	if c.Supersteps[0].Exchange != load+phase {
		t.Errorf("superstep 0's exchange %d, want the load %d and the phase %d", c.Supersteps[0].Exchange, load, phase)
	}
	if _, err := run(t, p, tg, nil); err == nil || !strings.Contains(err.Error(), "device fault: cycle") ||
		!strings.Contains(err.Error(), "its input was not written to streaming memory") {
		t.Errorf("a load of nothing: %v", err)
	}
}

// On two test16 chips as one program, the gather's second half comes from
// tile 16, on the other chip: the phase waits for the links to carry its
// 8 words (32 bytes: one link latency and ⌈32 / 34.59⌉ cycles of sending),
// longer than the tiles' own 8-word exchange, and its sync is the sync
// across chips. The words arrive all the same.
func TestExchangeAcrossChipsWaitsForTheLinks(t *testing.T) {
	p, one := gather(t)
	tg, err := target.Lookup("test16{span-chips=2}")
	if err != nil {
		t.Fatal(err)
	}
	p.Target, p.Tiles = tg.Name, tg.Tiles
	p.Buffers[0].Pieces[1].Tile = 16
	p.Buffers[0].Layout.Axes[0].TileStride = 16
	p.Buffers[0].Layout.TileCount = 17
	p.Exchanges[0].Transfers[0].Src = 16
	p.TileImages = make([]ipupkg.TileImage, tg.Tiles)
	for i := range p.TileImages {
		p.TileImages[i] = ipupkg.TileImage{CodeBytes: 512}
	}
	s, in := runGather(t, p, tg)
	expectOutput(t, s, 0, scaled(in, 0.5))
	c := s.Cycles()
	send, _ := tg.LinkSendCycles(32)
	links := send + tg.Links.LatencyCycles
	if onChip, _ := one.ExchangePhaseCycles(8); links <= onChip {
		t.Fatalf("the links (%d cycles) should take longer than the tiles' exchange (%d)", links, onChip)
	}
	if c.Supersteps[0].Exchange != links || c.Supersteps[0].Sync != tg.Links.SyncCycles {
		t.Errorf("superstep 0: exchange %d, sync %d; want %d and the sync across chips %d", c.Supersteps[0].Exchange, c.Supersteps[0].Sync, links, tg.Links.SyncCycles)
	}
	if c.Total != c.Supersteps[0].Sync+c.Supersteps[0].Exchange+c.Supersteps[1].Compute {
		t.Errorf("total %d of %+v", c.Total, c.Supersteps)
	}
	onChip, _ := tg.ExchangePhaseCycles(8)
	want := device.ChipLinks{Phases: 1, Bytes: 32, Waited: links - onChip, SyncCycles: tg.Links.SyncCycles - int64(tg.SyncCycles)}
	if c.ChipLinks != want {
		t.Errorf("ChipLinks = %+v; want %+v", c.ChipLinks, want)
	}
}
