// Package optmain is the driver behind ipu-opt, exposed as a library so that
// users who add dialects and passes can build their own opt tool in a few
// lines (as MLIR's MlirOptMain does):
//
//	func main() {
//		t := &optmain.Tool{
//			Name:     "toy-opt",
//			Dialects: func(ctx *ir.Context) error { return ctx.RegisterDialect(toy.Dialect) },
//			Passes:   toy.RegisterPasses,
//		}
//		os.Exit(t.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
//	}
//
// It reads a file (or stdin), optionally splits it at `// -----` lines,
// parses, verifies, runs a pass pipeline and prints the result, and reports
// diagnostics in mlir-opt's form — or, with --verify-diagnostics, checks
// them against `// expected-error {{...}}` comments in the input. The pass
// manager's flags (--pass-pipeline, --<pass-name>, --mlir-print-ir-*,
// --mlir-timing, --mlir-pass-statistics, reproducers, --list-passes) come
// with it whenever the tool has passes.
//
// Extensions add flags and steps of their own (ipu-opt's --target), and an
// extension that is an Emitter writes something other than IR in place of
// the printed module (ipu-translate's packages and JSON).
//
// Flags follow mlir-opt's spelling. LLVM tools accept single-dash long
// flags (`-split-input-file`); so do we: a single-dash argument longer than
// one letter is read as its double-dash form.
package optmain

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/spf13/pflag"

	"github.com/ipuir/ipuir/internal/cli"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
	"github.com/ipuir/ipuir/passes"
	"github.com/ipuir/ipuir/printer"
	"github.com/ipuir/ipuir/tools/toolkit"
)

// Tool describes an opt-like tool.
type Tool struct {
	Name    string
	Version string
	// Overview is the one line --help starts with; "optimizer driver for
	// ipuir" when empty.
	Overview string
	// Dialects registers the tool's dialects on a fresh context.
	Dialects func(ctx *ir.Context) error
	// Passes registers the passes and pipelines the tool offers; nil for a
	// tool without passes (no pass-manager flags then).
	Passes func(r *passes.Registry) error
	// Env states the facts of a parsed module that verifiers and passes
	// may need (ipu-opt: the target its ipu.target names); nil for none.
	Env func(module *ir.Operation) (*ir.Env, error)
	// Extensions add flags and processing steps.
	Extensions []Extension
}

// Extension plugs extra flags and a processing step into the driver.
type Extension interface {
	// AddFlags registers the extension's flags.
	AddFlags(fs *pflag.FlagSet)
	// Early runs after flag parsing and before any input is read; args are
	// the (normalised) command-line arguments, for flags whose order
	// matters. It may print and ask the driver to exit with code; with an
	// error, code is the exit status (2 for a usage error; 0 reads as 1).
	Early(args []string, stdout io.Writer) (done bool, code int, err error)
	// Process transforms a parsed, verified module before the pass
	// pipeline runs. Diagnostics go through ctx.Emit; a non-nil error
	// means failure (it is reported too unless it is ErrReported).
	Process(ctx *ir.Context, module *ir.Operation, in *Input) error
}

// Logging is an Extension that logs from its Early step (a translation
// that reads a file of its own): the driver gives it the tool's structured
// log (--log-level, -v) before Early runs.
type Logging interface {
	SetLogger(*slog.Logger)
}

// OutputFiles is an Extension that writes files of its own (a report
// beside the output): it registers them before any work, so that the
// tool's one output rule (toolkit.Outputs) checks them against the inputs
// and the other outputs, and commits them with the rest when the run
// succeeds.
type OutputFiles interface {
	RegisterOutputs(outs *toolkit.Outputs) error
}

// Emitter is an Extension that may write the chunk's output itself, after
// the pipeline, instead of the printed IR: a binary package, JSON, a
// report. Emit returns false to leave the output to the printer.
type Emitter interface {
	Emit(ctx *ir.Context, module *ir.Operation, in *Input, out io.Writer) (emitted bool, err error)
}

