package optmain

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/passes"
)

// passFlags are mlir-opt's pass-manager flags, mapped onto package passes:
// every tool with passes has them.
type passFlags struct {
	registry *passes.Registry

	pipelineText     string
	disableThreading bool
	verifyEach       bool
	printBefore      []string
	printAfter       []string
	printBeforeAll   bool
	printAfterAll    bool
	printAfterChange bool
	printAfterFail   bool
	printModuleScope bool
	printTreeDir     string
	timing           bool
	timingDisplay    string
	statistics       bool
	statsDisplay     string
	dumpPipeline     bool
	listPasses       bool
	crashRepro       string
	localRepro       bool
	runRepro         bool

	// passFlags holds the value of each `--<pass-name>[=options]` flag;
	// passOrder is the order they were given in, which is pipeline order.
	passFlags map[string]*string
	passOrder []passFlag
}

type passFlag struct{ name, options string }

// passFlagGiven is the value of a pass flag given without options.
const passFlagGiven = "{}"

func newPassFlags(r *passes.Registry) *passFlags {
	return &passFlags{registry: r, passFlags: map[string]*string{}}
}

func (e *passFlags) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&e.pipelineText, "pass-pipeline", "", "A textual description of a pass pipeline to run, e.g. 'builtin.module(func.func(canonicalize,cse))'")
	fs.BoolVar(&e.disableThreading, "mlir-disable-threading", false, "Disable multi-threading within MLIR, overrides any further call to MLIRContext::enableMultiThreading()")
	fs.BoolVar(&e.verifyEach, "verify-each", true, "Run the verifier after each transformation pass")
	fs.StringSliceVar(&e.printBefore, "mlir-print-ir-before", nil, "Print IR before specified passes")
	fs.StringSliceVar(&e.printAfter, "mlir-print-ir-after", nil, "Print IR after specified passes")
	fs.BoolVar(&e.printBeforeAll, "mlir-print-ir-before-all", false, "Print IR before each pass")
	fs.BoolVar(&e.printAfterAll, "mlir-print-ir-after-all", false, "Print IR after each pass")
	fs.BoolVar(&e.printAfterChange, "mlir-print-ir-after-change", false, "When printing the IR after a pass, only print if the IR changed")
	fs.BoolVar(&e.printAfterFail, "mlir-print-ir-after-failure", false, "When printing the IR after a pass, only print if the pass failed")
	fs.BoolVar(&e.printModuleScope, "mlir-print-ir-module-scope", false, "When printing IR for print-ir-[before|after]{-all} always print the top-level operation")
	fs.StringVar(&e.printTreeDir, "mlir-print-ir-tree-dir", "", "When printing the IR before/after a pass, print file tree rooted at this directory")
	fs.BoolVar(&e.timing, "mlir-timing", false, "Display execution times")
	fs.StringVar(&e.timingDisplay, "mlir-timing-display", "tree", "Display method for timing data (list or tree)")
	fs.BoolVar(&e.statistics, "mlir-pass-statistics", false, "Display the statistics of each pass")
	fs.StringVar(&e.statsDisplay, "mlir-pass-statistics-display", "pipeline", "Display method for pass statistics (list or pipeline)")
	fs.BoolVar(&e.dumpPipeline, "dump-pass-pipeline", false, "Print the pipeline that will be run")
	fs.BoolVar(&e.listPasses, "list-passes", false, "Print the registered passes with their options and exit")
	fs.StringVar(&e.crashRepro, "mlir-pass-pipeline-crash-reproducer", "", "Generate a .mlir reproducer file at the given output path if the pass manager crashes or fails")
	fs.BoolVar(&e.localRepro, "mlir-pass-pipeline-local-reproducer", false, "When generating a crash reproducer, attempt to generate a reproducer with the smallest pipeline")
	fs.BoolVar(&e.runRepro, "run-reproducer", false, "Run the pipeline stored in the reproducer")
	for _, info := range e.registry.Passes() {
		v := new(string)
		e.passFlags[info.Name] = v
		fs.StringVar(v, info.Name, "", info.Summary+" (`options` as in a pipeline, e.g. --"+info.Name+"='a=1 b=2'; see --list-passes)")
		fs.Lookup(info.Name).NoOptDefVal = passFlagGiven
	}
}

