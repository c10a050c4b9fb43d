package pipeline

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/ipuir/ipuir/runtime/ipupkg"
	"github.com/ipuir/ipuir/target"
)

// The link phase: once a slot, every value that crosses from one chip to
// another moves over the ring of IPU-Links. Each direction of the links
// between two neighbours sends one transfer at a time, at the rate of all
// its links together (target.LinkSendCycles), and what it sent arrives a
// link latency later; a transfer crosses its route hop by hop, store and
// forward. ScheduleLinks places the hops; CheckLinks holds a package's
// schedule to the target; MoveLinks carries the bytes as scheduled.

// LinkPhase is a scheduled link phase's figures.
type LinkPhase struct {
	Transfers int
	Bytes     int64
	// Cycles is the phase's length; LowerBound no schedule can beat: every
	// transfer the busiest link direction sends, back to back, and one
	// latency; or the longest route alone, whichever is more.
	Cycles, LowerBound int64
}

// ScheduleLinks returns the link schedule of p's stages on tg (p.Links
// unread): one transfer for each stage input that an earlier stage on
// another chip produces, placed by Schedule.
func ScheduleLinks(p *ipupkg.Pod, tg *target.Target) ([]ipupkg.LinkTransfer, LinkPhase, error) {
	var out []ipupkg.LinkTransfer
	var reqs []LinkRequest
	for k, st := range p.Stages {
		ins := st.Package.Inputs()
		for i, ref := range st.Inputs {
			if ref.Stage == ipupkg.HostStage || p.Stages[ref.Stage].Chip == st.Chip {
				continue
			}
			if i >= len(ins) {
				return nil, LinkPhase{}, fmt.Errorf("stage %d has no input stream %d", k, i)
			}
			out = append(out, ipupkg.LinkTransfer{From: ref, To: k, Input: i, Bytes: ins[i].Bytes()})
			from, to, forward := p.LinkEnds(ref.Stage, k)
			reqs = append(reqs, LinkRequest{From: from, To: to, Bytes: ins[i].Bytes(), Forward: forward})
		}
	}
	hops, phase, err := Schedule(reqs, tg)
	if err != nil {
		return nil, LinkPhase{}, err
	}
	for i := range out {
		out[i].Hops = hops[i]
	}
	return out, phase, nil
}

// LinkRequest is a value of Bytes bytes to move from chip From to chip To;
// Forward: round the ring in the direction of rising chips (from a stage
// that spans chips, or to one: ipupkg.Pod.LinkEnds), else the shorter way.
type LinkRequest struct {
	From, To int
	Bytes    int64
	Forward  bool
}

// Schedule places the hops of requests on tg's ring, for the compiler's
// link phase (the exchange dialect's, and a pod package's): each goes the
// way it must (Forward) or the shorter way round (either way when both are as short: the one whose
// links are less loaded so far); the largest transfers are placed first
// (then by chips, so that the schedule does not depend on the requests'
// order beyond that), each hop as early as its link direction is free and
// the hop before it has ended. It returns each request's hops, in order.
func Schedule(reqs []LinkRequest, tg *target.Target) ([][]ipupkg.LinkHop, LinkPhase, error) {
	out := make([][]ipupkg.LinkHop, len(reqs))
	order := make([]int, len(reqs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(reqs[b].Bytes, reqs[a].Bytes), cmp.Compare(reqs[a].From, reqs[b].From), cmp.Compare(reqs[a].To, reqs[b].To))
	})
	type direction struct{ from, to int }
	free := map[direction]int64{}
	load := map[direction]int64{}
	var phase LinkPhase
	busy := map[direction]int64{}
	latency := tg.Links.LatencyCycles
	for _, n := range order {
		r := reqs[n]
		if r.From < 0 || r.To < 0 || r.From >= tg.Chips || r.To >= tg.Chips || r.From == r.To {
			return nil, LinkPhase{}, fmt.Errorf("a link transfer from chip %d to chip %d on %s, of %d chips", r.From, r.To, tg.Name, tg.Chips)
		}
		send, err := tg.LinkSendCycles(r.Bytes)
		if err != nil {
			return nil, LinkPhase{}, err
		}
		routes := [][]int{route(r.From, r.To, 1, tg.Chips), route(r.From, r.To, -1, tg.Chips)}
		best := routes[0]
		switch {
		case r.Forward:
			// the one route that passes every chip of the stages it joins
		case len(routes[1]) < len(best):
			best = routes[1]
		case len(routes[1]) == len(best):
			routeLoad := func(rt []int) int64 {
				l, at := int64(0), r.From
				for _, c := range rt {
					l += load[direction{at, c}]
					at = c
				}
				return l
			}
			if routeLoad(routes[1]) < routeLoad(best) {
				best = routes[1]
			}
		}
		at, ready := r.From, int64(0)
		for _, c := range best {
			d := direction{at, c}
			start := max(ready, free[d])
			out[n] = append(out[n], ipupkg.LinkHop{From: at, To: c, Start: start, Sent: start + send, End: start + send + latency})
			free[d], load[d] = start+send, load[d]+r.Bytes
			busy[d] += send
			at, ready = c, start+send+latency
		}
		phase.LowerBound = max(phase.LowerBound, int64(len(best))*(send+latency))
		phase.Transfers++
		phase.Bytes += r.Bytes
		phase.Cycles = max(phase.Cycles, ready)
	}
	// Every byte sent on the busiest direction, and the last one's latency.
	for _, b := range busy {
		phase.LowerBound = max(phase.LowerBound, b+latency)
	}
	return out, phase, nil
}