// InputTranslator is an extension that reads an input that may not be IR
// text (toolkit.MaybeBinary) into a module's text before it is parsed: ok
// false when the input is not of its format. An error names the input's
// format when the tool cannot take it (ipu-opt on an ONNX model).
type InputTranslator interface {
	TranslateInput(file string, data []byte) (text []byte, ok bool, err error)
}

// Input is what an extension may need of the chunk being processed.
type Input struct {
	File   string // the file name used in locations
	Source []byte // the chunk's text
	Stderr io.Writer
	// Env is the chunk's environment as the tool's Env states it.
	Env *ir.Env
	// Logger is the tool's structured log (--log-level).
	Logger *slog.Logger
	// Print prints an op with the tool's printing flags.
	Print func(w io.Writer, op *ir.Operation) error
	// Printing is those flags, for extensions that print by themselves.
	Printing printer.Options
	// Changed is set by an extension that changes the module (as the
	// target flag sets ipu.target), so that the driver does not take the
	// module as verified when it prints it.
	Changed bool
	// Progress is the progress line on a terminal (nil otherwise, and
	// then its methods do nothing), for an extension's long phases.
	Progress *toolkit.Progress
}

// ErrReported marks a failure whose diagnostics were already emitted.
var ErrReported = toolkit.ErrReported

// SplitMarker separates the chunks of --split-input-file.
const SplitMarker = "// -----"

type options struct {
	logLevel          string
	verbose           bool
	output            string
	allowUnregistered bool
	generic           bool
	debugInfo         bool
	splitMarker       string // "" when the input is not split
	outputSplitMarker string
	verifyDiagnostics bool
	verifyRoundtrip   bool
	stackTraces       bool
	printing          printer.Options
	showDialects      bool
	version           bool
	help              bool
	printOpOnDiag     bool
	noImplicitModule  bool
}

// normaliseArgs turns LLVM-style `-long-flag` into `--long-flag`; `-o`,
// `-h`, `-` and negative numbers stay as they are.
func normaliseArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		long := len(a) > 2 && a[0] == '-' && a[1] != '-' && !(a[1] >= '0' && a[1] <= '9') && a[2] != '='
		if long {
			a = "-" + a
		}
		out = append(out, a)
	}
	return out
}

// run is one invocation of the tool.
type run struct {
	t        *Tool
	o        options
	pf       *passFlags // nil without passes
	logger   *slog.Logger
	loader   *toolkit.Loader
	progress *toolkit.Progress // nil unless stderr is a terminal
}

