// Command ipu-tune searches a program's compile options for its fastest
// correct package on a target and writes the winner as a tuning record:
//
//	ipu-tune MODEL.ipuir [--target=T] [-o tuning.json] [--store=results.db] [--workers=N]
//	ipu-translate --emit-package MODEL.ipuir --tuning=tuning.json -o model.ipupkg
//	ipu-tune results [--store=results.db] [--target=T] [MODEL.ipuir]
//
// Every candidate is compiled, run on the simulated device with generated
// inputs and checked against the reference interpreter; its result goes to
// the store (SQLite), keyed by the program, target, compiler and
// candidate, so a repeated or interrupted search measures nothing twice.
// Package tune says what the candidates are.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"
	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/server/temporaltest"

	"github.com/ipuir/ipuir/runtime/atomicfile"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/tools/toolkit"
	"github.com/ipuir/ipuir/tune"
	"github.com/ipuir/ipuir/tune/store"
	"github.com/ipuir/ipuir/tune/temporalengine"
)

// Version is the compiler version results are keyed by: results measured
// by another build of the compiler are measured again.
var Version = "ipuir-dev"

// maxSourceBytes bounds the program read.
const maxSourceBytes = 1 << 30

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

type options struct {
	target, function, output, storePath, engine string
	workers, finalists                          int
	seed                                        uint64
	verbose                                     bool
	temporal                                    temporalOptions
}

// temporalOptions say how to reach a Temporal server.
type temporalOptions struct {
	address, namespace, taskQueue string
	heartbeatTimeout              time.Duration
}

func (t *temporalOptions) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&t.address, "temporal-address", "", "With --engine=temporal (and for `ipu-tune worker`), the Temporal server's frontend, HOST:PORT")
	fs.StringVar(&t.namespace, "namespace", "default", "The Temporal namespace")
	fs.StringVar(&t.taskQueue, "task-queue", temporalengine.DefaultTaskQueue, "The Temporal task queue the sweep's activities go to and the workers poll")
	fs.DurationVar(&t.heartbeatTimeout, "heartbeat-timeout", 30*time.Second, "How long a worker may be silent before its candidate is given to another")
}

func (t *temporalOptions) dial() (client.Client, error) { return t.dialWith(quietLogger{}) }

func (t *temporalOptions) dialWith(logger tlog.Logger) (client.Client, error) {
	if t.address == "" {
		return nil, fmt.Errorf("--temporal-address=HOST:PORT names the Temporal server")
	}
	c, err := client.Dial(client.Options{HostPort: t.address, Namespace: t.namespace, Logger: logger})
	if err != nil {
		return nil, fmt.Errorf("reaching Temporal at %s: %v", t.address, err)
	}
	return c, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "results" {
		return results(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "worker" {
		return runWorker(ctx, args[1:], stderr)
	}
	if len(args) > 0 && args[0] == "sweep" {
		return runSweep(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "dev-server" {
		return runDevServer(ctx, args[1:], stdout, stderr)
	}
	fs := pflag.NewFlagSet("ipu-tune", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.target, "target", "", "Tune for this target (default: the module's ipu.target)")
	fs.StringVar(&o.function, "function", "", "The function to run and check (default: the module's only one)")
	fs.StringVarP(&o.output, "output", "o", "tuning.json", "Write the tuning record here (\"-\": standard output)")
	fs.StringVar(&o.storePath, "store", "ipu-tune.db", "The result database (SQLite): results found there are not measured again")
	fs.StringVar(&o.engine, "engine", "local", "Where candidates are measured: local (a pool of workers in this process) or temporal (activities on `ipu-tune worker` processes, through a Temporal server)")
	o.temporal.addFlags(fs)
	fs.IntVar(&o.workers, "workers", 0, "With --engine=local, how many candidates are measured at once (default GOMAXPROCS)")
	fs.Uint64Var(&o.seed, "seed", 1, "The generated inputs' seed (gaussian, scaled by fan-in, as ipu-run --generate)")
	fs.IntVar(&o.finalists, "finalists", 8, "The planner's finalists per matmul that the search measures")
	fs.BoolVarP(&o.verbose, "verbose", "v", false, "Print each candidate's result as it comes")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "OVERVIEW: ipu-tune: search a program's compile options for its fastest correct package\n\n")
		fmt.Fprintf(stderr, "USAGE: ipu-tune [options] MODEL.ipuir\n       ipu-tune results [--store=FILE] [--target=T] [MODEL.ipuir]\n       ipu-tune worker --temporal-address=HOST:PORT [--namespace=NS] [--store=FILE] [--workers=N]\n       ipu-tune sweep SPEC.json [-o DIR] [engine and store options]\n       ipu-tune dev-server\n\nOPTIONS:\n")
		fs.PrintDefaults()
	}
	if code, ok := toolkit.ParseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "ipu-tune: give one program to tune (ipu-tune --help)")
		return 2
	}
	if o.engine != "local" && o.engine != "temporal" {
		fmt.Fprintf(stderr, "ipu-tune: --engine=%s: local or temporal\n", o.engine)
		return 2
	}
	if err := tuneProgram(ctx, fs.Arg(0), o, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "ipu-tune: %v\n", err)
		return 1
	}
	return 0
}

