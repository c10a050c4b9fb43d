// Package htmlreport draws a compiled program as one self-contained HTML
// file (inline SVG, CSS and script; nothing fetched): a heat map of the
// tiles by bytes used, per memory class and category, with the busiest
// tiles; liveness over the supersteps; every exchange phase with its words,
// lower bound and horizon and a column-to-column matrix; the execution
// trace in BSP form with the slowest tiles, and each instruction's cycles
// against the compute bound; and, given a second program, the two side by
// side. ipu-translate --emit-report and ipu-run --report write it.
package htmlreport

import (
	"cmp"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"slices"

	"github.com/ipuir/ipuir/runtime/device"
	"github.com/ipuir/ipuir/runtime/ipupkg"
	"github.com/ipuir/ipuir/runtime/pipeline"
	"github.com/ipuir/ipuir/runtime/sim"
	"github.com/ipuir/ipuir/runtime/trace"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/target/storage"
)

// Data is what the page draws, as the script reads it.
type Data struct {
	Title   string `json:"title"`
	Target  string `json:"target"`
	Tiles   int    `json:"tiles"`
	Columns int    `json:"columns"`
	ClockHz int64  `json:"clockHz"`
	// SRAMBytes is one tile's memory, every class together.
	SRAMBytes int64 `json:"sramBytes"`
	// Metrics are the heat map's choices, per tile in Memory, each with
	// the capacity its scale runs to.
	Metrics    []Metric    `json:"metrics"`
	Memory     [][]int64   `json:"memory"`
	Classes    []Class     `json:"classes"`
	Supersteps []Superstep `json:"supersteps"`
	// SupportAt and SupportBytes are each tile's support memory (code,
	// exchange tables, host-exchange code), in class SupportClass.
	SupportAt    []int64 `json:"supportAt"`
	SupportBytes []int64 `json:"supportBytes"`
	SupportClass int     `json:"supportClass"`
	// Steps gives each step's (each instruction's but syncs) superstep.
	Steps  []int64 `json:"steps"`
	Values []Value `json:"values"`
	Phases []Phase `json:"phases"`
	Ops    []Op    `json:"ops"`
	// Tracks is the run laid out as the trace export lays it (trace.Lay).
	Tracks []trace.LaidTrack `json:"tracks"`
	Total  int64             `json:"totalCycles"`
	Bound  int64             `json:"computeBound"`
	// Compute, Exchange and Sync split Total.
	Compute  int64 `json:"computeCycles"`
	Exchange int64 `json:"exchangeCycles"`
	Sync     int64 `json:"syncCycles"`
	// Streamed is the run's loads from the chip's streaming memory (part
	// of Exchange).
	Streamed device.StreamedLoads `json:"streamed"`
	// ChipLinks is what a program spanning chips exchanged between them
	// (its waits part of Exchange, its syncs of Sync).
	ChipLinks device.ChipLinks `json:"chipLinks"`
	// Pipeline is a pod package's pipeline, or Phased its phased run on
	// one chip (nil for one chip's package), and Stage the stage the other
	// views show.
	Pipeline *pipeline.Timing       `json:"pipeline,omitempty"`
	Phased   *pipeline.PhasedTiming `json:"phased,omitempty"`
	Stage    int                    `json:"stage"`
	// Links is a pod's link phase, transfer by transfer.
	Links []LinkTransfer `json:"links,omitempty"`
}

// LinkTransfer is one value of the link phase and its route.
type LinkTransfer struct {
	FromStage  int              `json:"fromStage"`
	FromOutput int              `json:"fromOutput"`
	To         int              `json:"to"`
	Input      int              `json:"input"`
	Bytes      int64            `json:"bytes"`
	Hops       []ipupkg.LinkHop `json:"hops"`
}

