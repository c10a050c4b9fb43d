// Package temporalengine measures a tuner's candidates on Temporal, a
// workflow engine, instead of in one process: a workflow per batch of
// candidates, an activity per candidate, run by `ipu-tune worker`
// processes on any machine that reaches the Temporal server. The server
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
	"errors"
	"fmt"
	"os"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/ipuir/ipuir/tune"
	"github.com/ipuir/ipuir/tune/store"
)

// Names of the workflow, the activity and the default task queue.
const (
	SweepWorkflow    = "ipu-tune.sweep"
	MeasureActivity  = "ipu-tune.measure"
	DefaultTaskQueue = "ipu-tune"
)

// SweepInput is a batch of candidates of one job.
type SweepInput struct {
	Job        tune.Job
	Candidates []tune.Candidate
	// HeartbeatTimeout is how long a worker may go silent before its
	// candidate is given to another; StartToClose bounds one attempt.
	HeartbeatTimeout, StartToClose time.Duration
	MaxAttempts                    int32
}

// MeasureInput is one candidate.
type MeasureInput struct {
	Job       tune.Job
	Candidate tune.Candidate
}

// Sweep is the workflow: every candidate's activity at once, results in
// the candidates' order. Temporal retries an attempt that fails or whose
// worker stops heartbeating.
func Sweep(ctx workflow.Context, in SweepInput) ([]store.Result, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: in.StartToClose,
		HeartbeatTimeout:    in.HeartbeatTimeout,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumAttempts: in.MaxAttempts},
	})
	futures := make([]workflow.Future, len(in.Candidates))
	for i, c := range in.Candidates {
		futures[i] = workflow.ExecuteActivity(ctx, MeasureActivity, MeasureInput{Job: in.Job, Candidate: c})
	}
	out := make([]store.Result, len(futures))
	for i, f := range futures {
		if err := f.Get(ctx, &out[i]); err != nil {
			return nil, fmt.Errorf("candidate %s: %w", in.Candidates[i].Short(), err)
		}
	}
	return out, nil
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
func (a *Activities) Measure(ctx context.Context, in MeasureInput) (store.Result, error) {
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
	log.Info("measuring", "candidate", in.Candidate.Short())
	var r store.Result
	var err error
	if a.Store == nil {
		r, err = in.Job.Measure(in.Candidate, a.Worker)
	} else {
		r, err = tune.Measured(ctx, a.Store, &in.Job, in.Candidate, a.Worker)
	}
	if err == nil {
		log.Info("measured", "candidate", in.Candidate.Short(), "status", r.Status, "cycles", r.Cycles)
	}
	return r, err
}

// Register registers the workflow and the activity on w.
func Register(w worker.Registry, a *Activities) {
	w.RegisterWorkflowWithOptions(Sweep, workflow.RegisterOptions{Name: SweepWorkflow})
	w.RegisterActivityWithOptions(a.Measure, activity.RegisterOptions{Name: MeasureActivity})
}

// WorkerName is a worker's name in results: host and process.
func WorkerName() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s/pid-%d", host, os.Getpid())
}

// Engine measures candidates through Temporal; it implements tune.Engine.
type Engine struct {
	Client    client.Client
	TaskQueue string
	// Store receives the results the workflow returns (a worker without
	// the store measured them).
	Store                          *store.Store
	HeartbeatTimeout, StartToClose time.Duration
	MaxAttempts                    int32
}

// Measure implements tune.Engine: one workflow for the batch.
func (e *Engine) Measure(ctx context.Context, job *tune.Job, cands []tune.Candidate) ([]store.Result, error) {
	if len(cands) == 0 {
		return nil, nil
	}
	in := SweepInput{Job: *job, Candidates: cands, HeartbeatTimeout: e.HeartbeatTimeout, StartToClose: e.StartToClose, MaxAttempts: e.MaxAttempts}
	if in.HeartbeatTimeout <= 0 {
		in.HeartbeatTimeout = 30 * time.Second
	}
	if in.StartToClose <= 0 {
		in.StartToClose = time.Hour
	}
	if in.MaxAttempts <= 0 {
		in.MaxAttempts = 5
	}
	queue := e.TaskQueue
	if queue == "" {
		queue = DefaultTaskQueue
	}
	run, err := e.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: queue}, SweepWorkflow, in)
	if err != nil {
		return nil, fmt.Errorf("starting the sweep on Temporal: %v", err)
	}
	var out []store.Result
	if err := run.Get(ctx, &out); err != nil {
		var app *temporal.ApplicationError
		if errors.As(err, &app) {
			return nil, fmt.Errorf("the sweep %s failed: %s", run.GetID(), app.Error())
		}
		return nil, fmt.Errorf("the sweep %s: %v", run.GetID(), err)
	}
	if len(out) != len(cands) {
		return nil, fmt.Errorf("the sweep %s returned %d results for %d candidates", run.GetID(), len(out), len(cands))
	}
	for i := range out {
		if out[i].Key != job.Key(cands[i]) {
			return nil, fmt.Errorf("the sweep %s returned a result for another candidate (%s)", run.GetID(), out[i].Key.Candidate)
		}
		if e.Store != nil {
			if _, err := e.Store.Put(ctx, out[i]); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}