// readJob reads the program and settles its target: --target, else the
// module's ipu.target.
func readJob(file, targetFlag, function string, seed uint64) (*tune.Job, error) {
	src, err := atomicfile.ReadFile(file, maxSourceBytes)
	if err != nil {
		return nil, err
	}
	spec := targetFlag
	if spec == "" {
		spec = moduleTarget(src)
		if spec == "" {
			return nil, fmt.Errorf("%s names no target (ipu.target): give --target", file)
		}
	}
	if _, err := target.Lookup(spec); err != nil {
		return nil, err
	}
	return &tune.Job{File: file, Source: src, Target: spec, Function: function, Seed: seed, Compiler: Version}, nil
}

// moduleTarget is the module's ipu.target as its text writes it.
func moduleTarget(src []byte) string {
	const key = `ipu.target = "`
	s := string(src)
	i := strings.Index(s, key)
	if i < 0 {
		return ""
	}
	rest := s[i+len(key):]
	j := strings.IndexByte(rest, '"')
	if j < 0 {
		return ""
	}
	return rest[:j]
}

func tuneProgram(ctx context.Context, file string, o options, stdout, stderr io.Writer) error {
	job, err := readJob(file, o.target, o.function, o.seed)
	if err != nil {
		return err
	}
	if o.finalists < 1 {
		return fmt.Errorf("--finalists=%d: at least 1", o.finalists)
	}
	job.Keep = o.finalists
	outs := toolkit.NewOutputs(stdout)
	outs.Input("the input file", file)
	outs.Input("--store", o.storePath)
	out, err := outs.Add("-o", o.output)
	if err != nil {
		return err
	}
	defer outs.Abort()
	st, err := store.Open(o.storePath)
	if err != nil {
		return err
	}
	defer st.Close()
	var progress func(tune.Candidate, store.Result)
	if o.verbose {
		progress = func(c tune.Candidate, r store.Result) {
			fmt.Fprintf(stderr, "%-40s %-8s %10d cycles  %s\n", c.Short(), r.Status, r.Cycles, r.Reason)
		}
	}
	engine, closeEngine, err := o.newEngine(st)
	if err != nil {
		return err
	}
	defer closeEngine()
	res, err := tune.Search(ctx, job, engine, st, progress)
	if err != nil {
		return err
	}
	if err := out.Write(func(w io.Writer) error { _, err := w.Write(res.Record(job).Encode()); return err }); err != nil {
		return err
	}
	if err := outs.Commit(); err != nil {
		return err
	}
	if o.output != "-" {
		fmt.Fprintf(stdout, "tuned: target=%s candidates=%d measured=%d recalled=%d default_cycles=%d tuned_cycles=%d speedup=%.3f best=%q\n",
			job.Target, res.Measured, res.Measured-res.Recalled, res.Recalled, res.Default.Cycles, res.Best.Cycles,
			float64(res.Default.Cycles)/float64(max(res.Best.Cycles, 1)), res.BestCandidate.Short())
	}
	return nil
}