// BuildPod builds the page of a pod package: the pipeline priced from
// every stage's simulated cycles (Cycles) over micro micro-batches, and
// the other views of stage shown (-1: the slowest).
func BuildPod(title string, p *ipupkg.Pod, tg *target.Target, micro, shown int) (*Data, error) {
	chip, err := tg.Stage(p.Stages[0].SpanChips())
	if err != nil {
		return nil, err
	}
	stages, err := pipeline.Links(p, tg)
	if err != nil {
		return nil, err
	}
	runs := make([]*device.Cycles, len(p.Stages))
	for k, st := range p.Stages {
		if runs[k], err = Cycles(st.Package, chip); err != nil {
			return nil, fmt.Errorf("stage %d: %v", k, err)
		}
		stages[k].Cycles = runs[k].Total
	}
	if shown < 0 { // the slowest stage, the first of equals
		shown = 0
		for k, s := range stages {
			if s.Cycles > stages[shown].Cycles {
				shown = k
			}
		}
	}
	if shown >= len(p.Stages) {
		return nil, fmt.Errorf("stage %d of %d", shown, len(p.Stages))
	}
	d, err := Build(fmt.Sprintf("%s, stage %d", title, shown), p.Stages[shown].Package, chip, runs[shown])
	if err != nil {
		return nil, err
	}
	d.Stage = shown
	if p.Phased() {
		phases, err := pipeline.Phases(p, tg)
		if err != nil {
			return nil, err
		}
		for k := range phases {
			phases[k].Cycles = stages[k].Cycles
		}
		d.Phased, err = pipeline.PricePhases(phases, tg, micro)
		return d, err
	}
	for _, t := range p.Links {
		d.Links = append(d.Links, LinkTransfer{FromStage: t.From.Stage, FromOutput: t.From.Index, To: t.To, Input: t.Input, Bytes: t.Bytes, Hops: t.Hops})
	}
	d.Pipeline, err = pipeline.Price(stages, tg, micro)
	return d, err
}

// Metric is one of the heat map's choices and what its scale runs to: a
// class's footprint to the class's capacity, support memory to the
// capacity of the class holding it, live bytes to the tile's memory.
type Metric struct {
	Name     string `json:"name"`
	Capacity int64  `json:"capacity"`
}

// Class is a memory class, its capacity on one tile and its tightest tile:
// the one whose footprint leaves the least headroom.
type Class struct {
	Name         string `json:"name"`
	Kind         string `json:"kind"`
	Start        int64  `json:"start"` // its first address on a tile
	Capacity     int64  `json:"capacity"`
	TightestTile int    `json:"tightestTile"`
	Used         int64  `json:"used"`
	Headroom     int64  `json:"headroom"`
}

// Value is one buffer the program stores: its name (what the source
// calls it), class, the steps it is live in ([Start, End), End -1 the end
// of the program), its bytes on every tile together, and its pieces, one
// per tile holding it, as three parallel lists.
type Value struct {
	Name      string  `json:"name"`
	Class     int     `json:"class"`
	Kind      string  `json:"kind"` // input, output, constant or value
	Start     int64   `json:"start"`
	End       int64   `json:"end"`
	Bytes     int64   `json:"bytes"`
	Tiles     []int   `json:"tiles"`
	Addresses []int64 `json:"addresses"`
	Sizes     []int64 `json:"sizes"`
}

// Superstep is one superstep of the trace and of the liveness view.
type Superstep struct {
	Index       int64 `json:"index"`
	Compute     int64 `json:"compute"`
	Sync        int64 `json:"sync"`
	Exchange    int64 `json:"exchange"`
	BusiestTile int   `json:"busiestTile"` // -1 when no tile worked
	AtMax       int   `json:"atMax"`       // tiles as busy as it
	Working     int   `json:"working"`     // tiles with any work
	// LiveTotal and LivePeak are the most live bytes (storage.LiveBytes)
	// in one of the superstep's steps on all tiles together and on one
	// tile, PeakTile.
	LiveTotal int64 `json:"liveTotal"`
	LivePeak  int64 `json:"livePeak"`
	PeakTile  int   `json:"peakTile"`
}

// Phase is one exchange phase, named after what it moves.
type Phase struct {
	Phase      int64     `json:"phase"`
	Name       string    `json:"name"`
	Transfers  int       `json:"transfers"`
	Words      int64     `json:"words"`
	LowerBound int64     `json:"lowerBound"`
	Horizon    int64     `json:"horizon"`
	Kind       string    `json:"kind"`
	Matrix     [][]int64 `json:"matrix"` // words from column i to column j
}

