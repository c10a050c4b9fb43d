// Command ipu-run runs a function of an .ipuir file on inputs and writes or
// summarises its outputs.
//
//	ipu-run --reference FILE.ipuir --function NAME --inputs a.npy,b.npy --outputs out0.npy
//	ipu-run --reference FILE.ipuir --function NAME --generate gaussian:seed=1
//	ipu-run --reference FILE.ipuir --generate gaussian:seed=1 --compare expected.npy --atol 2e-3
//	ipu-run MODEL.ipupkg --generate gaussian:seed=1 --check --report-cycles
//
// FILE may be - for standard input.
//
// A run has three parts: load the module and prepare the inputs (common to
// every mode), execute in the chosen mode, and deliver the outputs (write
// .npy files, print a summary, or compare with expected outputs). Today the one mode is --reference, the
// host reference interpreter; a device mode is another implementation of
// the mode interface in its own file, chosen in selectMode.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/dustin/go-humanize"
	"github.com/spf13/pflag"

	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/execution/reference"
	"github.com/ipuir/ipuir/internal/cli"
	"github.com/ipuir/ipuir/runtime/ipupkg"
	"github.com/ipuir/ipuir/tools/toolkit"
)

// options are the command line.
type options struct {
	file     string
	function string
	inputs   []string
	// inputFiles are --inputs read: by name or by position.
	inputFiles []inputFile
	// outputNames name the outputs in what is printed (the results'
	// ipu.name, the package's output streams'; "" for none).
	outputNames []string
	outputs     []string
	generate    string
	reference   bool
	print       bool
	compare     []string
	atol        float64
	rtol        float64
	verbose     bool

	memoryLimit int64 // --memory-limit in bytes

	// The run's files: every output is checked against the inputs and
	// the other outputs before any work, and put in place only when the
	// whole run succeeds (toolkit.Outputs).
	outs       *toolkit.Outputs
	outFiles   []*toolkit.Output // one per --outputs file
	reportFile *toolkit.Output   // --report
	dumpValues string            // --dump-values
	traceFile  *toolkit.Output   // --trace

	// The device mode (a package as the input).
	device       string
	check        bool
	checkAgainst string
	checkAtol    float64 // --atol as --check takes it (0 unless given)
	sampleLimit  int
	reportCycles bool
	noWait       bool
	lockDir      string
	report       string
	trace        string
	microBatches int // --micro-batches: a pod package's (0: the package's own count)
}

// mode executes a loaded function on inputs.
type mode interface {
	// Name is how messages refer to the mode.
	Name() string
	// Run executes fn on inputs and returns its outputs.
	Run(p *program, inputs []*eval.Array) ([]*eval.Array, error)
}

func main() {
	toolkit.RemoveOutputsOnSignal()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stdout, stderr)
	if err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "ipu-run: %v\n", err)
		return 2
	}
	if err := execute(o, stdout, stderr); err != nil {
		if !errors.Is(err, toolkit.ErrReported) {
			fmt.Fprintf(stderr, "ipu-run: %v\n", err)
		}
		return 1
	}
	return 0
}

