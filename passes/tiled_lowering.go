package passes

import (
	"slices"

	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/ir"
)

// The lowering from the tensor dialect to the tiled one is three passes:
//
//	plan-gemms                 choose a GEMM plan for every matmul
//	tiled-assign-layouts       give every tensor value a #tiled.layout
//	convert-tensor-to-tiled    turn planned matmuls into tiled.matmul
//
// run in that order by the `lower-tensor-to-tiled` pipeline. This file holds
// what they share: the registration, and the data-flow rules that say which
// tensor ops carry their operand's layout to their result.

// LowerTensorToTiledPipeline is the name of the registered pipeline.
const LowerTensorToTiledPipeline = "lower-tensor-to-tiled"

// RegisterTiledPasses registers the passes of the tiled lowering and the
// pipeline that runs them in order.
func RegisterTiledPasses(r *Registry) error {
	for _, p := range []Pass{&PlanGemms{}, &TiledAssignLayouts{}, &ConvertTensorToTiled{}} {
		if err := r.Register(p); err != nil {
			return err
		}
	}
	return r.RegisterPipeline(LowerTensorToTiledPipeline,
		"Plan every matmul, lay out every tensor and lower planned matmuls to tiled.matmul",
		"plan-gemms,tiled-assign-layouts,convert-tensor-to-tiled")
}

// movesData lists the tensor ops whose result puts elements at other
// positions than their first operand, so that even a result of the same
// shape (a square transpose) cannot keep the operand's layout.
var movesData = map[string]bool{
	tensor.TransposeOp: true, tensor.ReshapeOp: true, tensor.BroadcastOp: true,
	tensor.SliceOp: true, tensor.ConcatOp: true,
	tensor.MatmulOp: true, tensor.BatchMatmulOp: true,
}

// preservesLayout reports whether op's result holds, at each position, a
// function of its operands' elements at that same position, with the shape
// of its first operand: elementwise ops, softmax, layer_norm, gelu,
// convert. Such a result is computed where its first operand lies, in its
// layout.
func preservesLayout(op *ir.Operation) bool {
	if ir.DialectNamespace(op.Name()) != tensor.Name || movesData[op.Name()] || op.NumResults() != 1 || op.NumOperands() == 0 {
		return false
	}
	in, ok1 := op.Operand(0).Type().(*ir.RankedTensorType)
	out, ok2 := op.Result(0).Type().(*ir.RankedTensorType)
	return ok1 && ok2 && slices.Equal(in.Dims, out.Dims)
}

// layoutRoot follows v back through layout-preserving ops to the value
// whose layout it has.
func layoutRoot(v *ir.Value) *ir.Value {
	for {
		def := v.DefiningOp()
		if def == nil || !preservesLayout(def) {
			return v
		}
		v = def.Operand(0)
	}
}

// isMatmul reports whether op is a tensor matmul the planner handles.
func isMatmul(op *ir.Operation) bool {
	return op.Name() == tensor.MatmulOp || op.Name() == tensor.BatchMatmulOp
}

// isResident reports whether v (a layout root) is placed on tiles when the
// program is loaded rather than computed or streamed: a constant, or a
// function argument used only as the right operand of matmuls — a weight.
// Host inputs used any other way (x) arrive in a default layout instead.
func isResident(v *ir.Value) bool {
	if def := v.DefiningOp(); def != nil {
		return def.Name() == tensor.ConstantOp
	}
	if blk := v.OwnerBlock(); blk == nil || blk.ParentOp() == nil || blk.ParentOp().Name() != "func.func" {
		return false
	}
	resident := v.HasUses()
	v.Uses(func(u *ir.OpOperand) {
		if !isMatmul(u.Owner()) || u.Index() != 1 {
			resident = false
		}
	})
	return resident
}

// functions returns the func.func ops directly in a module, or op itself
// when it is one.
func functions(op *ir.Operation) []*ir.Operation {
	if op.Name() == "func.func" {
		return []*ir.Operation{op}
	}
	var out []*ir.Operation
	for _, r := range op.Regions() {
		for _, b := range r.Blocks() {
			for _, o := range b.Ops() {
				if o.Name() == "func.func" {
					out = append(out, o)
				}
			}
		}
	}
	return out
}