// Op is one instruction's cycles on its busiest tile, and its own compute
// bound (its MACs over the whole chip's AMP rate; 0 for other work).
type Op struct {
	Index       int    `json:"index"`
	Op          string `json:"op"`
	Name        string `json:"name"` // what it was compiled from (ipupkg.Origin)
	Superstep   int64  `json:"superstep"`
	Cycles      int64  `json:"cycles"`
	BusiestTile int    `json:"busiestTile"` // -1 when no tile worked
	AtMax       int    `json:"atMax"`       // tiles as busy as it
	Working     int    `json:"working"`     // tiles with any work
	Bound       int64  `json:"bound"`
}

// The metrics after the classes' footprints, in Memory's order.
const (
	metricCode = iota
	metricExchangeTables
	metricHostCode
	metricLive
	metricTensors
	metricTemporaries
	numOtherMetrics
)

// Build gathers a package's report; cycles, when given, are a run's.
func Build(title string, p *ipupkg.Package, tg *target.Target, cycles *device.Cycles) (*Data, error) {
	if p.Tiles != tg.Tiles || tg.TileColumns < 1 {
		return nil, fmt.Errorf("the package has %d tiles, target %s %d", p.Tiles, tg.Name, tg.Tiles)
	}
	d := &Data{Title: title, Target: p.Target, Tiles: p.Tiles, Columns: tg.TileColumns, ClockHz: tg.ClockHz, SRAMBytes: p.SRAMBytes}
	supportCapacity := int64(0)
	for _, c := range p.Classes {
		d.Metrics = append(d.Metrics, Metric{Name: c.Name + " (" + c.Kind + "): footprint", Capacity: c.End - c.Start})
		d.Classes = append(d.Classes, Class{Name: c.Name, Kind: c.Kind, Start: c.Start, Capacity: c.End - c.Start, TightestTile: -1})
		if c.HoldsCode {
			supportCapacity, d.SupportClass = c.End-c.Start, len(d.Classes)-1
		}
	}
	d.Metrics = append(d.Metrics, Metric{"code", supportCapacity}, Metric{"exchange tables", supportCapacity},
		Metric{"host-exchange code", supportCapacity}, Metric{"live bytes at the tile's peak (all classes, support memory included)", p.SRAMBytes},
		Metric{"tensors (streams and constants) at the tile's peak", p.SRAMBytes}, Metric{"temporaries at the tile's peak", p.SRAMBytes})
	d.Memory = make([][]int64, p.Tiles)
	nc := len(p.Classes)
	for t, im := range p.TileImages {
		m := make([]int64, len(d.Metrics))
		m[nc+metricCode], m[nc+metricExchangeTables], m[nc+metricHostCode] = im.CodeBytes, im.ExchangeTableBytes, im.HostCodeBytes
		d.SupportAt, d.SupportBytes = append(d.SupportAt, im.SupportAddress), append(d.SupportBytes, im.SupportBytes())
		for c, class := range p.Classes {
			if n := im.SupportBytes(); n > 0 && im.SupportAddress >= class.Start && im.SupportAddress < class.End {
				m[c] = max(m[c], im.SupportAddress+n-class.Start)
			}
		}
		d.Memory[t] = m
	}
	for _, buf := range p.Buffers {
		if len(buf.ViewOf) > 0 {
			continue
		}
		for _, pc := range buf.Pieces {
			m := d.Memory[pc.Tile]
			m[buf.Class] = max(m[buf.Class], pc.Address+pc.Bytes-p.Classes[buf.Class].Start)
		}
	}
	for t, m := range d.Memory {
		for c := range d.Classes {
			cl := &d.Classes[c]
			if head := cl.Capacity - m[c]; cl.TightestTile < 0 || head < cl.Headroom {
				cl.TightestTile, cl.Used, cl.Headroom = t, m[c], head
			}
		}
	}
	d.values(p)
	d.liveness(p, nc)
	d.phases(p)
	if cycles != nil {
		d.Total, d.Streamed, d.ChipLinks = cycles.Total, cycles.Streamed, cycles.ChipLinks
		for i := range d.Supersteps {
			for _, s := range cycles.Supersteps {
				if s.Superstep == d.Supersteps[i].Index {
					ss := &d.Supersteps[i]
					ss.Compute, ss.Sync, ss.Exchange = s.Compute, s.Sync, s.Exchange
					ss.BusiestTile, ss.AtMax, ss.Working = s.Busy.Tile, s.Busy.AtMax, s.Busy.Working
				}
			}
		}
		for _, s := range cycles.Supersteps {
			d.Compute += s.Compute
			d.Exchange += s.Exchange
			d.Sync += s.Sync
		}
		for _, o := range cycles.Ops {
			d.Ops = append(d.Ops, Op{Index: o.Instruction, Op: o.Op, Name: p.OriginName(o.Instruction), Superstep: o.Superstep, Cycles: o.Cycles,
				BusiestTile: o.Busy.Tile, AtMax: o.Busy.AtMax, Working: o.Busy.Working, Bound: opBound(p, tg, o.Instruction)})
		}
		d.Tracks = trace.Lay(p, cycles)
	}
	for _, o := range d.Ops {
		d.Bound += o.Bound
	}
	return d, nil
}