// neighbour is the chip step places from c round a ring of n.
func neighbour(c, step, n int) int { return ((c+step)%n + n) % n }

// route is the chips a transfer from chip from to chip to visits going
// round a ring of n in direction step (±1), to included.
func route(from, to, step, n int) []int {
	var r []int
	for c := from; c != to; {
		c = neighbour(c, step, n)
		r = append(r, c)
	}
	return r
}

// CheckLinks holds p's link schedule (whose shape the reader checked) to
// tg (CheckHops). It returns the phase's figures.
func CheckLinks(p *ipupkg.Pod, tg *target.Target) (LinkPhase, error) {
	reqs := make([]LinkRequest, len(p.Links))
	hops := make([][]ipupkg.LinkHop, len(p.Links))
	for n, t := range p.Links {
		from, to, forward := p.LinkEnds(t.From.Stage, t.To)
		reqs[n] = LinkRequest{From: from, To: to, Bytes: t.Bytes, Forward: forward}
		hops[n] = t.Hops
	}
	return CheckHops(reqs, hops, tg)
}

// CheckHops holds a link schedule, request n's hops hops[n] (their shape
// checked by ipupkg.CheckLinkRoutes), to tg: every hop joins neighbours of
// tg's ring, holds the links at least as long as tg.LinkSendCycles says
// its bytes take, and arrives no sooner than the link latency after. It
// returns the phase's figures.
func CheckHops(reqs []LinkRequest, hops [][]ipupkg.LinkHop, tg *target.Target) (LinkPhase, error) {
	var phase LinkPhase
	for n, r := range reqs {
		for h, hop := range hops[n] {
			if k, err := tg.LinkHops(hop.From, hop.To); err != nil || k != 1 {
				return LinkPhase{}, fmt.Errorf("link transfer %d hop %d: chips %d and %d are not neighbours on %s", n, h, hop.From, hop.To, tg.Name)
			}
			send, err := tg.LinkSendCycles(r.Bytes)
			if err != nil {
				return LinkPhase{}, fmt.Errorf("link transfer %d hop %d: %v", n, h, err)
			}
			if hop.Sent-hop.Start < send {
				return LinkPhase{}, fmt.Errorf("link transfer %d hop %d sends %d bytes from chip %d to chip %d in %d cycles; %s's links take %d",
					n, h, r.Bytes, hop.From, hop.To, hop.Sent-hop.Start, tg.Name, send)
			}
			if hop.End-hop.Sent < tg.Links.LatencyCycles {
				return LinkPhase{}, fmt.Errorf("link transfer %d hop %d arrives %d cycles after it is sent; %s's links take %d",
					n, h, hop.End-hop.Sent, tg.Name, tg.Links.LatencyCycles)
			}
			phase.Cycles = max(phase.Cycles, hop.End)
		}
		phase.Transfers++
		phase.Bytes += r.Bytes
	}
	return phase, nil
}

