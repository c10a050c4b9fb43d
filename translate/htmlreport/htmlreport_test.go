package htmlreport_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ipuir/ipuir/registry"
	"github.com/ipuir/ipuir/registry/registrytest"
	"github.com/ipuir/ipuir/runtime/device"
	"github.com/ipuir/ipuir/runtime/ipupkg"
	"github.com/ipuir/ipuir/runtime/trace"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/translate/htmlreport"
	"github.com/ipuir/ipuir/translate/memoryreport"
	"github.com/ipuir/ipuir/translate/onnximport"
	"github.com/ipuir/ipuir/translate/pkgemit"
)

// compiled is an example compiled to its package and run for its cycles,
// with its memory report from the tile-asm program.
type compiled struct {
	p      *ipupkg.Package
	tg     *target.Target
	cycles *device.Cycles
	data   *htmlreport.Data
	memory *memoryreport.Report
}

var (
	compiledMu sync.Mutex
	cache      = map[string]*compiled{}
)

// compile compiles the example at path (an .ipuir file, or an .onnx model
// imported for ipu21 first), once per test binary.
func compile(t *testing.T, path string) *compiled {
	t.Helper()
	compiledMu.Lock()
	defer compiledMu.Unlock()
	if c := cache[path]; c != nil {
		return c
	}
	source, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	name := path
	if strings.HasSuffix(path, ".onnx") {
		model, ok := onnximport.Decode(source)
		if !ok {
			t.Fatalf("%s is no ONNX model", path)
		}
		text, err := onnximport.Import(model, onnximport.Options{File: filepath.Base(path), Target: "ipu21"})
		if err != nil {
			t.Fatal(err)
		}
		source, name = text, filepath.Base(path)+" (imported)"
	}
	ctx, module := registrytest.Parse(t, name, source)
	var opts pkgemit.Options
	opts.Compiler = "test"
	opts.SetSource(source, module)
	tg, err := registrytest.Run(t, ctx, module, registry.LowerToTileAsm)
	if err != nil {
		t.Fatal(err)
	}
	c := &compiled{tg: tg}
	var reports []*memoryreport.Report
	if reports, err = memoryreport.Reports(module, tg); err != nil || len(reports) != 1 {
		t.Fatalf("memory report: %v (%d)", err, len(reports))
	}
	c.memory = reports[0]
	if c.p, err = pkgemit.Build(module, tg, opts); err != nil {
		t.Fatal(err)
	}
	if c.cycles, err = htmlreport.Cycles(c.p, tg); err != nil {
		t.Fatal(err)
	}
	if c.data, err = htmlreport.Build(filepath.Base(path), c.p, tg, c.cycles); err != nil {
		t.Fatal(err)
	}
	cache[path] = c
	return c
}

