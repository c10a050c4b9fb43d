package target

import "github.com/ipuir/ipuir/elem"

// The built-in targets. Where each figure comes from is declared with it
// in Figures (figures.go), which --show-targets and docs/targets/figures.md
// print; the comments here say how the values were derived. The common
// per-tile figures are shared because the three targets use one tile design
// (ipu2 and ipu21 differ in clock, test16 in size).

const (
	// 1,472 tiles per IPU: docs/targets.md; Graphcore's Mk2 GC200
	// product figures.
	ipuTiles = 1472

	// 624 KiB of SRAM per tile: docs/targets.md; consistent with
	// Graphcore's ~900 MB In-Processor-Memory per Mk2 IPU
	// (1,472 × 624 KiB = 897 MiB).
	ipuSRAMBytesPerTile = 624 * 1024

	// Assumption: the split of a tile's memory between the two classes is not
	// public as a number. The reference compile log places code at offset
	// 393,216 and reports standard_ranges up to 524,288, so the standard
	// (non-interleaved) class is taken as the first 512 KiB of the tile and
	// interleaved memory as the remaining 112 KiB; the log's peak figures
	// (standard up to ~358 kB, interleaved up to ~72 kB) fit this split.
	ipuStandardBytes = 512 * 1024

	// Assumption: buffers in standard memory are 8-byte aligned (its widest
	// load is 64 bits) and in interleaved memory 16-byte aligned, so that
	// 128-bit loads are naturally aligned. Graphcore does not publish the
	// placement rule as a number.
	standardAlignment    = 8
	interleavedAlignment = 16

	// Assumption: the reference compile log's support memory is 12,416
	// bytes per tile (3,512 of generated code, 4,460 of exchange tables,
	// 4,444 of host-exchange code); 16 KiB of standard memory is kept for
	// it. test16, whose programs are small, keeps 4 KiB.
	ipuSupportReserveBytes    = 16 * 1024
	test16SupportReserveBytes = 4 * 1024

	// Assumption: the chip's 1,472 tiles are drawn as 46 columns of 32
	// (published die images show the tiles in columns; the count per column
	// is not published). test16 is 4 columns of 4.
	ipuTileColumns    = 46
	test16TileColumns = 4

	// Six worker contexts and a supervisor per tile, a worker issuing every
	// 6th cycle: docs/targets.md; Graphcore IPU Programmer's Guide
	// (tile architecture: hardware threads serviced round-robin; supervisor
	// and worker modes); Jia et al. 2019 (six-cycle memory latency hidden by
	// six threads).
	ipuWorkers             = 6
	ipuSupervisors         = 1
	ipuWorkerIssueInterval = 6

	// Clocks: docs/targets.md (ipu21 1.85 GHz, Mk2 ipu2 1.325 GHz).
	// The Mk2 clock is consistent with Graphcore's 250 TFLOPS fp16 for the
	// GC200: 1,472 tiles × 64 MAC × 2 FLOP × 1.325 GHz = 249.7 TFLOPS.
	ipu21ClockHz = 1_850_000_000
	ipu2ClockHz  = 1_325_000_000

	// AMP: 64 fp16 MACs or 16 fp32 FMAs per tile per cycle: docs/targets.md;
	// consistent with Graphcore's GC200 figures of
	// 250 TFLOPS fp16 (above) and 62.5 TFLOPS fp32
	// (1,472 × 16 × 2 × 1.325 GHz = 62.4 TFLOPS).
	ampF16MACsPerCycle = 64
	ampF32MACsPerCycle = 16

	// About 24 bytes of load/store per tile per cycle: docs/targets.md;
	// consistent with Graphcore's 47.5 TB/s for the GC200
	// (47.5e12 / (1,472 × 1.325e9) = 24.4 B) and with the ~45 TB/s that
	// Jia et al. 2019 give for the 1,216-tile, 1.6 GHz GC2 (23.1 B).
	ipuLoadStoreBytesPerCycle = 24

	// Exchange: one 32-bit word per tile per cycle in each direction:
	// docs/targets.md; consistent with Graphcore's ~8 TB/s
	// all-to-all exchange for the GC200 (8e12 / (1,472 × 1.325e9) = 4.1 B).
	exchangeWordBytes     = 4
	exchangeWordsPerCycle = 1

	// Assumption: per-phase exchange latency (the first word's time in
	// flight, which depends on tile distance) is not public as a single
	// number, so it is a parameter of the description. 30 cycles
	// is an order-of-magnitude placeholder that keeps a phase with few words
	// from looking free. The scheduler's lower bound excludes it.
	ipuExchangeLatencyCycles = 30
	// Multicast: the IPU's exchange is a broadcast fabric: a sender drives
	// its words onto the exchange and any number of receivers, told by their
	// own compile-time schedule when to listen, take them in the same cycle
	// (Graphcore, "Dissecting the Graphcore IPU architecture via
	// microbenchmarking", 2019, on broadcast exchange). So ipu targets
	// multicast.

	// Shared exchange buses: on Mk2 IPUs two adjacent tiles, 2k and 2k+1,
	// share an exchange bus, and data both receive arrives at twice the
	// rate (Graphcore's PopLibs, lib/popops/ExchangeEstimator.cpp: the
	// target "supports exchange bus sharing" with two tiles per shared bus,
	// and its planner aligns replicas to even tiles for it). The reference
	// compile log's "paired" schedules halve such phases. Assumption: a pair
	// still takes only one word per cycle for either tile alone (its own
	// port), which is what makes the gain need data both receive.

	// 118 cycles per all-tile sync: docs/targets.md (the primary
	// public source is not restated there and was not re-checked here).
	ipuSyncCycles = 118

	// Chips joined by IPU-Links: a Mk2 chip has 10 IPU-Links, 320 GB/s
	// in all (Graphcore's GC200 product figures), so 32 GB/s a link each
	// way; the Bow-2000 datasheet's 512 Gbps per IPU-Link within a pod is
	// the same link counted both ways. So one link moves 32e9 bytes a
	// second in each direction, at the chip's clock.
	linkBytesPerSecond = 32e9

	// Assumption: of its 10 links a chip in a ring gives 2 to each
	// neighbour (the rest join other machines of a pod). Not published as
	// a number; with it a ring of four moves 512 GB/s between chips in
	// all, near the 640 GB/s that Elk's emulator gives an IPU-POD4
	// (arXiv 2507.11506). --target-option=links-per-neighbour=N changes it.
	linksPerNeighbour = 2

	// Assumption: an IPU-Link's latency is not published as a number
	// (Jia et al. 2019 measure only that it rises 4.0–7.7× under load):
	// 500 cycles (about 0.27 µs at 1.85 GHz), an order of magnitude for a
	// serial link's hop that keeps small transfers from looking free.
	// --target-option=link-latency-cycles=N changes it.
	linkLatencyCycles = 500

	// Assumption: a sync across chips travels on the Bow-2000's dedicated
	// Sync-Link (its datasheet), whose latency is not published: 1,000
	// cycles, about eight of the chip's own 118-cycle syncs, for a signal
	// that leaves every chip and comes back. --target-option=chip-sync-cycles=N.
	chipSyncCycles = 1000

	// Streaming Memory: the Bow-2000 datasheet gives up to 256 GB a
	// machine of four chips, so 64 GB behind each chip.
	streamingBytesPerChip = 64_000_000_000

	// Assumption (uncertain: no first-party figure): a published block
	// diagram puts Streaming Memory behind the IPU-Gateway over PCIe Gen4
	// x8, at most 16 GT/s × 8 lanes × 128/130 / 8 = 15.75 GB/s each way
	// for the whole chip (8.5 bytes a cycle at 1.85 GHz).
	// --target-option=streaming-bytes-per-cycle=X changes it.
	streamingBytesPerSecond = 15.75e9

	// Assumption: a streaming load's latency (a round trip through the
	// gateway's PCIe) is not published: 2,000 cycles, about 1.1 µs at
	// 1.85 GHz, the order of a PCIe read's round trip.
	// --target-option=streaming-latency-cycles=N changes it.
	streamingLatencyCycles = 2000

	// Assumption: launching a vertex (supervisor dispatch of the workers and
	// their vertex-state loads) costs about 30 cycles. Graphcore publishes no
	// figure; this keeps many tiny vertices from looking free.
	ipuVertexOverheadCycles = 30
)

