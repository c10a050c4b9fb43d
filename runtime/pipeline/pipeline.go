// Package pipeline prices a pod package's pipeline (runtime/ipupkg.Pod)
// from its stages' cycles under its target's link model: what ipu-run
// prints after running a pod and what the HTML report draws, from one
// definition. A pod package for one chip is a phased run instead: its
// stages run one after the other, each phase's weights streamed in from
// the chip's streaming memory (Phases, PricePhases).
//
// A stage slot lasts as long as the slowest stage's compute, then the
// link phase (links.go: every value that crosses chips, scheduled over
// the ring's links, each hop its latency plus the bytes over the links to
// the neighbour), then one sync across the chips. P stages over G
// micro-batches take G + P − 1 slots (target.PipelineSlots): P − 1 to
// fill, G − (P − 1) in the steady state, P − 1 to drain.
package pipeline

import (
	"fmt"

	"github.com/ipuir/ipuir/runtime/ipupkg"
	"github.com/ipuir/ipuir/target"
)

// Stage is one stage's share of the pipeline.
type Stage struct {
	Chip int `json:"chip"` // its first chip
	// Chips is how many chips it spans (0 or 1: one).
	Chips int `json:"chips,omitempty"`
	// Cycles is the stage's compute, one micro-batch (simulated).
	Cycles int64 `json:"cycles"`
	// LinkBytes is what its inputs from earlier stages take over the links
	// each micro-batch, and LinkCycles the slowest of those transfers.
	LinkBytes  int64 `json:"linkBytes"`
	LinkCycles int64 `json:"linkCycles"`
}

// ChipNames is the stage's chips as a table shows them: "2", or "2-3"
// for a stage spanning two.
func (s *Stage) ChipNames() string {
	if s.Chips > 1 {
		return fmt.Sprintf("%d-%d", s.Chip, s.Chip+s.Chips-1)
	}
	return fmt.Sprint(s.Chip)
}

// Timing is the priced pipeline.
type Timing struct {
	Stages       []Stage `json:"stages"`
	MicroBatches int     `json:"microBatches"`
	// Slot = Slowest + Links + Sync: the slowest stage's cycles, the
	// link phase and the sync across chips.
	Slot, Slowest, Links, Sync int64
	// Fill and Drain are the P − 1 slots each side of the steady state;
	// Total is every slot.
	Fill, Drain, Total int64
	// PerSecond is micro-batches a second over the whole run, and
	// SteadyPerSecond in the steady state, at the target's clock.
	PerSecond, SteadyPerSecond float64
}

// Links returns p's stages with their chips and link traffic (Cycles
// unset), from the package's link schedule, held to tg's link model
// (CheckLinks): a stage's link bytes are what its inputs from other chips
// take, and its link cycles when the last of them has arrived, counted
// from the link phase's start.
func Links(p *ipupkg.Pod, tg *target.Target) ([]Stage, error) {
	if _, err := CheckLinks(p, tg); err != nil {
		return nil, err
	}
	stages := make([]Stage, len(p.Stages))
	for k, st := range p.Stages {
		stages[k].Chip = st.Chip
		if st.SpanChips() > 1 {
			stages[k].Chips = st.SpanChips()
		}
	}
	for _, t := range p.Links {
		stages[t.To].LinkBytes += t.Bytes
		stages[t.To].LinkCycles = max(stages[t.To].LinkCycles, t.End())
	}
	return stages, nil
}

// Price is the pipeline of stages (with their cycles) over micro
// micro-batches on tg.
func Price(stages []Stage, tg *target.Target, micro int) (*Timing, error) {
	t := &Timing{Stages: stages, MicroBatches: micro, Sync: tg.Links.SyncCycles}
	for _, s := range stages {
		t.Slowest, t.Links = max(t.Slowest, s.Cycles), max(t.Links, s.LinkCycles)
	}
	t.Slot = t.Slowest + t.Links + t.Sync
	slots, err := target.PipelineSlots(int64(len(stages)), int64(micro))
	if err != nil {
		return nil, err
	}
	t.Total = slots * t.Slot
	t.Fill = int64(len(stages)-1) * t.Slot
	t.Drain = t.Fill
	if t.Total > 0 {
		t.PerSecond = float64(micro) * float64(tg.ClockHz) / float64(t.Total)
	}
	if t.Slot > 0 {
		t.SteadyPerSecond = float64(tg.ClockHz) / float64(t.Slot)
	}
	return t, nil
}

// Phase is one phase of a phased run on one chip (a pod package whose
// stages share the chip): before it, its weights are loaded from streaming
// memory, once for all the micro-batches; then each micro-batch loads the
// phase's other inputs (the model's per-micro-batch inputs, the values
// earlier phases stored), computes, and stores what later phases and the
// host read.
//
// On a chip with IO tiles (target.IOTiles) a phase after the first has its
// weights, as many as the IO tiles hold, *prefetched*: streamed into the IO
// tiles while the phase before computes, then handed to the compute tiles
// in an on-chip exchange; the rest load as without IO tiles.
type Phase struct {
	Cycles int64 `json:"cycles"` // compute, one micro-batch (simulated)
	// WeightBytes are the phase's weights; WeightLoadCycles the load of
	// those not prefetched, paid before the phase.
	WeightBytes      int64 `json:"weightBytes"`
	WeightLoadCycles int64 `json:"weightLoadCycles"`
	// PrefetchBytes are loaded into the IO tiles during the phase before,
	// in PrefetchCycles, and handed to the compute tiles in MoveCycles.
	PrefetchBytes  int64 `json:"prefetchBytes"`
	PrefetchCycles int64 `json:"prefetchCycles"`
	MoveCycles     int64 `json:"moveCycles"`
	// ActivationBytes are loaded and stored each micro-batch, in
	// ActivationCycles (one load and one store, each with its latency).
	ActivationBytes  int64 `json:"activationBytes"`
	ActivationCycles int64 `json:"activationCycles"`
}

