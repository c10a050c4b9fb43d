package target

import (
	"cmp"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/internal/enum"
)

// Target is one machine description. All fields are data; methods derive
// costs from them. A Target returned by Lookup is the caller's own copy.
type Target struct {
	Name    string // registry name, e.g. "ipu21"
	Summary string // one line for listings

	Tiles            int   // tiles per device
	SRAMBytesPerTile int64 // on-tile memory, all classes together

	// MemoryClasses partition each tile's address space [0, SRAMBytesPerTile)
	// into the regions placement must respect. Addresses are tile-relative
	// offsets, not the hardware's absolute tile-memory addresses.
	MemoryClasses []MemoryClass

	WorkerThreads     int // worker contexts per tile
	SupervisorThreads int // supervisor contexts per tile
	// WorkerIssueInterval is how many cycles pass between two instructions of
	// one worker: the tile services its worker contexts round-robin, so with
	// all workers busy the tile as a whole issues one instruction per cycle.
	WorkerIssueInterval int
	ClockHz             int64

	AMP []AMPRate // the AMP unit's peak rate, per element type
	// AMPVertices price AMP work (AMPCycles), per input and partials type.
	AMPVertices []AMPVertex
	// AMPWeightLoadBytes is the bytes of weights the supervisor loads into
	// the conv units per cycle from a class with 128-bit loads; from one
	// without, half as many.
	AMPWeightLoadBytes int
	Vector             []VectorRate

	LoadStoreBytesPerCycle int // sustained load+store bytes per tile per cycle

	ExchangeWordBytes     int // size of one exchange word
	ExchangeWordsPerCycle int // words a tile can send, and receive, per cycle
	// ExchangeLatencyCycles is added once per exchange phase for the time the
	// first word spends in flight, on top of the bandwidth term.
	ExchangeLatencyCycles int
	// ExchangeMulticast: one send can reach several receiving tiles (they
	// all listen to the sender's exchange bus in the same cycle), so a
	// sender of a piece to n replicas spends its words once, not n times.
	ExchangeMulticast bool
	// ExchangeBusPairs: tiles 2k and 2k+1 share an exchange bus, each with
	// its receive port on it, so a word both receive is taken by either
	// port for the two of them: in a cycle a pair takes up to two words,
	// at most one of them for one tile alone, and data both receive
	// arrives at twice the rate. The scheduler uses it for replicas laid
	// out on pairs.
	ExchangeBusPairs bool
	SyncCycles       int // one all-tile synchronisation

	// VertexOverheadCycles is the fixed cost of launching one compute vertex
	// (supervisor dispatch, workers fetching their vertex state).
	VertexOverheadCycles int

	// TileColumns is how many columns the tiles are laid out in, tile t in
	// column t / (Tiles / TileColumns): how reports draw the chip and
	// aggregate its exchange.
	TileColumns int

	// SupportReserveBytes is what each tile keeps free, at the bottom of
	// the class that holds code, for its support memory (code, exchange
	// tables, host-exchange code): the planner and the tiled level's
	// estimates plan data around it, before the code is sized.
	SupportReserveBytes int64

	// Code sizes each tile's support memory: its generated code, exchange
	// tables and host-exchange code.
	Code CodeModel

	// Chips is how many chips the target has, each with the figures above
	// (Tiles is one chip's); 1 for a single chip. Links joins them, and
	// ChipTarget names the built-in target each chip is.
	Chips      int
	ChipTarget string
	Links      Links
	// Streaming is the DRAM behind each chip; its zero value, none.
	Streaming StreamingMemory
	// IOTiles is how many of each chip's tiles are set aside to take
	// streamed data while the others compute (PopART's numIOTiles, its
	// "overlapping IO with compute"): Tiles counts the compute tiles, the
	// ones programs run on. With none (the default), a transfer from
	// streaming memory and compute take turns, as on the hardware without
	// IO tiles.
	IOTiles int
	// Span is how many chips one program of this target spans (Poplar's
	// multi-IPU device; the `span-chips` option): Tiles then counts the
	// tiles of all of them, chip c holding tiles [c·Tiles/Span,
	// (c+1)·Tiles/Span), and an exchange between tiles of different
	// chips crosses the IPU-Links that join them in a line (Links). 0 or
	// 1: one chip. A pipeline stage of several chips of a pod is compiled
	// for such a target.
	Span int
}

