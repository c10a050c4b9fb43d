// Package memoryreport reports a tile-asm program's memory tile by tile:
// bytes per class, code, exchange tables, host-exchange code, peak live
// bytes and the largest buffers by name, as JSON (ipu-opt --memory-report=FILE.json) and as a table of the
// busiest tiles (--memory-summary), each with the capacity of every class
// and the headroom left, per tile and for the chip.
package memoryreport

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/dustin/go-humanize"

	"github.com/ipuir/ipuir/dialects/tileasm"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/target/storage"
)

// Report is one function's memory, tile by tile.
type Report struct {
	Function string        `json:"function"`
	Target   string        `json:"target"`
	Classes  []ReportClass `json:"classes"`
	Tiles    []TileMemory  `json:"tiles"`
	// Busiest lists tiles by bytes used, most first (at most ten).
	Busiest []int `json:"busiest"`
}

// ReportClass is one memory class of the target, with what the program
// uses of it.
type ReportClass struct {
	Name  string `json:"name"`
	Kind  string `json:"kind"`
	Start int64  `json:"start"`
	End   int64  `json:"end"`
	// Capacity is the class's bytes on one tile.
	Capacity int64 `json:"capacity"`
	// BusiestTile is the tile whose footprint in the class is largest,
	// BusiestBytes that footprint and BusiestHeadroom what is left.
	BusiestTile     int   `json:"busiest_tile"`
	BusiestBytes    int64 `json:"busiest_bytes"`
	BusiestHeadroom int64 `json:"busiest_headroom"`
	// ChipBytes sums every tile's footprint; ChipCapacity is Capacity
	// times the tiles, ChipHeadroom the difference.
	ChipBytes    int64 `json:"chip_bytes"`
	ChipCapacity int64 `json:"chip_capacity"`
	ChipHeadroom int64 `json:"chip_headroom"`
}

// TileMemory is one tile's memory.
type TileMemory struct {
	Tile int `json:"tile"`
	// Classes gives, per class (by name), the footprint: the highest byte
	// used above the class's start; Headroom the bytes above it.
	Classes            map[string]int64 `json:"class_bytes"`
	Headroom           map[string]int64 `json:"class_headroom"`
	CodeBytes          int64            `json:"code_bytes"`
	ExchangeTableBytes int64            `json:"exchange_table_bytes"`
	HostCodeBytes      int64            `json:"host_code_bytes"`
	// PeakLiveBytes is the most bytes live in one step, all classes
	// together (support memory included: storage.LiveBytes). Unlike the
	// classes' footprints it counts no gaps.
	PeakLiveBytes int64 `json:"peak_live_bytes"`
	Buffers       int   `json:"buffers"`
	// Largest are the tile's five largest buffers, named as the source
	// names their values (%wv; %k_heads (exchange.phase)).
	Largest []BufferUse `json:"largest_buffers"`
	used    int64
}

// BufferUse is one buffer on a tile: its name, class, bytes and the steps
// it is live in, [Start, End) (End -1: to the end of the program).
type BufferUse struct {
	Name  string `json:"name"`
	Class string `json:"class"`
	Bytes int64  `json:"bytes"`
	Start int    `json:"start"`
	End   int    `json:"end"`
	steps string
}

// Reports reports every function of module at the tile-asm level (each
// has a tileasm.memory op); none is an error.
func Reports(module *ir.Operation, tg *target.Target) ([]*Report, error) {
	var reports []*Report
	var failed error
	module.Walk(func(op *ir.Operation) ir.WalkResult {
		if !op.Is(tileasm.MemoryOp) {
			return ir.WalkAdvance
		}
		r, err := New(op, tg)
		if err != nil {
			failed = op.EmitOpError("%v", err)
			return ir.WalkInterrupt
		}
		reports = append(reports, r)
		return ir.WalkAdvance
	})
	if failed != nil {
		return nil, failed
	}
	if len(reports) == 0 {
		return nil, module.EmitError("no program at the tile-asm level to report the memory of (run the lower-to-tile-asm pipeline)")
	}
	return reports, nil
}

// WriteJSON writes reports: one object for one function, else a list.
func WriteJSON(w io.Writer, reports []*Report) error {
	enc := json.NewEncoder(w)
	if len(reports) == 1 {
		return enc.Encode(reports[0])
	}
	return enc.Encode(reports)
}

