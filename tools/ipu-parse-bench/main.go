// Command ipu-parse-bench measures parse, verify and print of a large
// generic-form file against mlir-opt-19, side by side:
//
//	ipu-parse-bench [--size 30] [--kind compiler,importer] [--file path] [--mlir-opt mlir-opt-19] [--generic] [--runs 5]
//	ipu-parse-bench --file path [--cpuprofile cpu.out] [--memprofile mem.out]
//
// It generates deterministic files of --size MB, one per --kind: the
// "compiler" file is shaped like what model compilers hand to mlir-opt
// (gen.go), the "importer" file like an importer's output, where almost
// every op has types of its own (gen_types.go). --file names an existing
// file instead (generated as the first kind when missing). For each file
// it runs our pipeline (the tools' loader, which parses and
// verifies, then the printer, as ipu-opt runs them) and `mlir-opt-19
// --allow-unregistered-dialect` (default threading) on it, each in a child
// process so that peak resident memory (rusage maxrss) belongs to that
// pipeline alone. Both print the custom form unless --generic. The runs
// alternate between the two so that a busy machine slows both alike; the
// run with the least CPU time (user+system) of --runs counts for each.
// It prints a table of times, MB/s, peak RSS and the ratios ours/theirs.
// Our child reports each phase's wall and CPU time (rusage, GC included);
// mlir-opt's --mlir-timing reports the wall time of its Parser (parse and
// verify) and Output phases. With --cpuprofile or --memprofile it runs our
// pipeline once in-process and writes the profile instead.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/printer"
	"github.com/ipuir/ipuir/registry"
	"github.com/ipuir/ipuir/tools/toolkit"
)

func main() {
	fs := pflag.NewFlagSet("ipu-parse-bench", pflag.ContinueOnError)
	size := fs.Float64("size", 30, "size of each generated file in MB")
	kinds := fs.StringSlice("kind", []string{"compiler", "importer"}, "generated files to measure: compiler (gen.go), importer (gen_types.go)")
	file := fs.String("file", "", "input file (generated as the first --kind when missing; default: temporary files)")
	mlirOpt := fs.String("mlir-opt", "mlir-opt-19", "mlir-opt binary to compare against (empty: skip)")
	generic := fs.Bool("generic", false, "print the generic form (both tools) instead of the custom form")
	gogc := fs.Int("gogc", 100, "GOGC of our child process")
	runs := fs.Int("runs", 5, "runs of each pipeline; the one with the least CPU time counts")
	child := fs.String("child", "", "internal: run our pipeline on this file and report JSON")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of our pipeline (one run) to this file and exit")
	memProfile := fs.String("memprofile", "", "write an allocation profile of our pipeline (one run) to this file and exit")
	help := fs.BoolP("help", "h", false, "show this help")
	fs.Usage = func() {}
	if err := fs.Parse(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "ipu-parse-bench:", err)
		os.Exit(2)
	}
	if *help {
		fmt.Println("usage: ipu-parse-bench [options]\n  times parse + verify + print of a generated file against mlir-opt-19\n\noptions:")
		fs.SetOutput(os.Stdout)
		fs.PrintDefaults()
		return
	}

	if *child != "" {
		debug.SetGCPercent(*gogc)
		if err := runChild(*child, *generic, "", ""); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if *cpuProfile != "" || *memProfile != "" {
		// Profiling runs our pipeline once, in this process.
		path := *file
		if path == "" {
			fmt.Fprintln(os.Stderr, "ipu-parse-bench: --cpuprofile and --memprofile need --file")
			os.Exit(2)
		}
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			if err := writeGenerated(path, (*kinds)[0], *size); err != nil {
				fmt.Fprintln(os.Stderr, "ipu-parse-bench:", err)
				os.Exit(1)
			}
		}
		debug.SetGCPercent(*gogc)
		if err := runChild(path, *generic, *cpuProfile, *memProfile); err != nil {
			fmt.Fprintln(os.Stderr, "ipu-parse-bench:", err)
			os.Exit(1)
		}
		return
	}
	for _, k := range *kinds {
		if generators[k] == nil {
			fmt.Fprintf(os.Stderr, "ipu-parse-bench: unknown --kind %q (compiler, importer)\n", k)
			os.Exit(2)
		}
	}
	if len(*kinds) == 0 {
		fmt.Fprintln(os.Stderr, "ipu-parse-bench: --kind names no file")
		os.Exit(2)
	}
	if *file != "" {
		*kinds = (*kinds)[:1]
	}
	for i, k := range *kinds {
		if i > 0 {
			fmt.Println()
		}
		if err := run(*size, k, *file, *mlirOpt, *generic, *gogc, *runs); err != nil {
			fmt.Fprintln(os.Stderr, "ipu-parse-bench:", err)
			os.Exit(1)
		}
	}
}