func parseFlags(args []string, stdout, stderr io.Writer) (*options, error) {
	o := &options{}
	fs := pflag.NewFlagSet("ipu-run", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&o.reference, "reference", false, "run on the host reference interpreter")
	fs.StringVar(&o.function, "function", "", "the function to run (default: the module's only function)")
	fs.StringSliceVar(&o.inputs, "inputs", nil, "comma-separated .npy files, one per function argument in order, or by name: x=x.npy,mask=mask.npy (the arguments' ipu.name, the package's stream names: an ONNX model's input names)")
	fs.StringSliceVar(&o.outputs, "outputs", nil, "comma-separated .npy files to write, one per result")
	fs.StringVar(&o.generate, "generate", "", "generate the inputs: gaussian:seed=N[,mean=M][,stddev=S] or uniform:seed=N[,lo=L][,hi=H]; weights (right operands of matmuls) are scaled by 1/sqrt(fan-in) unless scale=none")
	fs.BoolVar(&o.print, "print", false, "print every output value (for small outputs)")
	fs.StringSliceVar(&o.compare, "compare", nil, "comma-separated .npy files of expected outputs; report the maximum absolute error of each")
	fs.Float64Var(&o.atol, "atol", 0, "with --compare, the largest absolute error that passes (2e-3 unless given); with --check, slack added to every element's derived bound (0 unless given)")
	memoryLimit := fs.String("memory-limit", humanize.IBytes(reference.DefaultMemoryLimit), "the most memory the reference interpreter may hold in values (inputs and live results, 8 bytes an element), e.g. 512MiB or 16GiB")
	fs.BoolVarP(&o.verbose, "verbose", "v", false, "log each phase (load, inputs, run, outputs) with its time to stderr; on a device, every step of the session")
	fs.StringVar(&o.device, "device", "sim", "the device a package runs on: sim (the simulated device of the package's target)")
	fs.Float64Var(&o.rtol, "rtol", 0, "with --check, slack per unit of the reference value added to every element's derived bound")
	fs.BoolVar(&o.check, "check", false, "compare every element of every output and checkpoint with the reference interpreter on the same inputs, end to end and on the device's own inputs, each against its derived error bound (docs/device.md), and print numericalTest=PASS|FAIL (FAIL exits 1) with outputs= and checkpoints= (how many were compared), compared= (elements, both checks), unboundedEndToEnd= (elements whose end-to-end bound is infinite, which only the local check bounds), maximumAbsoluteError= (end to end) and maximumErrorToBound= (the largest error over its bound; 1 is at the bound)")
	fs.StringVar(&o.checkAgainst, "check-against", "", "with --check, take the reference from this .ipuir file (the source the package was compiled from) instead of the package's own copy")
	fs.IntVar(&o.sampleLimit, "sample-limit", 0, "with --check, compare at most this many evenly spaced elements of each output and checkpoint (0: every element)")
	fs.BoolVar(&o.reportCycles, "report-cycles", false, "print the simulated cycles per superstep (compute, sync, exchange) and per instruction (with the name of what it was compiled from), then total_cycles=N; 'busiest tile' is the tile with the most work of the row, 'as busy' how many tiles had as much of how many had any (1,242 of 1,242: an evenly shared step; 1 of 1,472: a straggler)")
	fs.StringVar(&o.dumpValues, "dump-values", "", "After a run on a device, write every value it read back into this new folder: each checkpoint (an op's value, named as the source names it: an imported model's ONNX node) and each output as a .npy file, listed in program order in index.json (python/ipuir/compare.py compares them with PyTorch's)")
	fs.StringVar(&o.report, "report", "", "After a run on a device, write the HTML report of the package with the run's cycles to this file")
	fs.StringVar(&o.trace, "trace", "", "After a run on a device, write its cycles to this file in the Chrome trace event format (JSON), which Perfetto and chrome://tracing open: a track per superstep kind and one per busiest tile, each instruction named after its source op")
	fs.IntVar(&o.microBatches, "micro-batches", 0, "for a pod package (compiled for several chips), how many micro-batches to feed through its pipeline (0: the package's own count, ipu-translate --micro-batches)")
	fs.BoolVar(&o.noWait, "no-wait", false, "fail at once if another runner holds the device, instead of waiting")
	fs.StringVar(&o.lockDir, "lock-dir", "", "the folder of the devices' lock files, which must be yours (default: $XDG_RUNTIME_DIR/ipuir, else ipuir-UID in the temporary folder, made 0700)")
	help := fs.BoolP("help", "h", false, "show this help")
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		if s := cli.Suggest(fs, strings.TrimPrefix(err.Error(), "unknown flag: ")); s != "" && strings.HasPrefix(err.Error(), "unknown flag: ") {
			err = fmt.Errorf("%v (did you mean '%s'?)", err, s)
		}
		return nil, err
	}
	if *help {
		fmt.Fprintln(stdout, "usage: ipu-run --reference FILE.ipuir [--function NAME] (--inputs a.npy,... | --generate SPEC) [--outputs out.npy,...]\n       ipu-run MODEL.ipupkg (--inputs a.npy,... | --generate SPEC) [--outputs out.npy,...] [--check] [--report-cycles] [--no-wait]\n       ipu-run MODEL.ipupod (a pod package) ... [--micro-batches N]\n\noptions:")
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return nil, pflag.ErrHelp
	}
	switch fs.NArg() {
	case 1:
		o.file = fs.Arg(0)
	case 0:
		return nil, fmt.Errorf("no input file (usage: ipu-run --reference FILE.ipuir ...)")
	default:
		return nil, fmt.Errorf("one input file expected, got %s", strings.Join(fs.Args(), " "))
	}
	limit, err := humanize.ParseBytes(*memoryLimit)
	if err != nil || limit == 0 || limit > 1<<62 {
		return nil, fmt.Errorf("--memory-limit=%s: expected a size such as 512MiB or 16GiB", *memoryLimit)
	}
	o.memoryLimit = int64(limit)
	if o.microBatches < 0 {
		return nil, fmt.Errorf("--micro-batches must be 1 or more (0: the package's count)")
	}
	if o.sampleLimit < 0 {
		return nil, fmt.Errorf("--sample-limit must be 0 (every element) or more")
	}
	o.checkAtol = o.atol
	if !fs.Changed("atol") {
		o.atol = 2e-3
	}
	if o.checkAgainst != "" && !o.check {
		return nil, fmt.Errorf("--check-against needs --check")
	}
	if o.rtol < 0 || o.rtol != o.rtol {
		return nil, fmt.Errorf("--rtol must be a non-negative number")
	}
	if o.atol < 0 || o.atol != o.atol {
		return nil, fmt.Errorf("--atol must be a non-negative number")
	}
	if len(o.inputs) > 0 && o.generate != "" {
		return nil, fmt.Errorf("give either --inputs or --generate, not both")
	}
	if o.inputFiles, err = parseInputs(o.inputs); err != nil {
		return nil, err
	}
	return o, nil
}

