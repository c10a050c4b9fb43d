package ipupkg

import (
	"bytes"
	"crypto/sha256"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ipuir/ipuir/elem"
)

// smallPod is two stages of the hand-built package: stage 1 reads stage
// 0's output.
func smallPod() *Pod {
	stage := func() *Package {
		p := small()
		p.Streams[1].Text = false
		return p
	}
	return &Pod{Compiler: "test", Target: "two{x=1}", Chips: 2, MicroBatches: 4, Inputs: []string{"x"}, Weights: []bool{false},
		Stages: []PodStage{
			{Chip: 0, Package: stage(), Inputs: []PodRef{{Stage: HostStage, Index: 0}}},
			{Chip: 1, Package: stage(), Inputs: []PodRef{{Stage: 0, Index: 0}}},
		},
		Outputs: []PodRef{{Stage: 1, Index: 0}},
		Links:   []LinkTransfer{{From: PodRef{Stage: 0, Index: 0}, To: 1, Input: 0, Bytes: 64, Hops: []LinkHop{{From: 0, To: 1, Start: 0, Sent: 30, End: 530}}}},
		Source:  []byte("module {}\n"), Metadata: []Entry{{"target", "two"}}}
}

// threeChipPod is smallPod on three chips with a third stage, on chip 2,
// that reads stage 0's output too: two transfers leave chip 0.
func threeChipPod() *Pod {
	p := smallPod()
	p.Chips = 3
	p.Stages = append(p.Stages, PodStage{Chip: 2, Package: p.Stages[1].Package, Inputs: []PodRef{{Stage: 0, Index: 0}}})
	p.Links = append(p.Links, LinkTransfer{From: PodRef{Stage: 0, Index: 0}, To: 2, Input: 0, Bytes: 64,
		Hops: []LinkHop{{From: 0, To: 1, Start: 30, Sent: 60, End: 560}, {From: 1, To: 2, Start: 560, Sent: 590, End: 1090}}})
	return p
}

var podOpts = []cmp.Option{cmpopts.IgnoreUnexported(PodStage{}), ignoreVersion}

func TestPodRoundTrip(t *testing.T) {
	p := smallPod()
	data := p.Encode()
	if !IsPod(data) || IsPod(small().Encode()) {
		t.Fatal("IsPod does not tell a pod package from a chip's")
	}
	q, err := DecodePod(data)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(p, q, podOpts...); d != "" {
		t.Fatalf("the pod does not read back as itself (-want +got):\n%s", d)
	}
	if again := q.Encode(); !bytes.Equal(again, data) {
		t.Error("encoding a decoded pod gives other bytes")
	}
	var dump strings.Builder
	if err := DumpPod(&dump, q); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Target:           two{x=1} (2 chips)", "[1] chip 1: two, 3 instructions", "input 0 (x, f16 [4 8]) from stage 0 output 0", "output 0 from stage 1 output 0", "Stage 1:\nPackage header:",
		"Link phase: 1 transfers, 530 cycles\n  [0] stage 0 output 0 to stage 1 input 0, 64 bytes: chip 0->1 @0-30-530\n"} {
		if !strings.Contains(dump.String(), want) {
			t.Errorf("the dump lacks %q:\n%s", want, dump.String())
		}
	}
}

// podReseal recomputes a pod package's digest, so that a test's edit
// reaches the checks behind it.
func podReseal(data []byte) []byte {
	out := bytes.Clone(data)
	if len(out) < len(PodMagic)+8+trailerBytes {
		return out
	}
	body := len(out) - trailerBytes
	sum := sha256.Sum256(out[:body])
	copy(out[body+len(TrailerMagic):], sum[:])
	return out
}

