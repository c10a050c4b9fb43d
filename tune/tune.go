// Package tune searches a program's compile options for the fastest
// correct package, as compiler autotuners do (TVM's MetaSchedule, IREE's
// tuner, XLA's autotuner): it enumerates candidates, measures each (a
// compile, then a run on the simulated device with generated inputs and
// the reference check), keeps every result in a persistent store keyed by
// what determines it (package store), and writes the winner as a tuning
// record that `ipu-translate --emit-package --tuning=FILE` applies
// (toolkit.Tuning).
//
// The candidates are the options that change code generation: where
// weights live (plan-gemms' weights option), then, one matmul (or jointly
// planned group) at a time, each of the planner's verified finalists for
// it pinned in place of its choice, keeping the fastest so far
// (coordinate descent over the planner's own shortlist: the planner's
// estimate ranks its finalists, the simulator decides among them).
//
// Measuring is an Engine's work. Local runs candidates on a pool of
// goroutines in this process; every engine asks the store first, so a
// repeated or resumed search measures nothing twice.
package tune

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/ipuir/ipuir/dialects/tiled"
	"github.com/ipuir/ipuir/execution/check"
	"github.com/ipuir/ipuir/execution/reference"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/layout"
	"github.com/ipuir/ipuir/parser"
	"github.com/ipuir/ipuir/passes"
	"github.com/ipuir/ipuir/registry"
	"github.com/ipuir/ipuir/runtime/sim"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/target/irtarget"
	"github.com/ipuir/ipuir/tools/toolkit"
	"github.com/ipuir/ipuir/tune/store"
)

// Job is one program to tune for one target.
type Job struct {
	File     string // for messages
	Source   []byte // the program's text (tensor level)
	Target   string // the target's spec
	Function string // the function run and checked; "" for the only one
	Seed     uint64 // the generated inputs' seed
	Compiler string // the compiler's version, part of every result's key
	// Keep is how many finalists the planner keeps per matmul for the
	// search to measure (plan-gemms' finalists; 0: the planner's
	// default). More than the planner needs for itself: its estimate is a
	// guide, and the simulator may rank its runners-up otherwise.
	Keep int
}

// Candidate is one set of compile options.
type Candidate struct {
	// Weights is plan-gemms' weights option ("" for its default, auto).
	Weights string
	// Unfused plans matmuls that share their left operand apart
	// (tiled-prepare{fuse-shared-lhs=false}) instead of as one wider one.
	Unfused bool
	// Pins pin matmuls' plans, by source_operation, ascending.
	Pins []Pin
}

// Pin pins matmul Op (plan-gemms' source_operation) to Plan, its
// planner's finalist number Finalist.
type Pin struct {
	Op, Finalist int
	Plan         layout.GemmPlan
}

// Options are the candidate as the passes' options.
func (c Candidate) Options() toolkit.CompileOptions {
	var parts []string
	for _, p := range c.Pins {
		pin := layout.PinAll(&p.Plan, int64(p.Op))
		parts = append(parts, pin.String())
	}
	o := toolkit.CompileOptions{PlanGemms: toolkit.PlanGemmsOptions{Weights: c.Weights, Constraints: strings.Join(parts, "; ")}}
	if c.Unfused {
		fuse := false
		o.TiledPrepare.FuseSharedLHS = &fuse
	}
	return o
}

// String is the candidate's canonical text, its key in the store.
func (c Candidate) String() string {
	s := "weights=" + c.weights() + "; "
	if c.Unfused {
		s += "fuse-shared-lhs=false; "
	}
	return s + c.Options().PlanGemms.Constraints
}

func (c Candidate) weights() string {
	if c.Weights == "" {
		return "auto"
	}
	return c.Weights
}

// Short names the candidate in tables: its weights, whether unfused, and
// per pinned matmul the finalist pinned (#op:finalist).
func (c Candidate) Short() string {
	s := "weights=" + c.weights()
	if c.Unfused {
		s += " unfused"
	}
	for _, p := range c.Pins {
		s += fmt.Sprintf(" #%d:%d", p.Op, p.Finalist)
	}
	return s
}

