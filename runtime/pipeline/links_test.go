package pipeline

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/runtime/ipupkg"
)

// ringPod is four stages on the four chips of test16x4, each value 1,024
// bytes: stage 1 reads stage 0; stage 2 reads stages 0 and 1; stage 3
// reads stages 0 and 2. Five values cross chips, one of them two hops.
func ringPod() *ipupkg.Pod {
	stream := func(name string, output bool, index int) ipupkg.Stream {
		return ipupkg.Stream{Name: name, Output: output, Index: index, Elem: elem.F16, Shape: []int64{16, 32}}
	}
	stage := func(chip int, from ...ipupkg.PodRef) ipupkg.PodStage {
		pkg := &ipupkg.Package{Target: "test16", Streams: []ipupkg.Stream{stream("y", true, 0)}}
		for i := range from {
			pkg.Streams = append(pkg.Streams, stream(fmt.Sprint("x", i), false, i))
		}
		return ipupkg.PodStage{Chip: chip, Package: pkg, Inputs: from}
	}
	host := ipupkg.PodRef{Stage: ipupkg.HostStage}
	out := func(k int) ipupkg.PodRef { return ipupkg.PodRef{Stage: k} }
	return &ipupkg.Pod{Target: "test16x4", Chips: 4, MicroBatches: 1, Inputs: []string{"x"}, Weights: []bool{false},
		Stages:  []ipupkg.PodStage{stage(0, host), stage(1, out(0)), stage(2, out(0), out(1)), stage(3, out(0), out(2))},
		Outputs: []ipupkg.PodRef{out(3)}}
}

// The schedule, hand-placed: every hop of 1,024 bytes holds its links for
// 30 cycles (two links of 17.3 bytes a cycle) and arrives 500 cycles of
// latency later. The value that goes two hops to chip 2 goes round by chip
// 3, whose links are free, and the value for chip 3 is then sent after it
// on the links from chip 0 to chip 3: the phase is 1,060 cycles, the two
// hops of the longest route, on its lower bound.
func TestScheduleLinksHandPlaced(t *testing.T) {
	tg := lookup(t, "test16x4")
	p := ringPod()
	links, phase, err := ScheduleLinks(p, tg)
	if err != nil {
		t.Fatal(err)
	}
	hop := func(from, to int, start int64) ipupkg.LinkHop {
		return ipupkg.LinkHop{From: from, To: to, Start: start, Sent: start + 30, End: start + 530}
	}
	want := []ipupkg.LinkTransfer{
		{From: ipupkg.PodRef{Stage: 0}, To: 1, Input: 0, Bytes: 1024, Hops: []ipupkg.LinkHop{hop(0, 1, 0)}},
		{From: ipupkg.PodRef{Stage: 0}, To: 2, Input: 0, Bytes: 1024, Hops: []ipupkg.LinkHop{hop(0, 3, 0), hop(3, 2, 530)}},
		{From: ipupkg.PodRef{Stage: 1}, To: 2, Input: 1, Bytes: 1024, Hops: []ipupkg.LinkHop{hop(1, 2, 0)}},
		{From: ipupkg.PodRef{Stage: 0}, To: 3, Input: 0, Bytes: 1024, Hops: []ipupkg.LinkHop{hop(0, 3, 30)}},
		{From: ipupkg.PodRef{Stage: 2}, To: 3, Input: 1, Bytes: 1024, Hops: []ipupkg.LinkHop{hop(2, 3, 0)}},
	}
	if d := cmp.Diff(want, links); d != "" {
		t.Fatalf("ScheduleLinks (-want +got):\n%s", d)
	}
	if phase != (LinkPhase{Transfers: 5, Bytes: 5120, Cycles: 1060, LowerBound: 1060}) {
		t.Errorf("phase = %+v", phase)
	}
	p.Links = links
	if err := p.Validate(); err != nil {
		t.Fatalf("the schedule does not validate: %v", err)
	}
	if got, err := CheckLinks(p, tg); err != nil || got != (LinkPhase{Transfers: 5, Bytes: 5120, Cycles: 1060}) {
		t.Fatalf("CheckLinks = %+v, %v", got, err)
	}
	stages, err := Links(p, tg)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range []Stage{{Chip: 0}, {Chip: 1, LinkBytes: 1024, LinkCycles: 530}, {Chip: 2, LinkBytes: 2048, LinkCycles: 1060}, {Chip: 3, LinkBytes: 2048, LinkCycles: 560}} {
		if stages[k] != want {
			t.Errorf("stage %d: %+v, want %+v", k, stages[k], want)
		}
	}
}

// CheckLinks holds a schedule to the target's links: a hop faster than
// they carry its bytes, or between chips that are not neighbours, is
// refused.
func TestCheckLinksRefusesWhatTheLinksCannotDo(t *testing.T) {
	tg := lookup(t, "test16x4")
	for _, c := range []struct {
		name string
		edit func(p *ipupkg.Pod)
		want string
	}{
		{"sent too fast", func(p *ipupkg.Pod) { p.Links[0].Hops[0].Sent = 29 }, "link transfer 0 hop 0 sends 1024 bytes from chip 0 to chip 1 in 29 cycles; test16x4's links take 30"},
		{"arrives too soon", func(p *ipupkg.Pod) { p.Links[0].Hops[0].End = 529 }, "link transfer 0 hop 0 arrives 499 cycles after it is sent; test16x4's links take 500"},
		{"not neighbours", func(p *ipupkg.Pod) {
			p.Links[1].Hops = []ipupkg.LinkHop{{From: 0, To: 2, Start: 0, End: 5000}}
		}, "link transfer 1 hop 0: chips 0 and 2 are not neighbours on test16x4"},
	} {
		p := ringPod()
		var err error
		if p.Links, _, err = ScheduleLinks(p, tg); err != nil {
			t.Fatal(err)
		}
		c.edit(p)
		if _, err := CheckLinks(p, tg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: CheckLinks = %v; want %q", c.name, err, c.want)
		}
	}
}

