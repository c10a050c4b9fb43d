package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ipuir/ipuir/runtime/npy"
)

// TestModelZoo is the model zoo of the long suite (IPUIR_LONG_ZOO=1,
// .ci/run): networks as people export them from PyTorch, built, seeded
// and exported by tests/zoo/zoo.py with Debian's python3-torch and
// python3-torchvision, each compiled for ipu21 as a user compiles it
// (ipu-translate --emit-package model.onnx --target=ipu21), run on the
// simulated device with PyTorch's inputs and --check, and its output
// compared with PyTorch's: within 1e-4 of the output's largest magnitude
// in f32, within 1e-2 with matmul-precision to=f16, and the same top-1
// class where the output is a classifier's. It skips where no python3
// imports torch and torchvision.
//
//	IPUIR_ZOO_DIR        export into (and reuse) this folder (default: a temporary one)
//	IPUIR_ZOO_ONLY       models to run, comma-separated (zoo.py --list names them)
//	IPUIR_ZOO_BATCH      batch sizes (default 1,4)
//	IPUIR_ZOO_F16        models also run with matmuls in f16 at batch 1 (default: the CNNs and ViT; "none": none)
//	IPUIR_ZOO_DOC=1      rewrite docs/models.md's table from this run
func TestModelZoo(t *testing.T) {
	if os.Getenv("IPUIR_LONG_ZOO") == "" {
		t.Skip("the long suite: set IPUIR_LONG_ZOO=1")
	}
	python := zooPython(t)
	root := moduleRoot(t)
	dir := os.Getenv("IPUIR_ZOO_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	batches := envOr("IPUIR_ZOO_BATCH", "1,4")
	args := []string{filepath.Join(root, "tests", "zoo", "zoo.py"), dir, "--batch", batches}
	if only := os.Getenv("IPUIR_ZOO_ONLY"); only != "" {
		args = append(args, "--only", only)
	}
	start := time.Now()
	if out, err := exec.Command(python, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", python, strings.Join(args, " "), err, tail(out, 4000))
	}
	t.Logf("exported in %.0f s", time.Since(start).Seconds())
	var records []zooRecord
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err == nil {
		err = json.Unmarshal(data, &records)
	}
	if err != nil {
		t.Fatal(err)
	}
	tools := t.TempDir()
	for _, tool := range []string{"ipu-translate", "ipu-opt", "ipu-run"} {
		if out, err := exec.Command("go", "build", "-o", tools, filepath.Join(root, "tools", tool)).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", tool, err, out)
		}
	}
	only := strings.Split(os.Getenv("IPUIR_ZOO_ONLY"), ",")
	wantBatch := strings.Split(batches, ",")
	f16 := strings.Split(envOr("IPUIR_ZOO_F16", "resnet18,resnet50,mobilenet_v2,mobilenet_v3_small,efficientnet_b0,vit_b_16,unet"), ",")
	// Two configurations run at a time (each compile and run keeps about
	// one core busy), the largest alone: their compile and checked run
	// take most of the machine's memory.
	lanes := newZooLanes(zooLanes)
	rows := map[int]zooRow{}
	var mu sync.Mutex
	configs := 0
	t.Run("models", func(t *testing.T) {
		for _, r := range records {
			if (only[0] != "" && !slices.Contains(only, r.Name)) || !slices.Contains(wantBatch, strconv.Itoa(r.Batch)) {
				continue
			}
			precisions := []string{"f32"}
			if r.Batch == 1 && slices.Contains(f16, r.Name) {
				precisions = append(precisions, "f16")
			}
			for _, precision := range precisions {
				order := configs
				configs++
				t.Run(fmt.Sprintf("%s/b%d/%s", r.Name, r.Batch, precision), func(t *testing.T) {
					t.Parallel()
					n := 1
					if float64(r.Parameters)*float64(r.Batch) >= zooAloneAbove {
						n = zooLanes
					}
					lanes.acquire(n)
					defer lanes.release(n)
					row := runZooModel(t, tools, dir, r, precision)
					mu.Lock()
					rows[order] = row
					mu.Unlock()
					t.Log(row.line())
				})
			}
		}
	})
	var ordered []zooRow
	for i := range configs {
		if row, ok := rows[i]; ok {
			ordered = append(ordered, row)
		}
	}
	t.Logf("model zoo on ipu21:\n%s", zooTable(ordered))
	if os.Getenv("IPUIR_ZOO_DOC") == "1" {
		if err := writeZooTable(filepath.Join(root, "docs", "models.md"), zooTable(ordered)); err != nil {
			t.Fatal(err)
		}
	}
}

// zooLanes is how many configurations run at once; a configuration whose
// parameters times batch reach zooAloneAbove (ViT-B/16, and ResNet-50,
// BERT and GPT-2 widths at batch 4) takes every lane.
const (
	zooLanes      = 2
	zooAloneAbove = 80e6
)