// selectMode returns the execution mode the flags choose.
func selectMode(o *options) (mode, error) {
	if o.reference {
		return referenceMode{memoryLimit: o.memoryLimit}, nil
	}
	return nil, fmt.Errorf("%s: %s", o.file, notAPackage(o.file))
}

// notAPackage says why file, which is no package, cannot run on a device,
// and what to do: it is missing, a folder, a device or pipe, empty, cut
// short, an ONNX model or IR text to compile first.
func notAPackage(file string) string {
	st, err := os.Stat(file)
	switch {
	case err != nil:
		return fmt.Sprintf("cannot read it: %v", errors.Unwrap(err))
	case st.IsDir():
		return "is a folder, not an application package"
	case !st.Mode().IsRegular():
		return "is not a regular file (a device, pipe or socket), so not an application package"
	case st.Size() == 0:
		return "is empty, not an application package"
	}
	head := make([]byte, 64)
	f, err := os.Open(file)
	if err != nil {
		return fmt.Sprintf("cannot read it: %v", errors.Unwrap(err))
	}
	n, _ := io.ReadFull(f, head)
	f.Close()
	head = head[:n]
	for _, m := range []string{ipupkg.Magic, ipupkg.PodMagic} {
		if n < len(m) && strings.HasPrefix(m, string(head)) {
			return fmt.Sprintf("is cut short: %d bytes, fewer than an application package's header", n)
		}
	}
	text := strings.TrimSpace(string(head))
	switch {
	case strings.HasSuffix(strings.ToLower(file), ".onnx"):
		return "is an ONNX model: compile it first (ipu-translate --emit-package " + file + " --target=ipu21 -o model.ipupkg), then run the package"
	case strings.HasPrefix(text, "module") || strings.HasPrefix(text, "func.func") || strings.HasPrefix(text, "//") || strings.HasPrefix(text, "\"builtin.module\""):
		return "is IR text, not an application package: pass --reference to run it on the host, or compile it first (ipu-translate --emit-package " + file + " -o model.ipupkg)"
	}
	return "is not an application package (ipu-translate --emit-package writes one) and not IR text for --reference"
}

// execute runs the chosen mode with the run's outputs: committed when it
// succeeds, dropped when it fails.
func execute(o *options, stdout, stderr io.Writer) error {
	if err := registerFiles(o, stdout); err != nil {
		return err
	}
	err := executeMode(o, stdout, stderr)
	if err != nil {
		o.outs.Abort()
		return err
	}
	return o.outs.Commit()
}

// registerFiles records every file the run reads and writes, refusing an
// output that is an input or another output, or that cannot be written
// where it is named, before anything runs.
func registerFiles(o *options, stdout io.Writer) error {
	o.outs = toolkit.NewOutputs(stdout)
	o.outs.Input("the input file", o.file)
	for _, f := range o.inputFiles {
		o.outs.Input("--inputs", f.file)
	}
	for _, f := range o.compare {
		o.outs.Input("--compare", f)
	}
	o.outs.Input("--check-against", o.checkAgainst)
	for _, f := range o.outputs {
		out, err := o.outs.Add("--outputs", f)
		if err != nil {
			return err
		}
		o.outFiles = append(o.outFiles, out)
	}
	var err error
	if o.reportFile, err = o.outs.Add("--report", o.report); err != nil {
		return err
	}
	if o.traceFile, err = o.outs.Add("--trace", o.trace); err != nil {
		return err
	}
	if o.dumpValues != "" {
		return checkDumpDir(o.dumpValues)
	}
	return nil
}

func executeMode(o *options, stdout, stderr io.Writer) error {
	if o.dumpValues != "" && (o.reference || packageKind(o.file) != ipupkg.Magic) {
		return fmt.Errorf("--dump-values applies to a package run on a device (one chip's; a pod package's stages are not dumped yet)")
	}
	if !o.reference {
		switch packageKind(o.file) {
		case ipupkg.Magic:
			if o.microBatches != 0 {
				return fmt.Errorf("--micro-batches applies to a pod package (compiled for several chips); %s is one chip's", o.file)
			}
			return runPackage(o, stdout, stderr)
		case ipupkg.PodMagic:
			return runPod(o, stdout, stderr)
		}
	}
	m, err := selectMode(o)
	if err != nil {
		return err
	}
	log := newPhaseLog(o.verbose, stderr)
	done := log.start("load")
	p, err := load(o.file, o.function, stderr)
	done(err)
	if err != nil {
		return err
	}
	done = log.start("inputs")
	inputs, err := p.inputs(o)
	done(err)
	if err != nil {
		return p.Report(err, stderr)
	}
	done = log.start(m.Name())
	outputs, err := m.Run(p, inputs)
	done(err)
	if err != nil {
		if err := p.Report(err, stderr); errors.Is(err, toolkit.ErrReported) {
			return err
		}
		return fmt.Errorf("%s run: %w", m.Name(), err)
	}
	done = log.start("outputs")
	o.outputNames = p.resultNames()
	err = deliver(o, "@"+p.name, outputs, stdout)
	if err == nil {
		err = compare(o, "@"+p.name, p.Ctx, outputs, stdout)
	}
	done(err)
	return err
}
