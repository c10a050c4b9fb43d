package main

import (
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"text/tabwriter"

	"github.com/ipuir/ipuir/dialects/tensor/eval"
	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/numeric"
	"github.com/ipuir/ipuir/runtime/atomicfile"
	"github.com/ipuir/ipuir/runtime/check"
	"github.com/ipuir/ipuir/runtime/device"
	"github.com/ipuir/ipuir/runtime/ipupkg"
	"github.com/ipuir/ipuir/runtime/npy"
	"github.com/ipuir/ipuir/runtime/reference"
	"github.com/ipuir/ipuir/runtime/sim"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/tools/toolkit"
	"github.com/ipuir/ipuir/translate/htmlreport"
)

// isPackage says whether file is an application package (by its magic).
func isPackage(file string) bool {
	f, err := os.Open(file)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(ipupkg.Magic))
	_, err = io.ReadFull(f, head)
	return err == nil && string(head) == ipupkg.Magic
}

// runPackage runs a package on the device: the reference log's session
// (ownership, attach, initialise, load, host exchange, run), then the
// outputs, the cycle table and, with --check, every checkpoint against the
// reference interpreter on the same inputs.
func runPackage(o *options, stdout, stderr io.Writer) error {
	log := slog.New(slog.DiscardHandler)
	if o.verbose {
		log = slog.New(slog.NewTextHandler(stderr, nil))
	}
	// A progress line on a terminal for the long phases.
	progress := toolkit.NewProgress(stderr, "ipu-run")
	if o.device != "sim" {
		return fmt.Errorf("--device=%s: the devices are: sim", o.device)
	}
	f, err := os.Open(o.file)
	if err != nil {
		return fmt.Errorf("cannot open '%s': %v", o.file, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	log.Info("reading application package", "path", o.file)
	pkg, _, err := ipupkg.ReadFile(f, st.Size())
	f.Close()
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
	outStreams := outputStreams(pkg)
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

	lockDir := o.lockDir
	if lockDir == "" {
		lockDir = os.TempDir()
	}
	release, err := device.Acquire(filepath.Join(lockDir, "ipuir-sim-"+tg.Name+".lock"), !o.noWait, log)
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
	end := progress.Phase("loading the package on " + dev.Name())
	err = dev.Load(pkg)
	end()
	if err != nil {
		return fmt.Errorf("loading %s: %v", o.file, err)
	}
	sess, err := dev.Session()
	if err != nil {
		return err
	}
	for i, a := range inputs {
		if err := sess.Write(i, encode(a)); err != nil {
			return fmt.Errorf("input #%d: %v", i, err)
		}
	}
	end = progress.Phase("running on " + dev.Name())
	err = sess.Run()
	end()
	if err != nil {
		return err
	}
	outputs := make([]*eval.Array, len(outStreams))
	for i, s := range outStreams {
		data, err := sess.Read(i)
		if err != nil {
			return fmt.Errorf("output #%d: %v", i, err)
		}
		if outputs[i], err = decode(data, s.Elem, s.Shape); err != nil {
			return fmt.Errorf("output #%d: %v", i, err)
		}
	}
	summarise(o, outputs, stdout)
	if o.reportCycles {
		printCycles(stdout, pkg, sess.Cycles())
	}
	log.Info("simulated run finished", "total_cycles", sess.Cycles().Total, "seconds", tg.Seconds(sess.Cycles().Total))
	// Outputs are written only once the run (and its check) has
	// succeeded, so a failed check leaves the files as they were.
	var checkErr error
	if o.check {
		endCheck := progress.Phase("checking against the reference interpreter")
		checkErr = checkRun(o, p, pkg, inputs, outputs, sess, log, stdout, stderr)
		endCheck()
	}
	if o.report != "" {
		d, err := htmlreport.Build(filepath.Base(o.file), pkg, tg, sess.Cycles())
		if err == nil {
			err = atomicfile.WriteFile(o.report, func(w io.Writer) error { return htmlreport.Write(w, d, nil) })
		}
		if err != nil {
			return fmt.Errorf("--report: %v", err)
		}
	}
	if checkErr != nil {
		if len(o.outputs) > 0 {
			fmt.Fprintf(stderr, "ipu-run: the check failed: --outputs left as they were\n")
		}
		return checkErr
	}
	return writeOutputs(o, "the package", outputs)
}

// outputStreams are the package's output streams in order (the reader
// checked that they are numbered 0 to n-1, each once).
func outputStreams(pkg *ipupkg.Package) []ipupkg.Stream {
	var out []ipupkg.Stream
	for _, s := range pkg.Streams {
		if s.Output {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b ipupkg.Stream) int { return a.Index - b.Index })
	return out
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
	if len(o.inputs) != len(ins) {
		return nil, fmt.Errorf("the package takes %s, but --inputs names %s", count(len(ins), "input"), count(len(o.inputs), "file"))
	}
	out := make([]*eval.Array, len(ins))
	for _, s := range ins {
		if s.Index >= len(out) {
			return nil, fmt.Errorf("input stream %d of %d", s.Index, len(out))
		}
		a, err := npy.ReadFile(o.inputs[s.Index])
		if err != nil {
			return nil, fmt.Errorf("input #%d: %w", s.Index, err)
		}
		shape := make([]int, len(s.Shape))
		for i, d := range s.Shape {
			shape[i] = int(d)
		}
		if a.DType != reference.DTypeFor(s.Elem) || !slices.Equal(a.Shape, shape) {
			return nil, fmt.Errorf("input #%d (%s) is %v, but the stream takes %v %v", s.Index, o.inputs[s.Index], a, s.Elem, s.Shape)
		}
		out[s.Index] = &eval.Array{Shape: shape, Kind: s.Elem, Data: a.Float64s()}
	}
	return out, nil
}

// encode is an array's elements, little endian, row major.
func encode(a *eval.Array) []byte {
	b := make([]byte, 0, len(a.Data)*a.Kind.Bytes())
	for _, v := range a.Data {
		b = appendElem(b, a.Kind, v)
	}
	return b
}

func appendElem(b []byte, et elem.Type, v float64) []byte {
	switch et {
	case elem.F16:
		h := numeric.F16FromFloat64(v)
		return append(b, byte(h), byte(h>>8))
	case elem.BF16:
		h := numeric.BF16FromFloat64(v)
		return append(b, byte(h), byte(h>>8))
	case elem.F32:
		u := math.Float32bits(float32(v))
		return append(b, byte(u), byte(u>>8), byte(u>>16), byte(u>>24))
	default:
		u := math.Float64bits(v)
		for k := range 8 {
			b = append(b, byte(u>>(8*k)))
		}
		return b
	}
}

func decode(data []byte, et elem.Type, shape []int64) (*eval.Array, error) {
	dims := make([]int, len(shape))
	for i, d := range shape {
		dims[i] = int(d)
	}
	a, err := eval.New(dims, et)
	if err != nil {
		return nil, err
	}
	n := et.Bytes()
	if len(data) != len(a.Data)*n {
		return nil, fmt.Errorf("%d bytes for %d elements of %v", len(data), len(a.Data), et)
	}
	for i := range a.Data {
		b := data[i*n:]
		switch et {
		case elem.F16:
			a.Data[i] = numeric.F16ToFloat64(uint16(b[0]) | uint16(b[1])<<8)
		case elem.BF16:
			a.Data[i] = numeric.BF16ToFloat64(uint16(b[0]) | uint16(b[1])<<8)
		case elem.F32:
			a.Data[i] = float64(math.Float32frombits(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24))
		default:
			var u uint64
			for k := range 8 {
				u |= uint64(b[k]) << (8 * k)
			}
			a.Data[i] = math.Float64frombits(u)
		}
	}
	return a, nil
}

// printCycles prints the cycle table: per superstep, then per op, then
// total_cycles=N.
func printCycles(w io.Writer, pkg *ipupkg.Package, c *device.Cycles) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "superstep\tcompute\tsync\texchange\tbusiest tile\t")
	for _, s := range c.Supersteps {
		fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%d\t\n", s.Superstep, s.Compute, s.Sync, s.Exchange, s.BusiestTile)
	}
	tw.Flush()
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "instruction\top\tsuperstep\tcycles\tbusiest tile\t")
	for _, o := range c.Ops {
		fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%d\t\n", o.Instruction, o.Op, o.Superstep, o.Cycles, o.BusiestTile)
	}
	tw.Flush()
	fmt.Fprintf(w, "total_cycles=%d\n", c.Total)
}

