// Command ipu-lit runs lit-style tests (see package lit): the .ipuir and
// .mlir files under the given folders, or the given files.
//
//	ipu-lit [-q] [-a] [-j N] [--tools-dir DIR] [--timeout D] PATH...
//
// Unless --tools-dir names prebuilt tools, it first builds every command
// under ./tools of the Go module containing the first PATH, so that tests
// run against the current sources; for tests outside that module it uses
// the tools installed beside itself (go install ./tools/...) or on PATH.
// It prints one line per test, the commands and output of each failing
// one (-q leaves them out), and a summary such as "Passed: 12, Failed: 1",
// and exits with status 1 when a test failed (or unexpectedly passed), 2
// when it could not run the tests.
package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/ipuir/ipuir/internal/cli"
	"github.com/ipuir/ipuir/lit"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("ipu-lit", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	// Failing tests' commands and output are shown, as llvm-lit shows
	// them; -v is kept for the scripts that pass it.
	fs.BoolP("verbose", "v", false, "show the commands and output of failing tests (the default)")
	quiet := fs.BoolP("quiet", "q", false, "show only the status line of failing tests, not their commands and output")
	all := fs.BoolP("show-all", "a", false, "show the commands and output of every test")
	jobs := fs.IntP("workers", "j", runtime.NumCPU(), "number of tests run at once")
	toolsDir := fs.String("tools-dir", "", "use the commands in this folder instead of building ./tools/...")
	timeout := fs.Duration("timeout", 5*time.Minute, "time limit of each test")
	suffixes := fs.StringSlice("suffixes", lit.DefaultSuffixes, "file extensions of tests")
	tags := fs.StringSlice("build-tags", []string{"ipuir_testing"}, "build tags for building ./tools/... (ipuir_testing gives ipu-opt the test dialect and passes that ipuir's own tests use)")
	help := fs.BoolP("help", "h", false, "show this help")
	usage := func(w io.Writer) {
		fmt.Fprintln(w, "usage: ipu-lit [options] PATH...\n  runs the lit-style tests (// RUN: lines) of the files and folders given\n\noptions:")
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(stderr)
	}
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(stderr, "ipu-lit: %v\n", err)
		if s := cli.Suggest(fs, strings.TrimPrefix(err.Error(), "unknown flag: ")); s != "" && strings.HasPrefix(err.Error(), "unknown flag: ") {
			fmt.Fprintf(stderr, "ipu-lit: did you mean '%s'?\n", s)
		}
		return 2
	}
	if *help {
		usage(stdout)
		return 0
	}
	paths := fs.Args()
	if len(paths) == 0 {
		fmt.Fprintln(stderr, "ipu-lit: no test paths given")
		usage(stderr)
		return 2
	}

	if *toolsDir == "" {
		root, err := lit.ModuleRoot(paths[0])
		switch {
		case err != nil:
			// Tests outside the module (a dialect of one's own): the tools
			// installed beside ipu-lit (go install ./tools/...), or on PATH.
			dir, ok := installedTools()
			if !ok {
				fmt.Fprintf(stderr, "ipu-lit: %v, and no ipu-opt is installed beside ipu-lit or on PATH: give --tools-dir, or run go install ./tools/... in the ipuir module\n", err)
				return 2
			}
			*toolsDir = dir
		default:
			dir, err := os.MkdirTemp("", "ipu-lit-tools-")
			if err != nil {
				fmt.Fprintln(stderr, "ipu-lit:", err)
				return 2
			}
			defer os.RemoveAll(dir)
			if err := lit.BuildTools(root, dir, *tags...); err != nil {
				// Tests of the commands that did build still run.
				fmt.Fprintln(stderr, "ipu-lit: warning:", err)
			}
			*toolsDir = dir
		}
	}
	abs, err := filepath.Abs(*toolsDir)
	if err != nil {
		fmt.Fprintln(stderr, "ipu-lit:", err)
		return 2
	}
	files, err := lit.Discover(paths, *suffixes)
	if err != nil {
		fmt.Fprintln(stderr, "ipu-lit:", err)
		return 2
	}
	cfg := &lit.Config{ToolsDir: abs, Features: lit.DefaultFeatures(abs), Timeout: *timeout}

	start := time.Now()
	results := runAll(cfg, files, max(1, *jobs), func(done int, r lit.Result) {
		fmt.Fprintf(stdout, "%s: %s (%d of %d)\n", r.Status, r.Test.Name, done, len(files))
		if *all || !*quiet && r.Status.Failed() {
			fmt.Fprintf(stdout, "******************** TEST '%s' %s ********************\n%s", r.Test.Name, r.Status, r.Output)
			if !strings.HasSuffix(r.Output, "\n") {
				fmt.Fprintln(stdout)
			}
			fmt.Fprintln(stdout, "********************")
		}
	})
	counts := map[lit.Status]int{}
	var failed []string
	for _, r := range results {
		counts[r.Status]++
		if r.Status.Failed() {
			failed = append(failed, r.Test.Name)
		}
	}
	if len(failed) > 0 {
		sort.Strings(failed)
		fmt.Fprintln(stdout, "\nFailed Tests:")
		for _, name := range failed {
			fmt.Fprintln(stdout, "  "+name)
		}
	}
	fmt.Fprintf(stdout, "\nTesting Time: %.2fs\n", time.Since(start).Seconds())
	summary := fmt.Sprintf("Passed: %d, Failed: %d", counts[lit.Pass], counts[lit.Fail])
	for _, s := range []lit.Status{lit.XFail, lit.XPass, lit.Unsupported} {
		if counts[s] > 0 {
			summary += fmt.Sprintf(", %s: %d", statusName(s), counts[s])
		}
	}
	fmt.Fprintln(stdout, summary)
	if len(failed) > 0 {
		return 1
	}
	return 0
}

// installedTools is the folder of the installed tools: ipu-lit's own
// (go install puts every tool of ./tools in one), or ipu-opt's on PATH.
func installedTools() (string, bool) {
	if exe, err := os.Executable(); err == nil {
		dir := filepath.Dir(exe)
		if info, err := os.Stat(filepath.Join(dir, "ipu-opt")); err == nil && !info.IsDir() {
			return dir, true
		}
	}
	if path, err := exec.LookPath("ipu-opt"); err == nil {
		return filepath.Dir(path), true
	}
	return "", false
}

func statusName(s lit.Status) string {
	switch s {
	case lit.XFail:
		return "Expectedly Failed"
	case lit.XPass:
		return "Unexpectedly Passed"
	}
	return "Unsupported"
}

// runAll runs the tests on jobs workers, reporting each result as it
// completes, and returns the results in file order.
func runAll(cfg *lit.Config, files []string, jobs int, report func(done int, r lit.Result)) []lit.Result {
	results := make([]lit.Result, len(files))
	var mu sync.Mutex
	done := 0
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				name := filepath.ToSlash(files[i])
				var r lit.Result
				if t, err := lit.ParseFile(files[i], name); err != nil {
					r = lit.Result{Test: &lit.Test{Path: files[i], Name: name}, Status: lit.Fail, Output: err.Error()}
				} else {
					r = cfg.Run(t)
				}
				results[i] = r
				mu.Lock()
				done++
				report(done, r)
				mu.Unlock()
			}
		}()
	}
	for i := range files {
		work <- i
	}
	close(work)
	wg.Wait()
	return results
}
