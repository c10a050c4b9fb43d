// Package trace writes a run's cycles in the Chrome trace event format
// (the JSON object form), which Perfetto (ui.perfetto.dev) and
// chrome://tracing open: one process, the device, with a track per
// superstep kind (the supersteps themselves, their compute, sync and
// exchange) and one per tile that was some compute instruction's busiest,
// holding those instructions. Times are microseconds at the target's clock;
// every event also gives its cycles, so nothing depends on the clock.
//
// The BSP program fixes where each event falls: a superstep starts where
// the previous one ended and runs its compute (its busiest tile's), then
// its syncs, then its exchange phases one after another. On a tile's track
// the compute instructions it was busiest in follow each other from the
// superstep's start; they never run past the superstep's compute, which is
// at least what that tile spends on them.
package trace

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/ipuir/ipuir/runtime/device"
	"github.com/ipuir/ipuir/runtime/ipupkg"
)

// Event is one trace event as the format spells it: complete events
// ("X") with a start and duration, and metadata ("M") naming the process
// and its tracks.
type Event struct {
	Name  string         `json:"name"`
	Cat   string         `json:"cat,omitempty"`
	Phase string         `json:"ph"`
	TS    float64        `json:"ts"`
	Dur   float64        `json:"dur,omitempty"`
	PID   int            `json:"pid"`
	TID   int            `json:"tid"`
	Args  map[string]any `json:"args,omitempty"`
}

// File is the JSON object form of a trace.
type File struct {
	TraceEvents     []Event        `json:"traceEvents"`
	DisplayTimeUnit string         `json:"displayTimeUnit"`
	OtherData       map[string]any `json:"otherData"`
}

// The fixed tracks; tile tracks follow from tileTrack.
const (
	trackSupersteps = 1 + iota
	trackCompute
	trackSync
	trackExchange
	tileTrack = 100 // tile t's track is tileTrack + t
)

// Build lays out c, a run of p, on the tracks. clockHz converts cycles to
// microseconds.
func Build(p *ipupkg.Package, c *device.Cycles, clockHz int64) (*File, error) {
	if clockHz <= 0 {
		return nil, fmt.Errorf("trace: the target's clock is %d Hz", clockHz)
	}
	us := func(cycles int64) float64 { return float64(cycles) * 1e6 / float64(clockHz) }
	f := &File{DisplayTimeUnit: "ns", OtherData: map[string]any{"target": p.Target, "tiles": p.Tiles,
		"clock_hz": clockHz, "total_cycles": c.Total}}
	meta := func(tid int, name string, order int) {
		f.TraceEvents = append(f.TraceEvents,
			Event{Name: "thread_name", Phase: "M", PID: 1, TID: tid, Args: map[string]any{"name": name}},
			Event{Name: "thread_sort_index", Phase: "M", PID: 1, TID: tid, Args: map[string]any{"sort_index": order}})
	}
	f.TraceEvents = append(f.TraceEvents, Event{Name: "process_name", Phase: "M", PID: 1,
		Args: map[string]any{"name": fmt.Sprintf("%s (%d tiles)", p.Target, p.Tiles)}})
	meta(trackSupersteps, "supersteps", trackSupersteps)
	meta(trackCompute, "compute (busiest tile)", trackCompute)
	meta(trackSync, "sync", trackSync)
	meta(trackExchange, "exchange", trackExchange)

	event := func(name, cat string, tid int, start, cycles int64, args map[string]any) {
		if args == nil {
			args = map[string]any{}
		}
		args["cycles"] = cycles
		f.TraceEvents = append(f.TraceEvents, Event{Name: name, Cat: cat, Phase: "X", TS: us(start), Dur: us(cycles),
			PID: 1, TID: tid, Args: args})
	}
	var tiles []int
	start := int64(0)
	for _, s := range c.Supersteps {
		total := s.Compute + s.Sync + s.Exchange
		event(fmt.Sprintf("superstep %d", s.Superstep), "superstep", trackSupersteps, start, total,
			map[string]any{"superstep": s.Superstep, "busiest_tile": s.Busy.Tile, "as_busy": s.Busy.AtMax, "working": s.Busy.Working})
		if s.Compute > 0 {
			event(fmt.Sprintf("compute %d", s.Superstep), "compute", trackCompute, start, s.Compute, map[string]any{"superstep": s.Superstep})
		}
		if s.Sync > 0 {
			event("sync", "sync", trackSync, start+s.Compute, s.Sync, map[string]any{"superstep": s.Superstep})
		}
		exchangeAt := start + s.Compute + s.Sync
		onTile := map[int]int64{} // where the tile's next instruction starts
		for _, o := range c.Ops {
			if o.Superstep != s.Superstep {
				continue
			}
			name := p.OriginName(o.Instruction)
			if name == "" {
				name = o.Op
			}
			args := map[string]any{"instruction": o.Instruction, "op": o.Op, "superstep": o.Superstep,
				"busiest_tile": o.Busy.Tile, "as_busy": o.Busy.AtMax, "working": o.Busy.Working}
			if o.Op == ipupkg.OpExchange.String() {
				event(name, "exchange", trackExchange, exchangeAt, o.Cycles, args)
				exchangeAt += o.Cycles
				continue
			}
			if o.Busy.Tile < 0 {
				continue // no tile worked: nothing to draw
			}
			t := o.Busy.Tile
			if !slices.Contains(tiles, t) {
				tiles = append(tiles, t)
			}
			event(name, o.Op, tileTrack+t, start+onTile[t], o.Cycles, args)
			onTile[t] += o.Cycles
		}
		start += total
	}
	slices.Sort(tiles)
	for k, t := range tiles {
		meta(tileTrack+t, fmt.Sprintf("tile %d", t), tileTrack+k)
	}
	return f, nil
}

// Write writes c's trace as JSON to w.
func Write(w io.Writer, p *ipupkg.Package, c *device.Cycles, clockHz int64) error {
	f, err := Build(p, c, clockHz)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	return enc.Encode(f)
}