// generators are the files --kind names.
var generators = map[string]func(io.Writer, int64, uint64) error{
	"compiler": generate,
	"importer": generateRandomTypes,
}

// phases is what the child reports.
type phases struct {
	Bytes         int64
	Ops           int
	Parse, Output float64 // seconds; Parse includes verification, as mlir-opt's Parser phase does
	ParsePeakRSS  int64   // bytes, VmHWM before printing (ours only)
	LiveHeap      int64   // bytes of Go heap the module holds, measured after printing (ours only)
	// CPU seconds (user+system, GC included) of each phase, ours only:
	// steadier than wall time on a shared machine.
	ParseCPU, OutputCPU float64
}

func runChild(path string, generic bool, cpuProfile, memProfile string) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if cpuProfile != "" {
		f, err := os.Create(cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if memProfile != "" {
		runtime.MemProfileRate = 64 << 10
		defer func() {
			if f, err := os.Create(memProfile); err == nil {
				runtime.GC() // publish the allocations since the last cycle
				pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
		}()
	}
	// The tools' own loader: parse, then verify, as ipu-opt does.
	loader := &toolkit.Loader{Setup: registry.RegisterDialects, AllowUnregistered: true}
	ctx, err := loader.NewContext()
	if err != nil {
		return err
	}
	t0, c0 := time.Now(), cpuTime()
	m, _, err := loader.Parse(ctx, toolkit.Chunk{File: path, Source: src, FirstLine: 1})
	if err != nil {
		return err
	}
	t1, c1 := time.Now(), cpuTime()
	hwm := vmHWM()
	// ipu-opt prints IR it has just verified without verifying it again.
	if err := printer.Print(io.Discard, m, printer.Options{Generic: generic, AssumeVerified: true}); err != nil {
		return err
	}
	t2, c2 := time.Now(), cpuTime()
	// What the parsed module holds, once the parse's garbage is gone
	// (after the timings: the collection is not part of them).
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	// The tools keep the source for diagnostics (as mlir-opt's SourceMgr
	// does); so must the measurement.
	runtime.KeepAlive(src)
	runtime.KeepAlive(m)
	ops := 0
	m.Walk(func(*ir.Operation) ir.WalkResult { ops++; return ir.WalkAdvance })
	return json.NewEncoder(os.Stdout).Encode(phases{
		Bytes: int64(len(src)), Ops: ops,
		Parse: t1.Sub(t0).Seconds(), Output: t2.Sub(t1).Seconds(),
		ParsePeakRSS: hwm, LiveHeap: int64(ms.HeapAlloc),
		ParseCPU: c1 - c0, OutputCPU: c2 - c1,
	})
}

// cpuTime is the CPU time this process has used so far, in seconds.
func cpuTime() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime)).Seconds()
}

// vmHWM is the process's peak resident memory so far (Linux), or 0.
func vmHWM() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	m := regexp.MustCompile(`(?m)^VmHWM:\s+(\d+) kB`).FindSubmatch(b)
	if m == nil {
		return 0
	}
	kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return kb * 1024
}

// result of one pipeline run.
type result struct {
	phases
	wall   float64
	cpu    float64 // user+system seconds
	maxRSS int64   // bytes
}

// pipeline is one side of the comparison.
type pipeline struct {
	name  string
	cmd   func() *exec.Cmd
	parse func(stdout, stderr []byte) (phases, error)
	best  *result
}

func run(sizeMB float64, kind, path, mlirOpt string, generic bool, gogc, runs int) error {
	if path == "" {
		f, err := os.CreateTemp("", "ipu-parse-bench-"+kind+"-*.mlir")
		if err != nil {
			return err
		}
		path = f.Name()
		defer os.Remove(path)
		err = generators[kind](f, int64(sizeMB*(1<<20)), 1)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	} else if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		if err := writeGenerated(path, kind, sizeMB); err != nil {
			return err
		}
	} else {
		kind = "given file"
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	ours := &pipeline{name: "our pipeline", parse: parseOurs, cmd: func() *exec.Cmd {
		args := []string{"--child", path, "--gogc", strconv.Itoa(gogc)}
		if generic {
			args = append(args, "--generic")
		}
		return exec.Command(self, args...)
	}}
	sides := []*pipeline{ours}
	var theirs *pipeline
	if mlirOpt != "" {
		if _, err := exec.LookPath(mlirOpt); err == nil {
			theirs = &pipeline{name: mlirOpt, parse: parseMLIRTiming, cmd: func() *exec.Cmd {
				args := []string{"--allow-unregistered-dialect", "--mlir-timing", "--mlir-timing-display=list", path, "-o", "/dev/null"}
				if generic {
					args = append(args, "--mlir-print-op-generic")
				}
				return exec.Command(mlirOpt, args...)
			}}
			sides = append(sides, theirs)
		} else {
			fmt.Printf("(%s not found: no comparison)\n", mlirOpt)
		}
	}
	for i := 0; i < max(runs, 1); i++ {
		for _, s := range sides {
			r, err := measure(s.cmd(), s.parse)
			if err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
			if s.best == nil || r.cpu < s.best.cpu {
				s.best = &r
			}
		}
	}
	var m *result
	if theirs != nil {
		m = theirs.best
	}
	form := "custom"
	if generic {
		form = "generic"
	}
	report(os.Stdout, kind, path, form, gogc, *ours.best, m)
	return nil
}

