package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/dustin/go-humanize"

	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/execution/check"
	"github.com/ipuir/ipuir/execution/reference"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/runtime/atomicfile"
	"github.com/ipuir/ipuir/runtime/device"
	"github.com/ipuir/ipuir/runtime/ipupkg"
	"github.com/ipuir/ipuir/runtime/npy"
	"github.com/ipuir/ipuir/runtime/sim"
	"github.com/ipuir/ipuir/runtime/trace"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/tools/toolkit"
	"github.com/ipuir/ipuir/translate/htmlreport"
)

// packageKind says whether file is an application package or a pod
// package, by its magic (ipupkg.Magic, ipupkg.PodMagic; "" for neither).
// Only a regular file is looked into: reading a pipe's first bytes would
// take them from the run.
func packageKind(file string) string {
	if st, err := os.Stat(file); err != nil || !st.Mode().IsRegular() {
		return ""
	}
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, len(ipupkg.Magic))
	if _, err = io.ReadFull(f, head); err != nil {
		return ""
	}
	for _, m := range []string{ipupkg.Magic, ipupkg.PodMagic} {
		if string(head) == m {
			return m
		}
	}
	return ""
}

// startDeviceRun is what a run on a device starts with: the session's
// log (-v), a progress line on a terminal for the long phases, and the
// device the flags name.
func startDeviceRun(o *options, stderr io.Writer) (*slog.Logger, *toolkit.Progress, error) {
	log := slog.New(slog.DiscardHandler)
	if o.verbose {
		log = verboseLogger(stderr)
	}
	if o.device != "sim" {
		return nil, nil, fmt.Errorf("--device=%s: the devices are: sim", o.device)
	}
	return log, toolkit.NewProgress(stderr, "ipu-run"), nil
}

