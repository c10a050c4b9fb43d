package temporalengine

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/server/temporaltest"

	"github.com/ipuir/ipuir/tools/toolkit"
	"github.com/ipuir/ipuir/tune"
	"github.com/ipuir/ipuir/tune/store"
)

func tinyJob(t *testing.T) *tune.Job {
	t.Helper()
	src, err := os.ReadFile("../../examples/attention-tiny.ipuir")
	if err != nil {
		t.Fatal(err)
	}
	return &tune.Job{File: "attention-tiny.ipuir", Source: src, Target: "test16", Seed: 1, Compiler: "test"}
}

func openStore(t *testing.T, path string) *store.Store {
	t.Helper()
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// contents is a store's rows for job, by candidate: what was measured,
// not who measured it or when.
func contents(t *testing.T, st *store.Store, job *tune.Job) map[string]store.Result {
	t.Helper()
	rows, err := st.Query(context.Background(), toolkit.SourceSHA256(job.Source), job.Target, job.Compiler)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]store.Result{}
	for _, r := range rows {
		r.Seconds, r.Worker, r.Measured = 0, "", time.Time{}
		out[r.Key.Candidate] = r
	}
	return out
}

// The same search on the local engine and on Temporal's test server (a
// workflow a batch, an activity a candidate, run by a worker with the
// store and by one without it) finds the same best candidate and leaves
// the same store contents.
func TestTemporalAgreesWithLocal(t *testing.T) {
	ctx := context.Background()
	job := tinyJob(t)
	dir := t.TempDir()

	local := openStore(t, filepath.Join(dir, "local.db"))
	want, err := tune.Search(ctx, job, &tune.Local{Store: local}, local, nil)
	if err != nil {
		t.Fatal(err)
	}

	ts := temporaltest.NewServer(temporaltest.WithT(t))
	shared := openStore(t, filepath.Join(dir, "temporal.db"))
	ts.NewWorker(DefaultTaskQueue, func(r worker.Registry) {
		Register(r, &Activities{Store: shared, Worker: "with-store", Heartbeat: 500 * time.Millisecond})
	})
	// A second worker without the store: its results come back through the
	// workflow and the client stores them.
	ts.NewWorkerWithOptions(DefaultTaskQueue, func(r worker.Registry) {
		Register(r, &Activities{Worker: "no-store", Heartbeat: 500 * time.Millisecond})
	}, worker.Options{})
	engine := &Engine{Client: ts.GetDefaultClient(), Store: shared, HeartbeatTimeout: 10 * time.Second}
	got, err := tune.Search(ctx, job, engine, shared, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.BestCandidate.String() != want.BestCandidate.String() || got.Best.Cycles != want.Best.Cycles || got.Measured != want.Measured {
		t.Errorf("Temporal: best %s (%d cycles) of %d; local: %s (%d) of %d", got.BestCandidate.Short(), got.Best.Cycles, got.Measured,
			want.BestCandidate.Short(), want.Best.Cycles, want.Measured)
	}
	a, b := contents(t, local, job), contents(t, shared, job)
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("the local store holds %d results, Temporal's %d", len(a), len(b))
	}
	for k, r := range a {
		if b[k] != r {
			t.Errorf("%s: local %+v, Temporal %+v", k, r, b[k])
		}
	}
	// Again on Temporal: everything is in the store, nothing is measured.
	again, err := tune.Search(ctx, job, engine, shared, nil)
	if err != nil || again.Recalled != again.Measured {
		t.Errorf("the search again recalled %d of %d: %v", again.Recalled, again.Measured, err)
	}
	t.Logf("%d candidates on both engines; best %s, %d cycles", got.Measured, got.BestCandidate.Short(), got.Best.Cycles)

	// A model no placement fits: the workflow reports what it measured and
	// why nothing won, as the local search does.
	big, err := os.ReadFile("../../examples/attention.ipuir")
	if err != nil {
		t.Fatal(err)
	}
	tooBig := &tune.Job{File: "attention.ipuir", Source: big, Target: "test16", Seed: 1, Compiler: "test"}
	out, err := tune.Search(ctx, tooBig, engine, shared, nil)
	if err == nil || out == nil || out.Measured != 4 || out.Default.Status != store.Refused {
		t.Errorf("a model too big for the target: %+v, %v", out, err)
	}
}

// A sweep on Temporal is one workflow, a child workflow a search: the
// same rows as the local engine's sweep.
func TestTemporalSweepIsOneWorkflow(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	model, err := filepath.Abs("../../examples/attention-tiny.ipuir")
	if err != nil {
		t.Fatal(err)
	}
	specPath := filepath.Join(dir, "spec.json")
	if err := os.WriteFile(specPath, []byte(`{"models": ["`+model+`"], "targets": ["test16", "test16{exchange-latency-cycles=60}"], "finalists": 2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := tune.ReadSweepSpec(specPath)
	if err != nil {
		t.Fatal(err)
	}
	local := openStore(t, filepath.Join(dir, "local.db"))
	want, err := tune.Sweep(ctx, spec, &tune.Local{Store: local}, local, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := temporaltest.NewServer(temporaltest.WithT(t))
	shared := openStore(t, filepath.Join(dir, "temporal.db"))
	ts.NewWorker(DefaultTaskQueue, func(r worker.Registry) { Register(r, &Activities{Store: shared, Worker: "w"}) })
	engine := &Engine{Client: ts.GetDefaultClient(), Store: shared}
	got, err := tune.Sweep(ctx, spec, engine, shared, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Status != "tuned" || got[i].Best != want[i].Best || got[i].TunedCycles != want[i].TunedCycles || got[i].DefaultCycles != want[i].DefaultCycles || got[i].Candidates != want[i].Candidates {
			t.Errorf("row %d: Temporal %+v, local %+v", i, *got[i], *want[i])
		}
	}
	// The sweep ran as one workflow with a child a search.
	resp, err := engine.Client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: ts.GetDefaultNamespace()})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, e := range resp.Executions {
		kinds[e.Type.Name]++
	}
	if kinds[SweepWorkflow] != 1 || kinds[SearchWorkflow] != 2 {
		t.Errorf("workflows run: %v (want one sweep and a search per cell)", kinds)
	}
}
