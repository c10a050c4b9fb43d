// Package temporalengine runs a tuner's search on Temporal, a workflow
// engine, instead of in one process: a workflow per search (its decisions
// are tune.Decide, as the local engine's), an activity per candidate and
// one for the planner's finalists, run by `ipu-tune worker` processes on
// any machine that reaches the Temporal server. The server
// keeps the workflow's state: a worker that dies in the middle of a
// candidate stops heartbeating, and the activity is retried on another;
// a client that dies can start the sweep again, and the result store
// (package store) answers what was measured already.
//
// An activity runs the same function as the local engine
// (tune.Measured): a worker that reaches the store asks it first and
// writes its result there; one without a store measures and returns the
// result through the workflow, and the client stores it. Either way a
// result is written once, whole, or not at all.
package temporalengine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"time"

	enums "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/ipuir/ipuir/tools/toolkit"
	"github.com/ipuir/ipuir/tune"
	"github.com/ipuir/ipuir/tune/store"
)

// Names of the workflows, the activities and the default task queue.
const (
	SweepWorkflow     = "ipu-tune.sweep"
	SearchWorkflow    = "ipu-tune.search"
	BatchWorkflow     = "ipu-tune.batch"
	MeasureActivity   = "ipu-tune.measure"
	FinalistsActivity = "ipu-tune.finalists"
	DefaultTaskQueue  = "ipu-tune"
)

// Policy is how the activities of a workflow are run.
type Policy struct {
	// HeartbeatTimeout is how long a worker may go silent before its
	// candidate is given to another; StartToClose bounds one attempt.
	HeartbeatTimeout, StartToClose time.Duration
	MaxAttempts                    int32
}

// SearchInput is one search: a job, decided as tune.Decide decides.
// Known are the results the client's store holds for the job: the
// workflow takes them as they are and measures the rest, so a search
// started again measures nothing twice even on workers without the store.
type SearchInput struct {
	Job    tune.Job
	Policy Policy
	Known  []store.Result
}

// SearchOutput is a search's outcome; Failed says why the search found no
// passing candidate (the outcome then holds what it measured).
type SearchOutput struct {
	Outcome tune.Outcome
	Failed  string
}

// BatchInput is a batch of candidates of one job.
type BatchInput struct {
	Job        tune.Job
	Candidates []tune.Candidate
	Policy     Policy
}

// MeasureInput is one candidate.
type MeasureInput struct {
	Job       tune.Job
	Candidate tune.Candidate
}

// FinalistsInput asks the planner for a job's finalists under Base's
// options.
type FinalistsInput struct {
	Job  tune.Job
	Base tune.Candidate
}

func withPolicy(ctx workflow.Context, p Policy) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: p.StartToClose,
		HeartbeatTimeout:    p.HeartbeatTimeout,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumAttempts: p.MaxAttempts},
	})
}

// measureAll runs every candidate's activity at once and waits for all:
// results in the candidates' order. Temporal retries an attempt that
// fails or whose worker stops heartbeating.
func measureAll(ctx workflow.Context, job tune.Job, cands []tune.Candidate) ([]tune.Measurement, error) {
	futures := make([]workflow.Future, len(cands))
	for i, c := range cands {
		futures[i] = workflow.ExecuteActivity(ctx, MeasureActivity, MeasureInput{Job: job, Candidate: c})
	}
	out := make([]tune.Measurement, len(futures))
	for i, f := range futures {
		if err := f.Get(ctx, &out[i]); err != nil {
			return nil, fmt.Errorf("candidate %s: %w", cands[i].Short(), err)
		}
	}
	return out, nil
}

// Search is the search workflow: tune.Decide with its steps as
// activities. Decide only calls its steps and compares their results, so
// it replays deterministically.
func Search(ctx workflow.Context, in SearchInput) (*SearchOutput, error) {
	ctx = withPolicy(ctx, in.Policy)
	job := in.Job
	known := map[string]store.Result{}
	for _, r := range in.Known {
		known[r.Key.Hash()] = r
	}
	out, err := tune.Decide(&job, tune.Steps{
		Measure: func(cands []tune.Candidate) ([]tune.Measurement, error) {
			ms := make([]tune.Measurement, len(cands))
			var todo []tune.Candidate
			var at []int
			for i, c := range cands {
				if r, ok := known[job.Key(c).Hash()]; ok {
					ms[i] = tune.Measurement{Result: r, Recalled: true}
					continue
				}
				todo, at = append(todo, c), append(at, i)
			}
			got, err := measureAll(ctx, job, todo)
			if err != nil {
				return nil, err
			}
			for k, i := range at {
				ms[i] = got[k]
			}
			return ms, nil
		},
		Finalists: func(base tune.Candidate) ([]tune.Matmul, error) {
			var ms []tune.Matmul
			err := workflow.ExecuteActivity(ctx, FinalistsActivity, FinalistsInput{Job: job, Base: base}).Get(ctx, &ms)
			return ms, err
		},
	})
	if err != nil && out != nil {
		return &SearchOutput{Outcome: *out, Failed: err.Error()}, nil
	}
	if err != nil {
		return nil, err
	}
	return &SearchOutput{Outcome: *out}, nil
}

