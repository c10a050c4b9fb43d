package ipupkg

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Dump prints a package as readelf and llvm-objdump print an object: the
// header, the sections with their offsets, sizes and checksums, every
// tile's sizes, the host streams with the piece each tile holds, the
// exchange tables' sizes and the checkpoints.
func Dump(w io.Writer, p *Package, sections []SectionInfo) error {
	fmt.Fprintf(w, "Package header:\n")
	fmt.Fprintf(w, "  Format version:   %d\n", p.Version)
	fmt.Fprintf(w, "  Compiler:         %s\n", p.Compiler)
	fmt.Fprintf(w, "  Target:           %s (%d tiles, %d bytes of SRAM per tile)\n", p.Target, p.Tiles, p.SRAMBytes)
	for _, c := range p.Classes {
		code := ""
		if c.HoldsCode {
			code = ", holds code"
		}
		fmt.Fprintf(w, "  Memory class:     %s (%s) [%d, %d), aligned to %d%s\n", c.Name, c.Kind, c.Start, c.End, c.Alignment, code)
	}
	if p.ExchangeBusPairs {
		fmt.Fprintf(w, "  Exchange:         tiles 2k and 2k+1 share a bus (paired delivery)\n")
	}
	fmt.Fprintf(w, "  Program:          %d instructions, %d buffers, %d exchange tables\n", len(p.Program), len(p.Buffers), len(p.Exchanges))
	for _, m := range p.Metadata {
		fmt.Fprintf(w, "  %-17s %s\n", m.Key+":", m.Value)
	}

	fmt.Fprintf(w, "\nSections:\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  [Nr]\tName\tOffset\tSize\tCRC-32C\tFlags\n")
	for i, s := range sections {
		flags := ""
		if s.Required {
			flags = "required"
		}
		fmt.Fprintf(tw, "  [%2d]\t%s\t0x%08x\t%d\t0x%08x\t%s\n", i, s.ID, s.Offset, s.Length, s.CRC, flags)
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	fmt.Fprintf(w, "\nTiles:\n")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := []string{"tile", "support at", "code", "exchange tables", "host code"}
	for _, c := range p.Classes {
		head = append(head, c.Name+" used")
	}
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	perClass := make([][]int64, p.Tiles)
	for t := range perClass {
		perClass[t] = make([]int64, len(p.Classes))
	}
	// A class's footprint on a tile: the highest byte any buffer (or the
	// support block) uses above the class's start.
	for _, b := range p.Buffers {
		for _, pc := range b.Pieces {
			perClass[pc.Tile][b.Class] = max(perClass[pc.Tile][b.Class], pc.Address+pc.Bytes-p.Classes[b.Class].Start)
		}
	}
	for t, im := range p.TileImages {
		for c, class := range p.Classes {
			if n := im.SupportBytes(); n > 0 && im.SupportAddress >= class.Start && im.SupportAddress < class.End {
				perClass[t][c] = max(perClass[t][c], im.SupportAddress+n-class.Start)
			}
		}
	}
	for t, im := range p.TileImages {
		row := []string{fmt.Sprint(t), fmt.Sprint(im.SupportAddress), fmt.Sprint(im.CodeBytes), fmt.Sprint(im.ExchangeTableBytes), fmt.Sprint(im.HostCodeBytes)}
		for c := range p.Classes {
			row = append(row, fmt.Sprint(perClass[t][c]))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	fmt.Fprintf(w, "\nHost streams:\n")
	for _, s := range p.Streams {
		dir := "input"
		if s.Output {
			dir = "output"
		}
		b := p.Buffers[s.Buffer]
		text := ""
		if s.Text {
			text = " (text on the host)"
		}
		loaded := ""
		if i := p.StreamedIn(s); i >= 0 {
			loaded = fmt.Sprintf(", in streaming memory until instruction %d loads it", i)
		}
		fmt.Fprintf(w, "  %s #%d %q: %v %v%s in %s, buffer %d (%s), %d pieces%s\n", dir, s.Index, s.Name, s.Elem, s.Shape, text,
			p.Classes[b.Class].Name, s.Buffer, b.Name, len(b.Pieces), loaded)
		for _, pc := range b.Pieces {
			fmt.Fprintf(w, "    tile %d at %d (%d bytes): %s\n", pc.Tile, pc.Address, pc.Bytes, boxString(pc.Box))
		}
	}

	fmt.Fprintf(w, "\nProgram:\n")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  #\tsuperstep\tinstruction\tbuffers\tparameters\torigin\n")
	for i, in := range p.Program {
		spec, _ := in.Op.Spec()
		step := fmt.Sprint(in.Superstep)
		if in.Op == OpSync {
			step = ""
		}
		bufs := make([]string, len(in.Operands))
		for k, o := range in.Operands {
			bufs[k] = fmt.Sprint(o)
		}
		if n := len(bufs); n > 1 {
			bufs = []string{strings.Join(bufs[:n-1], ", ") + " -> " + bufs[n-1]}
		}
		origin := ""
		if in.Origin.Name != "" {
			origin = strconv.Quote(in.Origin.Name)
		}
		if in.Origin.Line > 0 {
			origin += fmt.Sprintf(" (source %d:%d)", in.Origin.Line, in.Origin.Column)
		}
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%s\n", i, step, in.Op, strings.Join(bufs, ""), FormatParams(in.Params, spec.Params), origin)
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	fmt.Fprintf(w, "\nExchange tables:\n")
	for _, x := range p.Exchanges {
		words := int64(0)
		for _, t := range x.Transfers {
			words += t.Words
		}
		fmt.Fprintf(w, "  phase %d: %d transfers, %d words, %d segments, horizon %d (lower bound %d, %s)\n",
			x.Phase, len(x.Transfers), words, len(x.Segments), x.Horizon, x.LowerBound, x.Kind)
	}

	fmt.Fprintf(w, "\nCheckpoints:\n")
	if len(p.Checkpoints) == 0 {
		fmt.Fprintf(w, "  none\n")
	}
	for _, c := range p.Checkpoints {
		at := ""
		if c.Line > 0 {
			at = fmt.Sprintf(" (source %d:%d)", c.Line, c.Column)
		}
		if len(c.Permutation) > 0 {
			at += fmt.Sprintf(" transposed by %v", c.Permutation)
		}
		fmt.Fprintf(w, "  %s%s: buffer %d (%s)\n", c.Name, at, c.Buffer, p.Buffers[c.Buffer].Name)
	}
	if len(p.Source) > 0 {
		fmt.Fprintf(w, "\nSource: %d bytes of tensor-level IR\n", len(p.Source))
	}
	return nil
}

func boxString(box []Span) string {
	parts := make([]string, len(box))
	for i, s := range box {
		parts[i] = fmt.Sprintf("%d:%d", s.Lo, s.Hi)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
