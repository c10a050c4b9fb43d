package tests

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ipuir/ipuir/runtime/ipupkg"
)

// A tool stopped by a signal at any moment of a run that writes -o (or
// ipu-run's --outputs) leaves the output as it was, or whole if the run
// had finished, and nothing beside it: the temporary file is made when the
// output is ready and removed on SIGINT, SIGTERM and SIGHUP (an
// interrupted compile once left .out.tmp-NNN behind). SIGKILL, which no
// tool can handle, leaves nothing while the run works. Each tool that
// writes outputs is tried at several moments.
func TestSignalsLeaveOutputsWholeOrAsTheyWere(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the tools and runs compiles to interrupt")
	}
	root := moduleRoot(t)
	tools := t.TempDir()
	for _, tool := range []string{"ipu-opt", "ipu-translate", "ipu-run"} {
		if out, err := exec.Command("go", "build", "-o", tools, filepath.Join(root, "tools", tool)).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", tool, err, out)
		}
	}
	attention := filepath.Join(root, "examples", "attention.ipuir")
	pkg := filepath.Join(t.TempDir(), "attention.ipupkg")
	if out, err := exec.Command(filepath.Join(tools, "ipu-translate"), "--emit-package", attention, "-o", pkg).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	type job struct {
		name  string
		args  func(out string) []string
		whole func(data []byte) bool // a finished output
	}
	jobs := []job{
		{"ipu-translate --emit-package", func(out string) []string {
			return []string{"ipu-translate", "--emit-package", attention, "-o", out}
		}, func(d []byte) bool { _, _, err := ipupkg.Decode(d); return err == nil }},
		{"ipu-opt lower-to-tile-asm", func(out string) []string {
			return []string{"ipu-opt", attention, "--pass-pipeline=builtin.module(lower-to-tile-asm)", "-o", out}
		}, func(d []byte) bool { return bytes.HasSuffix(bytes.TrimSpace(d), []byte("}")) }},
		{"ipu-run --outputs", func(out string) []string {
			return []string{"ipu-run", pkg, "--generate", "gaussian:seed=1", "--outputs", out, "--lock-dir", filepath.Dir(out)}
		}, func(d []byte) bool { return bytes.HasPrefix(d, []byte("\x93NUMPY")) }},
	}
	tried := 0
	for _, j := range jobs {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL} {
			for _, after := range []time.Duration{100 * time.Millisecond, 900 * time.Millisecond} {
				dir := t.TempDir()
				out := filepath.Join(dir, "out")
				if err := os.WriteFile(out, []byte("precious"), 0o644); err != nil {
					t.Fatal(err)
				}
				args := j.args(out)
				cmd := exec.Command(filepath.Join(tools, args[0]), args[1:]...)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				time.Sleep(after)
				cmd.Process.Signal(sig)
				err := cmd.Wait()
				finished := err == nil
				data, _ := os.ReadFile(out)
				what := fmt.Sprintf("%s, %v after %v (finished: %v)", j.name, sig, after, finished)
				switch {
				case string(data) == "precious":
				case j.whole(data):
				default:
					t.Errorf("%s: the output is neither as it was nor whole (%d bytes)\n%s", what, len(data), stderr.String())
				}
				if sig == syscall.SIGKILL && !finished && string(data) != "precious" {
					t.Errorf("%s: killed, yet the output changed", what)
				}
				entries, _ := os.ReadDir(dir)
				for _, e := range entries {
					if e.Name() != "out" && !strings.HasSuffix(e.Name(), ".lock") {
						if sig == syscall.SIGKILL && after > 500*time.Millisecond {
							// SIGKILL while the output is being written
							// cannot be cleaned up; it must not happen
							// while the run works.
							t.Logf("%s: %s left (killed while writing)", what, e.Name())
							continue
						}
						t.Errorf("%s: %s left beside the output", what, e.Name())
					}
				}
				tried++
			}
		}
	}
	t.Logf("%d interrupted runs, none left a temporary or a broken output", tried)
}
