package passes

import (
	"log/slog"
	"reflect"

	"github.com/ipuir/ipuir/ir"
)

// Pass is one transformation or analysis run on one op at a time.
//
// A pass is a pointer to a struct whose tagged fields are its options
// (see options.go) and statistics (see statistic.go). The pass manager
// may call Run on several ops at once from different goroutines (ops that
// are isolated from above, e.g. functions), so Run keeps its working state
// in local variables: the struct holds only options, which Run reads, and
// statistics, which are atomic counters.
type Pass interface {
	// Name is the registry name used in pipelines, e.g. "cse".
	Name() string
	// Summary is the one-line description --list-passes shows.
	Summary() string
	// Anchor is the name of the op the pass runs on, e.g. "builtin.module",
	// or "" when it can run on any op.
	Anchor() string
	// Run transforms op. A returned error fails the pass: an
	// *ir.Diagnostic is reported as it is, other errors are reported at op.
	Run(op *ir.Operation, pc *PassContext) error
}

// DisplayNamer lets a pass choose the name shown in IR dumps, timing and
// statistics reports. Without it the pass's Go type name is used, which
// gives MLIR's names: "CSE", "Canonicalizer", "SymbolDCE".
type DisplayNamer interface {
	DisplayName() string
}

// DisplayName returns the name of p in reports.
func DisplayName(p Pass) string {
	if d, ok := p.(DisplayNamer); ok {
		return d.DisplayName()
	}
	t := reflect.TypeOf(p)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}

// PassContext is what a pass sees of the pass manager while it runs on one
// op: the IR context, a place to report diagnostics, and cached analyses.
type PassContext struct {
	ctx      *ir.Context
	frame    *frame
	analyses *AnalysisManager
	env      *ir.Env
	logger   *slog.Logger
}

// Context is the IR context, for building types, attributes and ops.
func (pc *PassContext) Context() *ir.Context { return pc.ctx }

// Emit reports a warning, remark or error without failing the pass.
// Diagnostics of passes that run in parallel reach the context's handler
// in IR order, whatever order the goroutines finish in.
func (pc *PassContext) Emit(d *ir.Diagnostic) { pc.frame.emit(d) }

// Env holds the facts the tool stated about the compilation, such as the
// target (see ir.Env); passes that need one read it from here or from the
// IR they run on, never from a global.
func (pc *PassContext) Env() *ir.Env { return pc.env }

// Logger is where a pass writes its structured log (log/slog), in the
// reference log's spirit: `phase=... elapsed_ms=...`. It is the pass
// manager's Options.Logger, or a logger that discards everything.
func (pc *PassContext) Logger() *slog.Logger {
	if pc.logger == nil {
		return discardLogger
	}
	return pc.logger
}

var discardLogger = slog.New(slog.DiscardHandler)

// Analyses returns the analysis cache of the op the pass runs on.
func (pc *PassContext) Analyses() *AnalysisManager { return pc.analyses }
