package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/server/temporaltest"

	"github.com/ipuir/ipuir/tools/toolkit"
	"github.com/ipuir/ipuir/tune"
	"github.com/ipuir/ipuir/tune/store"
	"github.com/ipuir/ipuir/tune/temporalengine"
)

// TestMain lets the test binary run as ipu-tune itself, so that the fault
// test starts real worker processes without building the tool first.
func TestMain(m *testing.M) {
	if os.Getenv("IPU_TUNE_RUN_AS_TOOL") == "1" {
		ctx, stop := context.WithCancel(context.Background())
		defer stop()
		os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// Two worker processes share a sweep; the first is killed with SIGKILL in
// the middle of a candidate. Its attempt stops heartbeating, Temporal
// gives the candidate to the other worker, and the sweep completes with
// every candidate in the store exactly once, the interrupted one measured
// by the survivor.
func TestWorkerKilledMidCandidate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Temporal server and two worker processes")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	src, err := os.ReadFile("../../../examples/attention-small.ipuir")
	if err != nil {
		t.Fatal(err)
	}
	job := &tune.Job{File: "attention-small.ipuir", Source: src, Target: "test16", Seed: 1, Compiler: "fault-test"}
	ts := temporaltest.NewServer(temporaltest.WithT(t))
	db := filepath.Join(t.TempDir(), "results.db")

	type proc struct {
		cmd   *exec.Cmd
		lines chan string
	}
	start := func(name string) *proc {
		cmd := exec.CommandContext(ctx, os.Args[0], "worker", "--temporal-address", ts.GetFrontendHostPort(),
			"--namespace", ts.GetDefaultNamespace(), "--store", db, "--heartbeat-interval", "300ms")
		cmd.Env = append(os.Environ(), "IPU_TUNE_RUN_AS_TOOL=1")
		pipe, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		p := &proc{cmd: cmd, lines: make(chan string, 1024)}
		go func() {
			sc := bufio.NewScanner(pipe)
			for sc.Scan() {
				select {
				case p.lines <- sc.Text():
				default:
				}
			}
			close(p.lines)
		}()
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return p
	}
	victim := start("victim")

	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	engine := &temporalengine.Engine{Client: ts.GetDefaultClient(), Store: st, HeartbeatTimeout: 2 * time.Second}
	done := make(chan error, 1)
	var out *tune.Outcome
	go func() {
		var err error
		out, err = tune.Search(ctx, job, engine, st, nil)
		done <- err
	}()

	// Kill the victim as soon as it starts a measurement; the survivor
	// starts only then, so the victim has the first candidates to itself.
	interrupted := ""
	for interrupted == "" {
		select {
		case line, ok := <-victim.lines:
			if !ok {
				t.Fatal("the victim worker exited before measuring")
			}
			if strings.Contains(line, "msg=measuring") {
				victim.cmd.Process.Signal(syscall.SIGKILL)
				interrupted = field(line, "candidate")
			}
		case <-ctx.Done():
			t.Fatal("no worker started a measurement")
		}
	}
	victim.cmd.Wait()
	survivor := start("survivor")
	if err := <-done; err != nil {
		t.Fatalf("the sweep: %v", err)
	}
	survivor.cmd.Process.Signal(os.Interrupt)

	rows, err := st.Query(ctx, toolkit.SourceSHA256(job.Source), job.Target, job.Compiler)
	if err != nil {
		t.Fatal(err)
	}
	distinct := map[string]tune.Candidate{}
	for _, c := range out.Candidates {
		distinct[c.String()] = c
	}
	if len(rows) != len(distinct) {
		t.Fatalf("the store holds %d results for %d candidates", len(rows), len(distinct))
	}
	seen := map[string]bool{}
	by := ""
	for _, r := range rows {
		if seen[r.Key.Candidate] || distinct[r.Key.Candidate].String() != r.Key.Candidate {
			t.Errorf("a result twice, or for no candidate of the sweep: %s", r.Key.Candidate)
		}
		seen[r.Key.Candidate] = true
		// A finalist whose program does not fit tile memory is refused at
		// placement: a measured outcome, stored like a pass. A fail would
		// be a wrong result.
		if r.Status != store.Pass && r.Status != store.Refused {
			t.Errorf("%s: %s %s", r.Key.Candidate, r.Status, r.Reason)
		}
		if distinct[r.Key.Candidate].Short() == interrupted {
			by = r.Worker
		}
	}
	if by == "" {
		t.Fatalf("no result for the interrupted candidate %s", interrupted)
	}
	// The kill lands within microseconds of the victim's log line; should
	// it land after the victim stored its result, the retry finds that
	// result in the store and still measures nothing twice.
	victimName := fmt.Sprintf("pid-%d", victim.cmd.Process.Pid)
	t.Logf("%d candidates, each stored once; %s was interrupted by SIGKILL, and its result is %s's (the victim is %s); best %s (%d cycles)",
		len(rows), interrupted, by, victimName, out.BestCandidate.Short(), out.Best.Cycles)
}

// field is key's value in a slog text line (key=value or key="value").
func field(line, key string) string {
	i := strings.Index(line, key+"=")
	if i < 0 {
		return ""
	}
	rest := line[i+len(key)+1:]
	if strings.HasPrefix(rest, `"`) {
		if j := strings.Index(rest[1:], `"`); j >= 0 {
			return rest[1 : j+1]
		}
	}
	if j := strings.IndexByte(rest, ' '); j >= 0 {
		return rest[:j]
	}
	return rest
}