// with returns c with matmul op pinned to p (replacing a pin of op).
func (c Candidate) with(p Pin) Candidate {
	pins := slices.DeleteFunc(slices.Clone(c.Pins), func(q Pin) bool { return q.Op == p.Op })
	pins = append(pins, p)
	slices.SortFunc(pins, func(a, b Pin) int { return a.Op - b.Op })
	return Candidate{Weights: c.Weights, Unfused: c.Unfused, Pins: pins}
}

// Key is the store's key for measuring c in job.
func (j *Job) Key(c Candidate) store.Key {
	return store.Key{SourceSHA256: toolkit.SourceSHA256(j.Source), Target: j.Target, Compiler: j.Compiler, Candidate: c.String()}
}

// Matmul is what the planner offers for one matmul: its finalists,
// cheapest first by the planner's estimate, and the one it chose.
type Matmul struct {
	Op        int
	Name      string
	Finalists []layout.GemmPlan
	Chosen    int
}

// Finalists runs the lowering up to plan-gemms with base's options (its
// pins left out) and returns every matmul's verified finalists.
func (j *Job) Finalists(base Candidate) ([]Matmul, error) {
	ctx, module, tg, err := j.parse()
	if err != nil {
		return nil, err
	}
	var steps []string
	for _, s := range registry.PipelinePasses(registry.LowerToTileAsm) {
		if s == "plan-gemms" {
			opt := "record-finalists"
			if base.Weights != "" {
				opt += " weights=" + base.Weights
			}
			if j.Keep > 0 {
				opt += fmt.Sprintf(" finalists=%d", j.Keep)
			}
			steps = append(steps, "plan-gemms{"+opt+"}")
			break
		}
		steps = append(steps, s)
	}
	steps = Candidate{Unfused: base.Unfused}.Options().Passes(steps)
	env := irtarget.EnvKey.With(nil, tg)
	if err := toolkit.RunPipeline(ctx, module, "builtin.module("+strings.Join(steps, ",")+")", env, slog.New(slog.DiscardHandler)); err != nil {
		return nil, fmt.Errorf("%s: the planner: %v", j.File, err)
	}
	var out []Matmul
	module.Walk(func(op *ir.Operation) ir.WalkResult {
		fs, ok := op.Attr(tiled.FinalistsAnnotation).(*ir.ArrayAttr)
		if !ok {
			return ir.WalkAdvance
		}
		m := Matmul{Op: len(out), Name: ir.DescribeOp(op)}
		chosen, _ := op.Attr(tiled.PlanAnnotation).(*tiled.GemmPlanAttr)
		for i, a := range fs.Elems {
			p, ok := a.(*tiled.GemmPlanAttr)
			if !ok {
				continue
			}
			if chosen != nil && p.Plan == chosen.Plan {
				m.Chosen = i
			}
			m.Finalists = append(m.Finalists, p.Plan)
		}
		out = append(out, m)
		return ir.WalkAdvance
	})
	return out, nil
}

func (j *Job) parse() (*ir.Context, *ir.Operation, *target.Target, error) {
	tg, err := target.Lookup(j.Target)
	if err != nil {
		return nil, nil, nil, err
	}
	ctx := registry.NewContext()
	module, err := parser.ParseSourceString(ctx, j.Source, parser.Config{Filename: j.File})
	if err != nil {
		return nil, nil, nil, err
	}
	return ctx, module, tg, nil
}

