// Command ipu-reduce shrinks an .ipuir file while it stays "interesting",
// with mlir-reduce's interface and built-in tests for the common cases:
//
//	ipu-reduce FILE --test=SCRIPT [--test-arg=ARG ...]   SCRIPT ARG... CANDIDATE exits 1: interesting (mlir-reduce's rule)
//	ipu-reduce FILE --crash='ipu-opt --pass-pipeline=...' the command crashes on the candidate (a signal, a Go panic or fatal error)
//	ipu-reduce FILE --diagnostic=REGEX [--run='ipu-opt ...'] its diagnostics match REGEX
//	ipu-reduce FILE --check-fail [--rewrite='ipu-opt ...']  compiled (rewritten first) and run on the simulated device, --check fails
//	ipu-reduce FILE --cycles-above=N                      compiled and run, total_cycles exceeds N
//
// Every candidate is parsed and verified before a test sees it. Each round
// makes every edit of the current program (cut an op, its results becoming
// function arguments; return an op's results instead of the function's;
// make an op's results constants; drop an attribute, a function, a
// function's result, a region's blocks or a block, or merge a block into
// its predecessor; shrink a tensor dimension everywhere; then remove what
// is dead), tests the candidates
// smallest first, --jobs at a time, and keeps the first interesting one in
// that order, so the result does not depend on timing. The reduced program
// goes to -o.
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/runtime/atomicfile"
	"github.com/ipuir/ipuir/tools/toolkit"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

type options struct {
	output, test, crash, diagnostic, runCmd string
	rewrite                                 string
	unregistered                            bool
	testArgs                                []string
	checkFail                               bool
	cyclesAbove                             int64
	jobs                                    int
	timeout                                 time.Duration
	verbose                                 bool
	// first is what the test's first run gave (on the program as it is),
	// for saying why it was not interesting.
	first *result
}

// maxInputBytes bounds the program read.
const maxInputBytes = 256 << 20

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("ipu-reduce", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVarP(&o.output, "output", "o", "-", "Write the reduced program here")
	fs.StringVar(&o.test, "test", "", "The interestingness test: a program run with the --test-args and the candidate's path; exit status 1 means interesting (mlir-reduce's rule)")
	fs.StringArrayVar(&o.testArgs, "test-arg", nil, "An argument of the --test program (repeatable)")
	fs.StringVar(&o.crash, "crash", "", "Interesting when this command (split at spaces), given the candidate's path, crashes: dies by a signal, or prints a Go panic or fatal error")
	fs.StringVar(&o.diagnostic, "diagnostic", "", "Interesting when the --run command's output on the candidate matches this regular expression (a diagnostic)")
	fs.StringVar(&o.runCmd, "run", "ipu-opt", "With --diagnostic, the command (split at spaces) run with the candidate's path")
	fs.BoolVar(&o.checkFail, "check-fail", false, "Interesting when the candidate, compiled (ipu-translate --emit-package) and run on the simulated device (ipu-run --generate gaussian:seed=1 --check), fails its check")
	fs.StringVar(&o.rewrite, "rewrite", "", "With --check-fail, an ipu-opt-like command (split at spaces) that rewrites the candidate before it is compiled, given --mlir-print-debuginfo, the candidate's path and -o: the rewritten program is checked against the candidate itself (ipu-run --check-against), so a rewrite that changes what the program computes fails")
	fs.BoolVar(&o.unregistered, "allow-unregistered-dialect", false, "Allow operation with no registered dialects")
	fs.Int64Var(&o.cyclesAbove, "cycles-above", -1, "Interesting when the candidate, compiled and run, takes more than this many cycles (a performance regression)")
	fs.IntVarP(&o.jobs, "jobs", "j", runtime.GOMAXPROCS(0), "Candidates tested at once")
	fs.DurationVar(&o.timeout, "timeout", time.Minute, "How long one test may run before it counts as not interesting")
	fs.BoolVarP(&o.verbose, "verbose", "v", false, "Print each round's size and the tests run")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "OVERVIEW: ipu-reduce: shrink an .ipuir file while a test finds it interesting\n\nUSAGE: ipu-reduce [options] FILE\n\nOPTIONS:\n")
		fs.PrintDefaults()
	}
	if code, ok := toolkit.ParseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "ipu-reduce: give one file to reduce (ipu-reduce --help)")
		return 2
	}
	chosen := 0
	for _, on := range []bool{o.test != "", o.crash != "", o.diagnostic != "", o.checkFail, o.cyclesAbove >= 0} {
		if on {
			chosen++
		}
	}
	if o.rewrite != "" && !o.checkFail {
		fmt.Fprintln(stderr, "ipu-reduce: --rewrite is for --check-fail")
		return 2
	}
	if o.timeout <= 0 {
		fmt.Fprintf(stderr, "ipu-reduce: --timeout=%v: expected a positive duration (how long one test may run)\n", o.timeout)
		return 2
	}
	if chosen != 1 || o.jobs < 1 {
		fmt.Fprintln(stderr, "ipu-reduce: choose one test: --test, --crash, --diagnostic, --check-fail or --cycles-above (and --jobs of at least 1)")
		return 2
	}
	if err := reduceFile(ctx, fs.Arg(0), o, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "ipu-reduce: %v\n", err)
		return 1
	}
	return 0
}