// SweepInput is a grid's searches.
type SweepInput struct {
	Searches []SearchInput
}

// Sweep is the sweep workflow: every search a child workflow, all at once
// (their activities share the workers), outcomes in order.
func Sweep(ctx workflow.Context, in SweepInput) ([]SearchOutput, error) {
	futures := make([]workflow.ChildWorkflowFuture, len(in.Searches))
	for i, s := range in.Searches {
		futures[i] = workflow.ExecuteChildWorkflow(ctx, SearchWorkflow, s)
	}
	out := make([]SearchOutput, len(futures))
	for i, f := range futures {
		var o *SearchOutput
		if err := f.Get(ctx, &o); err != nil {
			return nil, fmt.Errorf("search %d (%s on %s): %w", i, in.Searches[i].Job.File, in.Searches[i].Job.Target, err)
		}
		out[i] = *o
	}
	return out, nil
}

// Batch is the batch workflow: the given candidates measured.
func Batch(ctx workflow.Context, in BatchInput) ([]tune.Measurement, error) {
	return measureAll(withPolicy(ctx, in.Policy), in.Job, in.Candidates)
}

// Activities are a worker's activities; Store may be nil (results go back
// through the workflow only).
type Activities struct {
	Store  *store.Store
	Worker string
	// Heartbeat is how often a measurement tells the server it is alive.
	Heartbeat time.Duration
}

// Measure is the activity: one candidate measured (or found in the
// store), heartbeating while it runs.
func (a *Activities) Measure(ctx context.Context, in MeasureInput) (tune.Measurement, error) {
	every := a.Heartbeat
	if every <= 0 {
		every = 2 * time.Second
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				activity.RecordHeartbeat(ctx, in.Candidate.Short())
			}
		}
	}()
	activity.RecordHeartbeat(ctx, in.Candidate.Short())
	log := activity.GetLogger(ctx)
	if a.Store != nil {
		if r, ok, err := a.Store.Get(ctx, in.Job.Key(in.Candidate)); err != nil || ok {
			return tune.Measurement{Result: r, Recalled: ok}, err
		}
	}
	log.Info("measuring", "candidate", in.Candidate.Short())
	var r store.Result
	var err error
	if a.Store == nil {
		r, err = in.Job.Measure(in.Candidate, a.Worker)
	} else {
		r, err = tune.Measured(ctx, a.Store, &in.Job, in.Candidate, a.Worker)
	}
	if err != nil {
		return tune.Measurement{}, err
	}
	log.Info("measured", "candidate", in.Candidate.Short(), "status", r.Status, "cycles", r.Cycles)
	return tune.Measurement{Result: r}, nil
}

// Finalists is the activity that asks the planner for finalists.
func (a *Activities) Finalists(ctx context.Context, in FinalistsInput) ([]tune.Matmul, error) {
	return in.Job.Finalists(in.Base)
}

// Register registers the workflows and the activities on w.
func Register(w worker.Registry, a *Activities) {
	w.RegisterWorkflowWithOptions(Sweep, workflow.RegisterOptions{Name: SweepWorkflow})
	w.RegisterWorkflowWithOptions(Search, workflow.RegisterOptions{Name: SearchWorkflow})
	w.RegisterWorkflowWithOptions(Batch, workflow.RegisterOptions{Name: BatchWorkflow})
	w.RegisterActivityWithOptions(a.Measure, activity.RegisterOptions{Name: MeasureActivity})
	w.RegisterActivityWithOptions(a.Finalists, activity.RegisterOptions{Name: FinalistsActivity})
}

// WorkerName is a worker's name in results: host and process.
func WorkerName() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s/pid-%d", host, os.Getpid())
}

// Engine runs sweeps, searches and batches through Temporal; it implements
// tune.Engine, tune.Searcher and tune.GridSearcher.
type Engine struct {
	Client    client.Client
	TaskQueue string
	// Store receives the results the workflows return (a worker without
	// the store measured them).
	Store                          *store.Store
	HeartbeatTimeout, StartToClose time.Duration
	MaxAttempts                    int32
}

func (e *Engine) policy() Policy {
	p := Policy{HeartbeatTimeout: e.HeartbeatTimeout, StartToClose: e.StartToClose, MaxAttempts: e.MaxAttempts}
	if p.HeartbeatTimeout <= 0 {
		p.HeartbeatTimeout = 30 * time.Second
	}
	if p.StartToClose <= 0 {
		p.StartToClose = time.Hour
	}
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = 5
	}
	return p
}

func (e *Engine) queue() string {
	if e.TaskQueue == "" {
		return DefaultTaskQueue
	}
	return e.TaskQueue
}

