package target

import (
	"fmt"
	"math"

	"github.com/ipuir/ipuir/numeric"
)

// Links is how the chips of a multi-chip target are joined: IPU-Links in a
// ring, each chip joined to its two neighbours (one, for two chips), and a
// dedicated sync signal across all of them. A single chip has none.
type Links struct {
	// Topology is how the chips are joined: "ring" (chip c to c−1 and
	// c+1, modulo the chip count), "line" (the chips one program spans,
	// a run of a pod's ring: c to c−1 and c+1 within the run), or "" for
	// a single chip.
	Topology string
	// PerNeighbour is how many IPU-Links join two neighbouring chips; a
	// transfer to a neighbour is spread over them.
	PerNeighbour int
	// BytesPerCycle is one link's rate in one direction, in bytes per
	// cycle of the chip's clock (fractional: links are clocked apart).
	BytesPerCycle float64
	// LatencyCycles is added once per transfer between two neighbours for
	// the first byte's time on the link, on top of the bandwidth term.
	LatencyCycles int64
	// SyncCycles is one synchronisation of every tile of every chip (the
	// Sync-Link), which a step whose exchange crosses chips ends with
	// instead of the chip's own SyncCycles.
	SyncCycles int64
}

// StreamingMemory is the DRAM behind each chip (Graphcore's Streaming
// Memory), reached only by explicit copies between it and tile memory: a
// tensor placed there costs no tile memory until it is loaded, and each load
// costs LatencyCycles plus its bytes at BytesPerCycle, shared by the whole
// chip. A target without one has BytesPerChip 0.
type StreamingMemory struct {
	BytesPerChip  int64   // capacity behind one chip
	BytesPerCycle float64 // the chip's whole rate in one direction, bytes per cycle of its clock
	LatencyCycles int64   // added once per load or store for the first bytes' round trip
}

// MultiChip reports whether the target has more than one chip.
func (t *Target) MultiChip() bool { return t.Chips > 1 }

// ChipTiles is the number of tiles of every chip together.
func (t *Target) ChipTiles() int64 { return int64(max(t.Chips, 1)) * int64(t.Tiles) }

// MaxSpanChips bounds span-chips: the largest pods join 64 chips.
const MaxSpanChips = 64

// SpanChips is how many chips one program of t spans (Span, at least 1).
func (t *Target) SpanChips() int { return max(t.Span, 1) }

// setSpan makes t's programs span k chips: k times one chip's tiles and
// tile columns, joined by the IPU-Links of a pod (a line) unless t's
// links are already set.
func (t *Target) setSpan(k int) {
	if k < 1 || k > MaxSpanChips || t.Chips > 1 {
		t.Span = k // Validate refuses it
		return
	}
	perChip, cols := t.Tiles/t.SpanChips(), t.TileColumns/t.SpanChips()
	t.Tiles, t.TileColumns, t.Span = perChip*k, cols*k, k
	if k > 1 && t.Links == (Links{}) {
		t.Links = ipuLinks("line", t.ClockHz)
	}
	if k == 1 {
		t.Links = Links{}
	}
}

// ChipOf returns the chip of a program spanning SpanChips chips that
// holds tile (0 on a single chip).
func (t *Target) ChipOf(tile int) int {
	if t.SpanChips() < 2 || t.Tiles < 1 {
		return 0
	}
	return tile / (t.Tiles / t.SpanChips())
}

// ChipSpec is the target spec of one chip of t: t itself for a single
// chip; for several, the chip's built-in target with the options of t's
// spec that a single chip has (a pod's streaming figures are its chips').
func (t *Target) ChipSpec() (string, error) {
	if !t.MultiChip() {
		return t.Name, nil
	}
	spec, err := ParseSpec(t.Name)
	if err != nil {
		return "", err
	}
	chip := &Spec{Name: t.ChipTarget}
	for _, o := range spec.Options {
		if opt, ok := OptionNamed(o.Key); ok && !opt.MultiChip {
			chip.Options = append(chip.Options, o)
		}
	}
	return chip.String(), nil
}

