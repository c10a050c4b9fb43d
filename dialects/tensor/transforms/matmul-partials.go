package transforms

import (
	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/passes"
)

// MatmulPartials is the `matmul-partials` pass: it chooses the type each
// f16 matmul keeps its partial sums in (tensor.ChoosePartials). f16
// partials run the AMP at twice the rate of f32 partials, PopLibs'
// default, at the cost of one f16 rounding per block of 16 products; the
// choice is the op's partials_type attribute, which the planner prices,
// the device computes with, and the check's error bound follows, so a
// faster choice cannot pass a result it made wrong. type=auto takes f16
// where that rounding's worst case, relative to Σ|a·b|, is within budget
// (the default 1e-3 admits k ≤ 32: two blocks). Run it before compiling
// (ipu-translate --partials does).
type MatmulPartials struct {
	Type   string  `pass:"type" help:"The partials type of f16 matmuls: f32, f16 or auto (empty: unchanged)"`
	Budget float64 `pass:"budget" help:"With type=auto, the largest relative error f16 partials may add (to the sum of the products' magnitudes)" default:"0.001"`

	NumF16 passes.Statistic `statistic:"num-f16" help:"Number of matmuls given f16 partials"`
}

func (*MatmulPartials) Name() string { return "matmul-partials" }
func (*MatmulPartials) Summary() string {
	return "Choose the partials type of f16 matmuls: f32, f16, or f16 where its rounding is within a budget (auto)"
}
func (*MatmulPartials) Anchor() string { return "" }

func (p *MatmulPartials) Run(op *ir.Operation, _ *passes.PassContext) error {
	if p.Type == "" {
		return nil
	}
	n, err := tensor.ChoosePartials(op, p.Type, p.Budget)
	if err != nil {
		return err
	}
	p.NumF16.Add(uint64(n))
	tensor.MarkPartials(op, p.Type, p.Budget)
	return nil
}