// Main runs the tool and returns its exit status.
func (t *Tool) Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet(t.Name, pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SortFlags = false
	r := &run{t: t}
	o := &r.o
	fs.StringVarP(&o.output, "output", "o", "-", "Output filename")
	fs.BoolVar(&o.allowUnregistered, "allow-unregistered-dialect", false, "Allow operation with no registered dialects")
	fs.BoolVar(&o.generic, "mlir-print-op-generic", false, "Print the generic op form")
	fs.BoolVar(&o.debugInfo, "mlir-print-debuginfo", false, "Print debug info (locations) in MLIR output")
	fs.StringVar(&o.splitMarker, "split-input-file", "", "Split the input file into pieces at lines starting with the marker (default '// -----') and process each chunk independently")
	fs.Lookup("split-input-file").NoOptDefVal = SplitMarker
	fs.StringVar(&o.outputSplitMarker, "output-split-marker", SplitMarker, "Split marker to use for merging the output of split input chunks")
	fs.BoolVar(&o.verifyRoundtrip, "verify-roundtrip", false, "Round-trip the IR after the pipeline (generic and custom form) and check it prints the same")
	fs.BoolVar(&o.stackTraces, "mlir-print-stacktrace-on-diagnostic", false, "When a diagnostic is emitted, also print where in the compiler it was made")
	pf := &o.printing
	fs.IntVar(&pf.ElideElementsAttrsIfLarger, "mlir-elide-elementsattrs-if-larger", 0, "Elide ElementsAttrs with \"...\" that have more elements than the given upper limit")
	fs.IntVar(&pf.HexIfLarger, "mlir-print-elementsattrs-with-hex-if-larger", 0, "Print DenseElementsAttrs with a hex string that have more elements than the given upper limit (default 100, -1 to disable)")
	fs.IntVar(&pf.ElideResourceStringsIfLarger, "mlir-elide-resource-strings-if-larger", 0, "Elide printing value of resources if string is too long in chars")
	fs.BoolVar(&pf.LocalScope, "mlir-print-local-scope", false, "Print with local scope and inline information (eliding aliases for attributes, types, and locations)")
	fs.BoolVar(&pf.ValueUsers, "mlir-print-value-users", false, "Print users of operation results and block arguments as a comment")
	fs.BoolVar(&pf.AssumeVerified, "mlir-print-assume-verified", false, "Skip op verification when using custom printers")
	fs.BoolVar(&pf.UniqueSSAIDs, "mlir-print-unique-ssa-ids", false, "Print unique SSA ID numbers for values, block arguments and naming conflicts across all regions")
	fs.BoolVar(&pf.PrettyDebugInfo, "mlir-pretty-debuginfo", false, "Print pretty debug info in MLIR output")
	fs.BoolVar(&pf.SkipRegions, "mlir-print-skip-regions", false, "Skip regions when printing ops")
	fs.BoolVar(&o.verifyDiagnostics, "verify-diagnostics", false, "Check that emitted diagnostics match expected-* lines on the corresponding line")
	fs.BoolVar(&o.printOpOnDiag, "mlir-print-op-on-diagnostic", true, "When a diagnostic is emitted on an operation, also print the operation as an attached note")
	fs.StringVar(&o.logLevel, "log-level", "warn", "Level of the structured log that long phases (GEMM planning, ...) write to stderr: debug, info, warn, error or off")
	fs.BoolVarP(&o.verbose, "verbose", "v", false, "Log the progress of long phases (--log-level=info unless --log-level says otherwise)")
	fs.BoolVar(&o.noImplicitModule, "no-implicit-module", false, "Disable the parsing of an implicit top-level module op")
	fs.BoolVar(&o.showDialects, "show-dialects", false, "Print the list of registered dialects and exit")
	fs.BoolVar(&o.version, "version", false, "Display the version of this program")
	fs.BoolVarP(&o.help, "help", "h", false, "Display available options")
	if t.Passes != nil {
		reg := passes.NewRegistry()
		if err := t.Passes(reg); err != nil {
			fmt.Fprintf(stderr, "%s: BUG: registering passes: %v\n", t.Name, err)
			return 1
		}
		r.pf = newPassFlags(reg)
		r.pf.addFlags(fs)
	}
	for _, e := range t.Extensions {
		e.AddFlags(fs)
	}
	usage := func(w io.Writer) {
		fmt.Fprintf(w, "OVERVIEW: %s: %s\n\nUSAGE: %s [options] <input file>\n\nOPTIONS:\n", t.Name, t.overview(), t.Name)
		fmt.Fprint(w, fs.FlagUsages())
	}
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	args = normaliseArgs(args)
	if err := fs.Parse(args); err != nil {
		// mlir-opt's words and status: "Unknown command line argument
		// ... Did you mean ...?", exit 1.
		return cli.ParseError(stderr, t.Name, fs, err)
	}
	if o.help {
		usage(stdout)
		return 0
	}
	if o.version {
		fmt.Fprintf(stdout, "%s version %s\n", t.Name, t.versionString())
		return 0
	}
	if o.stackTraces {
		ir.SetDiagnosticTraces(true)
		defer ir.SetDiagnosticTraces(false)
	}
	level := o.logLevel
	if o.verbose && !fs.Changed("log-level") {
		level = "info"
	}
	logger, err := toolkit.NewLogger(stderr, level)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", t.Name, err)
		return 2
	}
	r.logger = logger
	r.progress = toolkit.NewProgress(stderr, t.Name)
	r.loader = &toolkit.Loader{Setup: t.Dialects, AllowUnregistered: o.allowUnregistered, Env: t.Env,
		Sequential: r.pf != nil && r.pf.disableThreading}
	if o.showDialects {
		ctx, err := r.loader.NewContext()
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", t.Name, err)
			return 1
		}
		fmt.Fprintln(stdout, "Available Dialects:")
		var names []string
		for _, d := range ctx.Dialects() {
			names = append(names, d.Name)
		}
		fmt.Fprintln(stdout, strings.Join(names, ", "))
		return 0
	}
	if r.pf != nil {
		done, code, err := r.pf.early(args, stdout)
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", t.Name, err)
			return 1
		}
		if done {
			return code
		}
	}
	for _, e := range t.Extensions {
		if l, ok := e.(Logging); ok {
			l.SetLogger(r.logger)
		}
		done, code, err := e.Early(args, stdout)
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", t.Name, err)
			if code == 0 {
				code = 1 // an error is never a success
			}
			return code
		}
		if done {
			return code
		}
	}
	inputs := fs.Args()
	if len(inputs) > 1 {
		fmt.Fprintf(stderr, "%s: too many positional arguments: %s\n", t.Name, strings.Join(inputs, " "))
		return 2
	}
	inputName := "-"
	if len(inputs) == 1 {
		inputName = inputs[0]
	}
	// Every file the run writes is checked before any work, and put in
	// place only if the whole run succeeds.
	outs := toolkit.NewOutputs(stdout)
	outs.Input("the input file", inputName)
	out, err := outs.Add("-o", o.output)
	for _, e := range t.Extensions {
		if of, ok := e.(OutputFiles); ok && err == nil {
			err = of.RegisterOutputs(outs)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", t.Name, err)
		return 1
	}
	fileName, src, err := toolkit.ReadInput(inputName, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", t.Name, toolkit.InputError(inputName, err))
		return 1
	}
	if toolkit.MaybeBinary(src) {
		// Not IR text: an extension may know the format (ipu-translate
		// imports an ONNX model to compile it), or name it; else it is
		// refused as binary rather than parsed as text.
		handled := false
		for _, e := range t.Extensions {
			tr, ok := e.(InputTranslator)
			if !ok {
				continue
			}
			text, ok, err := tr.TranslateInput(fileName, src)
			if err != nil {
				fmt.Fprintf(stderr, "%s: %v\n", t.Name, err)
				return 1
			}
			if ok {
				src, fileName, handled = text, fileName+" (imported)", true
				break
			}
		}
		if !handled && toolkit.Binary(src) {
			fmt.Fprintf(stderr, "%s: %s is a binary file, not IR text\n", t.Name, fileName)
			return 1
		}
	}

	// The output streams as it is printed, so that a large module is not
	// held twice in memory as text. A failed run leaves an existing output
	// file as it was (the text goes to a temporary file, renamed only on
	// success); on stdout the chunks that succeeded are printed, as
	// mlir-opt prints them.
	err = out.Write(func(w io.Writer) error {
		if !r.processFile(fileName, src, w, stderr) {
			return toolkit.ErrReported
		}
		return nil
	})
	if err == nil {
		err = outs.Commit()
	} else {
		outs.Abort()
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, toolkit.ErrReported):
		return 1
	}
	fmt.Fprintf(stderr, "%s: %v\n", t.Name, err)
	return 1
}