// zooLaneSet hands out lanes: acquire(n) waits until n are free.
type zooLaneSet struct {
	mu   sync.Mutex
	cond *sync.Cond
	free int
}

func newZooLanes(n int) *zooLaneSet {
	l := &zooLaneSet{free: n}
	l.cond = sync.NewCond(&l.mu)
	return l
}

func (l *zooLaneSet) acquire(n int) {
	l.mu.Lock()
	for l.free < n {
		l.cond.Wait()
	}
	l.free -= n
	l.mu.Unlock()
}

func (l *zooLaneSet) release(n int) {
	l.mu.Lock()
	l.free += n
	l.mu.Unlock()
	l.cond.Broadcast()
}

// zooRefused are the configurations that do not compile for ipu21 yet,
// each with words of its refusal. The test checks that each is still
// refused so, and fails when one compiles (remove it then), so that the
// list only shrinks and docs/models.md says what is missing. It is empty:
// every model of the zoo compiles at batch 1 and 4, ViT-B/16 in f32 at
// batch 4 in phases (ipu-translate's own choice).
var zooRefused = map[string]string{}

// zooRecord is one exported model, as zoo.py's manifest lists it.
type zooRecord struct {
	Name       string            `json:"name"`
	Batch      int               `json:"batch"`
	Opset      int               `json:"opset"`
	Model      string            `json:"model"`
	Parameters int64             `json:"parameters"`
	Inputs     map[string]string `json:"inputs"`
	Output     string            `json:"output"`
}

// zooRow is what a model's run measured.
type zooRow struct {
	rec                     zooRecord
	precision               string
	compileSeconds          float64
	compilePeakMB           int64
	cycles, bound           int64
	estimate                int64 // the compiler's estimate of the cycles (the phases' summed)
	busiestBytes, tileBytes int64
	relErr                  float64
	top1Same, top1Of        int
	compared                string
	refused                 string // the first line of the compiler's refusal
	phases                  int    // the phases the compiler cut the model into (0: one program)
}

func (r zooRow) line() string {
	if r.refused != "" {
		return fmt.Sprintf("%s b%d %s: refused after %.0f s: %s", r.rec.Name, r.rec.Batch, r.precision, r.compileSeconds, r.refused)
	}
	return fmt.Sprintf("%s b%d %s: compiled in %.0f s (%d MB peak)%s, %d cycles (estimated %d: %.3f of them), bound %d (%.1f×), busiest tile %d of %d bytes, error %.2g of the output's largest magnitude, top-1 %d/%d",
		r.rec.Name, r.rec.Batch, r.precision, r.compileSeconds, r.compilePeakMB, r.inPhases(), r.cycles, r.estimate, float64(r.estimate)/float64(max(r.cycles, 1)),
		r.bound, float64(r.cycles)/float64(max(r.bound, 1)), r.busiestBytes, r.tileBytes, r.relErr, r.top1Same, r.top1Of)
}

// inPhases says, for a model compiled in phases, how many.
func (r zooRow) inPhases() string {
	if r.phases == 0 {
		return ""
	}
	return fmt.Sprintf(" in %d phases", r.phases)
}

var (
	zooTotalCycles  = regexp.MustCompile(`(?m)^total_cycles=(\d+)`)
	zooNumerical    = regexp.MustCompile(`(?m)^numericalTest=(\S+) .*?compared=(\d+)`)
	zooBound        = regexp.MustCompile(`compute_bound_cycles = (\d+)`)
	zooEstimate     = regexp.MustCompile(`estimate:\s+#tiled\.summary<cycles = (\d+)`)
	zooTileRow      = regexp.MustCompile(`(?m)^\s+\d+\s+\d+\s+\d+\s+\d+\s+\d+\s+(\d+)\s+(\d+)\s*$`)
	zooTargetMemory = regexp.MustCompile(`\((\d+) tiles, (\d+) bytes of SRAM per tile\)`)
	zooPodStage     = regexp.MustCompile(`(?m)^Stage \d+:$`)
)

