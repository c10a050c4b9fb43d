package tune

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeSpec(t *testing.T, dir, text string) string {
	t.Helper()
	path := filepath.Join(dir, "spec.json")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A sweep of one model on a target and on the same target with another
// AMP constant tunes both cells, writes a CSV and a Markdown row for each
// and a comparison report, and run again measures nothing.
func TestSweepGrid(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	model, err := filepath.Abs("../examples/attention-tiny.ipuir")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := ReadSweepSpec(writeSpec(t, dir, `{"models": ["`+model+`"], "targets": ["test16", "test16{amp-f32-partials-conv-units=16}"], "finalists": 4}`))
	if err != nil {
		t.Fatal(err)
	}
	st := openStore(t, filepath.Join(dir, "r.db"))
	rows, err := Sweep(ctx, spec, &Local{Store: st}, st, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Status != "tuned" || rows[1].Status != "tuned" || rows[1].DefaultCycles >= rows[0].DefaultCycles ||
		rows[0].TunedCycles > rows[0].DefaultCycles || rows[0].Measured == 0 {
		for _, r := range rows {
			t.Logf("%+v", *r)
		}
		t.Fatal("the sweep's rows")
	}
	var b bytes.Buffer
	if err := WriteCSV(&b, rows); err != nil {
		t.Fatal(err)
	}
	records, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(records) != 3 || records[0][0] != "model" || records[2][1] != "test16{amp-f32-partials-conv-units=16}" {
		t.Errorf("CSV: %v %v", records, err)
	}
	b.Reset()
	if err := WriteMarkdown(&b, rows); err != nil || strings.Count(b.String(), "\n") != 4 || !strings.Contains(b.String(), "| attention-tiny.ipuir | test16 | tuned |") {
		t.Errorf("Markdown:\n%s", b.String())
	}
	b.Reset()
	if ok, err := rows[0].WriteReport(&b); !ok || err != nil || !strings.Contains(b.String(), `<section id="compare">`) || !strings.Contains(b.String(), "tuned (weights=") {
		t.Errorf("report: %v %v", ok, err)
	}
	if stem := rows[1].FileStem(); stem != "attention-tiny-test16_amp-f32-partials-conv-units_16_" {
		t.Errorf("FileStem = %q", stem)
	}
	again, err := Sweep(ctx, spec, &Local{Store: st}, st, "test", nil)
	if err != nil || again[0].Measured != 0 || again[1].Measured != 0 || again[0].Best != rows[0].Best {
		t.Errorf("the sweep again: %v", err)
	}
}

func TestSweepSpecRefusals(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ text, want string }{
		{`{"models": ["a.ipuir"], "targets": ["test16"], "extra": 1}`, `unknown field "extra"`},
		{`{"models": [], "targets": ["test16"]}`, "needs models and targets"},
		{`{"models": ["a.ipuir"], "targets": ["nosuch"]}`, `unknown target "nosuch"`},
		{`{"models": ["a.ipuir"], "targets": ["test16"], "finalists": 100}`, "finalists 100"},
		{`not json`, "not a sweep spec"},
	} {
		if _, err := ReadSweepSpec(writeSpec(t, dir, c.text)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.text, err, c.want)
		}
	}
	s, err := ReadSweepSpec(writeSpec(t, dir, `{"models": ["a.ipuir"], "targets": ["test16"]}`))
	if err != nil || s.Models[0] != filepath.Join(dir, "a.ipuir") || s.Seed != 1 || s.Finalists != 8 {
		t.Errorf("defaults and relative paths: %+v %v", s, err)
	}
}