// ipuCodeModel sizes a tile's support memory. Assumption: the target's
// code encoding is not public, so these are estimates sized against the
// reference compile log's support memory (12,416 bytes per tile on the
// attention block: 3,512 of generated code, 4,460 of exchange tables,
// 4,444 of host-exchange code): a 256-byte supervisor skeleton per tile,
// 32 bytes per instruction a tile runs (64 for an AMP block loop, whose
// inner loop is unrolled), 4 per sync, 16 per exchange a tile takes part
// in, 8 per exchange-table segment, and for host exchange 128 bytes on a
// tile that holds a piece of a host stream plus 48 per stream.
var ipuCodeModel = CodeModel{
	SkeletonBytes:     256,
	InstructionBytes:  32,
	AMPBlockBytes:     64,
	SyncBytes:         4,
	ExchangeBytes:     16,
	TableEntryBytes:   8,
	HostSkeletonBytes: 128,
	HostStreamBytes:   48,
}

// ipuVectorRates is the vector (non-AMP) throughput of one tile.
//
// Lanes: the tile's floating-point data path is 64 bits wide, so one vector
// instruction covers 4 f16 or 2 f32 (Graphcore IPU Programmer's Guide: the
// tile processor's floating-point operations are vectorised; the target's
// 24 bytes per cycle of load/store is exactly two 64-bit loads and one 64-bit
// store). Assumption: integer arithmetic runs one element per instruction (it
// is done in the scalar register file), including i1.
//
// Simple ops (add, sub, mul, min, max, compare, select, convert) cost one
// tile cycle per vector when all six workers are busy: each worker issues
// every 6th cycle and the six interleave. Assumption: the inner loop issues
// the arithmetic with its loads and store in one bundle per vector, which the
// 24 bytes per cycle of load/store allows exactly for a binary f16 or f32 op.
//
// Transcendental ops (exp, log, tanh, sqrt, rsqrt, divide, sigmoid) run on
// the hardware transcendental support the Programmer's Guide mentions, whose
// throughput is not public. Assumption: about one f16 element per cycle
// (4 cycles per 4-lane vector) and half an f32 element per cycle (4 cycles per
// 2-lane vector). Integers have none in hardware: the only one the tensor
// dialect computes on them, division, is a software loop. Assumption: 32
// cycles an element (a shift-and-subtract step a bit for 32 bits), which is
// no less than a real routine would take.
//
// Binary64 (f64) has no hardware on the tile: a program that asks for it
// (ipu.f64 = "binary64", docs/targets.md) computes it with software
// routines on the workers' 32-bit integer units, one element at a time.
// Source: the GCC library's binary64 routines on a 32-bit core without
// floating-point hardware (ARM Cortex-M0, single-cycle memory), as
// Qfplib-M0-full's comparison measures them: add 168 cycles, subtract 167,
// multiply 377, divide 1,190, square root 1,305, logarithm 4,375, sine
// 5,854, exponential 6,655, arctangent 9,973. Assumption: a worker runs
// such a routine in as many of its issue slots (one instruction a slot),
// so with six workers busy a tile spends that many cycles an element; each
// class is charged its slowest routine (simple ops as the multiply, 377;
// transcendental ones as the arctangent, 9,973), so no op is charged less
// than its routine would take.
func ipuVectorRates() []VectorRate {
	return []VectorRate{
		{Elem: elem.F16, Lanes: 4, SimpleCyclesPerVector: 1, TranscendentalCyclesPerVector: 4},
		{Elem: elem.F32, Lanes: 2, SimpleCyclesPerVector: 1, TranscendentalCyclesPerVector: 4},
		{Elem: elem.F64, Lanes: 1, SimpleCyclesPerVector: 377, TranscendentalCyclesPerVector: 9973},
		{Elem: elem.I32, Lanes: 1, SimpleCyclesPerVector: 1, TranscendentalCyclesPerVector: integerDivideCycles},
		{Elem: elem.I16, Lanes: 1, SimpleCyclesPerVector: 1, TranscendentalCyclesPerVector: integerDivideCycles},
		{Elem: elem.I8, Lanes: 1, SimpleCyclesPerVector: 1, TranscendentalCyclesPerVector: integerDivideCycles},
		{Elem: elem.I1, Lanes: 1, SimpleCyclesPerVector: 1},
	}
}