func (t *Tool) versionString() string {
	if t.Version != "" {
		return t.Version
	}
	return "0.1.0"
}

func (t *Tool) overview() string {
	if t.Overview != "" {
		return t.Overview
	}
	return "optimizer driver for ipuir"
}

// chunk is one piece of a split input: a slice of the file, not a copy,
// so that a large input is held once.
type chunk struct {
	text      []byte
	firstLine int // 1-based line of the chunk's first line in the file
	firstCol  int // bytes of that line before the chunk (a split marker)
}

// splitInput cuts src at each marker that starts a line (after spaces);
// "" does not split. As in mlir-opt, what follows the marker on its line
// belongs to the next chunk, which starts on the marker's line.
func splitInput(src []byte, marker string) []chunk {
	if marker == "" {
		return []chunk{{src, 1, 0}}
	}
	var chunks []chunk
	start, startLine, startCol, line := 0, 1, 0, 1
	for pos := 0; pos < len(src); line++ {
		end := bytes.IndexByte(src[pos:], '\n')
		next := len(src)
		if end >= 0 {
			next = pos + end + 1
		}
		trimmed := bytes.TrimLeft(src[pos:next], " \t")
		if bytes.HasPrefix(trimmed, []byte(marker)) {
			chunks = append(chunks, chunk{src[start:pos], startLine, startCol})
			start, startLine = next-len(trimmed)+len(marker), line
			startCol = start - pos
		}
		pos = next
	}
	return append(chunks, chunk{src[start:], startLine, startCol})
}

