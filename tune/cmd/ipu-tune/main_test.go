package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.temporal.io/sdk/worker"
	"go.temporal.io/server/temporaltest"

	"github.com/ipuir/ipuir/tools/toolkit"
	"github.com/ipuir/ipuir/tune/store"
	"github.com/ipuir/ipuir/tune/temporalengine"
)

func runTool(args ...string) (int, string, string) {
	var out, errs bytes.Buffer
	code := run(context.Background(), args, &out, &errs)
	return code, out.String(), errs.String()
}

// ipu-tune writes a tuning record that ipu-translate reads, reports what it
// measured, and its store answers `ipu-tune results`; a second run
// measures nothing. Usage errors exit 2, failures 1.
func TestTool(t *testing.T) {
	dir := t.TempDir()
	model := "../../../examples/attention-tiny.ipuir"
	db, rec := filepath.Join(dir, "r.db"), filepath.Join(dir, "tuning.json")
	code, out, errs := runTool(model, "--store", db, "-o", rec)
	if code != 0 || !strings.Contains(out, "tuned: target=test16 candidates=32 measured=32 recalled=0") {
		t.Fatalf("exit %d:\n%s%s", code, out, errs)
	}
	if _, err := toolkit.ReadTuning(rec); err != nil {
		t.Fatalf("the record: %v", err)
	}
	if code, out, _ := runTool(model, "--store", db, "-o", rec); code != 0 || !strings.Contains(out, "measured=0 recalled=32") {
		t.Errorf("again: exit %d:\n%s", code, out)
	}
	code, out, errs = runTool("results", "--store", db, model)
	if code != 0 || !strings.Contains(out, "32 results") || !strings.Contains(out, "test16  pass") {
		t.Errorf("results: exit %d:\n%s%s", code, out, errs)
	}
	// A sweep of the model on two targets: its tables, records and reports.
	spec := filepath.Join(dir, "spec.json")
	abs, _ := filepath.Abs(model)
	os.WriteFile(spec, []byte(`{"models": ["`+abs+`"], "targets": ["test16", "test16{exchange-latency-cycles=60}"], "finalists": 2}`), 0o644)
	sweepDir := filepath.Join(dir, "sweep")
	code, out, errs = runTool("sweep", spec, "--store", db, "-o", sweepDir)
	if code != 0 || !strings.Contains(out, "swept: 1 models on 2 targets, 2 tunings") {
		t.Fatalf("sweep: exit %d:\n%s%s", code, out, errs)
	}
	for _, f := range []string{"sweep.csv", "sweep.md", "attention-tiny-test16.tuning.json", "attention-tiny-test16.html", "attention-tiny-test16_exchange-latency-cycles_60_.html"} {
		if _, err := os.Stat(filepath.Join(sweepDir, f)); err != nil {
			t.Errorf("the sweep wrote no %s", f)
		}
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"sweep"}, 2, "give one SPEC.json"},
		{[]string{"sweep", model, "-o", sweepDir}, 1, "not a sweep spec"},
		{nil, 2, "give one program to tune"},
		{[]string{model, "--engine", "elsewhere"}, 2, "--engine=elsewhere"},
		{[]string{filepath.Join(dir, "nosuch.ipuir")}, 1, "nosuch.ipuir"},
		{[]string{model, "--target", "nosuch"}, 1, `unknown target "nosuch"`},
		{[]string{model, "--store", db, "-o", model}, 1, "refusing to overwrite an input"},
		{[]string{"results", "--store", filepath.Join(dir, "none.db")}, 1, "none.db"},
	} {
		code, _, errs := runTool(c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("ipu-tune %v: exit %d: %s (want %d, %q)", c.args, code, errs, c.code, c.want)
		}
	}
	if b, _ := os.ReadFile(model); !bytes.Contains(b, []byte("func.func")) {
		t.Error("the model was overwritten")
	}
}

// --engine=temporal: the tool dials the server and runs the search as a
// workflow on the workers there (one here, in this process, with the
// store); the same best candidate as the local engine's.
func TestToolOnTemporal(t *testing.T) {
	ts := temporaltest.NewServer(temporaltest.WithT(t))
	dir := t.TempDir()
	db := filepath.Join(dir, "r.db")
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ts.NewWorker(temporalengine.DefaultTaskQueue, func(r worker.Registry) {
		temporalengine.Register(r, &temporalengine.Activities{Store: st, Worker: "in-test"})
	})
	model := "../../../examples/attention-tiny.ipuir"
	code, out, errs := runTool(model, "--engine=temporal", "--temporal-address", ts.GetFrontendHostPort(), "--namespace", ts.GetDefaultNamespace(),
		"--store", db, "-o", filepath.Join(dir, "t.json"), "--finalists", "2")
	if code != 0 || !strings.Contains(out, "tuned: target=test16") || !strings.Contains(out, `best="weights=auto"`) {
		t.Fatalf("exit %d:\n%s%s", code, out, errs)
	}
	if code, _, errs := runTool(model, "--engine=temporal", "--store", db, "-o", filepath.Join(dir, "u.json")); code != 1 || !strings.Contains(errs, "--temporal-address=HOST:PORT names the Temporal server") {
		t.Errorf("no address: exit %d: %s", code, errs)
	}
}