// checkRun compares what the device delivered and every checkpoint with
// the reference interpreter (runtime/check): every element, end to end and
// on the device's own inputs, each against its derived bound; it prints
// numericalTest=PASS|FAIL, and on FAIL why, naming the value, the op and
// its place, the element and the bound.
func checkRun(o *options, p *program, pkg *ipupkg.Package, inputs, outputs []*eval.Array, sess device.Session, log *slog.Logger, stdout, stderr io.Writer) error {
	dev := check.Device{Outputs: outputs, Checkpoints: make([]*eval.Array, len(pkg.Checkpoints))}
	for i, c := range pkg.Checkpoints {
		data, err := sess.Checkpoint(i)
		if err != nil {
			continue // the check says it was not taken
		}
		buf := pkg.Buffers[c.Buffer]
		if dev.Checkpoints[i], err = decode(data, buf.Elem, buf.Shape); err != nil {
			return fmt.Errorf("checkpoint %d (%s): %v", i, c.Name, err)
		}
	}
	source := ""
	if o.checkAgainst != "" {
		source = o.checkAgainst
	}
	rep, err := check.Run(p.fn, pkg, inputs, dev, check.Options{SampleLimit: o.sampleLimit, Atol: o.checkAtol, Rtol: o.rtol,
		MemoryLimit: o.memoryLimit, Source: source})
	if err != nil {
		return err
	}
	for _, v := range rep.Values {
		log.Info("checked", "value", v.What, "check", v.Check, "elements", v.Elements, "maximumAbsoluteError", v.MaxAbsError, "maximumErrorToBound", v.MaxRatio)
	}
	fmt.Fprintln(stdout, rep.Line())
	if rep.Pass() {
		return nil
	}
	for _, line := range rep.Explain() {
		fmt.Fprintf(stderr, "ipu-run: %s\n", line)
	}
	return fmt.Errorf("numericalTest=FAIL")
}
