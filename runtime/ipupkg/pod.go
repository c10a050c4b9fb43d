package ipupkg

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
)

// A pod package is a program for several chips run as a pipeline: one
// ordinary package per stage, each for the chip it runs on, and how the
// stages' streams are joined (a stage's input comes from the host or from
// an earlier stage's output, over the links between their chips). On a
// single chip the stages are phases, run one after the other with each
// phase's weights loaded from streaming memory before it (phased
// execution).
//
// Values that cross from one chip to another move in the pod's *link
// phase*, once a stage slot, as the package's link schedule says: each
// transfer's route over the ring, hop by hop, each hop with its start and
// end cycle (LinkTransfer). The reader checks the schedule's shape (one
// transfer for each value that crosses chips, routes that start at the
// producer's chip and end at the consumer's, hops in order, no two at once
// on one link direction); a runner checks the hops' times against its
// target's link model (runtime/pipeline.CheckLinks).
//
// A stage may span several chips (Chips): its program is one program over
// their tiles (a target with span-chips, target.Target.Span), its chips
// the run Chip to LastChip of the ring. A value leaving it starts from its
// first chip and a value entering it ends on its last: every byte's path
// between the chips that hold it and the chips that need it lies on that
// route, so the whole value charged on each hop never understates it.
//
// # File format (pod version 3; version 2 had no stage spans, version 1 no link schedule)
//
//	magic      8 bytes   "\x89IPUPOD\n"
//	version    u16       PodFormatVersion
//	reserved   u16, u32  0
//	payload              the pod's fields (podFields), as a package's sections encode theirs
//	trailer    8 bytes   "IPUEND\x00\x00"
//	digest     32 bytes  SHA-256 of every byte before the trailer
//
// Each stage's package is held whole, with its own digest, and is read and
// validated as a single chip's package is.

// PodMagic starts every pod package.
const PodMagic = "\x89IPUPOD\n"

// PodFormatVersion is the pod format this package writes and reads.
const PodFormatVersion = 3

// MaxPodStages is the most stages a pod package may have.
const MaxPodStages = 1 << 12

// Pod is a decoded pod package.
type Pod struct {
	Compiler string
	// Target is the pod's target spec; Chips its chip count (so that a
	// reader checks every stage's chip without knowing the target).
	Target string
	Chips  int
	// MicroBatches is how many micro-batches a run feeds by default.
	MicroBatches int
	// Inputs names the model's inputs, in order (the host's streams), and
	// Weights says which are weights: the same for every micro-batch, so
	// loaded once per phase where stages are phases.
	Inputs  []string
	Weights []bool
	Stages  []PodStage
	// Outputs says where each of the model's outputs comes from.
	Outputs []PodRef
	// Links is the link phase's schedule: one transfer for each stage
	// input that an earlier stage on another chip produces, in the order
	// of the stages and their inputs.
	Links []LinkTransfer
	// Source is the whole model's tensor-level module, as text.
	Source   []byte
	Metadata []Entry
}

// PodStage is one pipeline stage: the chips it runs on, its program, and
// for each input stream of the program, in order, where it comes from.
type PodStage struct {
	Chip int // its first chip
	// Chips is how many chips, from Chip on, its program spans (0 or 1:
	// one).
	Chips   int
	Package *Package
	Inputs  []PodRef
	// packageBytes is the stage's package as the file holds it, and
	// sections where its sections lie in those bytes.
	packageBytes []byte
	sections     []SectionInfo
}

// SpanChips is how many chips the stage spans (Chips, at least 1).
func (s *PodStage) SpanChips() int { return max(s.Chips, 1) }

// LastChip is the stage's last chip.
func (s *PodStage) LastChip() int { return s.Chip + s.SpanChips() - 1 }

// LinkEnds is the route of a value from stage from to stage to: from
// from's first chip to to's last, and whether it must go forward round the
// ring (a stage spans chips: the route must pass every chip of both,
// the bound above), rather than the shorter way.
func (p *Pod) LinkEnds(from, to int) (fromChip, toChip int, forward bool) {
	a, b := &p.Stages[from], &p.Stages[to]
	return a.Chip, b.LastChip(), a.SpanChips() > 1 || b.SpanChips() > 1
}

// PodRef is where a value comes from: the host's model input Index
// (Stage HostStage), or output stream Index of an earlier stage.
type PodRef struct {
	Stage int
	Index int
}

// LinkTransfer is one value moved between chips in the link phase: stage
// From's output to input Input of stage To, Bytes of it, over Hops.
type LinkTransfer struct {
	From  PodRef
	To    int
	Input int
	Bytes int64
	Hops  []LinkHop
}

