package htmlreport_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ipuir/ipuir/registry"
	"github.com/ipuir/ipuir/registry/registrytest"
	"github.com/ipuir/ipuir/runtime/ipupkg"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/translate/htmlreport"
	"github.com/ipuir/ipuir/translate/pkgemit"
)

// compile makes the package of an example.
func compile(t *testing.T, path string) (*ipupkg.Package, *target.Target) {
	t.Helper()
	module, tg := registrytest.Compile(t, path, registry.LowerToTileAsm)
	source, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The source text only: the instructions' origins are named from it.
	p, err := pkgemit.Build(module, tg, pkgemit.Options{Compiler: "test", Source: source})
	if err != nil {
		t.Fatal(err)
	}
	return p, tg
}

func report(t *testing.T, path string) *htmlreport.Data {
	t.Helper()
	p, tg := compile(t, path)
	cycles, err := htmlreport.Cycles(p, tg)
	if err != nil {
		t.Fatal(err)
	}
	d, err := htmlreport.Build(filepath.Base(path), p, tg, cycles)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// The attention block's report for ipu21 (with the small block's beside it
// for the comparison view) in headless Chromium: its script runs without
// an error, and the heat map has the 1,472 tiles, the exchange view the 13
// phases and the 46×46 column matrix, the trace every superstep. Skipped
// where Debian's chromium is not installed (.ci/run installs it).
func TestReportInChromium(t *testing.T) {
	browser, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed")
	}
	d := report(t, "../../examples/attention.ipuir")
	small := report(t, "../../examples/attention-small.ipuir")
	var page bytes.Buffer
	if err := htmlreport.Write(&page, d, small); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(page.Bytes(), []byte("http://")) && !bytes.Contains(page.Bytes(), []byte("http://www.w3.org/2000/svg")) || bytes.Contains(page.Bytes(), []byte("https://")) || bytes.Contains(page.Bytes(), []byte("<link")) {
		t.Error("the page refers to something outside itself")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) []byte {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, browser, append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + filepath.Join(dir, "profile")}, args...)...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("chromium %v: %v", args, err)
		}
		return out
	}
	dom := string(run("--dump-dom", "file://"+file))
	if !strings.Contains(dom, `data-ready="1"`) {
		t.Fatalf("the page's script did not finish:\n%.2000s", dom)
	}
	if m := regexp.MustCompile(`data-errors="([^"]*)"`).FindStringSubmatch(dom); m != nil {
		t.Fatalf("JavaScript errors: %s", m[1])
	}
	for _, c := range []struct {
		what    string
		pattern string
		want    int
	}{
		{"tiles in the heat map", `<rect class="tile"`, 1472},
		{"phases in the exchange view", `<tr class="phase`, len(d.Phases)},
		{"cells of the column matrix", `<rect class="cellm"`, 46 * 46},
		{"supersteps in the trace", `<g class="superstep"`, len(d.Supersteps)},
		// Instructions are named after their source ops, the joint QKV
		// matmul after all three, and the k relayout's busiest tile is
		// not tile 0.
		{"the QKV matmul by its source names", `<td>amp</td><td>%q, %k, %v</td>`, 1},
		{"the k relayout's busiest tile", `<td>exchange</td><td>%k_heads</td><td>4</td><td>6,942</td><td>23 (543 of 1,472 as busy)</td>`, 1},
	} {
		if got := strings.Count(dom, c.pattern); got != c.want {
			t.Errorf("%s: %d, want %d", c.what, got, c.want)
		}
	}
	if len(d.Phases) != 13 || len(d.Supersteps) != 14 {
		t.Errorf("%d phases and %d supersteps", len(d.Phases), len(d.Supersteps))
	}
	for _, view := range []string{"memory", "exchange", "trace", "compare"} {
		shot := filepath.Join(dir, view+".png")
		run("--hide-scrollbars", "--window-size=1280,960", "--screenshot="+shot, "file://"+file+"#view="+view)
		if st, err := os.Stat(shot); err != nil || st.Size() < 10000 {
			t.Errorf("the %s view's screenshot: %v", view, err)
		}
	}
	if m := regexp.MustCompile(`data-render-ms="(\d+)"`).FindStringSubmatch(dom); m != nil {
		t.Logf("the 1,472-tile report rendered in %s ms", m[1])
	}
}
