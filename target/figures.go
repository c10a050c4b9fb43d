package target

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ipuir/ipuir/elem"
)

// Figure is one figure of a target description and where its value comes
// from: a public document (a product brief, the IPU Programmer's Guide, a
// paper, a PopLibs source file and function), or, where nothing public
// fixes it, the word Assumption with what it was sized or calibrated on.
// Figures declares each once; `ipu-opt --show-targets --target=NAME`
// prints them with their values and sources, docs/targets.md's table is
// generated from them (tools/ipu-dialect-doc), and a test checks that
// every field of Target is some figure's, so that no number the cost model
// reads is without a source.
type Figure struct {
	Key  string // the figure's name in listings ("tiles")
	What string // what it is, with its unit
	// Source is the public source of the built-in value; Assumption, when
	// no public source fixes it, says so and what the value rests on. A
	// figure has one or the other.
	Source, Assumption string
	// Fields are the Target fields the figure is (dotted paths from
	// Target; a slice's elements as Field[]), which the completeness test
	// checks against the struct.
	Fields []string
	// Option names the --target-option that sets it, if one does.
	Option string
	value  func(t *Target) string
}

// Value is the figure on t, as --show-targets prints it; "" where t has
// none (the links of a one-chip target).
func (f *Figure) Value(t *Target) string { return f.value(t) }

// Origin is the figure's source, or "Assumption: " and why.
func (f *Figure) Origin() string {
	if f.Source != "" {
		return f.Source
	}
	return "Assumption: " + f.Assumption
}

func intValue[T ~int | ~int64](get func(t *Target) T) func(t *Target) string {
	return func(t *Target) string { return strconv.FormatInt(int64(get(t)), 10) }
}

// perElem lists a per-element-type figure: "f16 64, f32 16".
func perElem[R any](list func(t *Target) []R, of func(R) (elem.Type, string)) func(t *Target) string {
	return func(t *Target) string {
		var parts []string
		for _, r := range list(t) {
			e, v := of(r)
			parts = append(parts, e.String()+" "+v)
		}
		return strings.Join(parts, ", ")
	}
}

func perClass(of func(c MemoryClass) string) func(t *Target) string {
	return func(t *Target) string {
		var parts []string
		for _, c := range t.MemoryClasses {
			parts = append(parts, c.Name+" "+of(c))
		}
		return strings.Join(parts, ", ")
	}
}

// vertexValue lists a figure of every AMP vertex: "f16/f16 16, f16/f32 8".
func vertexValue(of func(v AMPVertex) string) func(t *Target) string {
	return func(t *Target) string {
		var parts []string
		for _, v := range t.AMPVertices {
			parts = append(parts, v.Elem.String()+"/"+v.Partials.String()+" "+of(v))
		}
		return strings.Join(parts, ", ")
	}
}

func vectorValue(of func(v VectorRate) int) func(t *Target) string {
	return perElem(func(t *Target) []VectorRate { return t.Vector }, func(v VectorRate) (elem.Type, string) { return v.Elem, strconv.Itoa(of(v)) })
}

func multiChip(get func(t *Target) string) func(t *Target) string {
	return func(t *Target) string {
		if !t.MultiChip() && t.SpanChips() < 2 {
			return ""
		}
		return get(t)
	}
}

const (
	gc200Brief       = "Graphcore's Mk2 GC200 IPU product brief"
	programmersGuide = "Graphcore's IPU Programmer's Guide (tile architecture)"
	jia2019          = "Jia et al., Dissecting the Graphcore IPU Architecture via Microbenchmarking, arXiv:1912.03413 (2019)"
	bow2000Sheet     = "Graphcore's Bow-2000 datasheet"
	referenceLog     = "the reference compile log (shared/reference/reference-compile-log.txt)"
	// poplibsEstimator is the file of PopLibs' cycle estimators (the
	// mk2-main branch of github.com/graphcore/poplibs).
	poplibsEstimator = "PopLibs, lib/poplin/PerformanceEstimation.hpp"
	poplibs1x1Inner  = poplibsEstimator + ", getConvPartial1x1SupervisorInnerLoopCycleEstimateHalfFloat"
	poplibs1x1Outer  = poplibsEstimator + ", getConvPartial1x1SupervisorOuterLoopCycleEstimateHalfFloat"
)

