package registry

import (
	"strings"

	"github.com/ipuir/ipuir/passes"
)

// The names of ipuir's pipelines, for the tools and tests that run them.
const (
	LowerTensorToTiled = "lower-tensor-to-tiled"
	LowerToExchange    = "lower-to-exchange"
	LowerToTileAsm     = "lower-to-tile-asm"
	CutPipelineStages  = "cut-pipeline-stages"
)

// A Pipeline is a named pipeline: what --list-passes shows and the steps,
// passes or earlier pipelines, that a pipeline text naming it runs.
type Pipeline struct {
	Name, Summary string
	Steps         []string
}

// Pipelines are ipuir's named pipelines, in lowering order. The lowering
// passes know nothing of each other; the order in which they run is
// stated here, once, and the pipeline parser checks it against what each
// pass requires and provides (passes.Requirer, passes.Provider).
var Pipelines = []Pipeline{
	{LowerTensorToTiled, "Lower a tensor program to the tiled dialect: move string conversions at its edges to the host, narrow i64 to i32 and f64 to f32, widen ui8 and ui16 to i32 and bf16 to f32, prepare, sink transposes, reassociate matmul scalings, plan every matmul, lay out every tensor, convert every op, estimate",
		[]string{"host-strings", "narrow-i64", "narrow-f64", "widen-unsigned", "widen-bf16", "tiled-prepare", "sink-transposes", "matmul-reassociate", "plan-gemms", "tiled-assign-layouts", "convert-tensor-to-tiled", "tiled-estimate"}},
	{LowerToExchange, "Lower a tensor program to exchange phases: lower-tensor-to-tiled, then convert-tiled-to-exchange",
		[]string{LowerTensorToTiled, "convert-tiled-to-exchange"}},
	{LowerToTileAsm, "Lower a tensor program to per-tile programs with placed storage: lower-to-exchange, then convert-exchange-to-tile-asm",
		[]string{LowerToExchange, "convert-exchange-to-tile-asm"}},
	{CutPipelineStages, "Cut a tensor program into pipeline stages for a target of several chips (ipu-translate --emit-package then outlines each stage and lowers it with lower-to-tile-asm for its chip)",
		[]string{"pipeline-stages"}},
}

// PipelinePasses are the passes the named pipeline runs, its nested pipelines
// expanded, in order (nil for a name that is not a pipeline).
func PipelinePasses(name string) []string {
	for _, p := range Pipelines {
		if p.Name != name {
			continue
		}
		var out []string
		for _, step := range p.Steps {
			if inner := PipelinePasses(step); inner != nil {
				out = append(out, inner...)
			} else {
				out = append(out, step)
			}
		}
		return out
	}
	return nil
}

// Text is the pipeline's steps as a pipeline text.
func (p Pipeline) Text() string { return strings.Join(p.Steps, ",") }

// ModulePipeline is the pipeline text that runs the named pipeline on a
// module, as ipu-opt's --pass-pipeline takes it.
func ModulePipeline(name string) string { return "builtin.module(" + name + ")" }

func registerPipelines(r *passes.Registry) error {
	for _, p := range Pipelines {
		if err := r.RegisterPipeline(p.Name, p.Summary, p.Text()); err != nil {
			return err
		}
	}
	return nil
}