// processFile handles every chunk and reports whether all succeeded.
func (r *run) processFile(fileName string, src []byte, out io.Writer, stderr io.Writer) bool {
	sm := ir.NewSourceMgr()
	sm.Add(fileName, src)
	allOK := true
	for i, c := range splitInput(src, r.o.splitMarker) {
		if i > 0 {
			fmt.Fprintln(out, r.o.outputSplitMarker)
		}
		if !r.processChunk(fileName, sm, c, out, stderr) {
			allOK = false
		}
	}
	return allOK
}

func (r *run) processChunk(fileName string, sm *ir.SourceMgr, c chunk, out, stderr io.Writer) bool {
	ctx, err := r.loader.NewContext()
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", r.t.Name, err)
		return false
	}
	var diags []*ir.Diagnostic
	ctx.SetDiagnosticHandler(func(d *ir.Diagnostic) { diags = append(diags, d) })

	var timing *passes.Timing
	if r.pf != nil {
		timing = r.pf.newTiming()
	}
	// The chunk's diagnostics come before its output, as when mlir-opt's
	// two streams are joined: those emitted so far are written when the
	// output starts (with --verify-diagnostics they are checked instead,
	// at the end).
	rendered := 0
	renderDiags := func() {
		if r.o.verifyDiagnostics {
			return
		}
		for ; rendered < len(diags); rendered++ {
			d := diags[rendered]
			if r.o.printOpOnDiag && d.Op != nil {
				d = withCurrentOpNote(d, r.o.printing.ElideElementsAttrsIfLarger)
			}
			fmt.Fprint(stderr, sm.Render(d))
		}
	}
	chunkOut := &afterDiagnostics{w: out, before: renderDiags}
	failed := !r.compileChunk(ctx, fileName, sm, c, timing, chunkOut, stderr)
	// mlir-opt writes the report when the chunk is done, after its
	// diagnostics.
	defer func() {
		if timing != nil {
			r.pf.reportTiming(timing, stderr)
		}
	}()
	if r.o.verifyDiagnostics {
		exps, bad := parseExpectations(fileName, string(c.text), c.firstLine, ctx)
		failures := append(bad, checkExpectations(ctx, fileName, exps, diags)...)
		for _, f := range failures {
			fmt.Fprint(stderr, sm.Render(f))
		}
		return len(failures) == 0
	}
	renderDiags()
	return !failed
}

// emitError reports err through ctx: each diagnostic a pass manager's
// failure holds as itself, with its location and notes, and any other
// error as one diagnostic without a location (rendered as MLIR renders
// those: <unknown>:0: error: ...).
func emitError(ctx *ir.Context, err error) {
	if ds, ok := err.(passes.Diagnostics); ok {
		for _, d := range ds {
			ctx.Emit(d)
		}
		return
	}
	ctx.Emit(ir.AsDiagnostic(err, nil))
}

