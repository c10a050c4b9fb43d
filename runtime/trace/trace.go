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
	"maps"
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

// Span is one event of a track in cycles from the program's start: what
// the trace viewer and the HTML report (translate/htmlreport) draw.
type Span struct {
	Name   string         `json:"name"`
	Cat    string         `json:"cat"`
	Start  int64          `json:"start"`
	Cycles int64          `json:"cycles"`
	Args   map[string]any `json:"args"`
}

// Lay lays c, a run of p, out on the tracks in cycles: the supersteps,
// their compute, sync and exchange, then one track per tile that was some
// compute instruction's busiest, in tile order. Each track's spans follow
// each other in time.
func Lay(p *ipupkg.Package, c *device.Cycles) []LaidTrack {
	tracks := []LaidTrack{{ID: trackSupersteps, Name: "supersteps"}, {ID: trackCompute, Name: "compute (busiest tile)"},
		{ID: trackSync, Name: "sync"}, {ID: trackExchange, Name: "exchange"}}
	onTiles := map[int]*LaidTrack{}
	add := func(t *LaidTrack, name, cat string, start, cycles int64, args map[string]any) {
		args["cycles"] = cycles
		t.Spans = append(t.Spans, Span{Name: name, Cat: cat, Start: start, Cycles: cycles, Args: args})
	}
	start := int64(0)
	for _, s := range c.Supersteps {
		total := s.Compute + s.Sync + s.Exchange
		add(&tracks[0], fmt.Sprintf("superstep %d", s.Superstep), "superstep", start, total,
			map[string]any{"superstep": s.Superstep, "busiest_tile": s.Busy.Tile, "as_busy": s.Busy.AtMax, "working": s.Busy.Working})
		if s.Compute > 0 {
			add(&tracks[1], fmt.Sprintf("compute %d", s.Superstep), "compute", start, s.Compute, map[string]any{"superstep": s.Superstep})
		}
		if s.Sync > 0 {
			add(&tracks[2], "sync", "sync", start+s.Compute, s.Sync, map[string]any{"superstep": s.Superstep})
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
			if o.Op == ipupkg.OpExchange.String() || o.Op == ipupkg.OpStreamIn.String() {
				add(&tracks[3], name, "exchange", exchangeAt, o.Cycles, args)
				exchangeAt += o.Cycles
				continue
			}
			if o.Busy.Tile < 0 {
				continue // no tile worked: nothing to draw
			}
			t := o.Busy.Tile
			if onTiles[t] == nil {
				onTiles[t] = &LaidTrack{ID: tileTrack + t, Name: fmt.Sprintf("tile %d", t)}
			}
			add(onTiles[t], name, o.Op, start+onTile[t], o.Cycles, args)
			onTile[t] += o.Cycles
		}
		start += total
	}
	tiles := slices.Sorted(maps.Keys(onTiles))
	for _, t := range tiles {
		tracks = append(tracks, *onTiles[t])
	}
	return tracks
}

// LaidTrack is one track of Lay's layout.
type LaidTrack struct {
	ID    int    `json:"id"`
	Name  string `json:"name"`
	Spans []Span `json:"spans"`
}

// Build lays out c, a run of p, on the tracks (Lay) in the format's
// events. clockHz converts cycles to microseconds.
func Build(p *ipupkg.Package, c *device.Cycles, clockHz int64) (*File, error) {
	if clockHz <= 0 {
		return nil, fmt.Errorf("trace: the target's clock is %d Hz", clockHz)
	}
	us := func(cycles int64) float64 { return float64(cycles) * 1e6 / float64(clockHz) }
	f := &File{DisplayTimeUnit: "ns", OtherData: map[string]any{"target": p.Target, "tiles": p.Tiles,
		"clock_hz": clockHz, "total_cycles": c.Total}}
	f.TraceEvents = append(f.TraceEvents, Event{Name: "process_name", Phase: "M", PID: 1,
		Args: map[string]any{"name": fmt.Sprintf("%s (%d tiles)", p.Target, p.Tiles)}})
	tracks := Lay(p, c)
	for k, t := range tracks {
		order := t.ID
		if t.ID >= tileTrack {
			order = tileTrack + k
		}
		f.TraceEvents = append(f.TraceEvents,
			Event{Name: "thread_name", Phase: "M", PID: 1, TID: t.ID, Args: map[string]any{"name": t.Name}},
			Event{Name: "thread_sort_index", Phase: "M", PID: 1, TID: t.ID, Args: map[string]any{"sort_index": order}})
	}
	for _, t := range tracks {
		for _, s := range t.Spans {
			f.TraceEvents = append(f.TraceEvents, Event{Name: s.Name, Cat: s.Cat, Phase: "X", TS: us(s.Start), Dur: us(s.Cycles),
				PID: 1, TID: t.ID, Args: s.Args})
		}
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