// results prints what the store holds, for one program or all.
func results(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("ipu-tune results", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	storePath := fs.String("store", "ipu-tune.db", "The result database")
	tg := fs.String("target", "", "Only results for this target")
	if code, ok := toolkit.ParseFlags(fs, args); !ok {
		return code
	}
	source := ""
	if fs.NArg() > 1 {
		fmt.Fprintln(stderr, "ipu-tune results: at most one program")
		return 2
	}
	if fs.NArg() == 1 {
		src, err := atomicfile.ReadFile(fs.Arg(0), maxSourceBytes)
		if err != nil {
			fmt.Fprintf(stderr, "ipu-tune results: %v\n", err)
			return 1
		}
		source = toolkit.SourceSHA256(src)
	}
	if _, err := os.Stat(*storePath); err != nil {
		fmt.Fprintf(stderr, "ipu-tune results: %v\n", err)
		return 1
	}
	st, err := store.Open(*storePath)
	if err != nil {
		fmt.Fprintf(stderr, "ipu-tune results: %v\n", err)
		return 1
	}
	defer st.Close()
	rs, err := st.Query(ctx, source, *tg, "")
	if err != nil {
		fmt.Fprintf(stderr, "ipu-tune results: %v\n", err)
		return 1
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "program\ttarget\tstatus\tcycles\tcompared\tseconds\tworker\tcandidate\t")
	for _, r := range rs {
		cand := r.Key.Candidate
		if r.Reason != "" {
			cand += " (" + r.Reason + ")"
		}
		fmt.Fprintf(tw, "%.12s\t%s\t%s\t%d\t%d\t%.1f\t%s\t%s\t\n", r.Key.SourceSHA256, r.Key.Target, r.Status, r.Cycles, r.Compared, r.Seconds, r.Worker, cand)
	}
	tw.Flush()
	fmt.Fprintf(stdout, "%d results\n", len(rs))
	return 0
}

// runWorker runs the sweep's activities for a Temporal server until
// interrupted: with --store, each candidate is looked up there first and
// its result written there; without, results go back through the workflow.
func runWorker(ctx context.Context, args []string, stderr io.Writer) int {
	fs := pflag.NewFlagSet("ipu-tune worker", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	var t temporalOptions
	t.addFlags(fs)
	storePath := fs.String("store", "", "The result database this worker reads and writes (none: results go back through the workflow)")
	workers := fs.Int("workers", 1, "Candidates this worker measures at once")
	heartbeat := fs.Duration("heartbeat-interval", 2*time.Second, "How often a measurement tells the server it is alive (below the sweep's --heartbeat-timeout)")
	if code, ok := toolkit.ParseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 0 || *workers < 1 {
		fmt.Fprintln(stderr, "ipu-tune worker: takes no program, and --workers of at least 1")
		return 2
	}
	c, err := t.dialWith(tlog.NewStructuredLogger(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))))
	if err != nil {
		fmt.Fprintf(stderr, "ipu-tune worker: %v\n", err)
		return 1
	}
	defer c.Close()
	acts := &temporalengine.Activities{Worker: temporalengine.WorkerName(), Heartbeat: *heartbeat}
	if *storePath != "" {
		st, err := store.Open(*storePath)
		if err != nil {
			fmt.Fprintf(stderr, "ipu-tune worker: %v\n", err)
			return 1
		}
		defer st.Close()
		acts.Store = st
	}
	w := worker.New(c, t.taskQueue, worker.Options{MaxConcurrentActivityExecutionSize: *workers})
	temporalengine.Register(w, acts)
	stop := make(chan interface{})
	go func() { <-ctx.Done(); close(stop) }()
	if err := w.Run(stop); err != nil {
		fmt.Fprintf(stderr, "ipu-tune worker: %v\n", err)
		return 1
	}
	return 0
}

// quietLogger drops the Temporal client's own log lines: the tool is
// quiet on success.
type quietLogger struct{}

func (quietLogger) Debug(string, ...interface{}) {}
func (quietLogger) Info(string, ...interface{})  {}
func (quietLogger) Warn(string, ...interface{})  {}
func (quietLogger) Error(string, ...interface{}) {}

