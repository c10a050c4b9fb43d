package passes

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/printer"
)

// Options configures a PassManager. ipu-opt maps its flags onto the
// fields; start from DefaultOptions, which turns verification on.
type Options struct {
	// DisableThreading runs nested pipelines one op at a time
	// (--mlir-disable-threading). Output is the same either way.
	DisableThreading bool
	// VerifyEach verifies the op a pass ran on after every pass
	// (--verify-each, on by default).
	VerifyEach bool
	// PrintIR selects IR dumps (--mlir-print-ir-*).
	PrintIR IRPrintOptions
	// IROutput receives IR dumps; os.Stderr when nil.
	IROutput io.Writer
	// Printing holds the printer flags (generic form, debug info, ...) of
	// IR dumps and crash reproducers. As in mlir-opt, an op that is not at
	// the top prints with local scope, which also lets dumps of sibling
	// functions print while other goroutines change their neighbours.
	Printing printer.Options
	// PrintOp, when set, prints instead of the printer with Printing. A
	// tool's printer may read outside the op it prints, so IR dumps with
	// it run the pipeline on one goroutine; with Printing they run in
	// parallel (nested ops print with local scope, which reads nothing
	// outside them).
	PrintOp func(w io.Writer, op *ir.Operation) error
	// Timing, when set, receives a timer per pass and nested pipeline
	// (--mlir-timing); the tool prints its Report.
	Timing *Timing
	// CrashReproducer is the file a reproducer is written to when the
	// pipeline fails (--mlir-pass-pipeline-crash-reproducer).
	CrashReproducer string
	// LocalReproducer narrows the reproducer to the failing pass and the
	// IR just before it (--mlir-pass-pipeline-local-reproducer).
	LocalReproducer bool
	// Env holds the facts the tool states about the compilation (the
	// target: see ir.Env); verification after each pass and the passes
	// themselves (PassContext.Env) see them.
	Env *ir.Env
	// Logger receives the structured log of passes (PassContext.Logger);
	// nil discards it.
	Logger *slog.Logger
	// BeforePass, when set, is told the name of each pass as it starts
	// (from the goroutine running it), for progress lines.
	BeforePass func(name string)
}

// printFunc returns how dumps and reproducers print an op: PrintOp, or
// the printer with Printing and local scope for ops inside a block.
func (o *Options) printFunc() func(io.Writer, *ir.Operation) error {
	if o.PrintOp != nil {
		return o.PrintOp
	}
	flags := o.Printing
	return func(w io.Writer, op *ir.Operation) error {
		f := flags
		f.LocalScope = f.LocalScope || op.Block() != nil
		return printer.Print(w, op, f)
	}
}

// DefaultOptions are the options of a plain mlir-opt run: threads on,
// verification after each pass.
func DefaultOptions() Options { return Options{VerifyEach: true} }

// PassManager runs a pipeline on a top-level op.
type PassManager struct {
	ctx      *ir.Context
	pipeline *OpPassManager
	opts     Options
}

// NewPassManager returns a manager that runs pipeline with opts.
func NewPassManager(ctx *ir.Context, pipeline *OpPassManager, opts Options) *PassManager {
	return &PassManager{ctx: ctx, pipeline: pipeline, opts: opts}
}

// Pipeline is the pipeline the manager runs.
func (pm *PassManager) Pipeline() *OpPassManager { return pm.pipeline }

// Options are the manager's options.
func (pm *PassManager) Options() Options { return pm.opts }

// Diagnostics is the error Run returns: the errors of the passes that
// failed, in IR order.
type Diagnostics []*ir.Diagnostic

// Unwrap lets errors.As and errors.Is see each diagnostic.
func (ds Diagnostics) Unwrap() []error {
	out := make([]error, len(ds))
	for i, d := range ds {
		out[i] = d
	}
	return out
}

func (ds Diagnostics) Error() string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = d.Error()
	}
	return strings.Join(parts, "\n")
}

// failure records a pass that failed, for crash reproducers.
type failure struct {
	pass     Pass
	op       *ir.Operation
	anchors  []string      // anchors of the pipelines holding the pass, outermost first
	snapshot *ir.Operation // op before the pass, for local reproducers
}

// runner is the state of one Run.
type runner struct {
	ctx        *ir.Context
	opts       *Options
	parallel   bool // nested pipelines run on sibling ops at once (Context.ParallelFor)
	printer    *irPrinter
	timing     *Timing
	localRepro bool
	recover    bool
}