// StageSpec is the target spec of a program spanning chips chips of t, a
// pod: ChipSpec's with span-chips and the pod's link options (so the span's
// links are the pod's). One chip's is ChipSpec.
func (t *Target) StageSpec(chips int) (string, error) {
	if chips == 1 || !t.MultiChip() {
		if chips != 1 {
			return "", fmt.Errorf("target %s has one chip: no program spans %d", t.Name, chips)
		}
		return t.ChipSpec()
	}
	if chips < 1 || chips > t.Chips {
		return "", fmt.Errorf("target %s: a program spanning %d of its %d chips", t.Name, chips, t.Chips)
	}
	spec, err := ParseSpec(t.Name)
	if err != nil {
		return "", err
	}
	stage := &Spec{Name: t.ChipTarget, Options: []*specOption{{Key: spanChipsOption, Value: fmt.Sprint(chips)}}}
	stage.Options = append(stage.Options, spec.Options...)
	return stage.String(), nil
}

// Stage is a program spanning chips chips of t as a target of its own
// (StageSpec's).
func (t *Target) Stage(chips int) (*Target, error) {
	spec, err := t.StageSpec(chips)
	if err != nil {
		return nil, err
	}
	return Lookup(spec)
}

// Chip is one chip of t as a target of its own (ChipSpec's).
func (t *Target) Chip() (*Target, error) {
	spec, err := t.ChipSpec()
	if err != nil {
		return nil, err
	}
	return Lookup(spec)
}

// LinkHops returns the number of links a transfer from chip from to chip to
// crosses: the shorter way round the ring.
func (t *Target) LinkHops(from, to int) (int, error) {
	if from < 0 || to < 0 || from >= t.Chips || to >= t.Chips {
		return 0, fmt.Errorf("target %s: no link between chips %d and %d (it has %d chips)", t.Name, from, to, t.Chips)
	}
	d := from - to
	if d < 0 {
		d = -d
	}
	return min(d, t.Chips-d), nil
}

// LinkTransferCycles returns the cycles bytes take from chip from to chip
// to: each hop the link latency plus the bytes spread over the links to the
// neighbour, hops store-and-forward (assumption: a chip between forwards a
// transfer once it has it all, which overstates a cut-through link and
// never understates it). A transfer within one chip takes no link time.
func (t *Target) LinkTransferCycles(bytes int64, from, to int) (int64, error) {
	hops, err := t.LinkHops(from, to)
	if err != nil {
		return 0, err
	}
	if bytes < 0 {
		return 0, fmt.Errorf("target %s: link transfer of %d bytes", t.Name, bytes)
	}
	if hops == 0 || bytes == 0 {
		return 0, nil
	}
	per, err := t.LinkSendCycles(bytes)
	if err != nil {
		return 0, err
	}
	var c checked
	total := c.mul(int64(hops), c.add(per, t.Links.LatencyCycles))
	if c.overflow {
		return 0, t.overflowError("link transfer cycles")
	}
	return total, nil
}

// SpanLinkCycles returns the cycles the links of a program spanning
// SpanChips chips take to carry one exchange phase's traffic between them:
// bytes[a·SpanChips+b] from chip a to chip b, each routed along the line
// of chips. Each direction of a link sends what crosses it at the links'
// rate together, and the phase lasts until the busiest direction has sent
// and its last byte has arrived a latency later, or until the longest
// route has arrived hop by hop (store and forward, as LinkTransferCycles),
// whichever is later. Nothing crossing costs nothing.
func (t *Target) SpanLinkCycles(bytes []int64) (int64, error) {
	k := t.SpanChips()
	if len(bytes) == 0 {
		return 0, nil
	}
	if len(bytes) != k*k {
		return 0, fmt.Errorf("target %s: traffic between %d chip pairs for a program spanning %d chips", t.Name, len(bytes), k)
	}
	right, left := make([]int64, k), make([]int64, k) // link c joins chips c and c+1
	var longest int64
	for a := range k {
		for b := range k {
			n := bytes[a*k+b]
			if n < 0 {
				return 0, fmt.Errorf("target %s: %d bytes from chip %d to chip %d", t.Name, n, a, b)
			}
			if n == 0 || a == b {
				continue
			}
			lo, hi, dir := a, b, right
			if a > b {
				lo, hi, dir = b, a, left
			}
			for c := lo; c < hi; c++ {
				dir[c] = numeric.SatAdd(dir[c], n)
			}
			send, err := t.LinkSendCycles(n)
			if err != nil {
				return 0, err
			}
			longest = max(longest, numeric.SatMul(int64(hi-lo), numeric.SatAdd(send, t.Links.LatencyCycles)))
		}
	}
	busiest := int64(0)
	for c := range k {
		busiest = max(busiest, right[c], left[c])
	}
	if busiest == 0 {
		return 0, nil
	}
	send, err := t.LinkSendCycles(busiest)
	if err != nil {
		return 0, err
	}
	return max(longest, numeric.SatAdd(send, t.Links.LatencyCycles)), nil
}