// runZooModel compiles, runs, checks and compares one model.
func runZooModel(t *testing.T, tools, dir string, r zooRecord, precision string) zooRow {
	row := zooRow{rec: r, precision: precision}
	model := filepath.Join(dir, r.Model)
	stem := filepath.Join(t.TempDir(), strings.TrimSuffix(r.Model, ".onnx"))
	pkg := stem + ".ipupkg"
	source := model
	start := time.Now()
	var peak int64
	if precision == "f16" {
		// As a user asks for it: import, matmul-precision, compile.
		imported, converted := stem+".ipuir", stem+".f16.ipuir"
		peak = max(peak, zooTool(t, tools, "ipu-translate", "--import-onnx", model, "--target=ipu21", "-o", imported))
		peak = max(peak, zooTool(t, tools, "ipu-opt", imported, "--matmul-precision=to=f16", "-o", converted))
		source = converted
	}
	key := fmt.Sprintf("%s/b%d/%s", r.Name, r.Batch, precision)
	want, refused := zooRefused[key]
	// --no-cache: the compile time is what the table reports.
	compiled, rss, stderr := zooTry(t, tools, "ipu-translate", "--emit-package", source, "--target=ipu21", "--no-cache", "--mlir-print-op-on-diagnostic=false", "-o", pkg)
	peak = max(peak, rss)
	row.compileSeconds, row.compilePeakMB = time.Since(start).Seconds(), peak/1024
	switch {
	case refused && compiled:
		t.Errorf("%s compiles now: remove it from zooRefused", key)
	case refused && !strings.Contains(stderr, want):
		t.Fatalf("%s is refused otherwise than zooRefused says (%q):\n%s", key, want, tail([]byte(stderr), 4000))
	case refused:
		row.refused = strings.SplitN(strings.TrimSpace(stderr), "\n", 2)[0]
		return row
	case !compiled:
		// In the table as refused, and a failure: zooRefused must list it.
		t.Errorf("ipu-translate --emit-package %s: %s", source, tail([]byte(stderr), 4000))
		row.refused = strings.SplitN(strings.TrimSpace(stderr), "\n", 2)[0]
		return row
	}

	dump := zooOutput(t, tools, "ipu-translate", "--dump-package", pkg)
	// A model compiled in phases is a pod package: its dump holds each
	// phase's package; the bound is theirs summed, the busiest tile the
	// busiest of any.
	row.phases = len(zooPodStage.FindAllString(dump, -1))
	for _, m := range zooBound.FindAllStringSubmatch(dump, -1) {
		b, _ := strconv.ParseInt(m[1], 10, 64)
		row.bound += b
	}
	for _, m := range zooEstimate.FindAllStringSubmatch(dump, -1) {
		e, _ := strconv.ParseInt(m[1], 10, 64)
		row.estimate += e
	}
	if m := zooTargetMemory.FindStringSubmatch(dump); m != nil {
		row.tileBytes, _ = strconv.ParseInt(m[2], 10, 64)
	}
	for _, m := range zooTileRow.FindAllStringSubmatch(dump, -1) {
		a, _ := strconv.ParseInt(m[1], 10, 64)
		b, _ := strconv.ParseInt(m[2], 10, 64)
		row.busiestBytes = max(row.busiestBytes, a+b)
	}
	if row.busiestBytes == 0 || row.tileBytes == 0 || row.bound == 0 {
		t.Fatalf("the package's dump has no tile table, memory or compute bound:\n%s", tail([]byte(dump), 3000))
	}

	var inputs []string
	for name, file := range r.Inputs {
		inputs = append(inputs, name+"="+filepath.Join(dir, file))
	}
	slices.Sort(inputs)
	got := stem + ".out.npy"
	out := zooOutput(t, tools, "ipu-run", pkg, "--inputs", strings.Join(inputs, ","), "--outputs", got,
		"--check", "--report-cycles", "--lock-dir", filepath.Dir(stem))
	m := zooTotalCycles.FindStringSubmatch(out)
	n := zooNumerical.FindStringSubmatch(out)
	if m == nil || n == nil {
		t.Fatalf("ipu-run printed no total_cycles or numericalTest:\n%s", tail([]byte(out), 3000))
	}
	row.cycles, _ = strconv.ParseInt(m[1], 10, 64)
	row.compared = n[2]
	if n[1] != "PASS" || n[2] == "0" {
		t.Errorf("--check: %s", n[0])
	}

	// Against PyTorch's output.
	reference, err := npy.ReadFile(filepath.Join(dir, r.Output))
	if err != nil {
		t.Fatal(err)
	}
	have, err := npy.ReadFile(got)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(reference.Shape, have.Shape) {
		t.Fatalf("output shape %v, PyTorch's %v", have.Shape, reference.Shape)
	}
	w, h := reference.Float64s(), have.Float64s()
	largest, worst := 0.0, 0.0
	for i := range w {
		largest = max(largest, math.Abs(w[i]))
		worst = max(worst, math.Abs(w[i]-h[i]))
	}
	if largest == 0 {
		// An all-zero reference (a zero-initialized head) agrees with a
		// device that computes anything times zero: no comparison at all.
		t.Fatalf("PyTorch's output is all zeros: the comparison would compare nothing (seed the model's zero-initialized layers in zoo.py)")
	}
	row.relErr = worst / largest
	tol := 1e-4
	if precision == "f16" {
		tol = 1e-2
	}
	if !(row.relErr <= tol) {
		t.Errorf("output differs from PyTorch's by %.3g of its largest magnitude %.3g (tolerance %g)", row.relErr, largest, tol)
	}
	// Top-1 along the last axis, per row (a classifier's logits).
	classes := reference.Shape[len(reference.Shape)-1]
	for lo := 0; lo+classes <= len(w) && classes > 1; lo += classes {
		if argmax(w[lo:lo+classes]) == argmax(h[lo:lo+classes]) {
			row.top1Same++
		}
		row.top1Of++
	}
	if row.top1Same != row.top1Of {
		t.Errorf("top-1 agrees with PyTorch's on %d of %d rows", row.top1Same, row.top1Of)
	}
	return row
}