func TestPodsThatDoNotJoinAreRejected(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(p *Pod)
		want string
	}{
		{"no chips", func(p *Pod) { p.Chips = 0 }, "a pod of 0 chips"},
		{"more stages than chips", func(p *Pod) { p.Chips = 2; p.Stages = append(p.Stages, p.Stages[1]); p.Stages[2].Chip = 1 }, "3 stages on 2 chips"},
		{"weights miscounted", func(p *Pod) { p.Weights = nil }, "1 model inputs, 0 of them said to be weights"},
		{"no micro-batches", func(p *Pod) { p.MicroBatches = 0 }, "0 micro-batches"},
		{"chip out of range", func(p *Pod) { p.Stages[1].Chip = 2 }, "stage 1 runs on chip 2 of 2"},
		{"a span out of range", func(p *Pod) { p.Stages[1].Chips = 2 }, "stage 1 runs on chips 1 to 2 of 2"},
		{"spans of two sizes", func(p *Pod) { p.Chips, p.Stages[1].Chip, p.Stages[1].Chips = 3, 1, 2 }, "stage 1 spans 2 chips, stage 0 1"},
		{"spans that overlap", func(p *Pod) {
			p.Chips, p.Stages[0].Chips, p.Stages[1].Chips = 4, 2, 2
		}, "stages 0 and 1 both run on chip 1"},
		{"two stages a chip", func(p *Pod) { p.Stages[1].Chip = 0 }, "stages 0 and 1 both run on chip 0"},
		{"chips of two targets", func(p *Pod) { p.Stages[1].Package.Target = "three" }, "a pod's chips are one target"},
		{"inputs miscounted", func(p *Pod) { p.Stages[0].Inputs = nil }, "says where 0 inputs come from; its program has 1"},
		{"a later stage feeds", func(p *Pod) { p.Stages[0].Inputs[0] = PodRef{Stage: 1} }, "a stage reads only earlier stages"},
		{"no such model input", func(p *Pod) { p.Stages[0].Inputs[0].Index = 3 }, "model input 3, of 1"},
		{"no such output", func(p *Pod) { p.Stages[1].Inputs[0].Index = 5 }, "stage 0 output 5, which has 1 outputs"},
		{"another shape", func(p *Pod) { p.Stages[0].Package.Streams[1].Shape = []int64{32} }, "is fed stage 0 output 0 (f16 [32])"},
		{"another type", func(p *Pod) { p.Stages[0].Package.Streams[1].Elem = elem.F32 }, "is fed stage 0 output 0 (f32"},
		{"input nobody reads", func(p *Pod) { p.Inputs, p.Weights = append(p.Inputs, "z"), append(p.Weights, true) }, "no stage reads model input 1 (z)"},
		{"output from nowhere", func(p *Pod) { p.Outputs[0] = PodRef{Stage: 2} }, "model output 0 comes from stage 2 output 0, which does not exist"},
		{"no link transfer", func(p *Pod) { p.Links = nil }, "link schedule: no transfer for stage 1 input 0"},
		{"a link transfer too many", func(p *Pod) { p.Links = append(p.Links, p.Links[0]) }, "link schedule: 2 transfers, for 1 values that cross chips"},
		{"a transfer of another value", func(p *Pod) { p.Links[0].Input = 1 }, "moves stage 0 output 0 to stage 1 input 1"},
		{"a transfer of other bytes", func(p *Pod) { p.Links[0].Bytes = 32 }, "moves 32 bytes; stage 1 input 0 is 64 bytes"},
		{"a transfer without hops", func(p *Pod) { p.Links[0].Hops = nil }, "transfer 0 has 0 hops"},
		{"a hop from elsewhere", func(p *Pod) { p.Links[0].Hops[0].From = 1 }, "hop 0 leaves chip 1; the value is on chip 0"},
		{"a hop nowhere", func(p *Pod) { p.Links[0].Hops[0].To = 0 }, "hop 0 goes from chip 0 to chip 0"},
		{"a hop back in time", func(p *Pod) { p.Links[0].Hops[0].End = -1 }, "starts at cycle 0, is sent at 30 and arrives at -1"},
		{"a route short of its chip", func(p *Pod) {
			p.Chips, p.Stages[1].Chip = 3, 2
		}, "transfer 0 ends on chip 1; its consumer runs on chip 2"},
	} {
		p := smallPod()
		c.edit(p)
		err := p.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Validate() = %v; want %q", c.name, err, c.want)
		}
		// The reader refuses it too, sealed as the writer seals.
		if _, err := DecodePod(podReseal(p.Encode())); err == nil {
			t.Errorf("%s: DecodePod accepted it", c.name)
		}
	}
}

// Two transfers leave chip 0 over the links to chip 1: they may not be
// sent at once, though the second may leave while the first is still on
// its way.
func TestLinkHopsMayNotShareALink(t *testing.T) {
	p := threeChipPod()
	if err := p.Validate(); err != nil {
		t.Fatalf("a schedule that shares the link in turn: %v", err)
	}
	if q, err := DecodePod(p.Encode()); err != nil || len(q.Links) != 2 || q.LinkPhaseCycles() != 1090 {
		t.Fatalf("read back: %v", err)
	}
	p.Links[1].Hops[0].Start, p.Links[1].Hops[0].Sent = 10, 40
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "two hops (sent in cycles 0 to 30 and 10 to 40) hold the links from chip 0 to chip 1 at once") {
		t.Errorf("Validate() = %v", err)
	}
	p = threeChipPod()
	p.Links[1].Hops[1].Start = 500
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "transfer 1 hop 1 starts at cycle 500, is sent at 590 and arrives at 1090; it may start at 560") {
		t.Errorf("a hop before its value arrived: Validate() = %v", err)
	}
}