// AddCrossing adds to bytes (from chip a to chip b at [a·SpanChips+b]) a
// piece of n bytes that tile src sends to tiles dsts: once for each chip
// other than src's that a receiver is on, whose own exchange then spreads
// it to its tiles. Tiles outside the program are skipped (a validator
// refuses them). The estimates and the simulated device count alike.
func AddCrossing[T ~int | ~int32 | ~int64](t *Target, bytes []int64, src T, dsts []T, n int64) {
	k := t.SpanChips()
	if k < 2 || src < 0 || int64(src) >= int64(t.Tiles) || len(bytes) != k*k {
		return
	}
	from := t.ChipOf(int(src))
	var reached uint64 // one bit a chip: k ≤ MaxSpanChips = 64
	for _, d := range dsts {
		if d < 0 || int64(d) >= int64(t.Tiles) {
			continue
		}
		if to := t.ChipOf(int(d)); to != from && reached&(1<<to) == 0 {
			reached |= 1 << to
			bytes[from*k+to] = numeric.SatAdd(bytes[from*k+to], n)
		}
	}
}

// UniformChipBytes spreads total bytes received in an exchange phase
// evenly over the pairs of the span's first chips chips (what a phase
// between tensors spread over those chips' tiles moves when nothing more
// is known): each receives its share from every one, its own included.
// Nil on one chip, or when chips is 1.
func (t *Target) UniformChipBytes(total int64, chips int) []int64 {
	k, n := int64(t.SpanChips()), int64(min(max(chips, 1), t.SpanChips()))
	if n < 2 || total <= 0 {
		return nil
	}
	bytes := make([]int64, k*k)
	for a := range n {
		for b := range n {
			if a != b {
				bytes[a*k+b] = numeric.CeilDiv(total, n*n)
			}
		}
	}
	return bytes
}

// ChipsCovered is how many chips of a span tiles tiles cover, from the
// first (at least 1).
func (t *Target) ChipsCovered(tiles int64) int {
	per := int64(t.Tiles / t.SpanChips())
	if per < 1 {
		return 1
	}
	return int(min(max(numeric.CeilDiv(tiles, per), 1), int64(t.SpanChips())))
}

// ExchangeStepCycles returns one exchange phase's cycles and the sync
// before it: the busiest tile's maxWords each way (ExchangePhaseCycles) or,
// on a program spanning chips, the links' carrying of chipBytes
// (SpanLinkCycles) if that is longer; a phase that crosses chips syncs
// every chip (Links.SyncCycles), any other the chip's tiles.
func (t *Target) ExchangeStepCycles(maxWords int64, chipBytes []int64) (exchange, sync int64, err error) {
	if exchange, err = t.ExchangePhaseCycles(maxWords); err != nil {
		return 0, 0, err
	}
	sync = int64(t.SyncCycles)
	if t.SpanChips() < 2 {
		return exchange, sync, nil
	}
	links, err := t.SpanLinkCycles(chipBytes)
	if err != nil {
		return 0, 0, err
	}
	if links > 0 {
		exchange, sync = max(exchange, links), t.Links.SyncCycles
	}
	return exchange, sync, nil
}