// runPackage runs a package on the device: the reference log's session
// (ownership, attach, initialise, load, host exchange, run), then the
// outputs, the cycle table and, with --check, every checkpoint against the
// reference interpreter on the same inputs.
func runPackage(o *options, stdout, stderr io.Writer) error {
	log, progress, err := startDeviceRun(o, stderr)
	if err != nil {
		return err
	}
	log.Info("reading application package", "path", o.file)
	data, err := atomicfile.ReadFile(o.file, ipupkg.MaxFileBytes)
	if err != nil {
		return err
	}
	pkg, _, err := ipupkg.Decode(data)
	if err != nil {
		return fmt.Errorf("%s: %v", o.file, err)
	}
	log.Info("application package read", "tiles", pkg.Tiles, "compiler", pkg.Compiler, "target", pkg.Target)
	tg, err := target.Lookup(pkg.Target)
	if err != nil {
		return fmt.Errorf("%s: %v", o.file, err)
	}
	// The tensor-level function: the inputs' types, and the reference
	// (the user's own source with --check-against).
	var p *program
	switch {
	case o.checkAgainst != "":
		if p, err = load(o.checkAgainst, o.function, stderr); err != nil {
			return err
		}
	case len(pkg.Source) > 0:
		if p, err = loadSource(o.file+" (source)", pkg.Source, o.function, stderr); err != nil {
			return err
		}
	case o.check || o.generate != "":
		return fmt.Errorf("%s has no tensor-level source: give --inputs, and --check-against FILE.ipuir to check it", o.file)
	}
	if p != nil {
		if err := check.Signature(p.fn, pkg); err != nil {
			return fmt.Errorf("%s does not match @%s: %v", o.file, p.name, err)
		}
	}
	outStreams := check.OutputStreams(pkg)
	if len(o.outputs) > 0 && len(o.outputs) != len(outStreams) {
		return fmt.Errorf("%s has %s, but --outputs names %s", o.file, count(len(outStreams), "output"), count(len(o.outputs), "file"))
	}
	var inputs []*eval.Array
	if p != nil {
		if inputs, err = p.inputs(o); err != nil {
			return p.Report(err, stderr)
		}
	} else if inputs, err = streamInputs(o, pkg); err != nil {
		return err
	}

	release, err := acquire(o, tg, log)
	if err != nil {
		return err
	}
	defer release()
	dev := sim.New(tg, log)
	defer dev.Close()
	if err := dev.Attach(); err != nil {
		return err
	}
	if err := dev.Initialize(); err != nil {
		return err
	}
	got, cycles, err := check.Execute(dev, pkg, inputs, check.ExecuteOptions{Phase: progress.Phase, OutputsOnly: !o.check && o.dumpValues == ""})
	if err != nil {
		return fmt.Errorf("%s: %v", o.file, err)
	}
	// Everything the check and the report need is read: give the tiles'
	// memory back before the reference runs.
	dev.Close()
	outputs := got.Outputs
	for _, s := range check.OutputStreams(pkg) {
		name := s.Name
		if name == fmt.Sprintf("output %d", s.Index) {
			name = "" // the default name says nothing the number does not
		}
		o.outputNames = append(o.outputNames, name)
	}
	summarise(o, outputs, stdout)
	ctx := ir.NewContext()
	if p != nil {
		ctx = p.Ctx
	}
	if err := compare(o, o.file, ctx, outputs, stdout); err != nil {
		if len(o.outputs) > 0 {
			fmt.Fprintf(stderr, "ipu-run: the comparison failed: the files --outputs names are left as they were\n")
		}
		return err
	}
	if o.reportCycles {
		printCycles(stdout, pkg, cycles)
	}
	// The values are written whatever the check finds: they are what one
	// looks at when it fails.
	if o.dumpValues != "" {
		if err := dumpValues(o.dumpValues, o.file, pkg, got); err != nil {
			return err
		}
	}
	log.Info("simulated run finished", "total_cycles", cycles.Total, "seconds", tg.Seconds(cycles.Total))
	// Outputs are written only once the run (and its check) has
	// succeeded, so a failed check leaves the files as they were.
	var checkErr error
	if o.check {
		endCheck := progress.Phase("checking against the reference interpreter")
		checkErr = checkRun(o, p, pkg, inputs, got, log, stdout, stderr)
		endCheck()
	}
	if checkErr != nil {
		var named []string // the flags that name files to write
		for _, f := range []struct {
			flag  string
			given bool
		}{{"--outputs", len(o.outputs) > 0}, {"--report", o.report != ""}, {"--trace", o.trace != ""}} {
			if f.given {
				named = append(named, f.flag)
			}
		}
		if n := len(named); n > 0 {
			list := named[0]
			if n > 1 {
				list = strings.Join(named[:n-1], ", ") + " and " + named[n-1]
			}
			fmt.Fprintf(stderr, "ipu-run: the check failed: the files named by %s are left as they were\n", list)
		}
		return checkErr
	}
	if o.reportFile != nil {
		d, err := htmlreport.Build(filepath.Base(o.file), pkg, tg, cycles)
		if err == nil {
			err = o.reportFile.Write(func(w io.Writer) error { return htmlreport.Write(w, d, nil) })
		}
		if err != nil {
			return fmt.Errorf("--report: %v", err)
		}
	}
	if o.traceFile != nil {
		if err := o.traceFile.Write(func(w io.Writer) error { return trace.Write(w, pkg, cycles, tg.ClockHz) }); err != nil {
			return fmt.Errorf("--trace: %v", err)
		}
	}
	return writeOutputs(o, "the package", outputs)
}

// streamInputs reads --inputs for a package without source, by its
// streams' types.
func streamInputs(o *options, pkg *ipupkg.Package) ([]*eval.Array, error) {
	var ins []ipupkg.Stream
	for _, s := range pkg.Streams {
		if !s.Output {
			ins = append(ins, s)
		}
	}
	names := make([]string, len(ins))
	for _, s := range ins {
		if s.Index < len(names) {
			names[s.Index] = s.Name
		}
	}
	files, err := ordered(o.inputFiles, names, "the package")
	if err != nil {
		return nil, err
	}
	out := make([]*eval.Array, len(ins))
	for _, s := range ins {
		if s.Index >= len(out) {
			return nil, fmt.Errorf("input stream %d of %d", s.Index, len(out))
		}
		a, err := npy.ReadFile(files[s.Index])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", inputLabel(names, s.Index), err)
		}
		shape := make([]int, len(s.Shape))
		for i, d := range s.Shape {
			shape[i] = int(d)
		}
		if s.Text {
			// Text the host parses into the stream's numbers (check.Execute).
			strs, err := a.Strings()
			if err != nil || !slices.Equal(a.Shape, shape) {
				return nil, fmt.Errorf("%s (%s) is %v, but the stream takes text of shape %v (a NumPy str array)", inputLabel(names, s.Index), files[s.Index], a, s.Shape)
			}
			if out[s.Index], err = eval.NewStrings(shape, strs); err != nil {
				return nil, err
			}
			continue
		}
		if a.DType != reference.DTypeFor(s.Elem) || !slices.Equal(a.Shape, shape) {
			return nil, fmt.Errorf("%s (%s) is %v, but the stream takes %v %v", inputLabel(names, s.Index), files[s.Index], a, s.Elem, s.Shape)
		}
		out[s.Index] = &eval.Array{Shape: shape, Kind: s.Elem, Data: a.Float64s()}
	}
	return out, nil
}

