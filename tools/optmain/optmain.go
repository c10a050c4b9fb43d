// Package optmain is the driver behind ipu-opt, exposed as a library so that
// users who add dialects and passes can build their own opt tool in a few
// lines (as MLIR's MlirOptMain does):
//
//	func main() {
//		t := &optmain.Tool{Name: "my-opt", Setup: func(ctx *ir.Context) { mydialect.Register(ctx) }}
//		os.Exit(t.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
//	}
//
// It reads a file (or stdin), optionally splits it at `// -----` lines,
// parses, verifies, runs a pass pipeline and prints the result, and reports
// diagnostics in mlir-opt's form — or, with --verify-diagnostics, checks
// them against `// expected-error {{...}}` comments in the input.
//
// Flags follow mlir-opt's spelling. LLVM tools accept single-dash long
// flags (`-split-input-file`); so do we: a single-dash argument longer than
// one letter is read as its double-dash form.
package optmain

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
	"github.com/ipuir/ipuir/printer"
)

// Tool describes an opt-like tool.
type Tool struct {
	Name    string
	Version string
	// Setup registers the tool's dialects on a fresh context.
	Setup func(ctx *ir.Context)
	// Extensions add flags and pipeline stages (passes, targets) without
	// this package depending on them.
	Extensions []Extension
}

// Extension plugs extra flags and a processing step into the driver.
type Extension interface {
	// AddFlags registers the extension's flags.
	AddFlags(fs *pflag.FlagSet)
	// Early runs after flag parsing and before any input is read; args are
	// the (normalised) command-line arguments, for flags whose order
	// matters. It may print and ask the driver to exit with code.
	Early(args []string, stdout io.Writer) (done bool, code int, err error)
	// Process transforms a parsed, verified module. Diagnostics go through
	// ctx.Emit; a non-nil error means failure (it is reported too unless it
	// is ErrReported).
	Process(ctx *ir.Context, module *ir.Operation, in *Input) error
}

// Input is what an extension may need of the chunk being processed.
type Input struct {
	File   string // the file name used in locations
	Source []byte // the chunk's text
	Stderr io.Writer
	// Print prints an op with the tool's printing flags.
	Print func(w io.Writer, op *ir.Operation) error
	// Printing is those flags, for extensions that print by themselves
	// (in parallel, say).
	Printing printer.Options
	// Timing is the chunk's timer when --mlir-timing is on (nil otherwise),
	// as the TimingExtension gave it.
	Timing PhaseTimer
}

// ErrReported marks a failure whose diagnostics were already emitted.
var ErrReported = fmt.Errorf("failure already reported")

// SplitMarker separates the chunks of --split-input-file.
const SplitMarker = "// -----"

