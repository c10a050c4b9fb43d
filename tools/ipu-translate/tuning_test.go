package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/runtime/ipupkg"
	"github.com/ipuir/ipuir/tools/toolkit"
)

// --tuning compiles with the record's options: a record that puts the
// weights home changes the package (its pipeline metadata says so), and a
// record for another program or target, or one that is not a record, is
// refused.
func TestEmitPackageWithTuning(t *testing.T) {
	src, dir, model := tinyModel(t)
	write := func(name string, r toolkit.Tuning) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, r.Encode(), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	home := toolkit.Tuning{Format: toolkit.TuningFormat, Version: toolkit.TuningVersion, Target: "test16",
		SourceSHA256: toolkit.SourceSHA256(src), PlanGemms: toolkit.PlanGemmsOptions{Weights: "home",
			Constraints: "source_operation = 1, orientation = swapped"}}
	tuned := filepath.Join(dir, "tuned.ipupkg")
	code, _, errs := runTool(t, "", "--emit-package", model, "--tuning", write("home.json", home), "-o", tuned)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	plain := filepath.Join(dir, "plain.ipupkg")
	if code, _, errs := runTool(t, "", "--emit-package", model, "-o", plain); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	a, _ := os.ReadFile(tuned)
	b, _ := os.ReadFile(plain)
	if bytes.Equal(a, b) {
		t.Fatal("the tuned package is the default's")
	}
	pkg, _, err := ipupkg.Decode(a)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range pkg.Metadata {
		found = found || (e.Key == "pipeline" && strings.Contains(e.Value, `plan-gemms{weights=home constraints="source_operation = 1, orientation = swapped"}`))
	}
	if !found {
		t.Errorf("the package's pipeline does not carry the record's options: %v", pkg.Metadata)
	}

	other := home
	other.SourceSHA256 = strings.Repeat("0", 64)
	elsewhere := home
	elsewhere.Target = "ipu21"
	for _, c := range []struct {
		name, file, want string
	}{
		{"another program", write("other.json", other), "the tuning record is for another program"},
		{"another target", write("elsewhere.json", elsewhere), "the tuning record is for target ipu21, the program is compiled for test16"},
		{"not a record", model, "not a tuning record"},
	} {
		code, _, errs := runTool(t, "", "--emit-package", model, "--tuning", c.file, "-o", filepath.Join(dir, "x.ipupkg"))
		if code != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d: %s", c.name, code, errs)
		}
	}
	if code, _, errs := runTool(t, "", "--dump-package", plain, "--tuning", "x.json"); code != 2 || !strings.Contains(errs, "--tuning applies to --emit-package") {
		t.Errorf("--tuning without --emit-package: exit %d: %s", code, errs)
	}
}

// A record whose constraints the compiler refuses (a field that does not
// exist, a plan that cannot be) is named in the refusal, and the report
// stays short: no module printed with it.
func TestBadTuningConstraintsNameTheRecord(t *testing.T) {
	src, dir, model := tinyModel(t)
	for _, constraints := range []string{"source_operation = 1, orientation = sideways", "source_operation = 1, row_partitions = 4096"} {
		r := toolkit.Tuning{Format: toolkit.TuningFormat, Version: toolkit.TuningVersion, Target: "test16",
			SourceSHA256: toolkit.SourceSHA256(src), PlanGemms: toolkit.PlanGemmsOptions{Weights: "auto", Constraints: constraints}}
		rec := filepath.Join(dir, "bad.json")
		if err := os.WriteFile(rec, r.Encode(), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errs := runTool(t, "", "--emit-package", model, "--tuning", rec, "-o", filepath.Join(dir, "x.ipupkg"))
		if code != 1 || !strings.Contains(errs, "the tuning record "+rec) || !strings.Contains(errs, constraints) {
			t.Errorf("%q: exit %d:\n%s", constraints, code, errs)
		}
		if len(errs) > 4096 {
			t.Errorf("%q: %d bytes of stderr", constraints, len(errs))
		}
	}
}

// tinyModel copies the tiny attention block into a fresh folder: its
// text, the folder, and the copy's path.
func tinyModel(t *testing.T) (src []byte, dir, model string) {
	t.Helper()
	src, err := os.ReadFile("../../examples/attention-tiny.ipuir")
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	model = filepath.Join(dir, "model.ipuir")
	if err := os.WriteFile(model, src, 0o644); err != nil {
		t.Fatal(err)
	}
	return src, dir, model
}