// PhasedTiming is a phased run priced. Streaming and compute take turns
// (the hardware's default) except for prefetches into IO tiles, which run
// beside the compute of the phase before: what that compute does not hide
// of a prefetch is paid.
type PhasedTiming struct {
	Phases       []Phase `json:"phases"`
	MicroBatches int     `json:"microBatches"`
	IOTiles      int     `json:"ioTiles"`
	// Total is every phase's weight loads plus its micro-batches'
	// activation transfers and compute; Weights, Activations and Compute
	// split it. Weights counts the loads paid in full, the prefetches'
	// exposed part and the IO tiles' hand-overs; Hidden is the prefetch
	// cycles the compute hid (not in Total).
	Total, Weights, Activations, Compute, Hidden int64
	// PerSecond is micro-batches a second at the target's clock.
	PerSecond float64
	// BreakEvenReuse is the micro-batches a weight load must serve for
	// the chip to spend as long computing as loading weights: every
	// phase's weight load cycles (prefetched or not) over one
	// micro-batch's compute.
	BreakEvenReuse float64
	// HiddenFrom is, with IO tiles, the fewest micro-batches whose compute
	// hides every prefetch behind the phase before (0 without).
	HiddenFrom int64
}

// Phases returns p's phases with their streaming traffic (Cycles unset).
func Phases(p *ipupkg.Pod, tg *target.Target) ([]Phase, error) {
	phases := make([]Phase, len(p.Stages))
	for k, st := range p.Stages {
		ins := st.Package.Inputs()
		var in int64
		for i, ref := range st.Inputs {
			if i >= len(ins) {
				return nil, fmt.Errorf("phase %d has no input stream %d", k, i)
			}
			bytes := ins[i].Bytes()
			if st.Package.StreamedIn(ins[i]) >= 0 {
				// The phase's program loads this weight itself, each
				// micro-batch, from streaming memory: its simulated
				// cycles hold that load.
				continue
			}
			if ref.Stage == ipupkg.HostStage && ref.Index < len(p.Weights) && p.Weights[ref.Index] {
				phases[k].WeightBytes += bytes
				continue
			}
			in += bytes
		}
		var out int64
		for _, s := range st.Package.Outputs() {
			out += s.Bytes()
		}
		var err error
		rest := phases[k].WeightBytes
		if k > 0 && tg.IOTiles > 0 {
			ph := &phases[k]
			ph.PrefetchBytes = min(rest, tg.IOBytes())
			rest -= ph.PrefetchBytes
			if ph.PrefetchCycles, err = tg.StreamingCycles(ph.PrefetchBytes); err != nil {
				return nil, fmt.Errorf("phase %d's prefetched weights: %v", k, err)
			}
			if ph.MoveCycles, err = tg.IOMoveCycles(ph.PrefetchBytes); err != nil {
				return nil, fmt.Errorf("phase %d's prefetched weights: %v", k, err)
			}
		}
		if phases[k].WeightLoadCycles, err = tg.StreamingCycles(rest); err != nil {
			return nil, fmt.Errorf("phase %d's weights: %v", k, err)
		}
		load, err := tg.StreamingCycles(in)
		if err != nil {
			return nil, fmt.Errorf("phase %d's inputs: %v", k, err)
		}
		store, err := tg.StreamingCycles(out)
		if err != nil {
			return nil, fmt.Errorf("phase %d's outputs: %v", k, err)
		}
		phases[k].ActivationBytes, phases[k].ActivationCycles = in+out, load+store
	}
	return phases, nil
}

// PricePhases is the phased run of phases (with their cycles) over micro
// micro-batches on tg.
func PricePhases(phases []Phase, tg *target.Target, micro int) (*PhasedTiming, error) {
	if micro < 1 {
		return nil, fmt.Errorf("a phased run of %d micro-batches", micro)
	}
	t := &PhasedTiming{Phases: phases, MicroBatches: micro, IOTiles: tg.IOTiles}
	g := int64(micro)
	var loads int64 // every weight load, hidden or not
	for k, ph := range phases {
		t.Weights += ph.WeightLoadCycles + ph.MoveCycles
		loads += ph.WeightLoadCycles + ph.PrefetchCycles
		if ph.PrefetchCycles > 0 {
			// The phase before computes its micro-batches meanwhile (its
			// activation transfers use the streaming memory themselves).
			window := int64(0)
			if k > 0 {
				window = g * phases[k-1].Cycles
				if phases[k-1].Cycles > 0 {
					t.HiddenFrom = max(t.HiddenFrom, (ph.PrefetchCycles+phases[k-1].Cycles-1)/phases[k-1].Cycles)
				}
			}
			hidden := min(ph.PrefetchCycles, window)
			t.Hidden += hidden
			t.Weights += ph.PrefetchCycles - hidden
		}
		t.Activations += g * ph.ActivationCycles
		t.Compute += g * ph.Cycles
	}
	t.Total = t.Weights + t.Activations + t.Compute
	if t.Total > 0 {
		t.PerSecond = float64(micro) * float64(tg.ClockHz) / float64(t.Total)
	}
	if t.Compute > 0 {
		t.BreakEvenReuse = float64(loads) / (float64(t.Compute) / float64(micro))
	}
	return t, nil
}