func argmax(xs []float64) int {
	best := 0
	for i, x := range xs {
		if x > xs[best] {
			best = i
		}
	}
	return best
}

// zooTool runs one of the built tools, fails the test on a non-zero exit
// (with the end of its stderr) and returns its peak resident memory in KB.
func zooTool(t *testing.T, tools, tool string, args ...string) int64 {
	t.Helper()
	ok, rss, stderr := zooTry(t, tools, tool, args...)
	if !ok {
		t.Fatalf("%s %s: %s", tool, strings.Join(args, " "), tail([]byte(stderr), 4000))
	}
	return rss
}

// zooTry runs one of the built tools and reports whether it succeeded, its
// peak resident memory in KB and its standard error.
func zooTry(t *testing.T, tools, tool string, args ...string) (bool, int64, string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(tools, tool), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss
	}
	if _, exit := err.(*exec.ExitError); err != nil && !exit {
		t.Fatalf("%s: %v", tool, err)
	}
	return err == nil, rss, stderr.String()
}

// zooOutput runs a tool and returns its standard output.
func zooOutput(t *testing.T, tools, tool string, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(tools, tool), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s\n%s", tool, strings.Join(args, " "), err, tail(out, 2000), tail(stderr.Bytes(), 4000))
	}
	return string(out)
}

// zooPython finds a python3 that imports torch and torchvision: $IPUIR_PYTHON,
// Debian's /usr/bin/python3 (where python3-torch installs), or python3 on
// PATH. None: the test skips.
func zooPython(t *testing.T) string {
	for _, p := range []string{os.Getenv("IPUIR_PYTHON"), "/usr/bin/python3", "python3"} {
		if p == "" {
			continue
		}
		if exec.Command(p, "-c", "import torch, torchvision, numpy").Run() == nil {
			return p
		}
	}
	t.Skip("no python3 imports torch and torchvision (Debian: apt-get install python3-torch python3-torchvision)")
	return ""
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// zooTable is the rows as docs/models.md's Markdown table.
func zooTable(rows []zooRow) string {
	var b strings.Builder
	b.WriteString("| model | batch | matmuls | parameters | compile | compile peak | simulated cycles | compute bound | ratio | busiest tile | headroom | vs PyTorch (of max \\|y\\|) | top-1 |\n")
	b.WriteString("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, r := range rows {
		if r.refused != "" {
			fmt.Fprintf(&b, "| %s | %d | %s | %.1f M | refused after %.0f s: %s | | | | | | | | |\n",
				r.rec.Name, r.rec.Batch, r.precision, float64(r.rec.Parameters)/1e6, r.compileSeconds, zooReason(r.refused))
			continue
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %.1f M | %.0f s | %.1f GB | %s%s | %s | %.1f× | %.0f KiB | %.0f KiB | %.1e | %d/%d |\n",
			r.rec.Name, r.rec.Batch, r.precision, float64(r.rec.Parameters)/1e6, r.compileSeconds, float64(r.compilePeakMB)/1024,
			commas(r.cycles), r.inPhases(), commas(r.bound), float64(r.cycles)/float64(max(r.bound, 1)),
			float64(r.busiestBytes)/1024, float64(r.tileBytes-r.busiestBytes)/1024, r.relErr, r.top1Same, r.top1Of)
	}
	return b.String()
}

func commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// writeZooTable replaces the table between docs/models.md's markers.
func writeZooTable(path, table string) error {
	const begin, end = "<!-- zoo table: begin -->\n", "<!-- zoo table: end -->\n"
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s := string(data)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		return fmt.Errorf("%s has no %q ... %q markers", path, strings.TrimSpace(begin), strings.TrimSpace(end))
	}
	s = s[:i+len(begin)] + table + s[j:]
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(s), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// zooReason is a refusal's message for the table: without the file's
// position, Markdown's pipes escaped, at most 160 characters.
func zooReason(line string) string {
	if i := strings.Index(line, "error: "); i >= 0 {
		line = line[i+len("error: "):]
	}
	if len(line) > 160 {
		line = line[:157] + "..."
	}
	return strings.ReplaceAll(line, "|", "\\|")
}
