package target

import (
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/ipuir/ipuir/elem"
)

// Table returns a one-line-per-target summary with a header row, for
// listings such as `ipu-opt --show-targets`.
func Table(targets []*Target) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tCHIPS\tTILES/CHIP\tSRAM/TILE\tSTANDARD\tINTERLEAVED\tCLOCK\tF16 MAC/CYCLE\tSUMMARY")
	for _, t := range targets {
		std, _ := t.Capacity(Standard)
		il, _ := t.Capacity(Interleaved)
		peak := "-"
		if p, err := t.PeakMACsPerCycle(elem.F16); err == nil {
			peak = strconv.FormatInt(p, 10)
		}
		fmt.Fprintf(w, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", t.Name, t.Chips, t.Tiles, formatBytes(t.SRAMBytesPerTile),
			formatBytes(std), formatBytes(il), formatHz(t.ClockHz), peak, t.Summary)
	}
	w.Flush()
	return b.String()
}

// Describe returns every figure of the target, one per line, with units:
// what `ipu-opt --show-targets=NAME` prints.
func (t *Target) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", t.Name, t.Summary)
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	row := func(label, format string, args ...any) {
		fmt.Fprintf(w, "  %s\t%s\n", label, fmt.Sprintf(format, args...))
	}
	if t.MultiChip() {
		row("chips", "%d, joined in a %s; %d tiles in all", t.Chips, t.Links.Topology, t.ChipTiles())
		row("tiles", "%d per chip", t.Tiles)
	} else if k := t.SpanChips(); k > 1 {
		row("chips", "%d as one program, joined in a %s; tiles numbered chip after chip", k, t.Links.Topology)
		row("tiles", "%d (%d per chip)", t.Tiles, t.Tiles/k)
	} else {
		row("tiles", "%d", t.Tiles)
	}
	row("SRAM per tile", "%d bytes (%s); %s per device", t.SRAMBytesPerTile, formatBytes(t.SRAMBytesPerTile),
		formatBytes(int64(t.Tiles)*t.SRAMBytesPerTile))
	for i, c := range t.MemoryClasses {
		label := ""
		if i == 0 {
			label = "memory classes"
		}
		var notes []string
		if c.HoldsCode {
			notes = append(notes, "holds code")
		}
		if c.Loads128 {
			notes = append(notes, "128-bit loads")
		}
		row(label, "%s: %v, bytes [%d, %d) = %s, alignment %d, %s", c.Name, c.Kind, c.Start, c.End,
			formatBytes(c.Size()), c.Alignment, strings.Join(notes, ", "))
	}
	row("threads", "%d workers and %d supervisor per tile; a worker issues every %s cycle",
		t.WorkerThreads, t.SupervisorThreads, ordinal(t.WorkerIssueInterval))
	row("clock", "%s", formatHz(t.ClockHz))
	for i, r := range t.AMP {
		label := ""
		if i == 0 {
			label = "AMP"
		}
		peak := int64(t.Tiles) * int64(r.MACsPerCycle)
		row(label, "%v: %d MAC/cycle/tile, %d MAC/cycle per device (%.1f TMAC/s)",
			r.Elem, r.MACsPerCycle, peak, float64(peak)*float64(t.ClockHz)/1e12)
	}
	for i, v := range t.AMPVertices {
		label := ""
		if i == 0 {
			label = "AMP vertices"
		}
		row(label, "%v in, %v partials: %d conv units × %d inputs, %d MAC/cycle/tile; a pass %d + weights + 6 workers × (%d + %d·⌈m/6⌉) cycles (PopLibs' 1×1 estimator)",
			v.Elem, v.Partials, v.ConvUnits, v.InputChannels(), v.MACsPerCycle(), v.PassCycles, v.WorkerCycles, v.RowCycles)
	}
	for i, v := range t.Vector {
		label := ""
		if i == 0 {
			label = "vector"
		}
		trans := "no transcendentals"
		if v.TranscendentalCyclesPerVector > 0 {
			trans = fmt.Sprintf("transcendental %d cycles/vector", v.TranscendentalCyclesPerVector)
		}
		row(label, "%v: %d-lane vectors, simple ops %d cycle/vector, %s", v.Elem, v.Lanes, v.SimpleCyclesPerVector, trans)
	}
	row("load/store", "%d bytes/cycle/tile", t.LoadStoreBytesPerCycle)
	cast := "no multicast"
	if t.ExchangeMulticast {
		cast = "multicast"
	}
	if t.ExchangeBusPairs {
		cast += "; tiles 2k, 2k+1 share a bus (data both receive at twice the rate)"
	}
	row("exchange", "%d × %d-byte word/cycle/tile each way; %d cycles latency per phase; %s",
		t.ExchangeWordsPerCycle, t.ExchangeWordBytes, t.ExchangeLatencyCycles, cast)
	row("sync", "%d cycles", t.SyncCycles)
	row("vertex launch", "%d cycles", t.VertexOverheadCycles)
	if t.MultiChip() || t.SpanChips() > 1 {
		l := t.Links
		row("IPU-Links", "%d to each neighbour, %.2f bytes/cycle each way per link (%.1f GB/s); %d cycles latency per hop",
			l.PerNeighbour, l.BytesPerCycle, l.BytesPerCycle*float64(t.ClockHz)/1e9, l.LatencyCycles)
		row("sync across chips", "%d cycles", l.SyncCycles)
	}
	if s := t.Streaming; s.BytesPerChip > 0 {
		size := formatBytes(s.BytesPerChip)
		if s.BytesPerChip%1e9 == 0 {
			size = fmt.Sprintf("%d GB", s.BytesPerChip/1e9)
		}
		row("streaming memory", "%s per chip, %.2f bytes/cycle each way (%.2f GB/s); %d cycles latency per transfer",
			size, s.BytesPerCycle, s.BytesPerCycle*float64(t.ClockHz)/1e9, s.LatencyCycles)
		if t.IOTiles > 0 {
			row("IO tiles", "%d beside the %d compute tiles, holding %s of streamed data while the others compute", t.IOTiles, t.Tiles, formatBytes(t.IOBytes()))
		} else {
			row("IO tiles", "none: streaming and compute take turns (io-tiles sets some aside)")
		}
	}
	row("support reserve", "%s per tile for code, exchange tables and host-exchange code", formatBytes(t.SupportReserveBytes))
	c := t.Code
	row("code model", "%d B skeleton; %d B per instruction (%d per AMP block), %d per sync, %d per exchange; %d B per table segment",
		c.SkeletonBytes, c.InstructionBytes, c.AMPBlockBytes, c.SyncBytes, c.ExchangeBytes, c.TableEntryBytes)
	row("host-exchange code", "%d B on a tile holding a host stream, %d B more per stream", c.HostSkeletonBytes, c.HostStreamBytes)
	first := true
	for _, o := range Options {
		if o.MultiChip && !t.MultiChip() {
			continue
		}
		label := ""
		if first {
			label = "options"
		}
		first = false
		row(label, "%s=%s: %s", o.Name, o.Value(t), o.Help)
	}
	w.Flush()
	// Every figure with where it comes from (Figures).
	fmt.Fprintf(&b, "  figures and their sources:\n")
	for i := range Figures {
		f := &Figures[i]
		v := f.Value(t)
		if v == "" {
			continue
		}
		fmt.Fprintf(&b, "    %s = %s\n      %s\n", f.Key, v, f.Origin())
	}
	return b.String()
}

// formatBytes writes sizes the way the hardware documentation does: whole
// KiB or MiB where exact, otherwise bytes.
func formatBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// ordinal spells n as "6th", "1st", "22nd".
func ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return strconv.Itoa(n) + suffix
}

func formatHz(hz int64) string {
	return strconv.FormatFloat(float64(hz)/1e9, 'f', -1, 64) + " GHz"
}

// ShowTargets is what `ipu-opt --show-targets` prints: the table of all
// built-in targets when name is empty, else every figure of the named one.
func ShowTargets(name string) (string, error) {
	if name == "" {
		return Table(All()), nil
	}
	t, err := Lookup(name)
	if err != nil {
		return "", err
	}
	return t.Describe(), nil
}