// CodeModel is the size of the support memory a tile's program needs, by
// what the program does on that tile. All sizes are bytes.
type CodeModel struct {
	SkeletonBytes     int64 // the supervisor's skeleton, on every tile
	InstructionBytes  int64 // per compute instruction (or splat constant) a tile runs
	AMPBlockBytes     int64 // per matmul instruction: an AMP block loop, instead of InstructionBytes
	SyncBytes         int64 // per sync, on every tile
	ExchangeBytes     int64 // per exchange phase a tile sends or receives in
	TableEntryBytes   int64 // per exchange segment a tile sends or receives
	HostSkeletonBytes int64 // once on a tile that holds a piece of a host stream
	HostStreamBytes   int64 // per host stream a tile holds a piece of
}

// ElemTypes are the element types the modelled machines compute on (in
// the vocabulary of package et); the others (i64, bf16, unsigned
// integers) have no arithmetic on them. f64 is computed in software, one
// element at a time (ipuVectorRates), and only where a program asks for
// binary64; the AMP does not take it.
var ElemTypes = []elem.Type{elem.I1, elem.I8, elem.I16, elem.I32, elem.F16, elem.F32, elem.F64}

// Computes reports whether the modelled machines compute on e.
func Computes(e elem.Type) bool { return slices.Contains(ElemTypes, e) }

// ParseElemType maps an MLIR element-type spelling to an element type the
// machines compute on. Types they have no arithmetic for (f64, i64, bf16)
// are errors that say so, rather than being priced as something they are
// not.
func ParseElemType(s string) (elem.Type, error) {
	e, err := elem.Parse(s)
	if err != nil {
		return elem.Invalid, fmt.Errorf("target: unknown element type %q (known: %s)", s, elem.Names(ElemTypes))
	}
	if !Computes(e) {
		return elem.Invalid, fmt.Errorf("target: element type %s has no arithmetic on the modelled IPU targets (they compute in %s)",
			s, strings.ReplaceAll(elem.Names(ElemTypes), ", ", "/"))
	}
	return e, nil
}

// AMPRate is the AMP unit's throughput for one element type.
type AMPRate struct {
	Elem         elem.Type
	MACsPerCycle int // multiply-accumulates per tile per cycle
}

// VectorRate is the non-AMP (vector unit) throughput for one element type.
type VectorRate struct {
	Elem elem.Type
	// Lanes is how many elements one vector instruction processes.
	Lanes int
	// SimpleCyclesPerVector and TranscendentalCyclesPerVector are the tile
	// cycles one Lanes-wide vector costs when all workers are busy, for the
	// two op classes of OpClass. A zero TranscendentalCyclesPerVector means
	// the type has no transcendental ops.
	SimpleCyclesPerVector         int
	TranscendentalCyclesPerVector int
}

// MemoryKind is what a memory class is for, independent of the target.
type MemoryKind uint8

const (
	// Standard is non-interleaved memory: the only class that may hold code;
	// loads are at most 64 bits wide.
	Standard MemoryKind = iota + 1
	// Interleaved memory allows 128-bit loads (two banks read at once),
	// which AMP operand streaming wants; it cannot hold code.
	Interleaved
)

var memoryKindNames = []string{Standard: "standard", Interleaved: "interleaved"}

// String returns "standard" or "interleaved".
func (k MemoryKind) String() string { return enum.Name(k, memoryKindNames, "MemoryKind") }

// MemoryClass is one region of a tile's memory.
type MemoryClass struct {
	Name       string // as users see it in layouts and logs, e.g. "Ipu21Standard"
	Kind       MemoryKind
	Start, End int64 // tile-relative byte range [Start, End)
	Alignment  int64 // every buffer placed here starts at a multiple of this
	HoldsCode  bool  // code may be placed here
	Loads128   bool  // 128-bit loads are possible here
}

// Size returns the capacity of the class in bytes.
func (c MemoryClass) Size() int64 { return c.End - c.Start }

// Clone returns a deep copy: the returned Target shares no slices with t.
func (t *Target) Clone() *Target {
	c := *t
	c.MemoryClasses = slices.Clone(t.MemoryClasses)
	c.AMP = slices.Clone(t.AMP)
	c.AMPVertices = slices.Clone(t.AMPVertices)
	c.Vector = slices.Clone(t.Vector)
	return &c
}

// AMPRateFor returns the AMP throughput for et, or false if the AMP unit
// does not take that type.
func (t *Target) AMPRateFor(et elem.Type) (AMPRate, bool) {
	for _, r := range t.AMP {
		if r.Elem == et {
			return r, true
		}
	}
	return AMPRate{}, false
}

// VectorRateFor returns the vector throughput for et, or false if none.
func (t *Target) VectorRateFor(et elem.Type) (VectorRate, bool) {
	for _, v := range t.Vector {
		if v.Elem == et {
			return v, true
		}
	}
	return VectorRate{}, false
}