// LinkSendCycles returns the cycles bytes hold the links from a chip to
// its neighbour in one direction: the bytes spread over the links between
// them. The value arrives Links.LatencyCycles later; the links are free for
// the next transfer as soon as the last byte is sent.
func (t *Target) LinkSendCycles(bytes int64) (int64, error) {
	rate := t.Links.BytesPerCycle * float64(t.Links.PerNeighbour)
	if rate <= 0 {
		return 0, fmt.Errorf("target %s: its chips have no links", t.Name)
	}
	if bytes < 0 {
		return 0, fmt.Errorf("target %s: link transfer of %d bytes", t.Name, bytes)
	}
	return t.rateCycles("link transfer", bytes, rate)
}

// IOBytes is what the IO tiles of one chip hold of streamed data: each its
// whole memory less the support reserve (an IO tile runs only its
// transfers' code).
func (t *Target) IOBytes() int64 {
	return int64(t.IOTiles) * max(t.SRAMBytesPerTile-t.SupportReserveBytes, 0)
}

// IOMoveCycles returns the cycles an exchange takes to move bytes from the
// IO tiles to the compute tiles: each IO tile sends its share at the
// exchange's rate, and the phase pays its latency and a sync.
func (t *Target) IOMoveCycles(bytes int64) (int64, error) {
	if t.IOTiles <= 0 {
		return 0, fmt.Errorf("target %s has no IO tiles", t.Name)
	}
	if bytes <= 0 {
		return 0, nil
	}
	perTile := int64(t.ExchangeWordBytes * t.ExchangeWordsPerCycle)
	per, err := t.rateCycles("IO tile exchange", bytes, float64(int64(t.IOTiles)*perTile))
	if err != nil {
		return 0, err
	}
	return per + int64(t.ExchangeLatencyCycles) + int64(t.SyncCycles), nil
}

// StreamingCycles returns the cycles one load (or store) of bytes between
// the chip's streaming memory and its tiles takes. A program spanning
// chips loads through each chip's own streaming memory the share its
// tiles take, side by side (assumption: an even share, as a layout over
// all the tiles gives), so at the chips' rates together.
func (t *Target) StreamingCycles(bytes int64) (int64, error) {
	if t.Streaming.BytesPerChip == 0 {
		return 0, fmt.Errorf("target %s has no streaming memory", t.Name)
	}
	span := int64(t.SpanChips())
	if bytes < 0 || bytes > numeric.SatMul(t.Streaming.BytesPerChip, span) {
		return 0, fmt.Errorf("target %s: a streaming transfer of %d bytes (its streaming memory holds %d per chip)",
			t.Name, bytes, t.Streaming.BytesPerChip)
	}
	if bytes == 0 {
		return 0, nil
	}
	per, err := t.rateCycles("streaming transfer", bytes, t.Streaming.BytesPerCycle*float64(span))
	if err != nil {
		return 0, err
	}
	var c checked
	total := c.add(per, t.Streaming.LatencyCycles)
	if c.overflow {
		return 0, t.overflowError("streaming cycles")
	}
	return total, nil
}

// rateCycles is ⌈bytes / rate⌉ for a positive fractional rate.
func (t *Target) rateCycles(what string, bytes int64, rate float64) (int64, error) {
	if !(rate > 0) || math.IsInf(rate, 0) {
		return 0, fmt.Errorf("target %s: %s at %v bytes per cycle", t.Name, what, rate)
	}
	c := math.Ceil(float64(bytes) / rate)
	if c >= math.MaxInt64/2 {
		return 0, t.overflowError(what + " cycles")
	}
	return int64(c), nil
}

// PipelineSlots returns how many stage slots a pipeline of stages stages
// takes over microBatches micro-batches: stages − 1 to fill, one a
// micro-batch, so the last stage ends after microBatches + stages − 1
// slots (PopART's 2(P−1) + (G−(P−1)) for inference, the same count).
// The pipeline needs at least as many micro-batches as stages to keep every
// stage busy at once; with fewer, some stages idle in every slot.
func PipelineSlots(stages, microBatches int64) (int64, error) {
	if stages < 1 || microBatches < 1 {
		return 0, fmt.Errorf("a pipeline of %d stages over %d micro-batches", stages, microBatches)
	}
	var c checked
	n := c.add(microBatches, stages-1)
	if c.overflow {
		return 0, fmt.Errorf("a pipeline of %d stages over %d micro-batches overflows", stages, microBatches)
	}
	return n, nil
}

