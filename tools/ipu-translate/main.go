// Command ipu-translate translates ipuir programs to and from other
// formats, as mlir-translate does for MLIR:
//
//	ipu-translate --exchange-to-json FILE.ipuir -o OUT.json
//	ipu-translate --emit-package FILE.ipuir -o MODEL.ipupkg
//	ipu-translate --dump-package MODEL.ipupkg
//
// --exchange-to-json writes the exchange phases of a program at the
// exchange level or later as JSON (exchange.JSON), the form users' own
// tools read. --emit-package writes the application package
// (runtime/ipupkg) of a tile-asm program, or of a tensor-level module,
// which it first compiles with lower-to-tile-asm, keeping its text as the
// package's source. --dump-package validates a package and prints its
// header, sections, tiles, host streams, exchange tables and checkpoints.
// It is built on
// the same driver as ipu-opt (package optmain): the same flags for input,
// output, diagnostics and logs, --split-input-file, and a failure that
// leaves an existing output file as it was.
package main

import (
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/dustin/go-humanize"
	"github.com/spf13/pflag"

	"github.com/ipuir/ipuir/internal/nearest"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/registry"
	"github.com/ipuir/ipuir/runtime/ipupkg"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/target/irtarget"
	"github.com/ipuir/ipuir/tools/optmain"
	"github.com/ipuir/ipuir/tools/targetflag"
	"github.com/ipuir/ipuir/tools/toolkit"
	"github.com/ipuir/ipuir/translate/exchangejson"
	"github.com/ipuir/ipuir/translate/onnximport"
	"github.com/ipuir/ipuir/translate/pkgemit"
)

// Version is the tool's version.
const Version = "0.1.0"