// MoveLinks carries out the transfers of p's link phase that move says
// (by their index in p.Links) on bytes: each hop, in the order of its
// start, copies the transfer's bytes from the chip that holds them to the
// next, and each transfer's bytes are then taken from its consumer's chip.
// source gives a stage output's bytes on its producer's chip. It returns,
// for each transfer in p.Links' order, the bytes that arrived (nil for
// those not moved).
func MoveLinks(p *ipupkg.Pod, move func(n int) bool, source func(ref ipupkg.PodRef) ([]byte, error)) ([][]byte, error) {
	type held struct{ chip, transfer int }
	type arrival struct {
		bytes []byte
		at    int64 // the cycle it has all arrived
	}
	holds := map[held]arrival{}
	type step struct{ transfer, hop int }
	var steps []step
	for n, t := range p.Links {
		if !move(n) {
			continue
		}
		b, err := source(t.From)
		if err != nil {
			return nil, fmt.Errorf("link transfer %d: %v", n, err)
		}
		if int64(len(b)) != t.Bytes {
			return nil, fmt.Errorf("link transfer %d: %s is %d bytes; the schedule moves %d", n, t.From, len(b), t.Bytes)
		}
		holds[held{p.Stages[t.From.Stage].Chip, n}] = arrival{b, 0}
		for h := range t.Hops {
			steps = append(steps, step{n, h})
		}
	}
	slices.SortStableFunc(steps, func(a, b step) int {
		return cmp.Compare(p.Links[a.transfer].Hops[a.hop].Start, p.Links[b.transfer].Hops[b.hop].Start)
	})
	for _, s := range steps {
		hop := p.Links[s.transfer].Hops[s.hop]
		a, ok := holds[held{hop.From, s.transfer}]
		if !ok || a.at > hop.Start {
			return nil, fmt.Errorf("link transfer %d hop %d leaves chip %d at cycle %d, which does not hold it then", s.transfer, s.hop, hop.From, hop.Start)
		}
		holds[held{hop.To, s.transfer}] = arrival{append([]byte(nil), a.bytes...), hop.End}
	}
	out := make([][]byte, len(p.Links))
	for n, t := range p.Links {
		if !move(n) {
			continue
		}
		_, to, _ := p.LinkEnds(t.From.Stage, t.To)
		a, ok := holds[held{to, n}]
		if !ok {
			return nil, fmt.Errorf("link transfer %d never reaches chip %d", n, to)
		}
		out[n] = a.bytes
	}
	return out, nil
}

// DRAM is a chip's streaming memory as a phased run uses it: regions of
// bytes, each a model input or a phase's output, stored whole and loaded
// whole, within the target's capacity. A phased run keeps its weights
// there and passes every activation between phases through it, so what a
// phase computes on is what crossed the streaming memory.
type DRAM struct {
	capacity, used int64
	regions        map[ipupkg.PodRef][]byte
}

// NewDRAM returns tg's streaming memory behind one chip, empty.
func NewDRAM(tg *target.Target) *DRAM {
	return &DRAM{capacity: tg.Streaming.BytesPerChip, regions: map[ipupkg.PodRef][]byte{}}
}

// Store writes b as the region of ref, in place of what it held.
func (d *DRAM) Store(ref ipupkg.PodRef, b []byte) error {
	used := d.used - int64(len(d.regions[ref])) + int64(len(b))
	if used > d.capacity {
		return fmt.Errorf("streaming memory: %s (%d bytes) does not fit beside the %d bytes held (%d bytes behind the chip)",
			ref, len(b), d.used-int64(len(d.regions[ref])), d.capacity)
	}
	d.regions[ref], d.used = append([]byte(nil), b...), used
	return nil
}

// Load reads the region of ref.
func (d *DRAM) Load(ref ipupkg.PodRef) ([]byte, error) {
	b, ok := d.regions[ref]
	if !ok {
		return nil, fmt.Errorf("streaming memory holds no %s", ref)
	}
	return append([]byte(nil), b...), nil
}
