package tensortotiled

import "github.com/ipuir/ipuir/passes"

// LowerTensorToTiledPipeline is the name of the registered pipeline.
const LowerTensorToTiledPipeline = "lower-tensor-to-tiled"

// Passes are the passes of the lowering, in the order the pipeline runs
// them.
func Passes() []passes.Pass {
	return []passes.Pass{&TiledPrepare{}, &PlanGemms{}, &TiledAssignLayouts{}, &ConvertTensorToTiled{}}
}

// Register registers the lowering's passes and the pipeline that runs
// them in order.
func Register(r *passes.Registry) error {
	for _, p := range Passes() {
		if err := r.Register(p); err != nil {
			return err
		}
	}
	return r.RegisterPipeline(LowerTensorToTiledPipeline,
		"Lower a tensor program to the tiled dialect: prepare, plan every matmul, lay out every tensor, convert every op, estimate",
		"tiled-prepare,plan-gemms,tiled-assign-layouts,convert-tensor-to-tiled,tiled-estimate")
}
