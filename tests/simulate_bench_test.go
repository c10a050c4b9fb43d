package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// BenchmarkSimulateAttention runs the README's main job's device half:
// ipu-run on the attention block's ipu21 package with generated inputs,
// as a user runs it, and reports its wall time and the process's peak
// resident memory (the simulated tiles' memory, the package, the inputs
// and the run's values together).
//
//	go test -run '^$' -bench SimulateAttention -benchtime 3x ./tests/
func BenchmarkSimulateAttention(b *testing.B) {
	dir := b.TempDir()
	for _, tool := range []string{"ipu-translate", "ipu-run"} {
		if out, err := exec.Command("go", "build", "-o", dir, "../tools/"+tool).CombinedOutput(); err != nil {
			b.Fatalf("go build %s: %v\n%s", tool, err, out)
		}
	}
	pkg := filepath.Join(dir, "attention.ipupkg")
	if out, err := exec.Command(filepath.Join(dir, "ipu-translate"), "--emit-package", "../examples/attention.ipuir", "-o", pkg).CombinedOutput(); err != nil {
		b.Fatalf("ipu-translate: %v\n%s", err, out)
	}
	var peak int64
	var wall time.Duration
	b.ResetTimer()
	for b.Loop() {
		cmd := exec.Command(filepath.Join(dir, "ipu-run"), pkg, "--generate", "gaussian:seed=1", "--lock-dir", dir)
		cmd.Stderr = os.Stderr
		start := time.Now()
		if out, err := cmd.Output(); err != nil {
			b.Fatalf("ipu-run: %v\n%s", err, out)
		}
		wall += time.Since(start)
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			peak = max(peak, int64(ru.Maxrss)*1024) // Linux reports KiB
		}
	}
	b.ReportMetric(wall.Seconds()/float64(b.N), "wall-s/op")
	b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MiB")
}
