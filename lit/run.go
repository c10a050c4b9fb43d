package lit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Status is the outcome of a test, named as lit names them.
type Status int

// The outcomes. Fail and XPass count as failures.
const (
	Pass Status = iota
	Fail
	XFail
	XPass
	Unsupported
)

func (s Status) String() string {
	return [...]string{"PASS", "FAIL", "XFAIL", "XPASS", "UNSUPPORTED"}[s]
}

// Failed reports whether the status fails a run.
func (s Status) Failed() bool { return s == Fail || s == XPass }

// Result is the outcome of running one test, with a transcript of the
// commands run and their output.
type Result struct {
	Test     *Test
	Status   Status
	Output   string
	Duration time.Duration
}

// Config says how tests run.
type Config struct {
	// ToolsDir is put first on PATH.
	ToolsDir string
	// Features are the names REQUIRES, UNSUPPORTED and XFAIL test.
	Features map[string]bool
	// TempRoot holds each test's temporary directory; os.TempDir() if
	// empty.
	TempRoot string
	// Timeout bounds each test; zero means no limit.
	Timeout time.Duration
}

// notFunction implements lit's `not` for the bash commands: invert the exit
// status, or with --crash require death by a signal.
const notFunction = `not() {
  if [ "$1" = "--crash" ]; then
    shift
    GOTRACEBACK=crash "$@"
    [ $? -ge 128 ]
    return
  fi
  "$@"
  [ $? -ne 0 ]
}
`

// DefaultFeatures returns the features of this machine: the operating
// system, the executables in toolsDir, the LLVM tools on PATH that
// differential tests use, and util-linux's flock (which holds a device's
// lock while a test runs another runner).
func DefaultFeatures(toolsDir string) map[string]bool {
	f := map[string]bool{runtime.GOOS: true, "system-" + runtime.GOOS: true}
	if entries, err := os.ReadDir(toolsDir); err == nil {
		for _, e := range entries {
			if info, err := e.Info(); err == nil && !e.IsDir() && info.Mode()&0o111 != 0 {
				f[e.Name()] = true
			}
		}
	}
	// The long suite: tests that REQUIRE long run only when asked for
	// (IPUIR_LONG=1, as .ci/run's long step sets it), so that the main
	// suite stays within minutes on a busy machine.
	if os.Getenv("IPUIR_LONG") == "1" {
		f["long"] = true
	}
	for _, tool := range []string{"FileCheck-19", "mlir-opt-19", "mlir-translate-19", "flock"} {
		if _, err := exec.LookPath(tool); err == nil {
			f[strings.ToLower(tool)] = true
		}
	}
	return f
}

// Run runs one test.
func (c *Config) Run(t *Test) Result {
	start := time.Now()
	r := c.run(t)
	r.Test = t
	r.Duration = time.Since(start)
	return r
}

func (c *Config) run(t *Test) Result {
	for _, e := range t.Requires {
		ok, err := evalFeatures(e, c.Features)
		if err != nil {
			return Result{Status: Fail, Output: err.Error()}
		}
		if !ok {
			return Result{Status: Unsupported, Output: "missing feature: " + e}
		}
	}
	for _, e := range t.Unsupported {
		ok, err := evalFeatures(e, c.Features)
		if err != nil {
			return Result{Status: Fail, Output: err.Error()}
		}
		if ok {
			return Result{Status: Unsupported, Output: "unsupported because of: " + e}
		}
	}
	expectFail := false
	for _, e := range t.XFail {
		ok := e == "*"
		if !ok {
			var err error
			if ok, err = evalFeatures(e, c.Features); err != nil {
				return Result{Status: Fail, Output: err.Error()}
			}
		}
		expectFail = expectFail || ok
	}
	if len(t.Run) == 0 {
		return Result{Status: Fail, Output: "test has no RUN lines"}
	}

	tmpDir, err := os.MkdirTemp(c.TempRoot, "lit-")
	if err != nil {
		return Result{Status: Fail, Output: err.Error()}
	}
	defer os.RemoveAll(tmpDir)
	ok, transcript := c.runCommands(t, tmpDir)
	switch {
	case ok && expectFail:
		return Result{Status: XPass, Output: transcript}
	case ok:
		return Result{Status: Pass, Output: transcript}
	case expectFail:
		return Result{Status: XFail, Output: transcript}
	}
	return Result{Status: Fail, Output: transcript}
}

func (c *Config) runCommands(t *Test, tmpDir string) (bool, string) {
	abs, err := filepath.Abs(t.Path)
	if err != nil {
		return false, err.Error()
	}
	tmpBase := filepath.Join(tmpDir, filepath.Base(abs))
	ctx := context.Background()
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	env := os.Environ()
	if c.ToolsDir != "" {
		env = append(env, "PATH="+c.ToolsDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	var transcript strings.Builder
	for i, line := range t.Run {
		command := Substitute(line, abs, tmpBase)
		fmt.Fprintf(&transcript, "$ %s\n", command)
		cmd := exec.CommandContext(ctx, "bash", "-o", "pipefail", "-c", notFunction+command)
		cmd.Dir = tmpDir
		// Each RUN line has a cache folder of its own under the test's
		// temporary one, so that tools' caches (ipu-translate's compile
		// cache) carry no result from one command to the next, nor reach
		// the user's: a test sees what its command does.
		cmd.Env = append(env, "XDG_CACHE_HOME="+filepath.Join(tmpDir, fmt.Sprintf("cache-%d", i)))
		killTreeOnCancel(cmd)
		cmd.WaitDelay = 5 * time.Second
		var out bytes.Buffer
		cmd.Stdout = &out
		cmd.Stderr = &out
		err := cmd.Run()
		transcript.Write(out.Bytes())
		if err != nil {
			var exit *exec.ExitError
			switch {
			case ctx.Err() != nil:
				fmt.Fprintf(&transcript, "error: RUN line %d timed out after %v\n", i+1, c.Timeout)
			case errors.As(err, &exit):
				fmt.Fprintf(&transcript, "error: RUN line %d failed with exit status %d\n", i+1, exit.ExitCode())
			default:
				fmt.Fprintf(&transcript, "error: RUN line %d could not run: %v\n", i+1, err)
			}
			return false, transcript.String()
		}
	}
	return true, transcript.String()
}

// Substitute replaces lit's substitutions in a RUN command: %s is source,
// %S and %p its directory, %t is tmpBase+".tmp", %T its directory and %% a
// percent sign.
func Substitute(command, source, tmpBase string) string {
	const marker = "\x00percent\x00"
	command = strings.ReplaceAll(command, "%%", marker)
	tmp := tmpBase + ".tmp"
	command = strings.NewReplacer(
		"%s", source,
		"%S", filepath.Dir(source),
		"%p", filepath.Dir(source),
		"%t", tmp,
		"%T", filepath.Dir(tmp),
	).Replace(command)
	return strings.ReplaceAll(command, marker, "%")
}