// LinkHop is a transfer's crossing of the links from chip From to its
// neighbour To, in cycles of the link phase: the links in that direction
// carry it from Start to Sent (and are free for another transfer after),
// and it has all arrived at End, a link latency later. Store and forward:
// a hop starts once the one before it has ended.
type LinkHop struct {
	From  int   `json:"from"`
	To    int   `json:"to"`
	Start int64 `json:"start"`
	Sent  int64 `json:"sent"`
	End   int64 `json:"end"`
}

// MaxLinkHops bounds a route: the shorter way round a ring of MaxPodStages
// chips.
const MaxLinkHops = MaxPodStages / 2

func linkTransferFields(c *codec, t *LinkTransfer) {
	podRefFields(c, &t.From)
	c.index(&t.To, "link transfer's stage", MaxPodStages)
	c.index(&t.Input, "link transfer's input", math.MaxInt32)
	c.int64(&t.Bytes)
	list(c, &t.Hops, "link hops", func(c *codec, h *LinkHop) {
		c.index(&h.From, "hop's chip", MaxPodStages)
		c.index(&h.To, "hop's chip", MaxPodStages)
		c.int64(&h.Start)
		c.int64(&h.Sent)
		c.int64(&h.End)
	})
}

// End is the cycle the transfer's last hop ends, 0 for none.
func (t *LinkTransfer) End() int64 {
	if len(t.Hops) == 0 {
		return 0
	}
	return t.Hops[len(t.Hops)-1].End
}

// LinkPhaseCycles is the link phase's length: the latest hop's end.
func (p *Pod) LinkPhaseCycles() int64 {
	var end int64
	for i := range p.Links {
		end = max(end, p.Links[i].End())
	}
	return end
}

// HostStage is a PodRef's Stage for the host's inputs.
const HostStage = -1

func (r PodRef) String() string {
	if r.Stage == HostStage {
		return fmt.Sprintf("model input %d", r.Index)
	}
	return fmt.Sprintf("stage %d output %d", r.Stage, r.Index)
}

func podFields(c *codec, p *Pod) {
	c.string(&p.Compiler, "compiler version")
	c.string(&p.Target, "target name")
	c.index(&p.Chips, "chips", MaxPodStages)
	c.index(&p.MicroBatches, "micro-batches", math.MaxInt32)
	list(c, &p.Inputs, "model inputs", func(c *codec, s *string) { c.string(s, "input name") })
	list(c, &p.Weights, "model input kinds", func(c *codec, w *bool) { c.bool(w) })
	list(c, &p.Stages, "stages", func(c *codec, s *PodStage) {
		c.index(&s.Chip, "chip", MaxPodStages)
		c.index(&s.Chips, "stage chips", MaxPodStages)
		list(c, &s.Inputs, "stage inputs", podRefFields)
		c.bytes(&s.packageBytes, "stage package")
	})
	list(c, &p.Outputs, "model outputs", podRefFields)
	list(c, &p.Links, "link transfers", linkTransferFields)
	c.bytes(&p.Source, "source")
	list(c, &p.Metadata, "metadata entries", entryFields)
}

// podRefFields stores Stage + 1, so that the host's is 0.
func podRefFields(c *codec, r *PodRef) {
	s := r.Stage + 1
	c.index(&s, "stage", MaxPodStages)
	r.Stage = s - 1
	c.index(&r.Index, "stream", math.MaxInt32)
}

// Encode returns the pod package's bytes.
func (p *Pod) Encode() []byte {
	for i := range p.Stages {
		p.Stages[i].packageBytes = p.Stages[i].Package.Encode()
	}
	w := newWriter()
	podFields(w, p)
	var out bytes.Buffer
	out.WriteString(PodMagic)
	var hdr [8]byte
	binary.LittleEndian.PutUint16(hdr[0:], PodFormatVersion)
	out.Write(hdr[:])
	out.Write(w.b)
	return seal(&out)
}

// Phased reports whether the stages are phases of one chip.
func (p *Pod) Phased() bool { return p.Chips == 1 }

// IsPod reports whether data starts as a pod package.
func IsPod(data []byte) bool { return bytes.HasPrefix(data, []byte(PodMagic)) }