// Class returns the memory class of the given kind.
func (t *Target) Class(kind MemoryKind) (MemoryClass, error) {
	for _, c := range t.MemoryClasses {
		if c.Kind == kind {
			return c, nil
		}
	}
	return MemoryClass{}, fmt.Errorf("target %s: no %v memory class", t.Name, kind)
}

// ClassByName returns the memory class with the given user-visible name.
func (t *Target) ClassByName(name string) (MemoryClass, error) {
	names := make([]string, 0, len(t.MemoryClasses))
	for _, c := range t.MemoryClasses {
		if c.Name == name {
			return c, nil
		}
		names = append(names, c.Name)
	}
	return MemoryClass{}, fmt.Errorf("target %s: unknown memory class %q (known: %v)", t.Name, name, names)
}

// Validate checks that the description is self-consistent: positive counts
// and rates, memory classes that exactly partition the tile's SRAM with one
// class of each kind, a code-holding class, cost tables whose entries are
// unique, and vector rates that do not need more load/store bandwidth than
// the tile has. Built-in targets are validated by the tests; a description
// read from elsewhere should be validated before use.
func (t *Target) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if t.Name == "" {
		bad("empty name")
	}
	positive := []struct {
		name string
		v    int64
	}{
		{"Tiles", int64(t.Tiles + t.IOTiles)}, {"SRAMBytesPerTile", t.SRAMBytesPerTile},
		{"WorkerThreads", int64(t.WorkerThreads)}, {"SupervisorThreads", int64(t.SupervisorThreads)},
		{"WorkerIssueInterval", int64(t.WorkerIssueInterval)}, {"ClockHz", t.ClockHz},
		{"LoadStoreBytesPerCycle", int64(t.LoadStoreBytesPerCycle)}, {"AMPWeightLoadBytes", int64(t.AMPWeightLoadBytes)},
		{"ExchangeWordBytes", int64(t.ExchangeWordBytes)}, {"ExchangeWordsPerCycle", int64(t.ExchangeWordsPerCycle)},
	}
	for _, p := range positive {
		if p.v <= 0 {
			bad("%s must be positive, is %d", p.name, p.v)
		}
	}
	for _, nn := range []struct {
		name string
		v    int
	}{{"ExchangeLatencyCycles", t.ExchangeLatencyCycles}, {"SyncCycles", t.SyncCycles}, {"VertexOverheadCycles", t.VertexOverheadCycles}} {
		if nn.v < 0 {
			bad("%s must not be negative, is %d", nn.name, nn.v)
		}
	}
	if all := t.Tiles + t.IOTiles; t.TileColumns < 1 || all%t.TileColumns != 0 {
		bad("TileColumns %d does not divide the %d tiles", t.TileColumns, all)
	}
	for _, c := range []struct {
		name string
		v    int64
	}{
		{"Code.SkeletonBytes", t.Code.SkeletonBytes}, {"Code.InstructionBytes", t.Code.InstructionBytes},
		{"Code.AMPBlockBytes", t.Code.AMPBlockBytes}, {"Code.SyncBytes", t.Code.SyncBytes},
		{"Code.ExchangeBytes", t.Code.ExchangeBytes}, {"Code.TableEntryBytes", t.Code.TableEntryBytes},
		{"Code.HostSkeletonBytes", t.Code.HostSkeletonBytes}, {"Code.HostStreamBytes", t.Code.HostStreamBytes},
	} {
		if c.v < 0 {
			bad("%s must not be negative, is %d", c.name, c.v)
		}
	}
	errs = append(errs, t.validateMemory()...)
	errs = append(errs, t.validateRates()...)
	errs = append(errs, t.validateScale()...)
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("target %q is inconsistent: %w", t.Name, errors.Join(errs...))
}