// afterDiagnostics forwards writes to w, calling before first: the
// chunk's diagnostics so far are written before its output.
type afterDiagnostics struct {
	w       io.Writer
	before  func()
	started bool
}

func (a *afterDiagnostics) Write(b []byte) (int, error) {
	if !a.started {
		a.started = true
		a.before()
	}
	return a.w.Write(b)
}

// The "see current operation" note is bounded, so that a diagnostic fits
// on a screen whatever the program holds: elements attributes of more
// than opNoteElideLimit elements print as "..." unless the user chose a
// limit (--mlir-elide-elementsattrs-if-larger), and a note longer than
// maxOpNoteBytes stops at a line with how much it left out. (An error on
// a model's pass once printed the module with every weight: 93 MB.)
const (
	opNoteElideLimit = 16
	maxOpNoteBytes   = 4096
)

// withCurrentOpNote returns d with mlir-opt's "see current operation" note
// first among its notes, bounded (maxOpNoteBytes); elide is the user's
// elements-attribute limit, 0 for none.
func withCurrentOpNote(d *ir.Diagnostic, elide int) *ir.Diagnostic {
	if d.Severity != ir.SeverityError {
		return d
	}
	c := *d
	if elide <= 0 {
		elide = opNoteElideLimit
	}
	opts := printer.Options{Generic: true, ElideElementsAttrsIfLarger: elide}
	text := strings.TrimRight(printer.OpString(d.Op, opts), "\n")
	if len(text) > maxOpNoteBytes && d.Op.NumRegions() > 0 {
		// An error on a function (a placement that does not fit) is about
		// the op, not every op in its body: print its regions as {...}.
		opts.SkipRegions = true
		text = strings.TrimRight(printer.OpString(d.Op, opts), "\n") + "\n(its regions left out; --mlir-print-op-on-diagnostic=false leaves out the note)"
	}
	if len(text) > maxOpNoteBytes {
		cut := strings.LastIndexByte(text[:maxOpNoteBytes], '\n')
		if cut <= 0 {
			cut = maxOpNoteBytes
		}
		text = fmt.Sprintf("%s\n... (%d more bytes of the op left out; --mlir-print-op-on-diagnostic=false leaves out the note)", text[:cut], len(text)-cut)
	}
	if strings.Contains(text, "\n") {
		// mlir-opt starts an op that spans lines on a line of its own.
		text = "\n" + text
	}
	note := &ir.Diagnostic{Severity: ir.SeverityNote, Loc: d.Op.Loc(), Message: "see current operation: " + text}
	c.Notes = append([]*ir.Diagnostic{note}, d.Notes...)
	return &c
}

// startPhase starts a top-level timer of the chunk's report when timing
// is on.
func startPhase(t *passes.Timing, name string) (stop func()) {
	if t == nil {
		return func() {}
	}
	return t.Start(name).Stop
}