// VerifyPodDigest is VerifyDigest for a pod package: its magic, version,
// reserved fields, trailer and digest.
func VerifyPodDigest(data []byte) error {
	header := len(PodMagic) + 8
	if len(data) < header+trailerBytes {
		return &FormatError{Msg: fmt.Sprintf("%d bytes is shorter than a pod package's header and trailer (%d bytes)", len(data), header+trailerBytes)}
	}
	if !IsPod(data) {
		return &FormatError{Msg: fmt.Sprintf("not an ipuir pod package: the file starts %q, not %q", data[:len(PodMagic)], PodMagic)}
	}
	if v := binary.LittleEndian.Uint16(data[len(PodMagic):]); v != PodFormatVersion {
		return &FormatError{Msg: fmt.Sprintf("pod format version %d, this reader reads version %d", v, PodFormatVersion)}
	}
	if r1, r2 := binary.LittleEndian.Uint16(data[len(PodMagic)+2:]), binary.LittleEndian.Uint32(data[len(PodMagic)+4:]); r1 != 0 || r2 != 0 {
		return &FormatError{Msg: "reserved header fields are not 0"}
	}
	return checkTrailer(data)
}

// DecodePod validates and decodes a whole pod package held in data: its
// framing and digest, every stage's package, and how the stages are
// joined (Pod.Validate).
func DecodePod(data []byte) (*Pod, error) {
	if err := VerifyPodDigest(data); err != nil {
		return nil, err
	}
	header := len(PodMagic) + 8
	body := len(data) - trailerBytes
	c := &codec{b: data[header:body], base: int64(header), section: "pod", version: FormatVersion}
	p := &Pod{}
	podFields(c, p)
	if c.err == nil && c.off != len(c.b) {
		c.fail("%d bytes after the pod's contents", len(c.b)-c.off)
	}
	if c.err != nil {
		return nil, c.err
	}
	for i := range p.Stages {
		s := &p.Stages[i]
		pkg, sections, err := Decode(s.packageBytes)
		if err != nil {
			return nil, fmt.Errorf("stage %d: %w", i, err)
		}
		s.Package, s.sections = pkg, sections
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// Validate checks how the stages are joined: each stage on a chip of the
// pod, every chip's target the same, each stage input fed by the host or
// by an earlier stage's output of the same element type and shape, every
// model input read with one type and shape, and every model output
// coming from somewhere.
func (p *Pod) Validate() error {
	bad := func(format string, args ...any) error {
		return &FormatError{Section: "pod", Offset: -1, Msg: fmt.Sprintf(format, args...)}
	}
	if p.Chips < 1 {
		return bad("a pod of %d chips", p.Chips)
	}
	if len(p.Stages) == 0 || (p.Chips > 1 && len(p.Stages) > p.Chips) {
		return bad("%d stages on %d chips (one stage a chip, at least one)", len(p.Stages), p.Chips)
	}
	if len(p.Weights) != len(p.Inputs) {
		return bad("%d model inputs, %d of them said to be weights or not", len(p.Inputs), len(p.Weights))
	}
	if p.MicroBatches < 1 {
		return bad("%d micro-batches", p.MicroBatches)
	}
	streams := func(pkg *Package, output bool) []Stream { return pkg.streamsOf(output) }
	chips := map[int]int{}
	hostInputs := make([]*Stream, len(p.Inputs))
	for k, st := range p.Stages {
		if st.Package == nil {
			return bad("stage %d has no program", k)
		}
		if st.Chips < 0 || st.LastChip() >= p.Chips {
			if st.SpanChips() == 1 {
				return bad("stage %d runs on chip %d of %d", k, st.Chip, p.Chips)
			}
			return bad("stage %d runs on chips %d to %d of %d", k, st.Chip, st.LastChip(), p.Chips)
		}
		if st.SpanChips() != p.Stages[0].SpanChips() {
			return bad("stage %d spans %d chips, stage 0 %d: a pod's stages are one target", k, st.SpanChips(), p.Stages[0].SpanChips())
		}
		for c := st.Chip; c <= st.LastChip(); c++ {
			if other, ok := chips[c]; ok && p.Chips > 1 {
				return bad("stages %d and %d both run on chip %d", other, k, c)
			}
			chips[c] = k
		}
		if st.Package.Target != p.Stages[0].Package.Target {
			return bad("stage %d's chip is %s, stage 0's %s: a pod's chips are one target", k, st.Package.Target, p.Stages[0].Package.Target)
		}
		ins := streams(st.Package, false)
		if len(st.Inputs) != len(ins) {
			return bad("stage %d says where %d inputs come from; its program has %d", k, len(st.Inputs), len(ins))
		}
		for i, ref := range st.Inputs {
			var from Stream
			switch {
			case ref.Stage == HostStage:
				if ref.Index >= len(p.Inputs) {
					return bad("stage %d input %d: %s, of %d", k, i, ref, len(p.Inputs))
				}
				if h := hostInputs[ref.Index]; h != nil {
					from = *h
				} else {
					s := ins[i]
					hostInputs[ref.Index], from = &s, s
				}
			case ref.Stage >= k:
				return bad("stage %d input %d comes from stage %d: a stage reads only earlier stages", k, i, ref.Stage)
			default:
				outs := streams(p.Stages[ref.Stage].Package, true)
				if ref.Index >= len(outs) {
					return bad("stage %d input %d: %s, which has %d outputs", k, i, ref, len(outs))
				}
				from = outs[ref.Index]
			}
			if to := ins[i]; from.Elem != to.Elem || from.Text != to.Text || !slices.Equal(from.Shape, to.Shape) {
				return bad("stage %d input %d (%s, %v %v) is fed %s (%v %v)", k, i, to.Name, to.Elem, to.Shape, ref, from.Elem, from.Shape)
			}
		}
	}
	for i, h := range hostInputs {
		if h == nil {
			return bad("no stage reads model input %d (%s)", i, p.Inputs[i])
		}
	}
	for i, ref := range p.Outputs {
		if ref.Stage == HostStage {
			if ref.Index >= len(p.Inputs) {
				return bad("model output %d: %s, of %d", i, ref, len(p.Inputs))
			}
			continue
		}
		if ref.Stage >= len(p.Stages) || ref.Index >= len(streams(p.Stages[ref.Stage].Package, true)) {
			return bad("model output %d comes from %s, which does not exist", i, ref)
		}
	}
	return p.validateLinks()
}

// validateLinks checks the link schedule's shape: one transfer for each
// stage input an earlier stage on another chip produces, in order, with
// the stream's bytes; each route from the producer's chip to the
// consumer's, hop after hop; no two hops on one link direction at once.
func (p *Pod) validateLinks() error {
	bad := func(format string, args ...any) error {
		return &FormatError{Section: "pod", Offset: -1, Msg: "link schedule: " + fmt.Sprintf(format, args...)}
	}
	next := 0
	var routes []LinkRoute
	for k, st := range p.Stages {
		ins := st.Package.Inputs()
		for i, ref := range st.Inputs {
			if ref.Stage == HostStage || p.Stages[ref.Stage].Chip == st.Chip {
				continue
			}
			if next >= len(p.Links) {
				return bad("no transfer for stage %d input %d (%s, from chip %d to chip %d)", k, i, ref, p.Stages[ref.Stage].Chip, st.Chip)
			}
			t := &p.Links[next]
			next++
			if t.From != ref || t.To != k || t.Input != i {
				return bad("transfer %d moves %s to stage %d input %d; stage %d input %d, from %s, is next", next-1, t.From, t.To, t.Input, k, i, ref)
			}
			if want := ins[i].Bytes(); t.Bytes != want {
				return bad("transfer %d moves %d bytes; stage %d input %d is %d bytes", next-1, t.Bytes, k, i, want)
			}
			from, to, _ := p.LinkEnds(ref.Stage, k)
			routes = append(routes, LinkRoute{From: from, To: to, Hops: t.Hops})
		}
	}
	if next != len(p.Links) {
		return bad("%d transfers, for %d values that cross chips", len(p.Links), next)
	}
	if err := CheckLinkRoutes(routes, p.Chips); err != nil {
		return bad("%v", err)
	}
	return nil
}

// LinkRoute is one value's way round the ring from chip From to chip To,
// hop by hop.
type LinkRoute struct {
	From, To int
	Hops     []LinkHop
}

// CheckLinkRoutes checks routes (transfer n is routes[n]) on a ring of
// chips: each leaves its From chip and crosses hop after hop, each hop
// starting once the one before it has arrived, to its To chip, in at most
// MaxLinkHops; and no two hops hold one direction of the links between
// two chips at once. It knows no target: runtime/pipeline holds the
// cycles to the target's link model. A pod package's reader and the
// exchange dialect's link phase both check their schedules with it.
func CheckLinkRoutes(routes []LinkRoute, chips int) error {
	type direction struct{ from, to int }
	busy := map[direction][]LinkHop{}
	for n, r := range routes {
		if len(r.Hops) == 0 || len(r.Hops) > MaxLinkHops {
			return fmt.Errorf("transfer %d has %d hops", n, len(r.Hops))
		}
		at, ready := r.From, int64(0)
		for h, hop := range r.Hops {
			switch {
			case hop.From != at:
				return fmt.Errorf("transfer %d hop %d leaves chip %d; the value is on chip %d", n, h, hop.From, at)
			case hop.To < 0 || hop.To >= chips || hop.To == hop.From:
				return fmt.Errorf("transfer %d hop %d goes from chip %d to chip %d, of %d", n, h, hop.From, hop.To, chips)
			case hop.Start < ready || hop.Sent < hop.Start || hop.End < hop.Sent:
				return fmt.Errorf("transfer %d hop %d starts at cycle %d, is sent at %d and arrives at %d; it may start at %d", n, h, hop.Start, hop.Sent, hop.End, ready)
			}
			d := direction{hop.From, hop.To}
			busy[d] = append(busy[d], hop)
			at, ready = hop.To, hop.End
		}
		if at != r.To {
			return fmt.Errorf("transfer %d ends on chip %d; its consumer runs on chip %d", n, at, r.To)
		}
	}
	for _, d := range slices.SortedFunc(maps.Keys(busy), func(a, b direction) int {
		return cmp.Or(cmp.Compare(a.from, b.from), cmp.Compare(a.to, b.to))
	}) {
		hops := busy[d]
		slices.SortFunc(hops, func(a, b LinkHop) int { return cmp.Compare(a.Start, b.Start) })
		for h := 1; h < len(hops); h++ {
			if a, b := hops[h-1], hops[h]; b.Start < a.Sent && a.Start < b.Sent {
				return fmt.Errorf("two hops (sent in cycles %d to %d and %d to %d) hold the links from chip %d to chip %d at once",
					a.Start, a.Sent, b.Start, b.Sent, d.from, d.to)
			}
		}
	}
	return nil
}

// DumpPod prints a pod package: its header, the stages with where each
// input comes from, the model's outputs, then each stage's package as
// Dump prints it (section offsets within the stage's own bytes).
func DumpPod(w io.Writer, p *Pod) error {
	fmt.Fprintf(w, "Pod package header:\n")
	fmt.Fprintf(w, "  Format version:   %d\n", PodFormatVersion)
	fmt.Fprintf(w, "  Compiler:         %s\n", p.Compiler)
	fmt.Fprintf(w, "  Target:           %s (%d chips)\n", p.Target, p.Chips)
	fmt.Fprintf(w, "  Micro-batches:    %d\n", p.MicroBatches)
	fmt.Fprintf(w, "  Model inputs:     %s\n", strings.Join(p.Inputs, ", "))
	for _, m := range p.Metadata {
		fmt.Fprintf(w, "  %-17s %s\n", m.Key+":", m.Value)
	}
	fmt.Fprintf(w, "\nStages:\n")
	for k, st := range p.Stages {
		chips := fmt.Sprintf("chip %d", st.Chip)
		if st.SpanChips() > 1 {
			chips = fmt.Sprintf("chips %d-%d", st.Chip, st.LastChip())
		}
		fmt.Fprintf(w, "  [%d] %s: %s, %d instructions, %d buffers, %d bytes\n", k, chips, st.Package.Target,
			len(st.Package.Program), len(st.Package.Buffers), len(st.packageBytes))
		ins := st.Package.Inputs()
		for i, ref := range st.Inputs {
			fmt.Fprintf(w, "      input %d (%s, %v %v) from %s\n", i, ins[i].Name, ins[i].Elem, ins[i].Shape, ref)
		}
	}
	fmt.Fprintf(w, "\nModel outputs:\n")
	for i, ref := range p.Outputs {
		fmt.Fprintf(w, "  output %d from %s\n", i, ref)
	}
	if len(p.Links) > 0 {
		fmt.Fprintf(w, "\nLink phase: %d transfers, %d cycles\n", len(p.Links), p.LinkPhaseCycles())
		for n, t := range p.Links {
			fmt.Fprintf(w, "  [%d] %s to stage %d input %d, %d bytes:", n, t.From, t.To, t.Input, t.Bytes)
			for _, h := range t.Hops {
				fmt.Fprintf(w, " chip %d->%d @%d-%d-%d", h.From, h.To, h.Start, h.Sent, h.End)
			}
			fmt.Fprintln(w)
		}
	}
	for k, st := range p.Stages {
		fmt.Fprintf(w, "\nStage %d:\n", k)
		if err := Dump(w, st.Package, st.sections); err != nil {
			return err
		}
	}
	return nil
}

// Inputs are p's input streams by index, and Outputs its output streams
// (the reader checked that each direction's are numbered 0 to n-1).
func (p *Package) Inputs() []Stream { return p.streamsOf(false) }

// Outputs are p's output streams by index.
func (p *Package) Outputs() []Stream { return p.streamsOf(true) }

func (p *Package) streamsOf(output bool) []Stream {
	n := 0
	for _, s := range p.Streams {
		if s.Output == output {
			n++
		}
	}
	out := make([]Stream, n)
	for _, s := range p.Streams {
		if s.Output == output && s.Index < n {
			out[s.Index] = s
		}
	}
	return out
}
