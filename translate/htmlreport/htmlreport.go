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
	"github.com/ipuir/ipuir/runtime/sim"
	"github.com/ipuir/ipuir/target"
)

// Data is what the page draws, as the script reads it.
type Data struct {
	Title      string      `json:"title"`
	Target     string      `json:"target"`
	Tiles      int         `json:"tiles"`
	Columns    int         `json:"columns"`
	Metrics    []string    `json:"metrics"` // the heat map's choices, per tile in Memory
	Memory     [][]int64   `json:"memory"`
	Supersteps []Superstep `json:"supersteps"`
	Phases     []Phase     `json:"phases"`
	Ops        []Op        `json:"ops"`
	Total      int64       `json:"totalCycles"`
	Bound      int64       `json:"computeBound"`
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
	LiveTotal   int64 `json:"liveTotal"`
	LivePeak    int64 `json:"livePeak"`
	PeakTile    int   `json:"peakTile"`
}

// Phase is one exchange phase.
type Phase struct {
	Phase      int64     `json:"phase"`
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

// Build gathers a package's report; cycles, when given, are a run's.
func Build(title string, p *ipupkg.Package, tg *target.Target, cycles *device.Cycles) (*Data, error) {
	if p.Tiles != tg.Tiles || tg.TileColumns < 1 {
		return nil, fmt.Errorf("the package has %d tiles, target %s %d", p.Tiles, tg.Name, tg.Tiles)
	}
	d := &Data{Title: title, Target: p.Target, Tiles: p.Tiles, Columns: tg.TileColumns}
	for _, c := range p.Classes {
		d.Metrics = append(d.Metrics, c.Name+" used")
	}
	d.Metrics = append(d.Metrics, "code", "exchange tables", "host-exchange code", "tensors (streams and constants) at the tile's peak", "temporaries at the tile's peak")
	d.Memory = make([][]int64, p.Tiles)
	nc := len(p.Classes)
	for t, im := range p.TileImages {
		m := make([]int64, len(d.Metrics))
		m[nc], m[nc+1], m[nc+2] = im.CodeBytes, im.ExchangeTableBytes, im.HostCodeBytes
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
	d.liveness(p, nc+3)
	d.phases(p, tg)
	if cycles != nil {
		d.Total = cycles.Total
		for i := range d.Supersteps {
			for _, s := range cycles.Supersteps {
				if s.Superstep == d.Supersteps[i].Index {
					ss := &d.Supersteps[i]
					ss.Compute, ss.Sync, ss.Exchange = s.Compute, s.Sync, s.Exchange
					ss.BusiestTile, ss.AtMax, ss.Working = s.Busy.Tile, s.Busy.AtMax, s.Busy.Working
				}
			}
		}
		for _, o := range cycles.Ops {
			d.Ops = append(d.Ops, Op{Index: o.Instruction, Op: o.Op, Name: p.OriginName(o.Instruction), Superstep: o.Superstep, Cycles: o.Cycles,
				BusiestTile: o.Busy.Tile, AtMax: o.Busy.AtMax, Working: o.Busy.Working, Bound: opBound(p, tg, o.Instruction)})
		}
	}
	for _, o := range d.Ops {
		d.Bound += o.Bound
	}
	return d, nil
}

// liveness sums, per superstep, the bytes of the buffers live in it over
// all tiles and on the busiest one (steps are the program's instructions),
// and records each tile's tensors and temporaries at its own peak in
// Memory's metrics cat and cat+1.
func (d *Data) liveness(p *ipupkg.Package, cat int) {
	host := map[int]bool{}
	for _, s := range p.Streams {
		host[s.Buffer] = true
	}
	var stepSuper []int64
	var supers []int64
	for _, in := range p.Program {
		if in.Op == ipupkg.OpSync {
			continue
		}
		stepSuper = append(stepSuper, in.Superstep)
		if len(supers) == 0 || supers[len(supers)-1] != in.Superstep {
			supers = append(supers, in.Superstep)
		}
	}
	index := map[int64]int{}
	for i, s := range supers {
		index[s] = i
		d.Supersteps = append(d.Supersteps, Superstep{Index: s})
	}
	if len(stepSuper) == 0 {
		return
	}
	live := make([][]int64, len(supers))
	tensors := make([][]int64, len(supers))
	for i := range live {
		live[i] = make([]int64, p.Tiles)
		tensors[i] = make([]int64, p.Tiles)
	}
	for b, buf := range p.Buffers {
		if len(buf.ViewOf) > 0 {
			continue
		}
		isTensor := host[b] || buf.Init != nil
		first := index[stepSuper[min(int(buf.Start), len(stepSuper)-1)]]
		last := len(supers) - 1
		if buf.End >= 0 {
			last = index[stepSuper[min(int(buf.End)-1, len(stepSuper)-1)]]
		}
		for s := first; s <= last; s++ {
			for _, pc := range buf.Pieces {
				live[s][pc.Tile] += pc.Bytes
				if isTensor {
					tensors[s][pc.Tile] += pc.Bytes
				}
			}
		}
	}
	for t := range p.Tiles {
		best := 0
		for s := range supers {
			if live[s][t] > live[best][t] {
				best = s
			}
		}
		d.Memory[t][cat], d.Memory[t][cat+1] = tensors[best][t], live[best][t]-tensors[best][t]
	}
	for s := range supers {
		for t, v := range live[s] {
			d.Supersteps[s].LiveTotal += v
			if v > d.Supersteps[s].LivePeak {
				d.Supersteps[s].LivePeak, d.Supersteps[s].PeakTile = v, t
			}
		}
	}
}

func (d *Data) phases(p *ipupkg.Package, tg *target.Target) {
	perColumn := p.Tiles / d.Columns
	for _, x := range p.Exchanges {
		ph := Phase{Phase: x.Phase, Transfers: len(x.Transfers), LowerBound: x.LowerBound, Horizon: x.Horizon, Kind: x.Kind}
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