// early handles the listing flags and records the order of pass flags.
func (e *passFlags) early(args []string, stdout io.Writer) (bool, int, error) {
	if e.listPasses {
		fmt.Fprintln(stdout, "Available Passes:")
		if err := e.registry.WriteList(stdout); err != nil {
			return true, 1, err
		}
		return true, 0, nil
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		name, opts, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if !strings.HasPrefix(a, "--") || e.passFlags[name] == nil {
			continue
		}
		e.passOrder = append(e.passOrder, passFlag{name, strings.Trim(opts, "{}")})
	}
	if len(e.passOrder) > 0 && e.pipelineText != "" {
		return true, 1, fmt.Errorf("'--pass-pipeline' option can't be used with individual pass options")
	}
	// A misspelt pass name would print nothing, silently (mlir-opt refuses it).
	if err := e.registry.CheckPassNames("mlir-print-ir-before", e.printBefore); err != nil {
		return true, 1, err
	}
	if err := e.registry.CheckPassNames("mlir-print-ir-after", e.printAfter); err != nil {
		return true, 1, err
	}
	return false, 0, nil
}

// pipeline builds the pipeline the flags describe (nil when none).
func (e *passFlags) pipeline() (*passes.OpPassManager, error) {
	if e.pipelineText != "" {
		return e.registry.ParsePipeline(e.pipelineText)
	}
	if len(e.passOrder) == 0 {
		return nil, nil
	}
	var parts []string
	for _, p := range e.passOrder {
		if p.options != "" {
			parts = append(parts, p.name+"{"+p.options+"}")
		} else {
			parts = append(parts, p.name)
		}
	}
	// Individual pass flags run on the top-level module, each nesting
	// as its anchor requires (mlir-opt's behaviour).
	return e.registry.ParseFlatPipeline(ir.ModuleOpName, strings.Join(parts, ","))
}

func (e *passFlags) options(in *Input, timing *passes.Timing) passes.Options {
	o := passes.DefaultOptions()
	o.DisableThreading = e.disableThreading
	o.VerifyEach = e.verifyEach
	o.PrintIR = passes.IRPrintOptions{
		Before: e.printBefore, After: e.printAfter,
		BeforeAll: e.printBeforeAll, AfterAll: e.printAfterAll,
		AfterChange: e.printAfterChange, AfterFailure: e.printAfterFail,
		ModuleScope: e.printModuleScope, TreeDir: e.printTreeDir,
	}
	o.IROutput = in.Stderr
	// The printer flags rather than a print function: the pass manager then
	// prints IR dumps from each goroutine without serialising the pipeline.
	o.Printing = in.Printing
	o.CrashReproducer = e.crashRepro
	o.LocalReproducer = e.localRepro
	o.Env = in.Env
	o.Logger = in.Logger
	// The chunk's timer: the pipeline's timers go in the same tree as
	// `Parser` and `Output`.
	o.Timing = timing
	return o
}

// newTiming returns a fresh timer for one chunk under --mlir-timing, nil
// otherwise: mlir-opt-19 reports each chunk of a split input on its own.
func (e *passFlags) newTiming() *passes.Timing {
	if !e.timing {
		return nil
	}
	return passes.NewTiming()
}

// reportTiming writes a chunk's execution time report.
func (e *passFlags) reportTiming(t *passes.Timing, w io.Writer) {
	display := passes.TimingTree
	if e.timingDisplay == "list" {
		display = passes.TimingList
	}
	t.Report(w, display)
}

// run runs the pipeline the flags describe on module, or with
// --run-reproducer the one repro holds (read from the input's
// mlir_reproducer resources). verified reports that the module was
// verified after the last pass (or that no pass ran).
func (e *passFlags) run(ctx *ir.Context, module *ir.Operation, in *Input, repro *passes.ReproducerConfig, timing *passes.Timing, onPass func(string)) (verified bool, err error) {
	opts := e.options(in, timing)
	opts.BeforePass = onPass
	var pm *passes.OpPassManager
	if e.runRepro {
		// mlir-opt-19 runs nothing, successfully, when the input has no
		// reproducer; a replay that checks nothing is better refused.
		if !repro.Found {
			return false, fmt.Errorf("--run-reproducer: the input has no external_resources entry mlir_reproducer with a pipeline")
		}
		repro.Apply(&opts)
		pm, err = e.registry.ParsePipeline(repro.Pipeline)
	} else {
		pm, err = e.pipeline()
	}
	if err != nil {
		return false, err
	}
	if pm == nil {
		return true, nil
	}
	if e.dumpPipeline {
		if err := pm.Dump(in.Stderr); err != nil {
			return false, err
		}
	}
	manager := passes.NewPassManager(ctx, pm, opts)
	runErr := manager.Run(module)
	if e.statistics {
		display := passes.StatisticsPipeline
		if e.statsDisplay == "list" {
			display = passes.StatisticsList
		}
		manager.WriteStatistics(in.Stderr, display)
	}
	if runErr != nil {
		if _, ok := runErr.(passes.Diagnostics); ok {
			emitError(ctx, runErr)
			return false, ErrReported
		}
		return false, runErr
	}
	return opts.VerifyEach, nil
}