// values lists the buffers that hold memory, each with its pieces.
func (d *Data) values(p *ipupkg.Package) {
	kind := map[int]string{}
	for _, s := range p.Streams {
		if s.Output {
			kind[s.Buffer] = "output"
		} else {
			kind[s.Buffer] = "input"
		}
	}
	for b, buf := range p.Buffers {
		if len(buf.ViewOf) > 0 {
			continue
		}
		v := Value{Name: buf.Name, Class: buf.Class, Kind: kind[b], Start: buf.Start, End: buf.End}
		if v.Kind == "" {
			v.Kind = "value"
			if buf.Init != nil {
				v.Kind = "constant"
			}
		}
		for _, pc := range buf.Pieces {
			v.Bytes += pc.Bytes
			v.Tiles = append(v.Tiles, pc.Tile)
			v.Addresses = append(v.Addresses, pc.Address)
			v.Sizes = append(v.Sizes, pc.Bytes)
		}
		d.Values = append(d.Values, v)
	}
}

// TileBuffers is what each tile holds as target/storage sees it, support
// memory first, so that live bytes here are the memory report's
// (storage.LiveBytes).
func TileBuffers(p *ipupkg.Package) [][]storage.Buffer {
	out := make([][]storage.Buffer, p.Tiles)
	for t, im := range p.TileImages {
		if n := im.SupportBytes(); n > 0 && t < len(out) {
			out[t] = append(out[t], storage.Buffer{Name: "support memory", Bytes: n, ID: -1, End: storage.Forever})
		}
	}
	for b, buf := range p.Buffers {
		if len(buf.ViewOf) > 0 {
			continue
		}
		end := storage.Forever
		if buf.End >= 0 {
			end = int(buf.End)
		}
		for _, pc := range buf.Pieces {
			out[pc.Tile] = append(out[pc.Tile], storage.Buffer{Name: buf.Name, Class: p.Classes[buf.Class].Name, Bytes: pc.Bytes,
				ID: b, Start: int(buf.Start), End: end})
		}
	}
	return out
}

// liveness finds, per superstep, the most bytes live in one of its steps
// over all tiles and on the busiest one, and records each tile's live
// bytes, tensors and temporaries at its own peak step among Memory's
// metrics after the nc classes.
func (d *Data) liveness(p *ipupkg.Package, nc int) {
	host := map[int]bool{}
	for _, s := range p.Streams {
		host[s.Buffer] = true
	}
	for _, in := range p.Program {
		if in.Op == ipupkg.OpSync {
			continue
		}
		d.Steps = append(d.Steps, in.Superstep)
		if len(d.Supersteps) == 0 || d.Supersteps[len(d.Supersteps)-1].Index != in.Superstep {
			d.Supersteps = append(d.Supersteps, Superstep{Index: in.Superstep, PeakTile: -1})
		}
	}
	steps := len(d.Steps)
	if steps == 0 {
		return
	}
	superOf := make([]int, steps)
	for s := 1; s < steps; s++ {
		superOf[s] = superOf[s-1]
		if d.Steps[s] != d.Steps[s-1] {
			superOf[s]++
		}
	}
	total := make([]int64, steps)
	for t, bufs := range TileBuffers(p) {
		live := storage.LiveBytes(bufs, steps)
		peak := 0
		for s, v := range live {
			total[s] += v
			if v > live[peak] {
				peak = s
			}
			ss := &d.Supersteps[superOf[s]]
			if v > ss.LivePeak || ss.PeakTile < 0 {
				ss.LivePeak, ss.PeakTile = v, t
			}
		}
		tensors := int64(0)
		for _, b := range bufs {
			if b.ID >= 0 && b.Start <= peak && peak < b.End && (host[b.ID] || p.Buffers[b.ID].Init != nil) {
				tensors += b.Bytes
			}
		}
		m := d.Memory[t]
		m[nc+metricLive], m[nc+metricTensors], m[nc+metricTemporaries] = live[peak], tensors, live[peak]-tensors-p.TileImages[t].SupportBytes()
	}
	for s, v := range total {
		ss := &d.Supersteps[superOf[s]]
		ss.LiveTotal = max(ss.LiveTotal, v)
	}
}

