package toolkit

import (
	"strings"
	"testing"

	"github.com/ipuir/ipuir/registry"
)

// The support memory a failed placement measured reaches plan-gemms in
// every pipeline the driver compiles with: the default, a tuned one with
// plan-gemms' own options, one without them.
func TestWithSupportBytes(t *testing.T) {
	home := TunedPipeline(CompileOptions{PlanGemms: PlanGemmsOptions{Weights: "home"}})
	for _, c := range []struct {
		pipeline, want string
		ok             bool
	}{
		{registry.ModulePipeline(registry.LowerToTileAsm), "plan-gemms{support-bytes=5032},", true},
		{TunedPipeline(CompileOptions{}), "plan-gemms{support-bytes=5032},", true},
		{home, "plan-gemms{support-bytes=5032 weights=home},", true},
		{"builtin.module(canonicalize)", "builtin.module(canonicalize)", false},
	} {
		got, ok := withSupportBytes(c.pipeline, 5032)
		if ok != c.ok || !strings.Contains(got, c.want) || strings.Count(got, "support-bytes") > 1 {
			t.Errorf("%s: got %s (%v), want %s (%v)", c.pipeline, got, ok, c.want, c.ok)
		}
		if ok {
			if _, err := registry.NewPassRegistry().ParsePipeline(got); err != nil {
				t.Errorf("%s does not parse: %v", got, err)
			}
		}
	}
}