func reduceFile(ctx context.Context, file string, o options, stdout, stderr io.Writer) error {
	src, err := atomicfile.ReadFile(file, maxInputBytes)
	if err != nil {
		return err
	}
	outs := toolkit.NewOutputs(stdout)
	outs.Input("the input file", file)
	out, err := outs.Add("-o", o.output)
	if err != nil {
		return err
	}
	defer outs.Abort()
	source := source{file: file, unregistered: o.unregistered}
	module, err := source.parse(src)
	if err != nil {
		return err
	}
	if d := ir.Verify(module); d != nil {
		return fmt.Errorf("%s does not verify: %v", file, d)
	}
	text, err := print(module)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "ipu-reduce-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	test, err := o.tester(dir)
	if err != nil {
		return err
	}
	start := measure(module, text)
	first := &result{}
	o.first = first
	ok, err := test(ctx, start.text)
	o.first = nil
	if err != nil {
		return err
	} else if !ok {
		return fmt.Errorf("%s is not interesting to the test as it is (%s): nothing to keep while reducing", file, first.describe(o))
	}
	var progress func(int, program, int)
	if o.verbose {
		progress = func(round int, p program, tested int) {
			fmt.Fprintf(stderr, "round %d: %d ops, %d bytes (%d candidates tested)\n", round, p.ops, len(p.text), tested)
		}
	}
	began := time.Now()
	got, tested, err := reduce(ctx, source, start, test, o.jobs, progress)
	if err != nil {
		return err
	}
	if err := out.Write(func(w io.Writer) error { _, err := w.Write(got.text); return err }); err != nil {
		return err
	}
	if err := outs.Commit(); err != nil {
		return err
	}
	if o.verbose {
		fmt.Fprintf(stderr, "reduced: ops=%d->%d bytes=%d->%d tested=%d seconds=%.1f\n", start.ops, got.ops, len(start.text), len(got.text),
			tested, time.Since(began).Seconds())
	}
	return nil
}

// tester returns the chosen test: whether a candidate's text is
// interesting. Candidates are written to files in dir, one per test.
func (o *options) tester(dir string) (func(context.Context, []byte) (bool, error), error) {
	var n int64
	var mu = make(chan struct{}, 1)
	write := func(text []byte) (string, func(), error) {
		mu <- struct{}{}
		n++
		path := filepath.Join(dir, fmt.Sprintf("candidate-%d.ipuir", n))
		<-mu
		if err := os.WriteFile(path, text, 0o644); err != nil {
			return "", nil, err
		}
		return path, func() { os.Remove(path); os.Remove(path + ".ipupkg") }, nil
	}
	switch {
	case o.test != "":
		return func(ctx context.Context, text []byte) (bool, error) {
			path, done, err := write(text)
			if err != nil {
				return false, err
			}
			defer done()
			res := o.exec(ctx, append([]string{o.test}, append(o.testArgs, path)...))
			if res.err != nil {
				return false, res.err
			}
			return res.code == 1, nil
		}, nil
	case o.crash != "":
		cmd := strings.Fields(o.crash)
		return func(ctx context.Context, text []byte) (bool, error) {
			path, done, err := write(text)
			if err != nil {
				return false, err
			}
			defer done()
			res := o.exec(ctx, append(cmd, path))
			return res.err == nil && res.crashed(), res.err
		}, nil
	case o.diagnostic != "":
		re, err := regexp.Compile(o.diagnostic)
		if err != nil {
			return nil, fmt.Errorf("--diagnostic=%s: %v", o.diagnostic, err)
		}
		cmd := strings.Fields(o.runCmd)
		if len(cmd) == 0 {
			return nil, fmt.Errorf("--run names no command")
		}
		return func(ctx context.Context, text []byte) (bool, error) {
			path, done, err := write(text)
			if err != nil {
				return false, err
			}
			defer done()
			res := o.exec(ctx, append(cmd, path))
			return res.err == nil && re.Match(append(res.stderr, res.stdout...)), res.err
		}, nil
	}
	// Compiled and run on the simulated device.
	return func(ctx context.Context, text []byte) (bool, error) {
		path, done, err := write(text)
		if err != nil {
			return false, err
		}
		defer done()
		compiled, pkg := path, path+".ipupkg"
		if o.rewrite != "" {
			compiled = path + ".rewritten.ipuir"
			defer os.Remove(compiled)
			argv := append(strings.Fields(o.rewrite), "--mlir-print-debuginfo", path, "-o", compiled)
			if res := o.exec(ctx, argv); res.err != nil || res.code != 0 {
				return false, res.err // a rewrite that fails is another problem
			}
		}
		if res := o.exec(ctx, []string{"ipu-translate", "--emit-package", compiled, "-o", pkg}); res.err != nil || res.code != 0 {
			return false, res.err // a candidate that does not compile is not interesting
		}
		args := []string{"ipu-run", pkg, "--generate", "gaussian:seed=1", "--lock-dir", dir}
		if o.checkFail {
			args = append(args, "--check")
			if o.rewrite != "" {
				args = append(args, "--check-against", path)
			}
		} else {
			args = append(args, "--report-cycles")
		}
		res := o.exec(ctx, args)
		if res.err != nil {
			return false, res.err
		}
		if o.checkFail {
			return res.code == 1 && bytes.Contains(res.stdout, []byte("numericalTest=FAIL")), nil
		}
		m := totalCycles.FindSubmatch(res.stdout)
		if res.code != 0 || m == nil {
			return false, nil
		}
		cycles, _ := strconv.ParseInt(string(m[1]), 10, 64)
		return cycles > o.cyclesAbove, nil
	}, nil
}

