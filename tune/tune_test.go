package tune

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/layout"
	"github.com/ipuir/ipuir/tools/toolkit"
	"github.com/ipuir/ipuir/tune/store"
)

func tinyJob(t *testing.T) *Job {
	t.Helper()
	src, err := os.ReadFile("../examples/attention-tiny.ipuir")
	if err != nil {
		t.Fatal(err)
	}
	return &Job{File: "attention-tiny.ipuir", Source: src, Target: "test16", Seed: 1, Compiler: "test"}
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

// A search measures the weight placements and every finalist of every
// matmul once, keeps the fastest passing candidate (no slower than the
// default), stores one row per candidate, and run again on the same store
// measures nothing. The record's options compile to the best's cycles.
func TestSearchStoresOnceAndResumes(t *testing.T) {
	ctx := context.Background()
	job := tinyJob(t)
	path := filepath.Join(t.TempDir(), "results.db")
	st := openStore(t, path)
	first, err := Search(ctx, job, &Local{Store: st, Workers: 2}, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	matmuls, err := job.Finalists(first.BestCandidate)
	if err != nil {
		t.Fatal(err)
	}
	want := 4
	for _, m := range matmuls {
		want += len(m.Finalists) - 1
	}
	if first.Measured != want || first.Recalled != 0 {
		t.Errorf("measured %d (recalled %d), want %d candidates: the placements and each matmul's other finalists", first.Measured, first.Recalled, want)
	}
	if first.Default.Status != store.Pass || first.Best.Status != store.Pass || first.Best.Cycles > first.Default.Cycles || first.Best.Compared == 0 {
		t.Fatalf("default %+v, best %+v", first.Default, first.Best)
	}
	rows, err := st.Query(ctx, toolkit.SourceSHA256(job.Source), job.Target, job.Compiler)
	if err != nil {
		t.Fatal(err)
	}
	distinct := map[string]bool{}
	for _, c := range first.Candidates {
		distinct[c.String()] = true
	}
	if len(rows) != len(distinct) {
		t.Errorf("the store holds %d rows for %d distinct candidates", len(rows), len(distinct))
	}
	again, err := Search(ctx, job, &Local{Store: openStore(t, path), Workers: 1}, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	if again.Recalled != again.Measured || again.BestCandidate.String() != first.BestCandidate.String() || again.Best.Cycles != first.Best.Cycles {
		t.Errorf("the search again: recalled %d of %d, best %s (%d cycles); first %s (%d)", again.Recalled, again.Measured,
			again.BestCandidate.Short(), again.Best.Cycles, first.BestCandidate.Short(), first.Best.Cycles)
	}
	rec := first.Record(job)
	back, err := toolkit.ParseTuning(rec.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if err := back.Check(job.Source, job.Target); err != nil {
		t.Fatal(err)
	}
	r, err := job.Measure(first.BestCandidate, "test")
	if err != nil || r.Status != store.Pass || r.Cycles != back.Cycles {
		t.Errorf("the record's options measure %+v, %v; the record says %d cycles", r, err, back.Cycles)
	}
	t.Logf("%d candidates: default %d cycles, best %s %d cycles", first.Measured, first.Default.Cycles, first.BestCandidate.Short(), first.Best.Cycles)
}

// A candidate the compiler refuses is a result with the reason, not an
// error: a plan pinned to more partitions than the chip has tiles.
func TestRefusedCandidateIsAResult(t *testing.T) {
	job := tinyJob(t)
	matmuls, err := job.Finalists(Candidate{})
	if err != nil || len(matmuls) == 0 {
		t.Fatalf("finalists: %v", err)
	}
	p := matmuls[0].Finalists[0]
	p.RowPartitions = 1000
	r, err := job.Measure(Candidate{Pins: []Pin{{Op: 0, Plan: p}}}, "test")
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != store.Refused || !strings.Contains(r.Reason, "error:") {
		t.Errorf("Measure = %+v", r)
	}
}

// Candidates name their options canonically, whatever order pins came in.
func TestCandidateText(t *testing.T) {
	p := layout.GemmPlan{Orientation: layout.Swapped, BatchPartitions: 1, RowPartitions: 2, ColumnPartitions: 1, InnerPartitions: 1, InnerSteps: 1,
		ResultRowPartitions: 1, ResultColumnPartitions: 1, OutputColumnBlock: 16, WeightMemoryClass: "Test16Standard"}
	a := Candidate{}.with(Pin{Op: 2, Finalist: 1, Plan: p}).with(Pin{Op: 0, Finalist: 3, Plan: p})
	b := Candidate{}.with(Pin{Op: 0, Finalist: 3, Plan: p}).with(Pin{Op: 2, Finalist: 1, Plan: p})
	if a.String() != b.String() || a.Short() != "weights=auto #0:3 #2:1" {
		t.Errorf("%q / %q, short %q", a.String(), b.String(), a.Short())
	}
	if !strings.HasPrefix(a.Options().PlanGemms.Constraints, "source_operation = 0, orientation = swapped,") || !strings.Contains(a.Options().PlanGemms.Constraints, "; source_operation = 2,") {
		t.Errorf("constraints %q", a.Options().PlanGemms.Constraints)
	}
}