func (t *Target) validateMemory() []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	classes := slices.Clone(t.MemoryClasses)
	slices.SortFunc(classes, func(a, b MemoryClass) int { return cmp.Compare(a.Start, b.Start) })
	seenKind := map[MemoryKind]bool{}
	seenName := map[string]bool{}
	next, holdsCode := int64(0), false
	for _, c := range classes {
		if c.Kind != Standard && c.Kind != Interleaved {
			bad("memory class %q has invalid kind %v", c.Name, c.Kind)
		}
		if seenKind[c.Kind] {
			bad("more than one %v memory class", c.Kind)
		}
		seenKind[c.Kind] = true
		if c.Name == "" || seenName[c.Name] {
			bad("memory class name %q is empty or repeated", c.Name)
		}
		seenName[c.Name] = true
		if c.Start != next {
			bad("memory class %q starts at %d, but the classes before it end at %d (classes must tile the SRAM without gaps or overlaps)", c.Name, c.Start, next)
		}
		if c.End <= c.Start {
			bad("memory class %q has an empty or reversed range [%d, %d)", c.Name, c.Start, c.End)
		}
		if c.Alignment <= 0 || bits.OnesCount64(uint64(c.Alignment)) != 1 {
			bad("memory class %q alignment %d is not a positive power of two", c.Name, c.Alignment)
		} else if c.Start%c.Alignment != 0 {
			bad("memory class %q starts at %d, not a multiple of its alignment %d", c.Name, c.Start, c.Alignment)
		}
		if c.HoldsCode && c.Kind != Standard {
			bad("memory class %q is %v but holds code; only standard memory can", c.Name, c.Kind)
		}
		if c.Loads128 != (c.Kind == Interleaved) {
			bad("memory class %q: 128-bit loads are exactly what interleaved memory allows", c.Name)
		}
		if c.HoldsCode && (t.SupportReserveBytes < 0 || t.SupportReserveBytes > c.Size()) {
			bad("SupportReserveBytes %d does not fit the code-holding class %q (%d bytes)", t.SupportReserveBytes, c.Name, c.Size())
		}
		holdsCode = holdsCode || c.HoldsCode
		next = c.End
	}
	if len(classes) > 0 && next != t.SRAMBytesPerTile {
		bad("memory classes end at %d, but the tile has %d bytes of SRAM", next, t.SRAMBytesPerTile)
	}
	if !seenKind[Standard] || !seenKind[Interleaved] {
		bad("need one standard and one interleaved memory class")
	}
	if !holdsCode {
		bad("no memory class can hold code")
	}
	return errs
}

func (t *Target) validateRates() []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	seen := map[string]bool{}
	once := func(table string, types ...elem.Type) {
		key := table
		for _, e := range types {
			key += "/" + e.String()
			if !e.Valid() {
				bad("%s entry has invalid element type %v", table, e)
				return
			}
		}
		if seen[key] {
			bad("%s has two entries for %s", table, strings.TrimPrefix(strings.TrimPrefix(key, table), "/"))
		}
		seen[key] = true
	}
	for _, r := range t.AMP {
		once("AMP", r.Elem)
		if r.MACsPerCycle <= 0 {
			bad("AMP rate for %v must be positive", r.Elem)
		}
		if _, ok := t.AMPVertexFor(r.Elem, DefaultPartials); !ok {
			bad("AMP takes %v but has no vertex for it with %v partials", r.Elem, DefaultPartials)
		}
	}
	for _, v := range t.AMPVertices {
		once("AMPVertices", v.Elem, v.Partials)
		rate, ok := t.AMPRateFor(v.Elem)
		switch {
		case !ok:
			bad("AMP vertex for %v, which the AMP does not take", v.Elem)
		case v.RowGroup <= 0 || v.ColumnGroup <= 0 || v.InnerGroupBytes <= 0 || v.ConvUnits <= 0 || v.RowCycles <= 0 ||
			v.WorkerCycles < 0 || v.ShortRowCycles[0] < 0 || v.ShortRowCycles[1] < 0 || v.ZeroCycles < 0 || v.ZeroRowCycles < 0 ||
			v.TagCycles < 0 || v.PassCycles < 0 || v.FirstInGroupCycles < 0 || v.InGroupCycles < 0 || v.GroupCycles < 0 || v.VertexCycles < 0:
			bad("AMP vertex for %v with %v partials has a non-positive grain, unit count or row cost, or a negative overhead", v.Elem, v.Partials)
		case v.InnerGroupBytes%v.Elem.Bytes() != 0:
			bad("AMP vertex for %v: inner group of %d bytes is not a whole number of elements", v.Elem, v.InnerGroupBytes)
		case v.MACsPerCycle() > rate.MACsPerCycle:
			// The vertex cannot outrun the unit it runs on.
			bad("AMP vertex for %v with %v partials runs %d MACs a cycle, more than the AMP's %d", v.Elem, v.Partials, v.MACsPerCycle(), rate.MACsPerCycle)
		}
	}
	for _, v := range t.Vector {
		once("Vector", v.Elem)
		if v.Lanes <= 0 || v.SimpleCyclesPerVector <= 0 || v.TranscendentalCyclesPerVector < 0 {
			bad("vector rate for %v needs positive lanes and simple cost and a non-negative transcendental cost", v.Elem)
			continue
		}
		// A binary elementwise op reads two operands and writes one; the
		// vector rate must not outrun the load/store path that feeds it.
		if need := 3 * v.Lanes * v.Elem.Bytes(); need > t.LoadStoreBytesPerCycle*v.SimpleCyclesPerVector {
			bad("vector rate for %v moves %d bytes per %d cycles, more than load/store allows (%d bytes per cycle)",
				v.Elem, need, v.SimpleCyclesPerVector, t.LoadStoreBytesPerCycle)
		}
	}
	return errs
}