var totalCycles = regexp.MustCompile(`(?m)^total_cycles=(\d+)$`)

// result is what running a command gave; err is only for a command that
// could not be run at all (not found), never for its own failure.
type result struct {
	code           int
	signaled       bool
	timedOut       bool
	stdout, stderr []byte
	err            error
}

// describe says what the test's run gave, for a user told it was not
// interesting.
func (r *result) describe(o options) string {
	switch {
	case r.timedOut:
		return fmt.Sprintf("the test ran out of its --timeout=%v", o.timeout)
	case r.signaled:
		return "the test was killed by a signal"
	case r.crashed():
		return "the test crashed (a Go panic or fatal error)"
	case o.test != "":
		return fmt.Sprintf("the test exited with status %d; 1 means interesting", r.code)
	case o.crash != "":
		return fmt.Sprintf("the command did not crash: it exited with status %d", r.code)
	case o.diagnostic != "":
		return "the --run command's output does not match --diagnostic"
	case o.checkFail:
		return "its check did not fail"
	case o.cyclesAbove >= 0:
		return fmt.Sprintf("it did not take more than %d cycles", o.cyclesAbove)
	}
	return fmt.Sprintf("the command exited with status %d", r.code)
}

// crashed reports a crash rather than a refusal: a death by a signal, or
// a Go runtime panic or fatal error.
func (r *result) crashed() bool {
	return r.signaled || bytes.Contains(r.stderr, []byte("panic: ")) || bytes.Contains(r.stderr, []byte("fatal error: "))
}

// exec runs argv (its program looked up beside this executable, then on
// PATH) with the per-test timeout; a test that runs out of time is not
// interesting.
func (o *options) exec(ctx context.Context, argv []string) result {
	prog, err := lookTool(argv[0])
	if err != nil {
		return result{err: err}
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, argv[1:]...)
	// The test runs in a process group of its own, killed whole when it
	// runs out of time (a script's children too: killing the shell alone
	// left `sleep 1000 &` running and Run waiting on its pipes), and
	// after it exits, so that nothing it started outlives it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &limited{&out, 1 << 20}, &limited{&errs, 1 << 20}
	err = cmd.Run()
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	r := result{stdout: out.Bytes(), stderr: errs.Bytes()}
	defer func() {
		if o.first != nil {
			*o.first = r
		}
	}()
	if ctx.Err() == context.DeadlineExceeded {
		r.code, r.timedOut = -1, true
		return r
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.signaled = true
		}
	default:
		r.err = err
	}
	return r
}

// lookTool finds name: a path as given, else beside this executable (the
// other ipuir tools), else on PATH.
func lookTool(name string) (string, error) {
	if strings.ContainsRune(name, filepath.Separator) {
		return name, nil
	}
	if self, err := os.Executable(); err == nil {
		if p := filepath.Join(filepath.Dir(self), name); isExecutable(p) {
			return p, nil
		}
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%s: not beside ipu-reduce nor on PATH", name)
	}
	return p, nil
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

// limited keeps at most n bytes of what is written to it (a test's
// output is only searched, and a runaway one must not fill memory).
type limited struct {
	w io.Writer
	n int64
}

func (l *limited) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(int64(len(p)), l.n)
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}
