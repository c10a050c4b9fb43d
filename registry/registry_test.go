package registry_test

import (
	"strings"
	"testing"

	"github.com/ipuir/ipuir/registry"
)

// Every pipeline parses, which checks its steps exist and that no pass
// in it comes before the pass that establishes what it requires; and
// every pass of the lowerings runs in some pipeline.
func TestPipelinesParseInOrder(t *testing.T) {
	r := registry.NewPassRegistry()
	inSome := map[string]bool{}
	for _, p := range registry.Pipelines {
		if _, err := r.ParsePipeline(registry.ModulePipeline(p.Name)); err != nil {
			t.Errorf("pipeline %s: %v", p.Name, err)
		}
		for _, s := range p.Steps {
			inSome[s] = true
		}
	}
	if len(registry.Pipelines) != len(r.Pipelines()) {
		t.Errorf("%d pipelines declared, %d registered", len(registry.Pipelines), len(r.Pipelines()))
	}
	checked := 0
	for _, info := range r.Passes() {
		if len(info.Requires()) == 0 && len(info.Provides()) == 0 {
			continue // not part of a lowering
		}
		checked++
		if !inSome[info.Name] {
			t.Errorf("pass %s declares prerequisites but no pipeline runs it", info.Name)
		}
	}
	if checked < 5 {
		t.Errorf("only %d passes declare prerequisites", checked)
	}
	t.Logf("%d pipelines parsed, %d lowering passes found in them", len(registry.Pipelines), checked)
}

// A pipeline whose steps are swapped is refused by the order check, so
// the check above can fail.
func TestMisorderedPipelineRefused(t *testing.T) {
	r := registry.NewPassRegistry()
	_, err := r.ParsePipeline("builtin.module(convert-tensor-to-tiled,tiled-assign-layouts)")
	if err == nil || !strings.Contains(err.Error(), "which 'tiled-assign-layouts' establishes only after it in the pipeline") {
		t.Errorf("misordered lowering: %v", err)
	}
}
