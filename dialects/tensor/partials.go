package tensor

import (
	"fmt"
	"strings"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/numeric"
)

// F16PartialsError is the bound on the relative error that f16 partials
// add to a matmul over k products, relative to Σ|a·b|: ⌈k/16⌉ roundings to
// f16, γ_B(u16) (the term boundOfContraction adds).
func F16PartialsError(k int64) float64 {
	return numeric.Gamma((k+PartialsBlock-1)/PartialsBlock, numeric.UnitRoundoff(elem.F16))
}

// ChoosePartials sets the partials type of every f16 matmul and batch
// matmul under root: "f32" or "f16" on all of them, or "auto": f16 where
// the error f16 partials may add (F16PartialsError of its k) is at most
// budget, relative to Σ|a·b|, and f32 elsewhere. A matmul that already
// declares a partials type keeps it. f32 matmuls keep f32 partials, the
// only ones the AMP has for them. It returns how many matmuls got f16
// partials.
func ChoosePartials(root *ir.Operation, choice string, budget float64) (int, error) {
	switch choice {
	case "f32", "f16", "auto":
	default:
		return 0, fmt.Errorf("partials type %q: want f32, f16 or auto", choice)
	}
	if choice == "auto" && !(budget >= 0) {
		return 0, fmt.Errorf("partials budget %g: want a relative error of 0 or more", budget)
	}
	ctx := root.Context()
	n := 0
	root.Walk(func(op *ir.Operation) ir.WalkResult {
		if !op.Is(MatmulOp, BatchMatmulOp) || op.Attr(PartialsTypeAttr) != nil || !isF16(elemOf(op.Operand(0).Type())) {
			return ir.WalkAdvance
		}
		lhs := op.Operand(0).Type().(*ir.RankedTensorType)
		k := lhs.Dims[len(lhs.Dims)-1]
		t := ir.Type(ctx.F32())
		if choice == "f16" || (choice == "auto" && F16PartialsError(k) <= budget) {
			t = ctx.F16()
			n++
		}
		op.SetAttr(ctx, PartialsTypeAttr, ctx.TypeAttr(t))
		return ir.WalkAdvance
	})
	return n, nil
}

// partialsRewritePrefix begins the source rewrite that ChoosePartials is
// recorded as (SourceRewritesAttr): "matmul-partials{type=auto budget=0.001}".
const partialsRewritePrefix = "matmul-partials{"

// MarkPartials records on op that ChoosePartials ran on it with choice and
// budget, so that a package says so and a check replays it on the source
// (which then has each matmul's partials type, and the bound that follows
// from it).
func MarkPartials(op *ir.Operation, choice string, budget float64) {
	MarkSourceRewrite(op, fmt.Sprintf("%stype=%s budget=%g}", partialsRewritePrefix, choice, budget))
}

// ReplayPartials runs the ChoosePartials a source rewrite names on root;
// false when name is not one.
func ReplayPartials(root *ir.Operation, name string) (bool, error) {
	body, ok := strings.CutPrefix(name, partialsRewritePrefix)
	if !ok {
		return false, nil
	}
	var choice string
	var budget float64
	if n, err := fmt.Sscanf(strings.TrimSuffix(body, "}"), "type=%s budget=%g", &choice, &budget); err != nil || n != 2 {
		return true, fmt.Errorf("source rewrite %q: want %stype=T budget=B}", name, partialsRewritePrefix)
	}
	_, err := ChoosePartials(root, choice, budget)
	return true, err
}