// validateScale checks the multi-chip and streaming facts.
func (t *Target) validateScale() []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	l := t.Links
	switch {
	case t.Chips < 1:
		bad("Chips must be positive, is %d", t.Chips)
	case t.Span > MaxSpanChips:
		bad("span-chips %d: a program spans at most %d chips", t.Span, MaxSpanChips)
	case t.Span < 0 || (t.Span > 1 && t.Chips > 1):
		bad("span-chips %d: a program spans one or more chips of a chip target, not of a pod (%d chips)", t.Span, t.Chips)
	case t.Span > 1 && t.IOTiles > 0:
		bad("span-chips %d with io-tiles %d: a program spanning chips does not stream through IO tiles", t.Span, t.IOTiles)
	case t.Span > 1:
		if l.Topology != "line" || l.PerNeighbour < 1 || !(l.BytesPerCycle > 0) || math.IsInf(l.BytesPerCycle, 0) || l.LatencyCycles < 0 || l.SyncCycles < int64(t.SyncCycles) {
			bad("a program spanning %d chips needs them joined in a \"line\" of links with positive rates, a latency not negative and a sync across chips no shorter than one chip's (Links %+v)", t.Span, l)
		}
		if t.Tiles%t.Span != 0 || t.TileColumns%t.Span != 0 {
			bad("span-chips %d does not divide the %d tiles and %d tile columns", t.Span, t.Tiles, t.TileColumns)
		}
	case t.Chips == 1 && l != (Links{}):
		bad("a single chip has no links (Links %+v)", l)
	case t.Chips > 1:
		if _, ok := builtins[t.ChipTarget]; !ok || t.ChipTarget == "" {
			bad("ChipTarget %q is not a built-in target", t.ChipTarget)
		}
		if l.Topology != "ring" {
			bad("Links.Topology %q: the chips of a multi-chip target are joined in a \"ring\"", l.Topology)
		}
		if l.PerNeighbour < 1 || !(l.BytesPerCycle > 0) || math.IsInf(l.BytesPerCycle, 0) {
			bad("Links: %d links per neighbour at %v bytes per cycle; both must be positive and finite", l.PerNeighbour, l.BytesPerCycle)
		}
		if l.LatencyCycles < 0 || l.SyncCycles < int64(t.SyncCycles) {
			bad("Links: latency %d must not be negative, and the sync across chips (%d cycles) takes no less than one chip's (%d)",
				l.LatencyCycles, l.SyncCycles, t.SyncCycles)
		}
	}
	if t.IOTiles < 0 || t.IOTiles%max(t.TileColumns, 1) != 0 || t.Tiles < 1 {
		bad("io-tiles %d: IO tiles come in whole rows of the %d tile columns (so that the compute tiles do too) and leave some of the %d tiles to compute",
			t.IOTiles, t.TileColumns, t.Tiles+t.IOTiles)
	}
	if t.IOTiles > 0 && t.Streaming.BytesPerChip == 0 {
		bad("IOTiles %d without streaming memory to receive from", t.IOTiles)
	}
	s := t.Streaming
	if s.BytesPerChip < 0 || s.LatencyCycles < 0 {
		bad("Streaming: capacity %d and latency %d must not be negative", s.BytesPerChip, s.LatencyCycles)
	}
	if s.BytesPerChip > 0 && (!(s.BytesPerCycle > 0) || math.IsInf(s.BytesPerCycle, 0)) {
		bad("Streaming: %v bytes per cycle must be positive and finite", s.BytesPerCycle)
	}
	if s.BytesPerChip == 0 && s != (StreamingMemory{}) {
		bad("Streaming: a rate or latency without capacity")
	}
	return errs
}