// New reports the memory of the function holding memory, a
// tileasm.memory op.
func New(memory *ir.Operation, tg *target.Target) (*Report, error) {
	bufs, addrs, err := tileasm.TileBuffers(memory, tg)
	if err != nil {
		return nil, err
	}
	r := &Report{Target: tg.Name}
	if fn := memory.ParentOp(); fn != nil {
		if s, ok := fn.Attr("sym_name").(*ir.StringAttr); ok {
			r.Function = s.Val
		}
	}
	for _, c := range tg.MemoryClasses {
		r.Classes = append(r.Classes, ReportClass{Name: c.Name, Kind: c.Kind.String(), Start: c.Start, End: c.End,
			Capacity: c.Size(), BusiestTile: -1, ChipCapacity: c.Size() * int64(tg.Tiles)})
	}
	perTile := func(name string, tile int) int64 {
		v, _ := memory.Attr(name).(*tileasm.PerTileAttr).At(int64(tile))
		return v
	}
	for tile := range tg.Tiles {
		tm := TileMemory{Tile: tile, Classes: map[string]int64{}, Headroom: map[string]int64{}, Buffers: len(bufs[tile]),
			CodeBytes: perTile(tileasm.CodeBytesAttr, tile), ExchangeTableBytes: perTile(tileasm.ExchangeTableBytesAttr, tile),
			HostCodeBytes: perTile(tileasm.HostCodeBytesAttr, tile)}
		for _, c := range tg.MemoryClasses {
			tm.Classes[c.Name] = 0
		}
		for i, b := range bufs[tile] {
			class, err := tg.ClassByName(b.Class)
			if err != nil {
				return nil, err
			}
			tm.Classes[class.Name] = max(tm.Classes[class.Name], addrs[tile][i]+b.Bytes-class.Start)
		}
		for k, c := range tg.MemoryClasses {
			used := tm.Classes[c.Name]
			tm.used += used
			tm.Headroom[c.Name] = c.Size() - used
			rc := &r.Classes[k]
			rc.ChipBytes += used
			if rc.BusiestTile < 0 || used > rc.BusiestBytes {
				rc.BusiestTile, rc.BusiestBytes = tile, used
			}
		}
		tm.PeakLiveBytes = storage.PeakLive(bufs[tile])
		largest := slices.Clone(bufs[tile])
		slices.SortStableFunc(largest, func(a, b storage.Buffer) int { return cmp.Compare(b.Bytes, a.Bytes) })
		for _, b := range largest[:min(len(largest), 5)] {
			end := b.End
			if end == storage.Forever {
				end = -1
			}
			tm.Largest = append(tm.Largest, BufferUse{Name: b.Name, Class: b.Class, Bytes: b.Bytes, Start: b.Start, End: end, steps: storage.Steps(b)})
		}
		r.Tiles = append(r.Tiles, tm)
	}
	for k := range r.Classes {
		rc := &r.Classes[k]
		rc.BusiestHeadroom = rc.Capacity - rc.BusiestBytes
		rc.ChipHeadroom = rc.ChipCapacity - rc.ChipBytes
	}
	order := make([]int, len(r.Tiles))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(r.Tiles[b].used, r.Tiles[a].used) })
	r.Busiest = order[:min(len(order), 10)]
	return r, nil
}

// WriteSummary prints the busiest tiles as a table, and the largest
// buffers of the busiest one.
func (r *Report) WriteSummary(w io.Writer) error {
	fmt.Fprintf(w, "memory of @%s on %s (%d tiles), busiest tiles:\n", r.Function, r.Target, len(r.Tiles))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := []string{"tile"}
	for _, c := range r.Classes {
		head = append(head, c.Name)
	}
	head = append(head, "code", "exchange tables", "host code", "peak live", "buffers")
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for _, t := range r.Busiest {
		tm := r.Tiles[t]
		row := []string{fmt.Sprint(tm.Tile)}
		for _, c := range r.Classes {
			row = append(row, fmt.Sprint(tm.Classes[c.Name]))
		}
		row = append(row, fmt.Sprint(tm.CodeBytes), fmt.Sprint(tm.ExchangeTableBytes), fmt.Sprint(tm.HostCodeBytes),
			fmt.Sprint(tm.PeakLiveBytes), fmt.Sprint(tm.Buffers))
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// Capacity: each class's busiest tile and the chip as a whole.
	fmt.Fprintln(w, "capacity used, busiest tile and chip:")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range r.Classes {
		fmt.Fprintf(tw, "  %s\ttile %d: %d of %d bytes (%s), %d free\tchip: %s of %s (%s), %s free\n", c.Name,
			c.BusiestTile, c.BusiestBytes, c.Capacity, percent(c.BusiestBytes, c.Capacity), c.BusiestHeadroom,
			humanize.IBytes(uint64(c.ChipBytes)), humanize.IBytes(uint64(c.ChipCapacity)), percent(c.ChipBytes, c.ChipCapacity),
			humanize.IBytes(uint64(max(0, c.ChipHeadroom))))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(r.Busiest) == 0 {
		return nil
	}
	top := r.Tiles[r.Busiest[0]]
	fmt.Fprintf(w, "largest buffers on tile %d:\n", top.Tile)
	for _, b := range top.Largest {
		fmt.Fprintf(w, "  %8d bytes  %-18s live in steps %s  %s\n", b.Bytes, b.Class, b.steps, b.Name)
	}
	return nil
}

// percent is used/capacity as a percentage with one decimal.
func percent(used, capacity int64) string {
	if capacity <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(used)/float64(capacity))
}