// phases gathers the exchange phases, each named after the instruction
// that runs it.
func (d *Data) phases(p *ipupkg.Package) {
	perColumn := p.Tiles / d.Columns
	names := map[int64]string{}
	for i, in := range p.Program {
		if x, ok := in.Param(ipupkg.ParamExchange); ok && in.Op == ipupkg.OpExchange && len(x.Ints) == 1 {
			names[x.Ints[0]] = p.OriginName(i)
		}
	}
	for k, x := range p.Exchanges {
		ph := Phase{Phase: x.Phase, Name: names[int64(k)], Transfers: len(x.Transfers), LowerBound: x.LowerBound, Horizon: x.Horizon, Kind: x.Kind}
		ph.Matrix = make([][]int64, d.Columns)
		for i := range ph.Matrix {
			ph.Matrix[i] = make([]int64, d.Columns)
		}
		for _, t := range x.Transfers {
			for _, dst := range t.Dst {
				ph.Words += t.Words
				ph.Matrix[t.Src/perColumn][dst/perColumn] += t.Words
			}
		}
		d.Phases = append(d.Phases, ph)
	}
}

// opBound is an AMP instruction's MACs over the chip's peak rate.
func opBound(p *ipupkg.Package, tg *target.Target, i int) int64 {
	if i < 0 || i >= len(p.Program) || p.Program[i].Op != ipupkg.OpAmp || len(p.Program[i].Operands) != 3 {
		return 0
	}
	lhs, rhs := p.Buffers[p.Program[i].Operands[0]], p.Buffers[p.Program[i].Operands[1]]
	if len(rhs.Shape) < 2 {
		return 0
	}
	macs := int64(1)
	for _, x := range lhs.Shape {
		macs *= x
	}
	macs *= rhs.Shape[len(rhs.Shape)-1]
	bound, err := tg.ComputeLowerBoundCycles(macs, lhs.Elem)
	if err != nil {
		return 0
	}
	return bound
}

//go:embed report.html
var page string

var tmpl = template.Must(template.New("report").Parse(page))

// Write writes the page for d, and beside it other's (nil: no comparison).
func Write(w io.Writer, d, other *Data) error {
	data, err := json.Marshal(d)
	if err != nil {
		return err
	}
	var otherJSON []byte = []byte("null")
	if other != nil {
		if otherJSON, err = json.Marshal(other); err != nil {
			return err
		}
	}
	return tmpl.Execute(w, struct {
		Title       string
		Data, Other template.JS
	}{d.Title, template.JS(data), template.JS(otherJSON)})
}

// Busiest lists the tiles by a metric, most first.
func (d *Data) Busiest(metric, n int) []int {
	order := make([]int, d.Tiles)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(d.Memory[b][metric], d.Memory[a][metric]) })
	return order[:min(n, len(order))]
}

// Cycles runs p on the simulated device with zero inputs for its cycle
// counts, which do not depend on the data.
func Cycles(p *ipupkg.Package, tg *target.Target) (*device.Cycles, error) {
	d := sim.New(tg, nil)
	if err := d.Attach(); err != nil {
		return nil, err
	}
	defer d.Close()
	if err := d.Load(p); err != nil {
		return nil, err
	}
	s, err := d.Session()
	if err != nil {
		return nil, err
	}
	for _, st := range p.Streams {
		if st.Output {
			continue
		}
		n := int64(st.Elem.Bytes())
		for _, x := range st.Shape {
			n *= x
		}
		if err := s.Write(st.Index, make([]byte, n)); err != nil {
			return nil, err
		}
	}
	if err := s.Run(); err != nil {
		return nil, err
	}
	return s.Cycles(), nil
}