type options struct {
	logLevel          string
	output            string
	allowUnregistered bool
	generic           bool
	debugInfo         bool
	split             bool
	verifyDiagnostics bool
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

// Main runs the tool and returns its exit status.
func (t *Tool) Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet(t.Name, pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SortFlags = false
	var o options
	fs.StringVarP(&o.output, "output", "o", "-", "Output filename")
	fs.BoolVar(&o.allowUnregistered, "allow-unregistered-dialect", false, "Allow operation with no registered dialects")
	fs.BoolVar(&o.generic, "mlir-print-op-generic", false, "Print the generic op form")
	fs.BoolVar(&o.debugInfo, "mlir-print-debuginfo", false, "Print debug info (locations) in MLIR output")
	fs.BoolVar(&o.split, "split-input-file", false, "Split the input file into pieces at '// -----' and process each chunk independently")
	fs.BoolVar(&o.verifyDiagnostics, "verify-diagnostics", false, "Check that emitted diagnostics match expected-* lines on the corresponding line")
	fs.BoolVar(&o.printOpOnDiag, "mlir-print-op-on-diagnostic", true, "When a diagnostic is emitted on an operation, also print the operation as an attached note")
	fs.StringVar(&o.logLevel, "log-level", "info", "Level of the structured log that long phases (GEMM planning, ...) write to stderr: debug, info, warn, error or off")
	fs.BoolVar(&o.noImplicitModule, "no-implicit-module", false, "Disable the parsing of an implicit top-level module op")
	fs.BoolVar(&o.showDialects, "show-dialects", false, "Print the list of registered dialects and exit")
	fs.BoolVar(&o.version, "version", false, "Display the version of this program")
	fs.BoolVarP(&o.help, "help", "h", false, "Display available options")
	for _, e := range t.Extensions {
		e.AddFlags(fs)
	}
	fs.Usage = func() {
		fmt.Fprintf(stderr, "OVERVIEW: %s: optimizer driver for ipuir\n\nUSAGE: %s [options] <input file>\n\nOPTIONS:\n", t.Name, t.Name)
		fmt.Fprint(stderr, fs.FlagUsages())
	}
	args = normaliseArgs(args)
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", t.Name, err)
		return 2
	}
	if o.help {
		fs.SetOutput(stdout)
		fmt.Fprintf(stdout, "OVERVIEW: %s: optimizer driver for ipuir\n\nUSAGE: %s [options] <input file>\n\nOPTIONS:\n", t.Name, t.Name)
		fmt.Fprint(stdout, fs.FlagUsages())
		return 0
	}
	if o.version {
		fmt.Fprintf(stdout, "%s version %s\n", t.Name, t.versionString())
		return 0
	}
	if err := setLogLevel(o.logLevel); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", t.Name, err)
		return 2
	}
	ctx := t.newContext(o.allowUnregistered)
	if o.showDialects {
		fmt.Fprintln(stdout, "Available Dialects:")
		var names []string
		for _, d := range ctx.Dialects() {
			names = append(names, d.Name)
		}
		fmt.Fprintln(stdout, strings.Join(names, ", "))
		return 0
	}
	for _, e := range t.Extensions {
		done, code, err := e.Early(args, stdout)
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", t.Name, err)
			return 1
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
	src, err := readInput(inputName, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "%s: could not open input file '%s': %v\n", t.Name, inputName, unwrapPathError(err))
		return 1
	}
	fileName := inputName
	if inputName == "-" {
		fileName = "<stdin>"
	}

	var out bytes.Buffer
	ok := t.processFile(&o, fileName, src, &out, stderr)
	if err := writeOutput(o.output, out.Bytes(), stdout); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", t.Name, err)
		return 1
	}
	if !ok {
		return 1
	}
	return 0
}

func (t *Tool) versionString() string {
	if t.Version != "" {
		return t.Version
	}
	return "0.1.0"
}

func (t *Tool) newContext(allowUnregistered bool) *ir.Context {
	ctx := ir.NewContext()
	ctx.AllowUnregisteredDialects = allowUnregistered
	if t.Setup != nil {
		t.Setup(ctx)
	}
	return ctx
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

func readInput(name string, stdin io.Reader) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(bufio.NewReader(stdin))
	}
	return os.ReadFile(name)
}

func writeOutput(name string, data []byte, stdout io.Writer) error {
	if name == "-" || name == "" {
		_, err := stdout.Write(data)
		return err
	}
	return os.WriteFile(name, data, 0o644)
}

// chunk is one piece of a split input.
type chunk struct {
	text      string
	firstLine int // 1-based line of the chunk's first line in the file
}

func splitInput(src string, split bool) []chunk {
	if !split {
		return []chunk{{src, 1}}
	}
	var chunks []chunk
	lines := strings.SplitAfter(src, "\n")
	startLine := 1
	var cur strings.Builder
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), SplitMarker) {
			chunks = append(chunks, chunk{cur.String(), startLine})
			cur.Reset()
			startLine = i + 2
			continue
		}
		cur.WriteString(l)
	}
	return append(chunks, chunk{cur.String(), startLine})
}

// processFile handles every chunk and reports whether all succeeded.
func (t *Tool) processFile(o *options, fileName string, src []byte, out io.Writer, stderr io.Writer) bool {
	sm := ir.NewSourceMgr()
	sm.Add(fileName, src)
	allOK := true
	for i, c := range splitInput(string(src), o.split) {
		if i > 0 {
			fmt.Fprintln(out, SplitMarker)
		}
		if !t.processChunk(o, fileName, sm, c, out, stderr) {
			allOK = false
		}
	}
	return allOK
}