// Run runs the pipeline on op, which must have the pipeline's anchor.
// Diagnostics that passes emit go to the context's handler in IR order;
// the errors of failing passes, and of IR that fails verification after
// a pass, come back as Diagnostics. After a failure no further pass runs.
func (pm *PassManager) Run(op *ir.Operation) error {
	o := &pm.opts
	if d := pm.check(op); d != nil {
		return Diagnostics{d}
	}
	r := &runner{ctx: pm.ctx, opts: o, timing: o.Timing, recover: o.CrashReproducer != "",
		localRepro: o.CrashReproducer != "" && o.LocalReproducer}
	// A tool's own printer may read outside the op it prints (names and
	// verification from the module down): with dumps requested it would
	// race with passes on sibling ops, so the run keeps to one goroutine.
	sequential := o.DisableThreading || (o.PrintOp != nil && o.PrintIR.enabled())
	if !sequential {
		r.parallel = runtime.GOMAXPROCS(0) > 1
		if o.Timing != nil {
			o.Timing.threaded = true
		}
	}
	if o.PrintIR.enabled() {
		r.printer = &irPrinter{opts: o.PrintIR, print: o.printFunc(), top: op}
	}
	var snapshot *ir.Operation
	if o.CrashReproducer != "" && !o.LocalReproducer {
		snapshot = op.Clone(pm.ctx, nil)
	}
	out := o.IROutput
	if out == nil {
		out = os.Stderr
	}
	top := &frame{emitTo: pm.ctx.Emit, out: out, times: timeAcc{}}
	var root *timerNode
	if r.timing != nil {
		root = r.timing.root
	}
	ok := r.runPipeline(pm.pipeline, op, top, root, []string{op.Name()})
	if r.timing != nil {
		r.timing.commit(top.times)
	}
	if ok {
		return nil
	}
	errs := Diagnostics(top.errors)
	if o.CrashReproducer != "" && len(top.failures) > 0 {
		errs = append(errs, pm.writeReproducer(op, top.failures, snapshot))
	}
	return errs
}

// check rejects a run that cannot start.
func (pm *PassManager) check(op *ir.Operation) *ir.Diagnostic {
	o := &pm.opts
	if a := pm.pipeline.anchor; a != AnyOp && a != op.Name() {
		d := op.EmitError("can't run '%s' pass manager on '%s' op", a, op.Name())
		return d
	}
	if o.PrintIR.ModuleScope && o.PrintIR.enabled() && !o.DisableThreading {
		return ir.Errorf(nil, "IR print for module scope can't be setup on a pass-manager without disabling multi-threading first.")
	}
	if d := pm.pipeline.checkInput(op, o.Env, pm.pipeline.providers); d != nil {
		return d
	}
	return nil
}

// node returns the timer under parent called name, or nil without timing.
func (r *runner) node(parent *timerNode, name string) *timerNode {
	if r.timing == nil || parent == nil {
		return nil
	}
	return r.timing.child(parent, name)
}

// runPipeline runs pm's entries on op in order. Consecutive nested
// pipelines with named anchors run as one parallel section: each child op
// goes through every one that matches it, in order, which is what running
// them one after the other does, since each touches only the op it runs
// on, and what MLIR does when it merges adjacent pipelines. An any()
// pipeline runs as a section of its own, as MLIR does not merge it.
func (r *runner) runPipeline(pm *OpPassManager, op *ir.Operation, f *frame, node *timerNode, anchors []string) bool {
	am := newAnalysisManager(op)
	am.tm = r.timing
	for i := 0; i < len(pm.items); {
		if p := pm.items[i].pass; p != nil {
			if !r.runPass(p, op, f, node, anchors, am) {
				return false
			}
			i++
			continue
		}
		j := i + 1
		if pm.items[i].nested.anchor != AnyOp {
			for j < len(pm.items) && pm.items[j].nested != nil && pm.items[j].nested.anchor != AnyOp {
				j++
			}
		}
		if !r.runNested(pm.items[i:j], op, f, node, anchors) {
			return false
		}
		am.Invalidate()
		i = j
	}
	return true
}

// matches says whether a nested pipeline runs on op: by name, or for an
// `any` pipeline, on registered isolated ops all its passes accept.
func matches(pm *OpPassManager, op *ir.Operation) bool {
	if pm.anchor == op.Name() {
		return true
	}
	if pm.anchor != AnyOp || !op.IsRegistered() || !op.HasTrait(ir.TraitIsolatedFromAbove) {
		return false
	}
	for _, it := range pm.items {
		if it.pass != nil && it.pass.Anchor() != "" && it.pass.Anchor() != op.Name() {
			return false
		}
	}
	return true
}

