package tests

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/execution/check"
	"github.com/ipuir/ipuir/parser"
	"github.com/ipuir/ipuir/registry"
	"github.com/ipuir/ipuir/runtime/ipupkg"
	"github.com/ipuir/ipuir/runtime/sim"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/target/irtarget"
	"github.com/ipuir/ipuir/tools/toolkit"
	"github.com/ipuir/ipuir/translate/htmlreport"
)

// compilePod compiles the module in src for the pod target it names, as
// ipu-translate --emit-package does.
func compilePod(t *testing.T, src, balance string) (*ipupkg.Pod, *target.Target) {
	t.Helper()
	ctx := registry.NewContext()
	module, err := parser.ParseSourceString(ctx, []byte(src), parser.Config{Filename: "model.ipuir"})
	if err != nil {
		t.Fatal(err)
	}
	tg, err := irtarget.FromModule(module)
	if err != nil {
		t.Fatal(err)
	}
	pod, err := toolkit.CompilePod(ctx, module, []byte(src), irtarget.EnvKey.With(nil, tg), slog.New(slog.DiscardHandler), tg,
		toolkit.PodOptions{Balance: balance, MicroBatches: 8, Compiler: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return pod, tg
}

// The report's pipeline is priced from each stage's cycles, which it
// simulates on zero inputs: they must be the cycles of a run on real
// inputs (the cost model does not look at data), and the page must draw
// the stage table in a browser.
func TestPodReportAgreesWithARun(t *testing.T) {
	pod, tg := compilePod(t, readFile(t, "../examples/encoder-test16x4.ipuir"), "bytes")
	d, err := htmlreport.BuildPod("encoder.ipupod", pod, tg, pod.MicroBatches, -1)
	if err != nil {
		t.Fatal(err)
	}
	chip, err := target.Lookup(pod.Stages[0].Package.Target)
	if err != nil {
		t.Fatal(err)
	}
	slowest := 0
	for k, st := range pod.Stages {
		var ins []*eval.Array
		for _, s := range st.Package.Inputs() {
			shape := make([]int, len(s.Shape))
			n := 1
			for i, x := range s.Shape {
				shape[i] = int(x)
				n *= int(x)
			}
			data := make([]float64, n)
			for i := range data {
				data[i] = float64((i*7+k)%13)/13 - 0.5
			}
			ins = append(ins, &eval.Array{Shape: shape, Kind: s.Elem, Data: data})
		}
		dev := sim.New(chip, nil)
		if err := dev.Attach(); err != nil {
			t.Fatal(err)
		}
		if err := dev.Initialize(); err != nil {
			t.Fatal(err)
		}
		_, cycles, err := check.Execute(dev, st.Package, ins, check.ExecuteOptions{OutputsOnly: true})
		dev.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Pipeline.Stages[k].Cycles; got != cycles.Total {
			t.Errorf("stage %d: the report says %d cycles, a run %d", k, got, cycles.Total)
		}
		if cycles.Total > d.Pipeline.Stages[slowest].Cycles {
			slowest = k
		}
	}
	if d.Stage != slowest || d.Pipeline.Slot != d.Pipeline.Slowest+d.Pipeline.Links+tg.Links.SyncCycles ||
		d.Pipeline.Total != int64(pod.MicroBatches+len(pod.Stages)-1)*d.Pipeline.Slot {
		t.Errorf("stage shown %d (slowest %d), pipeline %+v", d.Stage, slowest, d.Pipeline)
	}
	t.Logf("stages %v, slot %d, %d micro-batches in %d cycles", d.Pipeline.Stages, d.Pipeline.Slot, pod.MicroBatches, d.Pipeline.Total)

	browser, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed")
	}
	var page bytes.Buffer
	if err := htmlreport.Write(&page, d, nil); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir="+filepath.Join(dir, "profile"),
		"--dump-dom", "file://"+file).Output()
	if err != nil {
		t.Fatal(err)
	}
	dom := string(out)
	if !strings.Contains(dom, `data-ready="1"`) || regexp.MustCompile(`data-errors="`).MatchString(dom) {
		t.Fatalf("the page's script failed:\n%.2000s", dom)
	}
	stages := regexp.MustCompile(`(?s)<table id="stages">(.*?)</table>`).FindStringSubmatch(dom)
	if stages == nil {
		t.Fatalf("no stage table in the page:\n%.2000s", dom)
	}
	rows := regexp.MustCompile(`<tr><td>(\d+)( \(shown\))?</td><td>(\d+)</td><td>([\d,]+)</td>`).FindAllStringSubmatch(stages[1], -1)
	if len(rows) != len(pod.Stages) {
		t.Fatalf("the stage table has %d rows, want %d", len(rows), len(pod.Stages))
	}
	for k, r := range rows {
		if want := strings.ReplaceAll(r[4], ",", ""); want != strconv.FormatInt(d.Pipeline.Stages[k].Cycles, 10) || (r[2] != "") != (k == d.Stage) {
			t.Errorf("stage row %d: %q", k, r[0])
		}
	}
	// The link phase: a row for each transfer, its route hop by hop.
	links := regexp.MustCompile(`(?s)<table id="links">(.*?)</table>`).FindStringSubmatch(dom)
	if links == nil {
		t.Fatalf("no link table in the page:\n%.2000s", dom)
	}
	routes := regexp.MustCompile(`<tr><td>stage (\d+) output \d+</td><td>stage (\d+) input \d+</td><td>[\d,]+</td><td>([^<]*)</td>`).FindAllStringSubmatch(links[1], -1)
	if len(routes) != len(pod.Links) || len(routes) == 0 {
		t.Fatalf("the link table has %d rows, the pod %d transfers:\n%s", len(routes), len(pod.Links), links[1])
	}
	for n, r := range routes {
		l := pod.Links[n]
		want := fmt.Sprintf("%d → %d (%d–%d)", l.Hops[0].From, l.Hops[0].To, l.Hops[0].Start, l.Hops[0].End)
		if r[1] != strconv.Itoa(l.From.Stage) || r[2] != strconv.Itoa(l.To) || !strings.HasPrefix(strings.ReplaceAll(r[3], ",", ""), want) {
			t.Errorf("link row %d: %q, want a route starting %q", n, r[0], want)
		}
	}
}