// run starts a workflow (or, with an id, joins the one of that id that is
// running) and waits for its result.
func (e *Engine) run(ctx context.Context, id, name string, in, out any) error {
	opts := client.StartWorkflowOptions{TaskQueue: e.queue(), ID: id}
	if id != "" {
		// A client started again joins the search it left running.
		opts.WorkflowIDConflictPolicy = enums.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING
	}
	run, err := e.Client.ExecuteWorkflow(ctx, opts, name, in)
	if err != nil {
		return fmt.Errorf("starting %s on Temporal: %v", name, err)
	}
	if err := run.Get(ctx, out); err != nil {
		var app *temporal.ApplicationError
		if errors.As(err, &app) {
			return fmt.Errorf("the workflow %s failed: %s", run.GetID(), app.Error())
		}
		return fmt.Errorf("the workflow %s: %v", run.GetID(), err)
	}
	return nil
}

// store writes results that match cands' keys to the engine's store.
func (e *Engine) store(ctx context.Context, job *tune.Job, cands []tune.Candidate, rs []store.Result) error {
	if len(rs) != len(cands) {
		return fmt.Errorf("the workflow returned %d results for %d candidates", len(rs), len(cands))
	}
	for i := range rs {
		if rs[i].Key != job.Key(cands[i]) {
			return fmt.Errorf("the workflow returned a result for another candidate (%s)", rs[i].Key.Candidate)
		}
		if e.Store != nil {
			if _, err := e.Store.Put(ctx, rs[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// searchInput is job's search, with what the engine's store knows of it.
func (e *Engine) searchInput(ctx context.Context, job *tune.Job) (SearchInput, error) {
	in := SearchInput{Job: *job, Policy: e.policy()}
	if e.Store != nil {
		known, err := e.Store.Query(ctx, toolkit.SourceSHA256(job.Source), job.Target, job.Compiler)
		if err != nil {
			return in, err
		}
		in.Known = known
	}
	return in, nil
}

// failed is a search's Failed as an error (nil when it found a winner).
func (res *SearchOutput) failed() error {
	if res.Failed == "" {
		return nil
	}
	return errors.New(res.Failed)
}

// Search implements tune.Searcher: one workflow for the whole search, its
// id the job's (so a client started again joins it while it runs).
func (e *Engine) Search(ctx context.Context, job *tune.Job) (*tune.Outcome, error) {
	in, err := e.searchInput(ctx, job)
	if err != nil {
		return nil, err
	}
	var res SearchOutput
	if err := e.run(ctx, "ipu-tune-search-"+job.Key(tune.Candidate{}).Hash()[:24], SearchWorkflow, in, &res); err != nil {
		return nil, err
	}
	if err := e.store(ctx, job, res.Outcome.Candidates, res.Outcome.Results); err != nil {
		return nil, err
	}
	return &res.Outcome, res.failed()
}

// SearchAll implements tune.GridSearcher: one workflow for the sweep, its
// id the grid's, a child workflow a search.
func (e *Engine) SearchAll(ctx context.Context, jobs []*tune.Job) ([]*tune.Outcome, []error, error) {
	var in SweepInput
	h := sha256.New()
	for _, job := range jobs {
		s, err := e.searchInput(ctx, job)
		if err != nil {
			return nil, nil, err
		}
		in.Searches = append(in.Searches, s)
		fmt.Fprintf(h, "%s;", job.Key(tune.Candidate{}).Hash())
	}
	var res []SearchOutput
	if err := e.run(ctx, "ipu-tune-sweep-"+hex.EncodeToString(h.Sum(nil))[:24], SweepWorkflow, in, &res); err != nil {
		return nil, nil, err
	}
	if len(res) != len(jobs) {
		return nil, nil, fmt.Errorf("the sweep returned %d outcomes for %d searches", len(res), len(jobs))
	}
	outs, errs := make([]*tune.Outcome, len(jobs)), make([]error, len(jobs))
	for i, job := range jobs {
		if err := e.store(ctx, job, res[i].Outcome.Candidates, res[i].Outcome.Results); err != nil {
			return nil, nil, err
		}
		outs[i], errs[i] = &res[i].Outcome, res[i].failed()
	}
	return outs, errs, nil
}

// Measure implements tune.Engine: one workflow for the batch.
func (e *Engine) Measure(ctx context.Context, job *tune.Job, cands []tune.Candidate) ([]store.Result, error) {
	if len(cands) == 0 {
		return nil, nil
	}
	var ms []tune.Measurement
	if err := e.run(ctx, "", BatchWorkflow, BatchInput{Job: *job, Candidates: cands, Policy: e.policy()}, &ms); err != nil {
		return nil, err
	}
	rs := make([]store.Result, len(ms))
	for i, m := range ms {
		rs[i] = m.Result
	}
	return rs, e.store(ctx, job, cands, rs)
}
