package interop

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/ipuir/ipuir/internal/irgen"
)

var (
	numSeeds  = flag.Int("interop.seeds", defaultSeeds(), "how many generated files to check (50, every feature covered; 150 in the long suite, IPUIR_LONG=1)")
	firstSeed = flag.Uint64("interop.first", 1, "the first seed to check")
	oneSeed   = flag.Uint64("interop.seed", 0, "check only this seed")
	runGaps   = flag.Bool("interop.gaps", false, "run TestInteropKnownGaps instead of skipping it")
)

// defaultSeeds is 50 in go test ./... (each seed runs mlir-opt-19 and
// ipu-opt several times: 150 took 65 s alone and 272 s beside a second
// go test ./... on 2 cores) and 150 in the long suite.
func defaultSeeds() int {
	if os.Getenv("IPUIR_LONG") != "" {
		return 150
	}
	return 50
}

// seeds are the seeds a test checks.
func seeds() []uint64 {
	if *oneSeed != 0 {
		return []uint64{*oneSeed}
	}
	s := make([]uint64, *numSeeds)
	for i := range s {
		s[i] = *firstSeed + uint64(i)
	}
	return s
}

// A knownGap is a generator feature that cannot pass yet, with the entry
// of tests/interop/BUGS.md that says why. The main tests switch it
// off; TestInteropKnownGaps keeps it checked.
type knownGap struct {
	feature irgen.Feature
	bug     string
}

var knownGaps = []knownGap{}

// exactGaps are features that pass through mlir-opt-19 but that ipu-opt
// prints otherwise than mlir-opt-19: files with them are not compared byte
// for byte (TestInteropKnownGaps still does, with -interop.gaps).
var exactGaps = []knownGap{
	{irgen.AttrFloatWideInexact, "BUGS.md B12: 0.1 : f80 prints as 1.000000e-01, not 0.100000000000000005551"},
}

func exactGapFeatures() map[irgen.Feature]bool {
	m := map[irgen.Feature]bool{}
	for _, g := range exactGaps {
		m[g.feature] = true
	}
	return m
}

// passingConfig is the generator config without the known gaps.
func passingConfig() irgen.Config {
	var off []irgen.Feature
	for _, g := range knownGaps {
		off = append(off, g.feature)
	}
	return irgen.DefaultConfig().Without(off...)
}

// enabled lists the features cfg generates.
func enabled(cfg irgen.Config) []irgen.Feature {
	var fs []irgen.Feature
	for _, f := range irgen.Features() {
		if cfg.Enabled(f) {
			fs = append(fs, f)
		}
	}
	return fs
}

func mlirOpt(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("mlir-opt-19")
	if err != nil {
		t.Skip("mlir-opt-19 is not on PATH")
	}
	return path
}

var (
	buildOnce sync.Once
	ipuOptBin string
	buildErr  error
)

// ipuOpt builds ./tools/ipu-opt once per test binary run.
func ipuOpt(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ipuir-interop-bin")
		if err != nil {
			buildErr = err
			return
		}
		ipuOptBin = filepath.Join(dir, "ipu-opt")
		cmd := exec.Command("go", "build", "-o", ipuOptBin, "github.com/ipuir/ipuir/tools/ipu-opt")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ipu-opt: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return ipuOptBin
}

// removeBinary deletes what ipuOpt built.
func removeBinary() {
	if ipuOptBin != "" {
		os.RemoveAll(filepath.Dir(ipuOptBin))
	}
}

// run runs bin in dir with stdin and returns its stdout, or an error that
// quotes its stderr.
func run(dir string, stdin []byte, bin string, args ...string) ([]byte, error) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s %s: %v\n%s", filepath.Base(bin), strings.Join(args, " "), err, firstLines(stderr.String(), 8))
	}
	return stdout.Bytes(), nil
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = append(lines[:n], "...")
	}
	return strings.Join(lines, "\n")
}

// failureDir is where a failing case's input and outputs are kept, so
// the report can name a file that outlives the test.
func failureDir(t *testing.T) string {
	dir := filepath.Join(os.TempDir(), "ipuir-interop")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// keep writes name=contents pairs into failureDir and returns the path of
// the first.
func keep(t *testing.T, files ...string) string {
	dir := failureDir(t)
	first := ""
	for i := 0; i+1 < len(files); i += 2 {
		p := filepath.Join(dir, files[i])
		if err := os.WriteFile(p, []byte(files[i+1]), 0o644); err != nil {
			t.Fatal(err)
		}
		if first == "" {
			first = p
		}
	}
	return first
}

// parallelism bounds concurrent seeds: each runs external processes, and
// the machine's cores are shared.
func parallelism() int { return max(2, runtime.GOMAXPROCS(0)) }

// lines splits output so that cmp.Diff reports whole lines.
func lines(b []byte) []string { return strings.Split(string(b), "\n") }