// Figures are the figures of every target, in the order listings show
// them.
var Figures = []Figure{
	{Key: "tiles", What: "tiles per chip", Fields: []string{"Tiles", "TileColumns"},
		Source: gc200Brief + ": 1,472 IPU-cores (tiles) per GC200; ipu21 has the same count; test16's 16 is a test target's. " +
			"The tiles are drawn as 46 columns of 32 (test16: 4 of 4) for io-tiles, which must take whole columns: an assumption, as published die images show columns but not their count",
		value: func(t *Target) string { return fmt.Sprintf("%d (%d columns)", t.Tiles, t.TileColumns) }},
	{Key: "sram-per-tile", What: "bytes of SRAM on each tile", Fields: []string{"SRAMBytesPerTile"},
		Source: gc200Brief + ": 900 MB of In-Processor-Memory per IPU, which 1,472 tiles of 624 KiB make (897 MiB); test16's 64 KiB is a test target's",
		value:  intValue(func(t *Target) int64 { return t.SRAMBytesPerTile })},
	{Key: "memory-classes", What: "the tile memory's regions: kind, whether code may live there, whether 128-bit loads reach it", Fields: []string{"MemoryClasses[].Name", "MemoryClasses[].Kind", "MemoryClasses[].HoldsCode", "MemoryClasses[].Loads128"},
		Source: programmersGuide + ": tile memory has a non-interleaved region, where code lives, and an interleaved one, which serves 128-bit loads",
		value: perClass(func(c MemoryClass) string {
			return fmt.Sprintf("%s (code %v, 128-bit loads %v)", c.Kind, c.HoldsCode, c.Loads128)
		})},
	{Key: "memory-split", What: "each class's byte range on the tile", Fields: []string{"MemoryClasses[].Start", "MemoryClasses[].End"},
		Assumption: "the split is not public as a number; " + referenceLog + " places code at offset 393,216 and reports standard ranges up to 524,288, so standard memory is the first 512 KiB and interleaved the other 112 KiB (test16: 48 and 16 KiB)",
		value:      perClass(func(c MemoryClass) string { return fmt.Sprintf("[%d, %d)", c.Start, c.End) })},
	{Key: "alignment", What: "bytes every buffer in a class is aligned to", Fields: []string{"MemoryClasses[].Alignment"},
		Assumption: "not published: 8 in standard memory (its widest load is 64 bits), 16 in interleaved memory (its 128-bit loads aligned)",
		value:      perClass(func(c MemoryClass) string { return strconv.FormatInt(c.Alignment, 10) })},
	{Key: "threads", What: "worker and supervisor contexts per tile, and the cycles between two instructions of one worker", Fields: []string{"WorkerThreads", "SupervisorThreads", "WorkerIssueInterval"},
		Source: programmersGuide + ": six worker contexts and a supervisor, serviced round robin, so a worker issues every sixth cycle; " + jia2019 + ": six threads hide a six-cycle memory latency",
		value: func(t *Target) string {
			return fmt.Sprintf("%d workers, %d supervisor, a worker every %d cycles", t.WorkerThreads, t.SupervisorThreads, t.WorkerIssueInterval)
		}},
	{Key: "clock", What: "the tile clock, Hz", Fields: []string{"ClockHz"},
		Source: gc200Brief + " for ipu2's 1.325 GHz (1,472 tiles × 64 MACs × 2 × 1.325 GHz = 249.7 TFLOPS, the brief's 250); " + bow2000Sheet + " for ipu21's 1.85 GHz (the Bow IPU: 1,472 × 64 × 2 × 1.85 GHz = 348.6 TFLOPS, the sheet's 350)",
		value:  intValue(func(t *Target) int64 { return t.ClockHz })},
	{Key: "amp-macs", What: "multiply-accumulates per tile per cycle on the AMP unit, by element type", Fields: []string{"AMP[].Elem", "AMP[].MACsPerCycle"},
		Source: gc200Brief + ": 250 TFLOPS f16 and 62.5 TFLOPS f32 at 1.325 GHz over 1,472 tiles, which is 64 f16 and 16 f32 MACs per tile per cycle",
		value: perElem(func(t *Target) []AMPRate { return t.AMP }, func(r AMPRate) (elem.Type, string) {
			return r.Elem, strconv.Itoa(r.MACsPerCycle)
		})},
	{Key: "matmul-blocks", What: "the AMP's block: left rows, inner bytes and result columns per block", Fields: []string{"AMPVertices[].RowGroup", "AMPVertices[].InnerGroupBytes", "AMPVertices[].ColumnGroup"},
		Source: "T10 (Liu et al., SOSP 2024), whose per-tile matmul fit on Mk2 hardware counts blocks of 6 rows, 32 bytes of the inner axis and 16 columns; " +
			poplibs1x1Inner + " splits the rows over the six workers",
		value: vertexValue(func(v AMPVertex) string {
			return fmt.Sprintf("%d×%dB×%d", v.RowGroup, v.InnerGroupBytes, v.ColumnGroup)
		})},
	{Key: "amp-conv-units", What: "the AMP's vertices by input and partials type, and the result columns (conv units) one pass computes", Fields: []string{"AMPVertices[].Elem", "AMPVertices[].Partials", "AMPVertices[].ConvUnits"},
		Option: "amp-f32-partials-conv-units",
		Assumption: "PopLibs reads the counts from poplar's Target (getNumConvUnits in " + poplibsEstimator + "), whose values are not in its source. " +
			"16 for f16 partials and for f32 inputs make each vertex's peak the brief's 64 f16 and 16 f32 MACs a cycle; 8 for f16 inputs with f32 partials " +
			"(half the rate) follows PopLibs' estimator, whose one code path serves \"half activations, half partials, 16 conv units\" and " +
			"\"half activations, float partials, 8 conv units\" (" + poplibs1x1Inner + "), and its SLIC vertex chooser (lib/poplin/ConvVertexType.cpp), " +
			"which gives float partials two conv chains where half partials with 16 conv units get four; " + jia2019 + " measured f16 with f32 accumulation on Mk1 at 124.5 TFLOPS, 32 MACs a tile-cycle. " +
			"amp-f32-partials-conv-units=16 is the what-if that Mk2 runs it at the full rate",
		value: vertexValue(func(v AMPVertex) string { return strconv.Itoa(v.ConvUnits) })},
	{Key: "amp-weight-load", What: "bytes of weights the supervisor loads into the conv units per cycle from a class with 128-bit loads (half that from one without)", Fields: []string{"AMPWeightLoadBytes"},
		Source: "PopLibs, lib/poplin/ConvModel.cpp: the weight load takes the Target's coefficient-load bytes per cycle, halved when 128-bit conv-unit loads are off; " +
			poplibsEstimator + ", getConvPartialAmpSupervisorWeightLoadCycleEstimate: conv units × weight bytes per unit over that rate (a 16×16 f16 block: 32 cycles with 128-bit loads, 64 without); a 128-bit load is 16 bytes",
		value: intValue(func(t *Target) int { return t.AMPWeightLoadBytes })},
	{Key: "amp-row-cycles", What: "a worker's cycles per row of a pass in the vertex's core loop", Fields: []string{"AMPVertices[].RowCycles"},
		Source: poplibs1x1Inner + ": coreCycles, 4 with f16 inputs and 8 with f32",
		value:  vertexValue(func(v AMPVertex) string { return strconv.Itoa(v.RowCycles) })},
	{Key: "amp-worker-cycles", What: "a worker's cycles per pass besides its rows (3 rows or more), its whole pass with 1 and 2 rows, and the first block's zeroing (fixed + per row)", Fields: []string{"AMPVertices[].WorkerCycles", "AMPVertices[].ShortRowCycles", "AMPVertices[].ZeroCycles", "AMPVertices[].ZeroRowCycles"},
		Source: poplibs1x1Inner + ": f16 inputs 38 + 4·(n−3) cycles, 33 with one row and 42 with two (the common half path), less the 7 that retaining worker state saves (conv1x1WorkerRetentionSavings); " +
			"f32 inputs 46 + 8·(n−3), 47 and 46, and zeroing the partials in the first block 2 + 8·n (zeroCyclesPerGroup 8)",
		value: vertexValue(func(v AMPVertex) string {
			return fmt.Sprintf("%d + %d·n (n ≥ 3), %d, %d; zeroing %d + %d·n", v.WorkerCycles, v.RowCycles, v.ShortRowCycles[0], v.ShortRowCycles[1], v.ZeroCycles, v.ZeroRowCycles)
		})},
	{Key: "amp-tag-cycles", What: "tile cycles the supervisor's hand-off adds to the least busy worker of a pass", Fields: []string{"AMPVertices[].TagCycles"},
		Source: poplibs1x1Inner + ": the tag cost, 14 cycles on the worker with the fewest",
		value:  vertexValue(func(v AMPVertex) string { return strconv.Itoa(v.TagCycles) })},
	{Key: "amp-pass-cycles", What: "the supervisor's cycles per pass besides loading the weights", Fields: []string{"AMPVertices[].PassCycles"}, Option: "amp-pass-cycles",
		Source: poplibs1x1Outer + ": 19 − 1 + 7 in the first block of input channels (the common path's 1, outPassesOverhead 7) and 19 + 6 in the others: 25",
		value:  vertexValue(func(v AMPVertex) string { return strconv.Itoa(v.PassCycles) })},
	{Key: "amp-group-cycles", What: "the supervisor's cycles per first and further block of input channels, per independent product, and per vertex", Fields: []string{"AMPVertices[].FirstInGroupCycles", "AMPVertices[].InGroupCycles", "AMPVertices[].GroupCycles", "AMPVertices[].VertexCycles"},
		Source: poplibs1x1Outer + ": 10 + 1 per first block, 15 − 1 + 1 per further one, 12 + 1 per conv group, 50 per vertex; for f16 inputs the supervisor also pays the workers' retained state back, " +
			"6·7 once and 6·3 per block after the first, which the per-block and per-vertex figures include (29, 33, 74)",
		value: vertexValue(func(v AMPVertex) string {
			return fmt.Sprintf("%d, %d, %d, %d", v.FirstInGroupCycles, v.InGroupCycles, v.GroupCycles, v.VertexCycles)
		})},
	{Key: "vector-lanes", What: "elements per vector instruction, by element type", Fields: []string{"Vector[].Elem", "Vector[].Lanes"},
		Source: programmersGuide + ": the floating-point data path is 64 bits wide (4 f16 or 2 f32); integers one element an instruction (an assumption: the scalar register file does integer arithmetic)",
		value:  vectorValue(func(v VectorRate) int { return v.Lanes })},
	{Key: "vector-simple-cycles", What: "tile cycles per vector of a simple op (add, compare, select, convert) with all workers busy", Fields: []string{"Vector[].SimpleCyclesPerVector"},
		Assumption: "one bundle a vector, which the 24 bytes a cycle of load/store allow for a binary f16 or f32 op; f64 is software: 377 cycles, the multiply of Qfplib-M0-full's comparison of binary64 routines on a 32-bit core without floating-point hardware",
		value:      vectorValue(func(v VectorRate) int { return v.SimpleCyclesPerVector })},
	{Key: "vector-transcendental-cycles", What: "tile cycles per vector of a transcendental op (exp, log, tanh, rsqrt, divide)", Fields: []string{"Vector[].TranscendentalCyclesPerVector"},
		Assumption: "the transcendental unit's rate is not public: 4 cycles a vector (about one f16 element a cycle); integer division a 32-cycle software loop; f64 9,973 cycles, the arctangent of Qfplib-M0-full's comparison, the slowest routine of its class",
		value:      vectorValue(func(v VectorRate) int { return v.TranscendentalCyclesPerVector })},
	{Key: "load-store", What: "bytes of load and store per tile per cycle", Fields: []string{"LoadStoreBytesPerCycle"},
		Source: gc200Brief + ": 47.5 TB/s of memory bandwidth, 24.4 bytes per tile per cycle at 1.325 GHz; " + jia2019 + " measure about 45 TB/s on the 1,216-tile GC2 (23.1 bytes)",
		value:  intValue(func(t *Target) int { return t.LoadStoreBytesPerCycle })},
	{Key: "exchange-rate", What: "exchange words a tile sends and receives per cycle, and the word's bytes", Fields: []string{"ExchangeWordBytes", "ExchangeWordsPerCycle"},
		Source: gc200Brief + ": 8 TB/s of all-to-all exchange, 4.1 bytes per tile per cycle at 1.325 GHz, one 32-bit word each way",
		value: func(t *Target) string {
			return fmt.Sprintf("%d word of %d bytes", t.ExchangeWordsPerCycle, t.ExchangeWordBytes)
		}},
	{Key: "exchange-multicast", What: "whether one send reaches every tile that listens", Fields: []string{"ExchangeMulticast"},
		Source: jia2019 + ": the exchange is a broadcast fabric; receivers told by their schedule when to listen take a word in the same cycle",
		value:  func(t *Target) string { return strconv.FormatBool(t.ExchangeMulticast) }},
	{Key: "exchange-bus-pairs", What: "whether tiles 2k and 2k+1 share an exchange bus", Fields: []string{"ExchangeBusPairs"},
		Source: "PopLibs, lib/popops/ExchangeEstimator.cpp: the target supports exchange bus sharing, two tiles a shared bus, and its planner aligns replicas to even tiles for it; " +
			"that either tile alone still takes one word a cycle is an assumption",
		value: func(t *Target) string { return strconv.FormatBool(t.ExchangeBusPairs) }},
	{Key: "exchange-latency", What: "cycles added once per exchange phase for the first word in flight", Fields: []string{"ExchangeLatencyCycles"}, Option: "exchange-latency-cycles",
		Assumption: "the latency depends on tile distance and is not public as one number; 30 cycles keeps a phase of few words from looking free (the scheduler's bound leaves it out)",
		value:      intValue(func(t *Target) int { return t.ExchangeLatencyCycles })},
	{Key: "sync", What: "cycles of one synchronisation of every tile", Fields: []string{"SyncCycles"},
		Assumption: "118 cycles, the project's earlier summary of public figures, not re-checked against a primary source",
		value:      intValue(func(t *Target) int { return t.SyncCycles })},
	{Key: "vertex-launch", What: "cycles to launch a vertex (the supervisor dispatching workers)", Fields: []string{"VertexOverheadCycles"},
		Assumption: "Graphcore publishes no figure; 30 cycles keeps many tiny vertices from looking free",
		value:      intValue(func(t *Target) int { return t.VertexOverheadCycles })},
	{Key: "support-reserve", What: "bytes of standard memory kept per tile for code, exchange tables and host-exchange code", Fields: []string{"SupportReserveBytes"},
		Assumption: "16 KiB (test16: 4 KiB), sized against " + referenceLog + "'s 12,416 bytes of support memory per tile (3,512 of code, 4,460 of exchange tables, 4,444 of host-exchange code)",
		value:      intValue(func(t *Target) int64 { return t.SupportReserveBytes })},
	{Key: "code-model", What: "bytes of support memory per skeleton, instruction, AMP block, sync, exchange, table segment, host stream", Fields: []string{"Code.SkeletonBytes", "Code.InstructionBytes", "Code.AMPBlockBytes", "Code.SyncBytes", "Code.ExchangeBytes", "Code.TableEntryBytes", "Code.HostSkeletonBytes", "Code.HostStreamBytes"},
		Assumption: "the code encoding is not public; sized against " + referenceLog + "'s support memory on the attention block",
		value: func(t *Target) string {
			c := t.Code
			return fmt.Sprintf("%d, %d, %d, %d, %d, %d; host %d + %d a stream", c.SkeletonBytes, c.InstructionBytes, c.AMPBlockBytes, c.SyncBytes, c.ExchangeBytes, c.TableEntryBytes, c.HostSkeletonBytes, c.HostStreamBytes)
		}},
	{Key: "streaming-bytes", What: "bytes of streaming memory behind each chip", Fields: []string{"Streaming.BytesPerChip"}, Option: "streaming-bytes",
		Source: bow2000Sheet + ": up to 256 GB of Streaming Memory a machine of four IPUs, 64 GB each (test16: 64 MiB, a test target's)",
		value:  intValue(func(t *Target) int64 { return t.Streaming.BytesPerChip })},
	{Key: "streaming-rate", What: "the chip's streaming-memory bytes per cycle each way", Fields: []string{"Streaming.BytesPerCycle"}, Option: "streaming-bytes-per-cycle",
		Assumption: "no first-party figure: a published block diagram puts Streaming Memory behind the IPU-Gateway over PCIe Gen4 x8, at most 15.75 GB/s each way for the chip",
		value:      func(t *Target) string { return strconv.FormatFloat(t.Streaming.BytesPerCycle, 'g', 4, 64) }},
	{Key: "streaming-latency", What: "cycles added once per streaming load or store", Fields: []string{"Streaming.LatencyCycles"}, Option: "streaming-latency-cycles",
		Assumption: "not published: 2,000 cycles (about 1.1 µs at 1.85 GHz), the order of a PCIe read's round trip",
		value:      intValue(func(t *Target) int64 { return t.Streaming.LatencyCycles })},
	{Key: "io-tiles", What: "tiles per chip set aside to take streamed weights while the others compute", Fields: []string{"IOTiles"}, Option: "io-tiles",
		Source: "PopART's numIOTiles session option (0, its default: streaming and compute take turns)",
		value:  intValue(func(t *Target) int { return t.IOTiles })},
	{Key: "chips", What: "chips of a multi-chip target, how they are joined, and how many one program spans", Fields: []string{"Chips", "ChipTarget", "Links.Topology", "Span"}, Option: "span-chips",
		Source: "Graphcore's IPU-POD4 and IPU-POD16 (one or four machines of four IPUs); a ring of IPU-Links joining them is an assumption (a transfer takes the shorter way, stored and forwarded per hop)",
		value: func(t *Target) string {
			if !t.MultiChip() && t.SpanChips() < 2 {
				return "1"
			}
			return fmt.Sprintf("%d of %s in a %s, %d a program", max(t.Chips, t.SpanChips()), cmpOr(t.ChipTarget, t.Name), t.Links.Topology, t.SpanChips())
		}},
	{Key: "links-per-neighbour", What: "IPU-Links joining two neighbouring chips", Fields: []string{"Links.PerNeighbour"}, Option: "links-per-neighbour",
		Assumption: "not published: 2 of a chip's 10 links to each neighbour of a ring, which moves 512 GB/s between four chips, near the 640 GB/s Elk's emulator gives an IPU-POD4 (arXiv:2507.11506)",
		value:      multiChip(intValue(func(t *Target) int { return t.Links.PerNeighbour }))},
	{Key: "link-rate", What: "one IPU-Link's bytes per cycle each way", Fields: []string{"Links.BytesPerCycle"}, Option: "link-bytes-per-cycle",
		Source: gc200Brief + ": 10 IPU-Links, 320 GB/s in all, so 32 GB/s a link each way (" + bow2000Sheet + "'s 512 Gbps per link counts both ways)",
		value:  multiChip(func(t *Target) string { return strconv.FormatFloat(t.Links.BytesPerCycle, 'g', 4, 64) })},
	{Key: "link-latency", What: "cycles added per link hop of a transfer between chips", Fields: []string{"Links.LatencyCycles"}, Option: "link-latency-cycles",
		Assumption: "not published (" + jia2019 + " measure only that it rises 4.0–7.7× under load): 500 cycles, an order of magnitude for a serial link's hop",
		value:      multiChip(intValue(func(t *Target) int64 { return t.Links.LatencyCycles }))},
	{Key: "chip-sync", What: "cycles of one synchronisation of every tile of every chip", Fields: []string{"Links.SyncCycles"}, Option: "chip-sync-cycles",
		Assumption: bow2000Sheet + " describes a dedicated Sync-Link whose latency is not published: 1,000 cycles, about eight of a chip's own syncs",
		value:      multiChip(intValue(func(t *Target) int64 { return t.Links.SyncCycles }))},
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// FigureNamed returns the figure called key.
func FigureNamed(key string) (*Figure, bool) {
	for i := range Figures {
		if Figures[i].Key == key {
			return &Figures[i], true
		}
	}
	return nil, false
}
