package tests

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/target"
)

// The README's figures of the main job are what the main job prints: the
// attention block on ipu21, compiled and run with gaussian:seed=1 inputs
// and --check, gives the simulated cycles, the planner's estimate, the
// checkpoints and elements compared and the largest error over its bound
// that the README's figure table quotes (the long suite: a minute). A
// change that moves one fails here until the README says the new value.
func TestREADMEFigures(t *testing.T) {
	longSuite(t, "the main job's figures in the README")
	readme := readFile(t, "../README.md")
	row := func(prefix string) string {
		t.Helper()
		for _, line := range strings.Split(readme, "\n") {
			if strings.HasPrefix(line, prefix) {
				return line
			}
		}
		t.Fatalf("the README has no row starting %q", prefix)
		return ""
	}
	number := func(s string) int64 {
		n, err := strconv.ParseInt(strings.ReplaceAll(s, ",", ""), 10, 64)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		return n
	}
	cells := func(line string) []string { return strings.Split(line, " | ") }
	simulated := regexp.MustCompile(`^([0-9,]+) `).FindStringSubmatch(cells(row("| simulated cycles of the whole attention block on ipu21"))[1])
	estimated := regexp.MustCompile(`^([0-9,]+) against ([0-9,]+)`).FindStringSubmatch(cells(row("| the planner's estimate against the simulated count"))[1])
	checkRow := row("| `--check` on the attention block: elements compared")
	checkpoints := regexp.MustCompile(`of ([0-9]+) checkpoints`).FindStringSubmatch(checkRow)
	compared := regexp.MustCompile(`\| ([0-9,]+); largest error ([0-9.]+) of its bound`).FindStringSubmatch(checkRow)
	if simulated == nil || estimated == nil || checkpoints == nil || compared == nil {
		t.Fatalf("the README's rows do not read as this test expects:\n%s", strings.Join([]string{
			row("| simulated cycles of the whole attention block on ipu21"), row("| the planner's estimate against the simulated count"), checkRow}, "\n"))
	}

	tg, err := target.Lookup("ipu21")
	if err != nil {
		t.Fatal(err)
	}
	src := readFile(t, "../examples/attention.ipuir")
	pkg, refused, err := compileProgram(src, tg)
	if err != nil || refused != "" {
		t.Fatalf("does not compile: %v%s", err, refused)
	}
	report, cycles, err := runAndCheckFn(pkg, src, tg, 1, "attention")
	if err != nil || !report.Pass() {
		t.Fatalf("run: %v %v", err, report)
	}
	estimate := int64(-1)
	for _, e := range pkg.Metadata {
		if m := estimatedCycles.FindStringSubmatch(e.Value); e.Key == "estimate" && m != nil {
			estimate, _ = strconv.ParseInt(m[1], 10, 64)
		}
	}
	ratio, _ := strconv.ParseFloat(compared[2], 64)
	checks := []struct {
		what       string
		readme, is float64
	}{
		{"simulated cycles", float64(number(simulated[1])), float64(cycles)},
		{"simulated cycles beside the estimate", float64(number(estimated[2])), float64(cycles)},
		{"estimated cycles", float64(number(estimated[1])), float64(estimate)},
		{"checkpoints compared", float64(number(checkpoints[1])), float64(report.Checkpoints)},
		{"elements compared", float64(number(compared[1])), float64(report.Compared)},
		{"largest error over its bound (2 places)", ratio, float64(int(report.MaxRatio*100+0.5)) / 100},
	}
	for _, c := range checks {
		if c.readme != c.is {
			t.Errorf("the README says %s %v; the main job gives %v", c.what, c.readme, c.is)
		}
	}
	t.Logf("%d of the README's figures compared with the main job's run", len(checks))
}