// MoveLinks carries each value's bytes hop by hop: what arrives is what
// left, and a hop from a chip that does not hold the value fails.
func TestMoveLinksCarriesTheBytes(t *testing.T) {
	tg := lookup(t, "test16x4")
	p := ringPod()
	var err error
	if p.Links, _, err = ScheduleLinks(p, tg); err != nil {
		t.Fatal(err)
	}
	source := func(ref ipupkg.PodRef) ([]byte, error) {
		return bytes.Repeat([]byte{byte(ref.Stage + 1)}, 1024), nil
	}
	all := func(int) bool { return true }
	got, err := MoveLinks(p, all, source)
	if err != nil {
		t.Fatal(err)
	}
	for n, b := range got {
		if want, _ := source(p.Links[n].From); !bytes.Equal(b, want) {
			t.Errorf("transfer %d delivered other bytes", n)
		}
	}
	into2, err := MoveLinks(p, func(n int) bool { return p.Links[n].To == 2 }, source)
	if err != nil || into2[0] != nil || into2[1] == nil || into2[2] == nil || into2[3] != nil {
		t.Errorf("moving the transfers into stage 2 only: %v", err)
	}
	p.Links[1].Hops[1].From = 1 // the value went to chip 3
	if _, err := MoveLinks(p, all, source); err == nil || !strings.Contains(err.Error(), "link transfer 1 hop 1 leaves chip 1 at cycle 530, which does not hold it then") {
		t.Errorf("MoveLinks = %v", err)
	}
}

// The streaming memory holds what fits its capacity, a region replaced
// in place, and loads only what was stored.
func TestDRAM(t *testing.T) {
	d := NewDRAM(lookup(t, "test16{streaming-bytes=100}"))
	w := ipupkg.PodRef{Stage: ipupkg.HostStage, Index: 0}
	out := ipupkg.PodRef{Stage: 0, Index: 0}
	if err := d.Store(w, make([]byte, 60)); err != nil {
		t.Fatal(err)
	}
	if err := d.Store(out, make([]byte, 50)); err == nil || !strings.Contains(err.Error(), "stage 0 output 0 (50 bytes) does not fit beside the 60 bytes held (100 bytes behind the chip)") {
		t.Errorf("over capacity: %v", err)
	}
	if err := d.Store(w, []byte{1, 2, 3}); err != nil {
		t.Fatalf("replacing a region: %v", err)
	}
	if err := d.Store(out, make([]byte, 97)); err != nil {
		t.Fatalf("the replaced region's room: %v", err)
	}
	if b, err := d.Load(w); err != nil || !bytes.Equal(b, []byte{1, 2, 3}) {
		t.Errorf("Load = %v, %v", b, err)
	}
	if _, err := d.Load(ipupkg.PodRef{Stage: 1}); err == nil || !strings.Contains(err.Error(), "holds no stage 1 output 0") {
		t.Errorf("Load of nothing: %v", err)
	}
}

// Stages of two chips each on test16x4 (stage 0 on chips 0–1, stage 1 on
// 2–3): a value goes forward from the producer's first chip to the
// reader's last, three hops, though chip 0 and chip 3 are neighbours; the
// package validates, and the bytes arrive on chip 3.
func TestStagesSpanningChipsGoForward(t *testing.T) {
	tg := lookup(t, "test16x4")
	p := ringPod()
	p.Stages = p.Stages[:2]
	p.Outputs = []ipupkg.PodRef{{Stage: 1}}
	p.Stages[0].Chips, p.Stages[1].Chip, p.Stages[1].Chips = 2, 2, 2
	var phase LinkPhase
	var err error
	if p.Links, phase, err = ScheduleLinks(p, tg); err != nil {
		t.Fatal(err)
	}
	hop := func(from, to int, start int64) ipupkg.LinkHop {
		return ipupkg.LinkHop{From: from, To: to, Start: start, Sent: start + 30, End: start + 530}
	}
	want := []ipupkg.LinkTransfer{{From: ipupkg.PodRef{Stage: 0}, To: 1, Input: 0, Bytes: 1024,
		Hops: []ipupkg.LinkHop{hop(0, 1, 0), hop(1, 2, 530), hop(2, 3, 1060)}}}
	if d := cmp.Diff(want, p.Links); d != "" {
		t.Fatalf("ScheduleLinks (-want +got):\n%s", d)
	}
	if phase.Cycles != 1590 || phase.LowerBound != 1590 {
		t.Errorf("phase = %+v; want 1590 cycles on its bound", phase)
	}
	if err := p.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if _, err := CheckLinks(p, tg); err != nil {
		t.Fatalf("CheckLinks: %v", err)
	}
	got, err := MoveLinks(p, func(int) bool { return true }, func(ipupkg.PodRef) ([]byte, error) { return bytes.Repeat([]byte{7}, 1024), nil })
	if err != nil || len(got[0]) != 1024 {
		t.Fatalf("MoveLinks = %v", err)
	}
	stages, err := Links(p, tg)
	if err != nil || stages[1].ChipNames() != "2-3" || stages[0].ChipNames() != "0-1" || stages[1].LinkCycles != 1590 {
		t.Errorf("Links = %+v, %v", stages, err)
	}
	// A route that stops at the reader's first chip falls short of its last.
	p.Links[0].Hops = p.Links[0].Hops[:2]
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "ends on chip 2; its consumer runs on chip 3") {
		t.Errorf("Validate = %v", err)
	}
}