func main() {
	toolkit.RemoveOutputsOnSignal()
	os.Exit(newTool().Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func newTool() *optmain.Tool {
	return &optmain.Tool{
		Name:       "ipu-translate",
		Version:    Version,
		Overview:   "translation driver for ipuir: exchange phases to JSON, application packages",
		Dialects:   registry.RegisterDialects,
		Env:        irtarget.EnvOfModule,
		Extensions: []optmain.Extension{targetflag.New(), &translations{}},
	}
}

// translations are the tool's output formats, one flag each.
type translations struct {
	exchangeToJSON bool
	emitPackage    bool
	dumpPackage    string
	importONNX     string
	weightsAsArgs  bool
	memoryLimit    string
	inputShapes    []string
	inputValues    []string
	f64            string
	args           []string // the command line, for flags other extensions own
	emitReport     string
	compare        string
	trace          string
	pod            podOptions
	stage          int
	tuning         string
	partials       string
	partialsBudget float64
	cache          cacheOptions
	fs             *pflag.FlagSet
	log            *slog.Logger
}

func (t *translations) SetLogger(l *slog.Logger) { t.log = l }

func (t *translations) AddFlags(fs *pflag.FlagSet) {
	t.fs = fs
	t.cache.addFlags(fs)
	fs.BoolVar(&t.exchangeToJSON, "exchange-to-json", false,
		`Write the exchange phases as JSON: {"phases": [{"phase": N, "transfers": [{"id", "src", "dst", "words"}], "schedule": {"horizon", "segments": [[id, start, words]]}}]}`)
	fs.BoolVar(&t.emitPackage, "emit-package", false,
		"Write the application package of a tile-asm program, or of a tensor-level module with ipu.target (compiled with lower-to-tile-asm first)")
	fs.StringVar(&t.pod.balance, "stage-balance", "cycles", "With --emit-package for a target of several chips, what the cut into pipeline stages balances: cycles (the cost model's, the default) or bytes (weights, PopART's automatic sharding)")
	fs.IntVar(&t.pod.stageChips, "stage-chips", 0, "With --emit-package for a target of several chips, how many chips each pipeline stage spans, as one program over their tiles (default: one, or the fewest with which every stage's weights fit)")
	fs.IntVar(&t.pod.phases, "phases", 0, "With --emit-package on one chip, cut the model into N phases run one after the other, each phase's weights streamed in from the chip's streaming memory before it (phased execution; writes a pod package, docs/pods.md). Without it, a model that does not fit tile memory as one program is compiled in the fewest phases, 2 to 4, that fit")
	fs.StringVar(&t.tuning, "tuning", "", "With --emit-package, compile with the options of the tuning record `FILE.json` that ipu-tune wrote for this program and target")
	fs.StringVar(&t.partials, "partials", "", "With --emit-package, the type f16 matmuls keep their partial sums in (the matmul-partials pass): f32 (PopLibs' default), f16 (twice the AMP's rate, one f16 rounding per 16 products, which the check's bounds then allow), or auto (f16 where that rounding stays within --partials-budget)")
	fs.Float64Var(&t.partialsBudget, "partials-budget", 1e-3, "With --partials=auto, the largest relative error (to the sum of the products' magnitudes) f16 partials may add to a matmul")
	fs.IntVar(&t.pod.microBatches, "micro-batches", 0, "With --emit-package for a target of several chips or in phases, how many micro-batches a run feeds by default (ipu-run --micro-batches overrides it) (default 16; 1 in the phases ipu-translate chooses for a model that does not fit as one program, which runs the batch it was given)")
	fs.StringVar(&t.dumpPackage, "dump-package", "", "Validate the package `MODEL.ipupkg` and print its header, sections, tiles, host streams and exchange tables")
	fs.StringVar(&t.importONNX, "import-onnx", "", "Import the ONNX model `MODEL.onnx` as a tensor-level module (with -o, and --target for its ipu.target)")
	fs.StringVar(&t.emitReport, "emit-report", "", "Write the HTML report of the package `MODEL.ipupkg` (memory heat map, liveness, exchange, BSP trace with simulated cycles) to -o")
	fs.StringVar(&t.compare, "compare", "", "With --emit-report, show the package `OTHER.ipupkg` beside it")
	fs.IntVar(&t.stage, "stage", -1, "With --emit-report of a pod package, the pipeline stage whose package the views show (default: the slowest)")
	fs.StringVar(&t.trace, "trace", "", "With --emit-report, also write the run's cycles to `FILE.json` in the Chrome trace event format, which Perfetto and chrome://tracing open (as ipu-run --trace does)")
	fs.BoolVar(&t.weightsAsArgs, "weights-as-args", false, "With --import-onnx, make the initializers function arguments instead of constants")
	fs.StringVar(&t.memoryLimit, "memory-limit", "4GiB", "With --import-onnx, the most memory the values folded at import may take (8 bytes an element), e.g. 512MiB or 16GiB")
	fs.StringArrayVar(&t.inputShapes, "input-shape", nil, "With --import-onnx, the shape `NAME=D0,D1,...` of graph input NAME, pinning its free or symbolic dimensions (repeatable, one per input)")
	fs.StringVar(&t.f64, "f64", "", "With --import-onnx and --emit-package, how the model's f64 values are computed (the module's `ipu.f64`): f32, the default (as f32: fast, within f32's range and precision), or binary64 (exactly, in software: hundreds of cycles an element, and no f64 matmul on the AMP)")
	fs.StringArrayVar(&t.inputValues, "input-value", nil, "With --import-onnx, the value `NAME=FILE` (.npy, or a serialized ONNX TensorProto) of graph input NAME, which becomes a constant: for shapes, axes and indices that the graph takes as inputs (repeatable)")
}

// importOptions are the import flags, read and checked: the memory limit
// and the input shapes (the target is the command line's --target).
func (t *translations) importOptions() (onnximport.Options, error) {
	limit, err := humanize.ParseBytes(t.memoryLimit)
	if err != nil || limit == 0 || limit > 1<<62 {
		return onnximport.Options{}, fmt.Errorf("--memory-limit=%s: expected a size such as 512MiB or 16GiB", t.memoryLimit)
	}
	pins, err := parseInputShapes(t.inputShapes)
	if err != nil {
		return onnximport.Options{}, err
	}
	values, err := readInputValues(t.inputValues)
	if err != nil {
		return onnximport.Options{}, err
	}
	return onnximport.Options{WeightsAsArgs: t.weightsAsArgs, MemoryLimit: int64(limit), InputShapes: pins, InputValues: values, F64: t.f64}, nil
}

// TranslateInput imports an ONNX model given where IR is expected, for
// --emit-package (one command from model to package); any other
// translation names the format instead.
func (t *translations) TranslateInput(file string, data []byte) ([]byte, bool, error) {
	model, ok := onnximport.Decode(data)
	if !ok {
		return nil, false, nil
	}
	if !t.emitPackage {
		return nil, false, fmt.Errorf("%s is an ONNX model, not IR text: import it with --import-onnx, or compile it with --emit-package", file)
	}
	opts, err := t.importOptions()
	if err != nil {
		return nil, false, err
	}
	if opts.Target = t.target(); opts.Target == "" {
		return nil, false, fmt.Errorf("--emit-package of the ONNX model %s needs --target (known targets: %s)", file, strings.Join(target.Names(), ", "))
	}
	opts.File, opts.Dir = filepath.Base(file), filepath.Dir(file)
	text, err := onnximport.Import(model, opts)
	if err != nil {
		return nil, false, err
	}
	t.log.Info("imported ONNX model", "path", file, "bytes", len(text))
	return text, true, nil
}

// target is the command line's --target, read again (the target flag's
// extension owns it).
func (t *translations) target() string {
	fs := pflag.NewFlagSet("ipu-translate", pflag.ContinueOnError)
	fs.ParseErrorsAllowlist.UnknownFlags = true
	fs.SetOutput(io.Discard)
	tg := fs.String("target", "", "")
	opts := fs.StringArray("target-option", nil, "")
	_ = fs.Parse(t.args)
	if *tg == "" {
		return ""
	}
	// targetflag has checked the combination in Early, so this succeeds.
	spec, err := target.WithOptions(*tg, *opts)
	if err != nil {
		return *tg
	}
	return spec
}

func (t *translations) Early(args []string, stdout io.Writer) (bool, int, error) {
	t.args = args
	chosen := 0
	for _, on := range []bool{t.exchangeToJSON, t.emitPackage, t.dumpPackage != "", t.importONNX != "", t.emitReport != ""} {
		if on {
			chosen++
		}
	}
	if t.f64 != "" && t.f64 != "f32" && t.f64 != "binary64" {
		return true, 2, fmt.Errorf("--f64=%s: expected f32 (compute f64 as f32) or binary64 (compute binary64 in software)", t.f64)
	}
	if t.f64 != "" && !t.emitPackage && t.importONNX == "" {
		return true, 2, fmt.Errorf("--f64 applies to --import-onnx and --emit-package")
	}
	if t.tuning != "" && !t.emitPackage {
		return true, 2, fmt.Errorf("--tuning applies to --emit-package")
	}
	switch {
	case t.partials != "" && t.partials != "f32" && t.partials != "f16" && t.partials != "auto":
		return true, 2, fmt.Errorf("--partials=%s: expected f32, f16 or auto", t.partials)
	case t.partials != "" && !t.emitPackage:
		return true, 2, fmt.Errorf("--partials applies to --emit-package")
	case !(t.partialsBudget >= 0):
		return true, 2, fmt.Errorf("--partials-budget=%g: expected a relative error of 0 or more", t.partialsBudget)
	}
	if (t.trace != "" || t.compare != "" || t.stage != -1) && t.emitReport == "" {
		return true, 2, fmt.Errorf("--trace, --compare and --stage apply to --emit-report")
	}
	if t.stage < -1 {
		return true, 2, fmt.Errorf("--stage=%d: stages are numbered from 0", t.stage)
	}
	// The pod options are checked where they are given, each message
	// naming the flag the user typed.
	if b := t.pod.balance; b != "cycles" && b != "bytes" {
		return true, 2, fmt.Errorf("--stage-balance=%s: expected cycles (the cost model's, the default) or bytes (weights)%s", b, nearest.Paren(b, []string{"cycles", "bytes"}))
	}
	if m := t.pod.microBatches; m < 0 || m > math.MaxInt32 {
		return true, 2, fmt.Errorf("--micro-batches=%d: expected 1 to %d (0: the default)", m, math.MaxInt32)
	}
	if p := t.pod.phases; p < 0 || p > ipupkg.MaxPodStages {
		return true, 2, fmt.Errorf("--phases=%d: expected 1 to %d (0: as many as the model needs, when it does not fit as one program)", p, ipupkg.MaxPodStages)
	}
	if c := t.pod.stageChips; c < 0 || c > target.MaxSpanChips {
		return true, 2, fmt.Errorf("--stage-chips=%d: expected 1 to %d (0: the default)", c, target.MaxSpanChips)
	}
	switch {
	case chosen == 0:
		return true, 2, fmt.Errorf("no translation chosen (--exchange-to-json, --emit-package, --dump-package, --import-onnx, --emit-report)")
	case chosen > 1:
		return true, 2, fmt.Errorf("choose one translation (--exchange-to-json, --emit-package, --dump-package, --import-onnx, --emit-report)")
	case t.emitReport != "":
		if err := emitReport(t.emitReport, t.compare, t.trace, t.stage, args, stdout, t.log); err != nil {
			return true, 1, err
		}
		return true, 0, nil
	case t.importONNX != "":
		opts, err := t.importOptions()
		if err != nil {
			return true, 2, err
		}
		opts.Target = t.target()
		if err := importONNX(t.importONNX, args, opts, stdout, t.log); err != nil {
			return true, 1, err
		}
		return true, 0, nil
	case t.dumpPackage != "":
		if err := dumpPackage(t.dumpPackage, args, stdout, t.log); err != nil {
			return true, 1, err
		}
		return true, 0, nil
	case t.emitPackage:
		// The same compile as before reuses its package, before the input
		// is even read.
		if hit, err := t.cache.lookup(t.fs, args, t.tuning, t); hit || err != nil {
			if err != nil {
				return true, 1, err
			}
			return true, 0, nil
		}
	}
	return false, 0, nil
}

func (t *translations) Process(*ir.Context, *ir.Operation, *optmain.Input) error { return nil }

func (t *translations) Emit(ctx *ir.Context, module *ir.Operation, in *optmain.Input, out io.Writer) (bool, error) {
	if t.emitPackage {
		if t.f64 != "" {
			if pkgemit.HasTileAsm(module) {
				return true, module.EmitError("--f64 chooses how a tensor-level module is compiled; this module is compiled already")
			}
			module.SetAttr(ctx, irtarget.F64Attr, ctx.String(t.f64))
		}
		if t.partials != "" {
			if pkgemit.HasTileAsm(module) {
				return true, module.EmitError("--partials chooses how a tensor-level module is compiled; this module is compiled already")
			}
			// The matmul-partials pass, which records itself as a source
			// rewrite for the check to replay.
			pipeline := registry.ModulePipeline(fmt.Sprintf("matmul-partials{type=%s budget=%g}", t.partials, t.partialsBudget))
			if err := toolkit.RunPipeline(ctx, module, pipeline, in.Env, in.Logger); err != nil {
				return true, err
			}
		}
		return true, emitPackage(ctx, module, in, out, t.pod, t.tuning, func(data []byte) { t.cache.store(data, t) })
	}
	if !t.exchangeToJSON {
		return false, nil
	}
	if !exchangejson.HasExchange(module) {
		return true, module.EmitError("--exchange-to-json needs a program at the exchange level or later (run ipu-opt --pass-pipeline='builtin.module(lower-to-exchange)' first)")
	}
	return true, exchangejson.Write(out, module)
}