func writeGenerated(path, kind string, sizeMB float64) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if err := generators[kind](f, int64(sizeMB*(1<<20)), 1); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// measure runs cmd, timing it and reading its peak RSS; parse extracts the
// phase times from its output.
func measure(cmd *exec.Cmd, parse func(stdout, stderr []byte) (phases, error)) (result, error) {
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		return result{}, fmt.Errorf("%v: %s", err, stderr.Bytes())
	}
	wall := time.Since(t0).Seconds()
	ph, err := parse(stdout.Bytes(), stderr.Bytes())
	if err != nil {
		return result{}, err
	}
	r := result{phases: ph, wall: wall}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.maxRSS = ru.Maxrss * 1024 // Linux reports kilobytes
		r.cpu = time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime)).Seconds()
	}
	return r, nil
}

func parseOurs(stdout, _ []byte) (phases, error) {
	var ph phases
	err := json.Unmarshal(stdout, &ph)
	return ph, err
}

var timingLine = regexp.MustCompile(`(?m)^\s*([0-9.]+)\s+\(\s*[0-9.]+%\)\s+(Parser|Output)\s*$`)

// parseMLIRTiming reads the Parser and Output lines of --mlir-timing.
func parseMLIRTiming(_, stderr []byte) (phases, error) {
	var ph phases
	found := 0
	for _, m := range timingLine.FindAllSubmatch(stderr, -1) {
		v, _ := strconv.ParseFloat(string(m[1]), 64)
		switch string(m[2]) {
		case "Parser":
			ph.Parse = v
		case "Output":
			ph.Output = v
		}
		found++
	}
	if found < 2 {
		return ph, fmt.Errorf("no --mlir-timing report in: %s", stderr)
	}
	return ph, nil
}

func report(w io.Writer, kind, path, form string, gogc int, ours result, theirs *result) {
	mb := float64(ours.Bytes) / (1 << 20)
	rate := func(sec float64) string {
		if sec <= 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f MB/s", mb/sec)
	}
	fmt.Fprintf(w, "input (%s): %s, %.1f MB, %d ops; printing the %s form (ours: GOGC=%d)\n\n", kind, path, mb, ours.Ops, form, gogc)
	fmt.Fprintf(w, "%-24s %12s %12s %12s %12s %8s\n", "phase", "ours (s)", "ours", "mlir-opt (s)", "mlir-opt", "ratio")
	row := func(name string, o, m float64, haveM bool) {
		if !haveM {
			fmt.Fprintf(w, "%-24s %12.3f %12s %12s %12s %8s\n", name, o, rate(o), "-", "-", "-")
			return
		}
		fmt.Fprintf(w, "%-24s %12.3f %12s %12.3f %12s %7.2fx\n", name, o, rate(o), m, rate(m), o/m)
	}
	have := theirs != nil
	var m result
	if have {
		m = *theirs
	}
	row("parse+verify", ours.Parse, m.Parse, have)
	row("print", ours.Output, m.Output, have)
	row("whole run (wall)", ours.wall, m.wall, have)
	row("whole run (CPU)", ours.cpu, m.cpu, have)
	row("parse+verify (our CPU)", ours.ParseCPU, 0, false)
	row("print (our CPU)", ours.OutputCPU, 0, false)
	fmt.Fprintf(w, "%-24s %10.0f MB (source included)\n", "live heap after parse", float64(ours.LiveHeap)/(1<<20))
	if ours.ParsePeakRSS > 0 {
		fmt.Fprintf(w, "%-24s %10.0f MB\n", "peak RSS parse+verify", float64(ours.ParsePeakRSS)/(1<<20))
	}
	if have {
		fmt.Fprintf(w, "%-24s %10.0f MB %12s %10.0f MB %12s %7.2fx\n", "peak RSS",
			float64(ours.maxRSS)/(1<<20), "", float64(m.maxRSS)/(1<<20), "", float64(ours.maxRSS)/float64(m.maxRSS))
	} else {
		fmt.Fprintf(w, "%-24s %10.0f MB\n", "peak RSS", float64(ours.maxRSS)/(1<<20))
	}
}
