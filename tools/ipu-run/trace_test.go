package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/target"
)

// --trace writes what --report-cycles prints, in the Chrome trace event
// format: the test reads the JSON back and finds every instruction of the
// cycle table as one event, with the table's source name, its cycles, and
// a duration that is those cycles at the target's clock; the supersteps'
// events add up to total_cycles. It counts what it compared.
func TestTraceMatchesTheCycleReport(t *testing.T) {
	dir := t.TempDir()
	pkg := filepath.Join(dir, "tiny.ipupkg")
	writePackage(t, "../../examples/attention-tiny.ipuir", pkg)
	tracePath := filepath.Join(dir, "run.json")
	code, stdout, stderr := runTool(t, pkg, "--lock-dir", dir, "--generate", "gaussian:seed=1", "--report-cycles", "--trace", tracePath)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	data, err := os.ReadFile(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		TraceEvents []struct {
			Name  string         `json:"name"`
			Phase string         `json:"ph"`
			TS    float64        `json:"ts"`
			Dur   float64        `json:"dur"`
			TID   int            `json:"tid"`
			Args  map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatalf("the trace is not JSON: %v", err)
	}
	tg, _ := target.Lookup("test16")
	us := func(cycles int64) float64 { return float64(cycles) * 1e6 / float64(tg.ClockHz) }
	type event struct {
		name   string
		cycles int64
		dur    float64
	}
	byInstruction := map[int64]event{}
	var supersteps int64
	for _, e := range file.TraceEvents {
		if e.Phase != "X" {
			continue
		}
		cycles := int64(e.Args["cycles"].(float64))
		if strings.HasPrefix(e.Name, "superstep ") {
			supersteps += cycles
			continue
		}
		if in, ok := e.Args["instruction"]; ok {
			byInstruction[int64(in.(float64))] = event{e.Name, cycles, e.Dur}
		}
	}
	row := regexp.MustCompile(`^ *(\d+) +(\w+) +(\d+) +(\d+) +\S+ +\S+ of \S+ +(.+)$`)
	compared := 0
	for _, line := range strings.Split(stdout, "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		in, _ := strconv.ParseInt(m[1], 10, 64)
		cycles, _ := strconv.ParseInt(m[4], 10, 64)
		e, ok := byInstruction[in]
		switch {
		case !ok:
			t.Errorf("instruction %d (%s) has no event", in, m[5])
		case e.name != m[5] || e.cycles != cycles || math.Abs(e.dur-us(cycles)) > 1e-9*us(cycles)+1e-12:
			t.Errorf("instruction %d: event %q, %d cycles, %g µs; the report says %q, %d cycles (%g µs)", in, e.name, e.cycles, e.dur, m[5], cycles, us(cycles))
		}
		compared++
	}
	total := regexp.MustCompile(`total_cycles=(\d+)`).FindStringSubmatch(stdout)
	if total == nil {
		t.Fatalf("no total_cycles in\n%s", stdout)
	}
	if want, _ := strconv.ParseInt(total[1], 10, 64); supersteps != want {
		t.Errorf("the supersteps' events add up to %d cycles, the report's total is %d", supersteps, want)
	}
	if compared < 20 || compared != len(byInstruction) {
		t.Errorf("compared %d instructions of the report with %d events", compared, len(byInstruction))
	}
	t.Logf("compared %d instructions and the total of %s cycles", compared, total[1])
}