// integerDivideCycles is the software division's cost per element
// (ipuVectorRates: an assumption).
const integerDivideCycles = 32

// ipuTile returns a target with the per-tile figures shared by all built-ins
// and the given identity, size and clock.
func ipuTile(name, summary, classPrefix string, tiles int, sramBytes, standardBytes, clockHz int64) *Target {
	return &Target{
		Name:             name,
		Summary:          summary,
		Tiles:            tiles,
		SRAMBytesPerTile: sramBytes,
		MemoryClasses: []MemoryClass{
			{Name: classPrefix + "Standard", Kind: Standard, Start: 0, End: standardBytes,
				Alignment: standardAlignment, HoldsCode: true},
			{Name: classPrefix + "Interleaved", Kind: Interleaved, Start: standardBytes, End: sramBytes,
				Alignment: interleavedAlignment, Loads128: true},
		},
		WorkerThreads:          ipuWorkers,
		SupervisorThreads:      ipuSupervisors,
		WorkerIssueInterval:    ipuWorkerIssueInterval,
		ClockHz:                clockHz,
		AMP:                    []AMPRate{{Elem: elem.F16, MACsPerCycle: ampF16MACsPerCycle}, {Elem: elem.F32, MACsPerCycle: ampF32MACsPerCycle}},
		AMPVertices:            poplibsAMPVertices(),
		AMPWeightLoadBytes:     16,
		Vector:                 ipuVectorRates(),
		LoadStoreBytesPerCycle: ipuLoadStoreBytesPerCycle,
		ExchangeWordBytes:      exchangeWordBytes,
		ExchangeWordsPerCycle:  exchangeWordsPerCycle,
		ExchangeLatencyCycles:  ipuExchangeLatencyCycles,
		ExchangeMulticast:      true,
		ExchangeBusPairs:       true,
		SyncCycles:             ipuSyncCycles,
		VertexOverheadCycles:   ipuVertexOverheadCycles,
		SupportReserveBytes:    ipuSupportReserveBytes,
		TileColumns:            ipuTileColumns,
		Code:                   ipuCodeModel,
		Chips:                  1,
		Streaming: StreamingMemory{BytesPerChip: streamingBytesPerChip,
			BytesPerCycle: streamingBytesPerSecond / float64(clockHz), LatencyCycles: streamingLatencyCycles},
	}
}