// runDevServer runs a Temporal server on loopback, in memory, until
// interrupted: the server of Temporal's own test harness (temporaltest),
// for trying a sweep with workers on one machine. It prints the address
// and namespace the workers and the sweep take.
func runDevServer(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("ipu-tune dev-server", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	if code, ok := toolkit.ParseFlags(fs, args); !ok {
		return code
	}
	ts := temporaltest.NewServer()
	defer ts.Stop()
	fmt.Fprintf(stdout, "temporal dev server: --temporal-address=%s --namespace=%s\n", ts.GetFrontendHostPort(), ts.GetDefaultNamespace())
	if f, ok := stdout.(*os.File); ok {
		f.Sync()
	}
	<-ctx.Done()
	return 0
}

// newEngine is the engine --engine names, and what closes it.
func (o *options) newEngine(st *store.Store) (tune.Engine, func(), error) {
	if o.engine != "temporal" {
		return &tune.Local{Store: st, Workers: o.workers}, func() {}, nil
	}
	c, err := o.temporal.dial()
	if err != nil {
		return nil, nil, err
	}
	return &temporalengine.Engine{Client: c, TaskQueue: o.temporal.taskQueue, Store: st, HeartbeatTimeout: o.temporal.heartbeatTimeout}, c.Close, nil
}

// runSweep tunes a grid of models and targets and writes, in the output
// folder, sweep.csv and sweep.md (a row a cell: default and tuned cycles,
// the speed-up, the candidates), and for each tuned cell its tuning record
// and the HTML report of the tuned package beside the default's.
func runSweep(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("ipu-tune sweep", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	outDir := fs.StringP("output", "o", "sweep", "The folder the sweep's tables, records and reports are written to")
	fs.StringVar(&o.storePath, "store", "ipu-tune.db", "The result database")
	fs.StringVar(&o.engine, "engine", "local", "local or temporal")
	fs.IntVar(&o.workers, "workers", 0, "With --engine=local, candidates measured at once (default GOMAXPROCS)")
	o.temporal.addFlags(fs)
	if code, ok := toolkit.ParseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 || (o.engine != "local" && o.engine != "temporal") {
		fmt.Fprintln(stderr, "ipu-tune sweep: give one SPEC.json, and --engine=local or temporal")
		return 2
	}
	if err := sweep(ctx, fs.Arg(0), *outDir, o, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "ipu-tune sweep: %v\n", err)
		return 1
	}
	return 0
}

func sweep(ctx context.Context, specPath, dir string, o options, stdout, stderr io.Writer) error {
	spec, err := tune.ReadSweepSpec(specPath)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	st, err := store.Open(o.storePath)
	if err != nil {
		return err
	}
	defer st.Close()
	engine, closeEngine, err := o.newEngine(st)
	if err != nil {
		return err
	}
	defer closeEngine()
	rows, err := tune.Sweep(ctx, spec, engine, st, Version, func(r *tune.SweepRow) {
		fmt.Fprintf(stderr, "%s on %s: %s, %d -> %d cycles (%d candidates, %d measured)\n",
			filepath.Base(r.Model), r.Target, r.Status, r.DefaultCycles, r.TunedCycles, r.Candidates, r.Measured)
	})
	if err != nil {
		return err
	}
	outs := toolkit.NewOutputs(stdout)
	outs.Input("the spec", specPath)
	outs.Input("--store", o.storePath)
	for _, m := range spec.Models {
		outs.Input("a model", m)
	}
	defer outs.Abort()
	write := func(name string, f func(io.Writer) error) error {
		out, err := outs.Add("-o", filepath.Join(dir, name))
		if err != nil {
			return err
		}
		return out.Write(f)
	}
	if err := write("sweep.csv", func(w io.Writer) error { return tune.WriteCSV(w, rows) }); err != nil {
		return err
	}
	if err := write("sweep.md", func(w io.Writer) error { return tune.WriteMarkdown(w, rows) }); err != nil {
		return err
	}
	for _, r := range rows {
		if r.Record == nil {
			continue
		}
		if err := write(r.FileStem()+".tuning.json", func(w io.Writer) error { _, err := w.Write(r.Record.Encode()); return err }); err != nil {
			return err
		}
		if err := write(r.FileStem()+".html", func(w io.Writer) error { _, err := r.WriteReport(w); return err }); err != nil {
			return err
		}
	}
	if err := outs.Commit(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "swept: %d models on %d targets, %d tunings; tables in %s\n", len(spec.Models), len(spec.Targets), len(rows),
		filepath.Join(dir, "sweep.md"))
	return nil
}