func (r *runner) runNested(group []pipelineItem, op *ir.Operation, f *frame, node *timerNode, anchors []string) bool {
	type task struct {
		op  *ir.Operation
		pms []*OpPassManager
	}
	var tasks []task
	ok := true
	for _, reg := range op.Regions() {
		for _, b := range reg.Blocks() {
			for c := b.First(); c != nil; c = c.Next() {
				var pms []*OpPassManager
				for _, it := range group {
					if matches(it.nested, c) {
						pms = append(pms, it.nested)
					}
				}
				if len(pms) == 0 {
					continue
				}
				switch {
				case !c.IsRegistered():
					f.errors = append(f.errors, c.EmitOpError("trying to schedule a pass on an unregistered operation"))
					ok = false
				case !c.HasTrait(ir.TraitIsolatedFromAbove):
					f.errors = append(f.errors, c.EmitOpError("trying to schedule a pass on an operation not marked as 'IsolatedFromAbove'"))
					ok = false
				}
				tasks = append(tasks, task{c, pms})
			}
		}
	}
	if !ok {
		return false
	}
	children := make([]*frame, len(tasks))
	failed := make([]bool, len(tasks))
	forEach := r.ctx.ParallelFor
	if !r.parallel {
		forEach = sequentialFor
	}
	forEach(len(tasks), func(i, worker int) {
		cf := newChildFrame(worker)
		cf.times = timeAcc{}
		children[i] = cf
		for _, pm := range tasks[i].pms {
			pnode := r.node(node, "'"+pm.anchor+"' Pipeline")
			start := time.Now()
			done := r.runPipeline(pm, tasks[i].op, cf, pnode, append(slices.Clip(anchors), pm.anchor))
			if pnode != nil {
				cf.times.add(pnode, time.Since(start))
			}
			if !done {
				failed[i] = true
				return
			}
		}
	})
	f.mergeChildren(children)
	return !slices.Contains(failed, true)
}

func (r *runner) runPass(p Pass, op *ir.Operation, f *frame, node *timerNode, anchors []string, am *AnalysisManager) bool {
	var fp uint64
	var haveFP bool
	if r.printer != nil {
		fp, haveFP = r.printer.before(p, op, f)
	}
	var snapshot *ir.Operation
	if r.localRepro {
		snapshot = op.Clone(r.ctx, nil)
	}
	pnode := r.node(node, DisplayName(p))
	am.node, am.times = pnode, f.times
	pc := &PassContext{ctx: r.ctx, frame: f, analyses: am, env: r.opts.Env, logger: r.opts.Logger}
	if r.opts.BeforePass != nil {
		r.opts.BeforePass(p.Name())
	}
	start := time.Now()
	err := r.call(p, op, pc)
	if pnode != nil {
		f.times.add(pnode, time.Since(start))
	}
	if err != nil {
		f.errors = append(f.errors, failureDiag(err, p, op))
		if r.printer != nil {
			r.printer.afterFailed(p, op, f)
		}
		f.failures = append(f.failures, &failure{p, op, anchors, snapshot})
		return false
	}
	if r.printer != nil {
		r.printer.after(p, op, f, fp, haveFP)
	}
	if r.opts.VerifyEach {
		// Part of the pass's time, as in mlir-opt (whose pass timer runs
		// until after the verifier): not left to "Rest".
		start := time.Now()
		d := ir.VerifyIn(op, r.opts.Env)
		if pnode != nil {
			f.times.add(pnode, time.Since(start))
		}
		if d != nil {
			d.AttachNote(op.Loc(), "the IR is invalid after running pass '%s' on %s", p.Name(), describeOp(op))
			f.errors = append(f.errors, d)
			f.failures = append(f.failures, &failure{p, op, anchors, snapshot})
			return false
		}
	}
	am.afterPass()
	return true
}

// call runs the pass; with a crash reproducer requested, a panic becomes a
// failure so that the reproducer gets written.
func (r *runner) call(p Pass, op *ir.Operation, pc *PassContext) (err error) {
	if r.recover {
		defer func() {
			if v := recover(); v != nil {
				err = ir.Errorf(op.Loc(), "pass '%s' crashed: %v", p.Name(), v)
			}
		}()
	}
	return p.Run(op, pc)
}

// failureDiag is the error reported for a failed pass: the pass's own
// diagnostic, or its error located at op, with a note naming the pass and
// the op. The note is located at the op, which is what it names.
func failureDiag(err error, p Pass, op *ir.Operation) *ir.Diagnostic {
	var d *ir.Diagnostic
	if errors.As(err, &d) {
		c := *d
		c.Notes = slices.Clip(d.Notes)
		d = &c
	} else {
		d = ir.Errorf(op.Loc(), "%s", err.Error())
	}
	if d.Op == nil {
		d.Op = op
	}
	return d.AttachNote(op.Loc(), "while running pass '%s' on %s", p.Name(), describeOp(op))
}

// String describes a failure for reproducer notes: `CSE` on 'func.func' operation: @f.
func (fl *failure) String() string {
	return fmt.Sprintf("`%s` on %s", DisplayName(fl.pass), describeOp(fl.op))
}
