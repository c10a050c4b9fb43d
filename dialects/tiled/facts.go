package tiled

import (
	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/ir"
)

// The facts of the tiled level that passes need and establish (see
// ir.Fact): each the one statement of what a level boundary means.
var (
	// GemmsPlanned: plan-gemms has chosen every matmul's plan.
	GemmsPlanned = &ir.Fact{Name: "tiled.gemms-planned", Doc: "every tensor matmul carries its GEMM plan (" + PlanAnnotation + ")",
		Lacking: func(root *ir.Operation, _ *ir.Env) *ir.Operation {
			return root.Find(func(op *ir.Operation) bool {
				return op.Is(tensor.MatmulOp, tensor.BatchMatmulOp) && op.Attr(PlanAnnotation) == nil
			})
		}}
	// LaidOut: tiled-assign-layouts has given every tensor a layout
	// (constants and splats take theirs when they are converted).
	LaidOut = &ir.Fact{Name: "tiled.laid-out", Doc: "every tensor of the tensor-level ops has a #tiled.layout",
		Lacking: func(root *ir.Operation, _ *ir.Env) *ir.Operation {
			return root.Find(func(op *ir.Operation) bool {
				if op.Def() == nil || op.Def().Dialect() != tensor.Dialect || op.Is(tensor.ConstantOp, tensor.SplatOp) {
					return false
				}
				for _, v := range append(op.Operands(), op.Results()...) {
					if _, ranked := v.Type().(*ir.RankedTensorType); ranked {
						if _, ok := LayoutOf(v.Type()); !ok {
							return true
						}
					}
				}
				return false
			})
		}}
	// Level: convert-tensor-to-tiled has lowered every tensor op.
	Level = &ir.Fact{Name: "tiled.level", Doc: "no op of the tensor dialect remains (the program is at the tiled level)",
		Lacking: func(root *ir.Operation, _ *ir.Env) *ir.Operation {
			return root.Find(func(op *ir.Operation) bool { return op.Def() != nil && op.Def().Dialect() == tensor.Dialect })
		}}
)