// The report and the memory report agree: each class's tightest tile and
// its bytes are the memory report's busiest, every tile's live bytes at
// its peak are its peak live bytes (one definition, storage.LiveBytes),
// and the liveness view's busiest tile holds the chip's largest live
// bytes. The run's trace, written and read back as JSON, has every
// instruction of the report's op table with its name and cycles.
func TestReportAgreesWithMemoryReportAndTrace(t *testing.T) {
	c := compile(t, "../../examples/attention.ipuir")
	d, nc := c.data, len(c.p.Classes)
	for k, cl := range d.Classes {
		mc := c.memory.Classes[k]
		if cl.Name != mc.Name || cl.TightestTile != mc.BusiestTile || cl.Used != mc.BusiestBytes || cl.Headroom != mc.BusiestHeadroom || cl.Capacity != mc.Capacity {
			t.Errorf("class %s: tightest tile %d, %d used, %d free of %d; the memory report: %s tile %d, %d, %d of %d",
				cl.Name, cl.TightestTile, cl.Used, cl.Headroom, cl.Capacity, mc.Name, mc.BusiestTile, mc.BusiestBytes, mc.BusiestHeadroom, mc.Capacity)
		}
		if cl.TightestTile == 0 && k == 0 {
			t.Errorf("class %s: the tightest tile is 0 (the attention block's is not)", cl.Name)
		}
	}
	peak := int64(0)
	for tile, tm := range c.memory.Tiles {
		if got := d.Memory[tile][nc+3]; got != tm.PeakLiveBytes {
			t.Fatalf("tile %d: %d live bytes at its peak, the memory report's peak live %d", tile, got, tm.PeakLiveBytes)
		}
		peak = max(peak, tm.PeakLiveBytes)
	}
	livePeak := int64(0)
	for _, s := range d.Supersteps {
		livePeak = max(livePeak, s.LivePeak)
	}
	if livePeak != peak {
		t.Errorf("the liveness view's largest %d, the memory report's %d", livePeak, peak)
	}
	t.Logf("%d tiles' peak live bytes agree; tightest %s tile %d (%d free)", len(c.memory.Tiles), d.Classes[0].Name, d.Classes[0].TightestTile, d.Classes[0].Headroom)

	var file bytes.Buffer
	if err := trace.Write(&file, c.p, c.cycles, c.tg.ClockHz); err != nil {
		t.Fatal(err)
	}
	var back trace.File
	if err := json.Unmarshal(file.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	ops := map[int]htmlreport.Op{}
	for _, o := range d.Ops {
		ops[o.Index] = o
	}
	seen := map[int]bool{}
	for _, e := range back.TraceEvents {
		in, ok := e.Args["instruction"].(float64)
		if e.Phase != "X" || !ok {
			continue
		}
		o, ok := ops[int(in)]
		cycles := e.Dur * float64(c.tg.ClockHz) / 1e6
		if !ok || e.Name != o.Name || e.Args["cycles"].(float64) != float64(o.Cycles) || cycles < float64(o.Cycles)-0.5 || cycles > float64(o.Cycles)+0.5 {
			t.Errorf("trace event %q (instruction %d, %g cycles), the report's op %q with %d", e.Name, int(in), cycles, o.Name, o.Cycles)
		}
		seen[int(in)] = true
	}
	drawn := 0
	for _, o := range d.Ops {
		if o.BusiestTile >= 0 || o.Op == "exchange" {
			drawn++
		}
	}
	if len(seen) != drawn || drawn == 0 {
		t.Errorf("%d instructions in the trace, %d in the report that ran on a tile", len(seen), drawn)
	}
	t.Logf("%d trace events checked against the report's ops", len(seen))
}

// The reports of the attention block for ipu21 (with the small block's
// beside it for the comparison view) and of the same block imported from
// ONNX, in headless Chromium: each script runs without an error; the heat
// map has the 1,472 tiles, the exchange view the 13 phases and the 46×46
// column matrix, the trace every superstep and span; the matmuls are named
// by their source names, the tightest tile (not 0) with its headroom
// against 512 KiB is on the first screen as the memory report has it.
// Screenshots of every view are taken (IPUIR_REPORT_SCREENSHOTS=DIR keeps
// them). Skipped where Debian's chromium is not installed (.ci/run
// installs it).
func TestReportInChromium(t *testing.T) {
	browser, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed")
	}
	small := compile(t, "../../examples/attention-small.ipuir").data
	for _, c := range []struct {
		path string
		// names the page must show: the QKV matmul, then the others.
		names []string
		// the k relayout's row of the op table.
		kRow string
	}{
		{"../../examples/attention.ipuir", []string{"%q, %k, %v", "%scaled", "%context", "%out"},
			`<td>13</td><td>exchange</td><td><span class="name">%k_heads</span></td><td>4</td><td>6,942</td><td>3.4%</td><td>23 (543 of 1,472 as busy)</td>`},
		{"../../examples/attention.onnx", []string{"/q_proj/MatMul, /k_proj/MatMul, /v_proj/MatMul", "/out_proj/MatMul"}, ""},
	} {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			cp := compile(t, c.path)
			d := cp.data
			other := small
			if strings.HasSuffix(c.path, ".onnx") {
				other = nil
			}
			var page bytes.Buffer
			if err := htmlreport.Write(&page, d, other); err != nil {
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
			spans := 0
			for _, tr := range d.Tracks {
				spans += len(tr.Spans)
			}
			std := cp.memory.Classes[0]
			checks := []struct {
				what    string
				pattern string
				want    int
			}{
				{"tiles in the heat map", `<rect class="tile"`, 1472},
				{"phases in the exchange view", `<tr class="phase`, len(d.Phases)},
				{"cells of the column matrix", `<rect class="cellm"`, 46 * 46},
				{"spans in the trace", `<rect class="span `, spans},
				{"the tracks of the trace", `<g class="track"`, len(d.Tracks)},
				{"the headroom card of the standard class, as the memory report has it",
					fmt.Sprintf(`headroom, %s<b>%s B</b>tile %d: %s of 524,288`, std.Name, comma(std.BusiestHeadroom), std.BusiestTile, comma(std.BusiestBytes)), 1},
				{"the cycles against the compute bound", fmt.Sprintf(`of the roofline<b>%.1f%%</b>`, 100*float64(d.Bound)/float64(d.Total)), 1},
			}
			topOps := regexp.MustCompile(`(?s)<table id="topops">.*?</table>`).FindString(dom)
			for _, n := range c.names {
				if got := strings.Count(topOps, `<span class="name">`+n+`</span>`); got != 1 {
					t.Errorf("the matmul %s among the costliest ops: %d times", n, got)
				}
				checks = append(checks, struct {
					what    string
					pattern string
					want    int
				}{"the matmul " + n + "'s AMP instruction", `<td>amp</td><td><span class="name">` + n + `</span>`, 1})
			}
			if c.kRow != "" {
				checks = append(checks, struct {
					what    string
					pattern string
					want    int
				}{"the k relayout's row with its busiest tile", c.kRow, 1})
			}
			for _, ch := range checks {
				if got := strings.Count(dom, ch.pattern); got < ch.want || ch.want == 1 && got != 1 {
					t.Errorf("%s: %d of %q, want %d", ch.what, got, ch.pattern, ch.want)
				}
			}
			if std.BusiestTile == 0 {
				t.Error("the standard class's busiest tile is 0")
			}
			if len(d.Phases) != 13 || len(d.Supersteps) != 14 {
				t.Errorf("%d phases and %d supersteps", len(d.Phases), len(d.Supersteps))
			}
			keep := os.Getenv("IPUIR_REPORT_SCREENSHOTS")
			views := []string{"overview", "memory", "liveness", "variables", "exchange", "trace"}
			if other != nil {
				views = append(views, "compare")
			}
			for _, view := range views {
				shot := filepath.Join(dir, view+".png")
				if keep != "" {
					shot = filepath.Join(keep, "report-"+strings.ReplaceAll(filepath.Base(c.path), ".", "-")+"-"+view+".png")
				}
				run("--hide-scrollbars", "--window-size=1280,960", "--screenshot="+shot, "file://"+file+"#view="+view)
				if st, err := os.Stat(shot); err != nil || st.Size() < 10000 {
					t.Errorf("the %s view's screenshot: %v", view, err)
				}
			}
			if m := regexp.MustCompile(`data-render-ms="(\d+)"`).FindStringSubmatch(dom); m != nil {
				t.Logf("the 1,472-tile report rendered in %s ms; %d checks", m[1], len(checks))
			}
		})
	}
}

// comma writes n with thousands separators, as the page's en-US numbers.
func comma(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// A package that loads a weight from streaming memory reports the load:
// the run's count, bytes and cycles, which the summary shows.
func TestReportCountsStreamedLoads(t *testing.T) {
	c := compile(t, "../../tests/device/weights-streamed.ipuir")
	load, err := c.tg.StreamingCycles(128 * 256 * 2)
	if err != nil {
		t.Fatal(err)
	}
	want := device.StreamedLoads{Loads: 1, Bytes: 128 * 256 * 2, Waited: load}
	if c.data.Streamed != want || c.cycles.Streamed != want {
		t.Errorf("report %+v, run %+v, want %+v", c.data.Streamed, c.cycles.Streamed, want)
	}
}

// A program over two chips reports what crossed them, as the run counted it.
func TestReportCountsWhatCrossesChips(t *testing.T) {
	c := compile(t, "../../tests/tiled/span-chips.ipuir")
	if c.data.ChipLinks.Phases == 0 || c.data.ChipLinks.Bytes == 0 || c.data.ChipLinks != c.cycles.ChipLinks {
		t.Errorf("report %+v, run %+v", c.data.ChipLinks, c.cycles.ChipLinks)
	}
}