// pod joins chips copies of one chip's target in a ring of IPU-Links.
func pod(chip *Target, name, summary string, chips int) *Target {
	t := chip.Clone()
	t.Name, t.Summary, t.Chips, t.ChipTarget = name, summary, chips, chip.Name
	t.Links = ipuLinks("ring", t.ClockHz)
	return t
}

// ipuLinks are the IPU-Links between chips clocked at clockHz, joined in
// topology.
func ipuLinks(topology string, clockHz int64) Links {
	return Links{Topology: topology, PerNeighbour: linksPerNeighbour,
		BytesPerCycle: linkBytesPerSecond / float64(clockHz), LatencyCycles: linkLatencyCycles, SyncCycles: chipSyncCycles}
}

// builtins maps each registry name to a constructor, so every Lookup hands
// out a fresh value that callers may modify freely.
var builtins = map[string]func() *Target{
	"ipu21": ipu21,
	"ipu2": func() *Target {
		return ipuTile("ipu2", "Mk2 IPU (GC200): 1,472 tiles, 624 KiB SRAM per tile, 1.325 GHz",
			"Ipu2", ipuTiles, ipuSRAMBytesPerTile, ipuStandardBytes, ipu2ClockHz)
	},
	"test16": test16,
	// Graphcore's IPU-POD4 (one machine of four chips) and IPU-POD16 (four
	// machines), here of ipu21 chips, joined in a ring.
	"pod4": func() *Target {
		return pod(ipu21(), "pod4", "four ipu21 chips in a ring of IPU-Links (an IPU-POD4)", 4)
	},
	"pod16": func() *Target {
		return pod(ipu21(), "pod16", "sixteen ipu21 chips in a ring of IPU-Links (an IPU-POD16)", 16)
	},
	// Four test16 chips with pod4's links, for fast tests of pipelines.
	// Not a real machine.
	"test16x4": func() *Target {
		return pod(test16(), "test16x4", "test target: four test16 chips in a ring of IPU-Links", 4)
	},
}

// ipu21 is the reference target (docs/targets.md); memory-class names as
// the reference compile log prints them (Ipu21Standard).
func ipu21() *Target {
	return ipuTile("ipu21", "IPU21 (reference target): 1,472 tiles, 624 KiB SRAM per tile, 1.85 GHz",
		"Ipu21", ipuTiles, ipuSRAMBytesPerTile, ipuStandardBytes, ipu21ClockHz)
}

// test16 is a small target for fast tests: ipu21's tile with 16 tiles and
// 64 KiB of SRAM (48 KiB standard, 16 KiB interleaved), so that
// memory-overflow cases need only small tensors, and 64 MiB of streaming
// memory. Not a real device.
func test16() *Target {
	t := ipuTile("test16", "test target: 16 ipu21-like tiles with 64 KiB SRAM each (48 KiB standard, 16 KiB interleaved)",
		"Test16", 16, 64*1024, 48*1024, ipu21ClockHz)
	t.SupportReserveBytes = test16SupportReserveBytes
	t.TileColumns = test16TileColumns
	t.Streaming.BytesPerChip = 64 << 20
	return t
}