// Measure compiles c and runs the package on the simulated device with
// generated inputs, checking every output and checkpoint against the
// reference interpreter. A candidate the compiler refuses is a result
// (Refused, with the reason), not an error; an error is the measurement
// failing (bad input, no memory).
func (j *Job) Measure(c Candidate, worker string) (store.Result, error) {
	start := time.Now()
	r := store.Result{Key: j.Key(c), Worker: worker}
	finish := func() (store.Result, error) {
		r.Seconds, r.Measured = time.Since(start).Seconds(), time.Now()
		return r, nil
	}
	ctx, module, tg, err := j.parse()
	if err != nil {
		return r, err
	}
	env := irtarget.EnvKey.With(nil, tg)
	pkg, err := toolkit.CompilePackageWith(ctx, module, j.Source, env, slog.New(slog.DiscardHandler), tg, j.Compiler, toolkit.TunedPipeline(c.Options()))
	if err != nil {
		var d *ir.Diagnostic
		var ds passes.Diagnostics
		if errors.As(err, &d) || errors.As(err, &ds) {
			r.Status, r.Reason = store.Refused, firstLine(err.Error())
			return finish()
		}
		return r, err
	}
	// The reference: the program as written, parsed afresh.
	_, ref, _, err := j.parse()
	if err != nil {
		return r, err
	}
	name := j.Function
	if name == "" {
		if name, err = onlyFunction(ref); err != nil {
			return r, err
		}
	}
	fn, err := reference.LookupFunction(ref, name)
	if err != nil {
		return r, err
	}
	types, err := reference.ArgumentTypes(fn)
	if err != nil {
		return r, err
	}
	g, err := reference.ParseGenerator(fmt.Sprintf("gaussian:seed=%d", j.Seed))
	if err != nil {
		return r, err
	}
	inputs, err := g.Generate(types, reference.FanIns(fn))
	if err != nil {
		return r, err
	}
	dev := sim.New(tg, nil)
	defer dev.Close()
	if err := dev.Attach(); err != nil {
		return r, err
	}
	if err := dev.Initialize(); err != nil {
		return r, err
	}
	got, cycles, err := check.Execute(dev, pkg, inputs, check.ExecuteOptions{})
	if err != nil {
		return r, err
	}
	rep, err := check.Run(fn, pkg, inputs, got, check.Options{})
	if err != nil {
		return r, err
	}
	r.Cycles, r.Compared, r.MaxErrorToBound = cycles.Total, rep.Compared, rep.MaxRatio
	r.Status = store.Pass
	if !rep.Pass() {
		r.Status, r.Reason = store.Fail, firstLine(rep.Summary())
	}
	return finish()
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// onlyFunction names the module's one function.
func onlyFunction(module *ir.Operation) (string, error) {
	var names []string
	for _, op := range module.Region(0).Front().Ops() {
		if n, ok := ir.SymbolName(op); ok {
			names = append(names, n)
		}
	}
	if len(names) != 1 {
		return "", fmt.Errorf("the module defines %d functions (%s): name the one to tune with --function", len(names), strings.Join(names, ", "))
	}
	return names[0], nil
}

// Engine measures candidates: every one it is given, each result
// (measured now, or found in the store) in the candidates' order.
type Engine interface {
	Measure(ctx context.Context, job *Job, cands []Candidate) ([]store.Result, error)
}

// Searcher is an engine that runs a whole search itself (the Temporal
// engine: one workflow a search, deciding with Decide), rather than being
// given batch after batch.
type Searcher interface {
	Search(ctx context.Context, job *Job) (*Outcome, error)
}

// GridSearcher is an engine that runs a whole sweep itself (the Temporal
// engine: one workflow a sweep, a child workflow a search): an outcome and
// an error (nil, or why the search found nothing) for each job, or an error
// that ends the sweep.
type GridSearcher interface {
	SearchAll(ctx context.Context, jobs []*Job) ([]*Outcome, []error, error)
}

// Outcome is a search's result.
type Outcome struct {
	Default, Best store.Result
	BestCandidate Candidate
	// Measured counts every candidate the search asked for, Recalled those
	// the store already held (not measured again).
	Measured, Recalled int
	Results            []store.Result
	Candidates         []Candidate
}

// Measurement is a candidate's result, and whether the store held it.
type Measurement struct {
	Result   store.Result
	Recalled bool
}

// Steps are what a search does besides deciding: measure a batch of
// candidates, and ask the planner for every matmul's finalists with a
// candidate's options.
type Steps struct {
	Measure   func(cands []Candidate) ([]Measurement, error)
	Finalists func(base Candidate) ([]Matmul, error)
}

// Search tunes job: the weight placements, then each matmul's finalists
// in turn, keeping the fastest passing candidate. The store answers what
// it holds; the engine measures the rest. progress, when not nil, is told
// of each result.
func Search(ctx context.Context, job *Job, engine Engine, st *store.Store, progress func(Candidate, store.Result)) (*Outcome, error) {
	if s, ok := engine.(Searcher); ok {
		out, err := s.Search(ctx, job)
		if out != nil && progress != nil {
			for i, r := range out.Results {
				progress(out.Candidates[i], r)
			}
		}
		return out, err
	}
	steps := Steps{Finalists: job.Finalists, Measure: func(cands []Candidate) ([]Measurement, error) {
		ms := make([]Measurement, len(cands))
		var todo []Candidate
		var at []int
		for i, c := range cands {
			r, ok, err := st.Get(ctx, job.Key(c))
			if err != nil {
				return nil, err
			}
			if ok {
				ms[i] = Measurement{Result: r, Recalled: true}
				continue
			}
			todo, at = append(todo, c), append(at, i)
		}
		if len(todo) > 0 {
			got, err := engine.Measure(ctx, job, todo)
			if err != nil {
				return nil, err
			}
			if len(got) != len(todo) {
				return nil, fmt.Errorf("the engine returned %d results for %d candidates", len(got), len(todo))
			}
			for k, i := range at {
				ms[i].Result = got[k]
			}
		}
		if progress != nil {
			for i, m := range ms {
				progress(cands[i], m.Result)
			}
		}
		return ms, nil
	}}
	return Decide(job, steps)
}

// Decide is the search's decisions, given its steps: the weight
// placements (the default first) and the unfused plan, then, with the
// fastest, each matmul's
// other finalists pinned in turn, the fastest passing candidate kept. It
// does nothing but call steps and compare results, so it runs as
// workflow code as well as in a process.
func Decide(job *Job, steps Steps) (*Outcome, error) {
	out := &Outcome{}
	measure := func(cands []Candidate) ([]store.Result, error) {
		ms, err := steps.Measure(cands)
		if err != nil {
			return nil, err
		}
		if len(ms) != len(cands) {
			return nil, fmt.Errorf("%d results for %d candidates", len(ms), len(cands))
		}
		rs := make([]store.Result, len(ms))
		for i, m := range ms {
			rs[i] = m.Result
			out.Measured++
			if m.Recalled {
				out.Recalled++
			}
			out.Results, out.Candidates = append(out.Results, m.Result), append(out.Candidates, cands[i])
		}
		return rs, nil
	}
	better := func(r store.Result) bool {
		return r.Status == store.Pass && (out.Best.Status != store.Pass || r.Cycles < out.Best.Cycles)
	}
	places := []Candidate{{}, {Weights: "resident"}, {Weights: "home"}, {Unfused: true}}
	rs, err := measure(places)
	if err != nil {
		return nil, err
	}
	out.Default = rs[0]
	for i, r := range rs {
		if better(r) {
			out.Best, out.BestCandidate = r, places[i]
		}
	}
	if out.Best.Status != store.Pass {
		return out, fmt.Errorf("%s: no weight placement compiles and passes the check on %s (default: %s %s)", job.File, job.Target, out.Default.Status, out.Default.Reason)
	}
	matmuls, err := steps.Finalists(out.BestCandidate)
	if err != nil {
		return nil, err
	}
	for _, m := range matmuls {
		var cands []Candidate
		for f, p := range m.Finalists {
			if f != m.Chosen {
				cands = append(cands, out.BestCandidate.with(Pin{Op: m.Op, Finalist: f, Plan: p}))
			}
		}
		if len(cands) == 0 {
			continue
		}
		rs, err := measure(cands)
		if err != nil {
			return nil, err
		}
		for i, r := range rs {
			if better(r) {
				out.Best, out.BestCandidate = r, cands[i]
			}
		}
	}
	return out, nil
}

// Record is the tuning record of the search's best candidate.
func (o *Outcome) Record(job *Job) *toolkit.Tuning {
	return &toolkit.Tuning{Format: toolkit.TuningFormat, Version: toolkit.TuningVersion, Target: job.Target,
		SourceSHA256: toolkit.SourceSHA256(job.Source), PlanGemms: o.BestCandidate.Options().PlanGemms, TiledPrepare: o.BestCandidate.Options().TiledPrepare,
		Cycles: o.Best.Cycles, DefaultCycles: o.Default.Cycles, Candidates: o.Measured, Compiler: job.Compiler}
}