func (t *Tool) processChunk(o *options, fileName string, sm *ir.SourceMgr, c chunk, out, stderr io.Writer) bool {
	ctx := t.newContext(o.allowUnregistered)
	var diags []*ir.Diagnostic
	ctx.SetDiagnosticHandler(func(d *ir.Diagnostic) { diags = append(diags, d) })

	var chunkOut bytes.Buffer
	timing := t.chunkTimer()
	failed := !t.compileChunk(o, ctx, fileName, sm, c, timing, &chunkOut, stderr)
	// mlir-opt writes the report when the chunk is done, after its
	// diagnostics.
	defer func() {
		if timing != nil {
			timing.Report(stderr)
		}
	}()
	if o.verifyDiagnostics {
		exps, bad := parseExpectations(fileName, c.text, c.firstLine, ctx)
		failures := append(bad, checkExpectations(ctx, fileName, exps, diags)...)
		for _, f := range failures {
			fmt.Fprint(stderr, sm.Render(f))
		}
		if !failed {
			out.Write(chunkOut.Bytes())
		}
		return len(failures) == 0
	}
	for _, d := range diags {
		if o.printOpOnDiag && d.Op != nil {
			d = withCurrentOpNote(d)
		}
		fmt.Fprint(stderr, sm.Render(d))
	}
	if failed {
		return false
	}
	out.Write(chunkOut.Bytes())
	return true
}

// withCurrentOpNote returns d with mlir-opt's "see current operation" note
// first among its notes.
func withCurrentOpNote(d *ir.Diagnostic) *ir.Diagnostic {
	if d.Severity != ir.SeverityError {
		return d
	}
	c := *d
	text := strings.TrimRight(printer.OpString(d.Op, printer.Options{Generic: true}), "\n")
	if strings.Contains(text, "\n") {
		// mlir-opt starts an op that spans lines on a line of its own.
		text = "\n" + text
	}
	note := &ir.Diagnostic{Severity: ir.SeverityNote, Loc: d.Op.Loc(), Message: "see current operation: " + text}
	c.Notes = append([]*ir.Diagnostic{note}, d.Notes...)
	return &c
}

// compileChunk parses, verifies, runs the extensions and prints; it emits
// every diagnostic through ctx and reports success.
func (t *Tool) compileChunk(o *options, ctx *ir.Context, fileName string, sm *ir.SourceMgr, c chunk, timing PhaseTimer, out, stderr io.Writer) bool {
	// Verification is part of `Parser`, as in mlir-opt, which verifies
	// the module as the last step of parsing it.
	stopParser := startPhase(timing, "Parser")
	module, err := parser.ParseSourceString(ctx, []byte(c.text), parser.Config{
		Filename: fileName, SourceMgr: sm, LineOffset: c.firstLine - 1,
	})
	if err != nil {
		stopParser()
		ctx.Emit(ir.AsDiagnostic(err, nil))
		return false
	}
	d := ir.Verify(module)
	stopParser()
	if d != nil {
		ctx.Emit(d)
		return false
	}
	popts := printer.Options{Generic: o.generic, DebugInfo: o.debugInfo}
	in := &Input{File: fileName, Source: []byte(c.text), Stderr: stderr, Printing: popts, Timing: timing,
		Print: func(w io.Writer, op *ir.Operation) error { return printer.Print(w, op, popts) }}
	for _, e := range t.Extensions {
		if err := e.Process(ctx, module, in); err != nil {
			if err != ErrReported {
				ctx.Emit(ir.AsDiagnostic(err, nil))
			}
			return false
		}
	}
	stopOutput := startPhase(timing, "Output")
	defer stopOutput()
	if err := printer.Print(out, module, popts); err != nil {
		ctx.Emit(ir.AsDiagnostic(err, nil))
		return false
	}
	return true
}

// setLogLevel sets the level of log/slog's default logger, which passes
// use for their structured progress lines; "off" silences it.
func setLogLevel(name string) error {
	levels := map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn,
		"error": slog.LevelError, "off": slog.LevelError + 100}
	l, ok := levels[strings.ToLower(name)]
	if !ok {
		return fmt.Errorf("--log-level: unknown level '%s' (debug, info, warn, error or off)", name)
	}
	slog.SetLogLoggerLevel(l)
	return nil
}
