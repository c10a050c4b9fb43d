package toolkit

import (
	"strings"
	"testing"

	"github.com/ipuir/ipuir/registry"
)

func TestParseTuning(t *testing.T) {
	good := Tuning{Format: TuningFormat, Version: TuningVersion, Target: "ipu21", SourceSHA256: strings.Repeat("ab", 32),
		PlanGemms: PlanGemmsOptions{Weights: "home", Constraints: "source_operation = 0, orientation = swapped"}, Cycles: 10}
	back, err := ParseTuning(good.Encode())
	if err != nil || *back != good {
		t.Fatalf("ParseTuning(Encode()) = %+v, %v", back, err)
	}
	for _, c := range []struct{ text, want string }{
		{`{"format": "other", "version": 1}`, `format "other"`},
		{`{"format": "ipuir-tuning", "version": 2}`, "version 2; this compiler reads version 1"},
		{`{"format": "ipuir-tuning", "version": 1, "target": "ipu21", "source_sha256": "x"}`, "is not a SHA-256"},
		{`{"format": "ipuir-tuning", "version": 1, "nosuch": 1}`, `unknown field "nosuch"`},
		{`{"format": "ipuir-tuning", "version": 1, "target": "ipu21", "source_sha256": "` + strings.Repeat("0", 64) + `", "plan_gemms": {"weights": "sideways"}}`, `plan_gemms.weights "sideways"`},
		{`{"format": "ipuir-tuning", "version": 1, "target": "ipu21", "source_sha256": "` + strings.Repeat("0", 64) + `", "plan_gemms": {"constraints": "a\" x"}}`, "holds a quote"},
		{`{"format": "ipuir-tuning", "version": 1} {}`, "data after the record"},
		{`[]`, "not a tuning record"},
	} {
		if _, err := ParseTuning([]byte(c.text)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseTuning(%s) = %v; want %q", c.text, err, c.want)
		}
	}
}

// The tuned pipeline is lower-to-tile-asm's with plan-gemms' options set,
// and parses as a pipeline.
func TestTunedPipeline(t *testing.T) {
	unfused := false
	text := TunedPipeline(CompileOptions{PlanGemms: PlanGemmsOptions{Weights: "home", Constraints: "source_operation = 0, orientation = swapped; source_operation = 2, inner_partitions = 1"},
		TiledPrepare: TiledPrepareOptions{FuseSharedLHS: &unfused}})
	if !strings.Contains(text, `,plan-gemms{weights=home constraints="source_operation = 0, orientation = swapped; source_operation = 2, inner_partitions = 1"},`) {
		t.Errorf("TunedPipeline = %s", text)
	}
	if !strings.Contains(text, ",tiled-prepare{fuse-shared-lhs=false},") {
		t.Errorf("TunedPipeline's tiled-prepare: %s", text)
	}
	if _, err := registry.NewPassRegistry().ParsePipeline(text); err != nil {
		t.Errorf("the tuned pipeline does not parse: %v", err)
	}
	if def := TunedPipeline(CompileOptions{}); !strings.Contains(def, ",plan-gemms,") || !strings.Contains(def, ",tiled-prepare,") {
		t.Errorf("no options: %s", def)
	}
}