// printCycles prints the cycle table: per superstep, then per
// instruction with the name of what it was compiled from, then
// total_cycles=N. "busiest tile" is the tile with the most work (the
// lowest-numbered of equals; "-" when none had any), "as busy" how many
// tiles had as much, of how many had any: 1,242 of 1,242 is an evenly
// shared step, 1 of 1,472 a straggler.
func printCycles(w io.Writer, pkg *ipupkg.Package, c *device.Cycles) {
	tile := func(l device.TileLoad) string {
		if l.Tile < 0 {
			return "-"
		}
		return strconv.Itoa(l.Tile)
	}
	asBusy := func(l device.TileLoad) string {
		if l.Tile < 0 {
			return "-"
		}
		return humanize.Comma(int64(l.AtMax)) + " of " + humanize.Comma(int64(l.Working))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "superstep\tcompute\tsync\texchange\tbusiest tile\tas busy\t")
	for _, s := range c.Supersteps {
		fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%s\t%s\t\n", s.Superstep, s.Compute, s.Sync, s.Exchange, tile(s.Busy), asBusy(s.Busy))
	}
	tw.Flush()
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "instruction\top\tsuperstep\tcycles\tbusiest tile\tas busy\tsource")
	for _, o := range c.Ops {
		fmt.Fprintf(tw, "%11d\t%8s\t%9d\t%6d\t%12s\t%s\t%s\n", o.Instruction, o.Op, o.Superstep, o.Cycles, tile(o.Busy), asBusy(o.Busy), pkg.OriginName(o.Instruction))
	}
	tw.Flush()
	if st := c.Streamed; st.Loads > 0 {
		fmt.Fprintf(w, "streamed_loads=%d streamed_bytes=%d waited_cycles=%d hidden_cycles=%d\n", st.Loads, st.Bytes, st.Waited, st.Hidden)
	}
	if c.ChipLinks.Phases > 0 {
		fmt.Fprintln(w, chipLinksLine(c.ChipLinks))
	}
	fmt.Fprintf(w, "total_cycles=%d\n", c.Total)
}

// checkRun compares what the device delivered and every checkpoint with
// the reference interpreter (execution/check): every element, end to end and
// on the device's own inputs, each against its derived bound; it prints
// numericalTest=PASS|FAIL, and on FAIL why, naming the value, the op and
// its place, the element and the bound.
func checkRun(o *options, p *program, pkg *ipupkg.Package, inputs []*eval.Array, dev check.Device, log *slog.Logger, stdout, stderr io.Writer) error {
	rep, err := check.Run(p.fn, pkg, inputs, dev, check.Options{SampleLimit: o.sampleLimit, Atol: o.checkAtol, Rtol: o.rtol,
		MemoryLimit: o.memoryLimit, Source: o.checkAgainst})
	if err != nil {
		return err
	}
	for _, v := range rep.Values {
		log.Info("checked", "value", v.What, "check", v.Check, "elements", v.Elements, "maximumAbsoluteError", v.MaxAbsError, "maximumErrorToBound", v.MaxRatio)
	}
	fmt.Fprintln(stdout, rep.Line())
	for _, s := range rep.NonFinite {
		fmt.Fprintf(stderr, "ipu-run: note: %s (the bounds downstream of them are infinite; a NaN passes where the reference has NaN)\n", s)
	}
	if rep.Pass() {
		return nil
	}
	for _, line := range rep.Explain() {
		fmt.Fprintf(stderr, "ipu-run: %s\n", line)
	}
	return fmt.Errorf("numericalTest=FAIL")
}

// chipLinksLine is what a program spanning chips exchanged between them:
// the phases that crossed, their bytes, the cycles they waited on the links
// beyond the tiles' own exchange, and the syncs across chips beyond the
// chip's own.
func chipLinksLine(l device.ChipLinks) string {
	return fmt.Sprintf("chip_link_phases=%d chip_link_bytes=%d link_waited_cycles=%d chip_sync_cycles=%d", l.Phases, l.Bytes, l.Waited, l.SyncCycles)
}
