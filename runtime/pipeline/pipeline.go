// Package pipeline prices a pod package's pipeline (runtime/ipupkg.Pod)
// from its stages' cycles under its target's link model: what ipu-run
// prints after running a pod and what the HTML report draws, from one
// definition.
//
// A stage slot lasts as long as the slowest stage's compute, then the
// slowest link transfer into a stage (target.LinkTransferCycles: each hop
// its latency plus the bytes over the links to the neighbour), then one
// sync across the chips. P stages over G micro-batches take G + P − 1
// slots (target.PipelineSlots): P − 1 to fill, G − (P − 1) in the steady
// state, P − 1 to drain.
package pipeline

import (
	"fmt"

	"github.com/ipuir/ipuir/runtime/ipupkg"
	"github.com/ipuir/ipuir/target"
)

// Stage is one stage's share of the pipeline.
type Stage struct {
	Chip int `json:"chip"`
	// Cycles is the stage's compute, one micro-batch (simulated).
	Cycles int64 `json:"cycles"`
	// LinkBytes is what its inputs from earlier stages take over the links
	// each micro-batch, and LinkCycles the slowest of those transfers.
	LinkBytes  int64 `json:"linkBytes"`
	LinkCycles int64 `json:"linkCycles"`
}

// Timing is the priced pipeline.
type Timing struct {
	Stages       []Stage `json:"stages"`
	MicroBatches int     `json:"microBatches"`
	// Slot = Slowest + Links + Sync: the slowest stage's cycles, the
	// slowest link transfer and the sync across chips.
	Slot, Slowest, Links, Sync int64
	// Fill and Drain are the P − 1 slots each side of the steady state;
	// Total is every slot.
	Fill, Drain, Total int64
	// PerSecond is micro-batches a second over the whole run, and
	// SteadyPerSecond in the steady state, at the target's clock.
	PerSecond, SteadyPerSecond float64
}

// Links returns p's stages with their chips and link traffic (Cycles
// unset): every input a stage takes from an earlier stage crosses the
// links from that stage's chip to its own.
func Links(p *ipupkg.Pod, tg *target.Target) ([]Stage, error) {
	stages := make([]Stage, len(p.Stages))
	for k, st := range p.Stages {
		stages[k].Chip = st.Chip
		ins := st.Package.Inputs()
		for i, ref := range st.Inputs {
			if ref.Stage == ipupkg.HostStage {
				continue
			}
			if i >= len(ins) {
				return nil, fmt.Errorf("stage %d has no input stream %d", k, i)
			}
			bytes := int64(ins[i].Elem.Bytes())
			for _, d := range ins[i].Shape {
				bytes *= d
			}
			cyc, err := tg.LinkTransferCycles(bytes, p.Stages[ref.Stage].Chip, st.Chip)
			if err != nil {
				return nil, fmt.Errorf("stage %d input %d: %v", k, i, err)
			}
			stages[k].LinkBytes += bytes
			stages[k].LinkCycles = max(stages[k].LinkCycles, cyc)
		}
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