// compileChunk parses, verifies, runs the extensions and the pipeline and
// writes the output; it emits every diagnostic through ctx and reports
// success.
func (r *run) compileChunk(ctx *ir.Context, fileName string, sm *ir.SourceMgr, c chunk, timing *passes.Timing, out, stderr io.Writer) bool {
	// Verification is part of `Parser`, as in mlir-opt, which verifies
	// the module as the last step of parsing it.
	stopParser := startPhase(timing, "Parser")
	endPhase := r.progress.Phase("parsing and verifying")
	chunk := toolkit.Chunk{File: fileName, Source: c.text, FirstLine: c.firstLine, FirstColumn: c.firstCol, Sources: sm}
	var repro passes.ReproducerConfig
	if r.pf != nil && r.pf.runRepro {
		chunk.ExternalResources = map[string]parser.ResourceHandler{"mlir_reproducer": passes.ReproducerHandler(&repro)}
	}
	module, env, err := r.loader.Parse(ctx, chunk)
	endPhase()
	stopParser()
	if err != nil {
		emitError(ctx, err)
		return false
	}
	popts := r.o.printing
	popts.Generic, popts.DebugInfo, popts.Env = r.o.generic, r.o.debugInfo, env
	in := &Input{File: fileName, Source: c.text, Stderr: stderr, Env: env, Logger: r.logger, Printing: popts, Progress: r.progress,
		Print: func(w io.Writer, op *ir.Operation) error { return printer.Print(w, op, popts) }}
	fail := func(err error) bool {
		if err != ErrReported {
			emitError(ctx, err)
		}
		return false
	}
	if r.o.verifyRoundtrip {
		if err := r.verifyRoundtrip(module, fileName, env); err != nil {
			return fail(err)
		}
	}
	for _, e := range r.t.Extensions {
		if err := e.Process(ctx, module, in); err != nil {
			return fail(err)
		}
	}
	// Extensions may have changed what the environment is made of (the
	// target flag sets ipu.target): state it again for the pipeline.
	if in.Env, err = r.loader.EnvOf(module); err != nil {
		return fail(err)
	}
	popts.Env = in.Env
	in.Printing = popts
	// The loader verified the module; it stays verified unless an
	// extension changed it or passes ran without the verifier after each.
	verified := !in.Changed
	if r.pf != nil {
		endPhase := r.progress.Phase("running the pass pipeline")
		ranVerified, err := r.pf.run(ctx, module, in, &repro, timing, r.progress.Detail)
		endPhase()
		if err != nil {
			return fail(err)
		}
		verified = verified && ranVerified
	}
	// The printer verifies an op before it prints it in custom form
	// (falling back to the generic form if it fails), as MLIR's does;
	// IR just verified need not be again (on a large module, a second
	// verification's time and scratch memory).
	popts.AssumeVerified = popts.AssumeVerified || verified
	stopOutput := startPhase(timing, "Output")
	defer stopOutput()
	defer r.progress.Phase("writing the output")()
	for _, e := range r.t.Extensions {
		if em, ok := e.(Emitter); ok {
			emitted, err := em.Emit(ctx, module, in, out)
			if err != nil {
				return fail(err)
			}
			if emitted {
				return true
			}
		}
	}
	if err := printer.Print(out, module, popts); err != nil {
		return fail(err)
	}
	return true
}

// verifyRoundtrip prints module in the generic and the custom form, with
// locations, parses each into a fresh context and prints it again
// (mlir-opt's --verify-roundtrip): the two printings must be the same.
func (r *run) verifyRoundtrip(module *ir.Operation, file string, env *ir.Env) error {
	for _, generic := range []bool{true, false} {
		opts := printer.Options{Generic: generic, DebugInfo: true, Env: env}
		var first bytes.Buffer
		if err := printer.Print(&first, module, opts); err != nil {
			return err
		}
		form := "custom"
		if generic {
			form = "generic"
		}
		ctx, err := r.loader.NewContext()
		if err != nil {
			return err
		}
		again, _, err := r.loader.Parse(ctx, toolkit.Chunk{File: file + " (" + form + " round trip)", Source: first.Bytes(), FirstLine: 1})
		if err != nil {
			return module.EmitError("round trip of the %s form: the printed IR does not parse back: %v", form, err)
		}
		var second bytes.Buffer
		if err := printer.Print(&second, again, opts); err != nil {
			return err
		}
		if !bytes.Equal(first.Bytes(), second.Bytes()) {
			a, b := strings.Split(first.String(), "\n"), strings.Split(second.String(), "\n")
			i := 0
			for i < len(a) && i < len(b) && a[i] == b[i] {
				i++
			}
			line := func(ls []string) string {
				if i < len(ls) {
					return ls[i]
				}
				return "<end>"
			}
			return module.EmitError("round trip of the %s form changes the IR, first at line %d:\n  printed:  %s\n  reparsed: %s",
				form, i+1, line(a), line(b))
		}
	}
	return nil
}