// On one chip the stages are phases, all on chip 0.
func TestPhasedPod(t *testing.T) {
	p := smallPod()
	p.Chips, p.Stages[1].Chip, p.Links = 1, 0, nil
	if err := p.Validate(); err != nil || !p.Phased() {
		t.Fatalf("phases on one chip: %v", err)
	}
	if q, err := DecodePod(p.Encode()); err != nil || !q.Phased() {
		t.Fatalf("read back: %v", err)
	}
	if smallPod().Phased() {
		t.Error("a pod of two chips says it is phased")
	}
}

func TestCorruptPodsAreRejected(t *testing.T) {
	data := smallPod().Encode()
	flip := bytes.Clone(data)
	flip[len(PodMagic)+20] ^= 1
	version := podReseal(append([]byte(PodMagic+"\x04\x00"), data[len(PodMagic)+2:]...))
	v1 := podReseal(append([]byte(PodMagic+"\x01\x00"), data[len(PodMagic)+2:]...))
	v2 := podReseal(append([]byte(PodMagic+"\x02\x00"), data[len(PodMagic)+2:]...))
	stage := bytes.Clone(data)
	// The first stage package's magic, inside the pod's payload.
	i := bytes.Index(stage, []byte(Magic))
	stage[i+1] = 'X'
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "shorter than a pod package's header"},
		{"a chip's package", small().Encode(), "not an ipuir pod package"},
		{"a flipped bit", flip, "the digest does not match"},
		{"truncated", data[:len(data)-5], "no trailer"},
		{"a later version", version, "pod format version 4, this reader reads version 3"},
		{"version 1, without a link schedule", v1, "pod format version 1, this reader reads version 3"},
		{"version 2, without stage spans", v2, "pod format version 2, this reader reads version 3"},
		{"a stage that is no package", podReseal(stage), "stage 0: invalid package: not an ipuir package"},
		{"a payload cut short", podReseal(append(bytes.Clone(data[:len(PodMagic)+8+10]), data[len(data)-trailerBytes:]...)), "runs past the end"},
	} {
		if _, err := DecodePod(c.data); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: DecodePod = %v; want %q", c.name, err, c.want)
		}
	}
}

// FuzzDecodePod: no input makes DecodePod panic or allocate beyond what
// it holds, and an accepted pod reads back as itself.
// spanPod is smallPod on four chips, each stage spanning two: the value
// goes from chip 0 to chip 3 through chips 1 and 2.
func spanPod() *Pod {
	p := smallPod()
	p.Chips = 4
	p.Stages[0].Chips, p.Stages[1].Chip, p.Stages[1].Chips = 2, 2, 2
	p.Links[0].Hops = []LinkHop{{From: 0, To: 1, Start: 0, Sent: 30, End: 530}, {From: 1, To: 2, Start: 530, Sent: 560, End: 1060},
		{From: 2, To: 3, Start: 1060, Sent: 1090, End: 1590}}
	return p
}

func TestStagesSpanningChipsReadBack(t *testing.T) {
	p := spanPod()
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	q, err := DecodePod(p.Encode())
	if err != nil || q.Stages[1].Chip != 2 || q.Stages[1].SpanChips() != 2 || q.Stages[1].LastChip() != 3 {
		t.Fatalf("read back: %v", err)
	}
	if from, to, forward := q.LinkEnds(0, 1); from != 0 || to != 3 || !forward {
		t.Errorf("LinkEnds(0, 1) = %d, %d, %v; want 0, 3, forward", from, to, forward)
	}
	var dump strings.Builder
	DumpPod(&dump, q)
	if !strings.Contains(dump.String(), "[1] chips 2-3:") {
		t.Errorf("the dump does not name stage 1's chips:\n%s", dump.String())
	}
}

func FuzzDecodePod(f *testing.F) {
	data := smallPod().Encode()
	f.Add(data, false)
	f.Add(data[:60], true)
	f.Add(podReseal(append(bytes.Clone(data[:len(PodMagic)+8]), data[len(data)-trailerBytes:]...)), false)
	f.Add(spanPod().Encode(), false)
	f.Fuzz(func(t *testing.T, data []byte, sealed bool) {
		if sealed {
			data = podReseal(data)
		}
		p, err := DecodePod(data)
		if err != nil {
			return
		}
		q, err := DecodePod(p.Encode())
		if err != nil || !cmp.Equal(p, q, podOpts...) {
			t.Fatalf("accepted a pod that does not read back as itself: %v", err)
		}
	})
}
