package transforms

import (
	"fmt"

	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/passes"
)

// MatmulPrecision is the `matmul-precision` pass: with `to=f16` it makes
// every f32 matmul, batch matmul and convolution multiply in f16 (tensor.
// LowerMatmulPrecision): its operands converted to f16, the product in
// f16, the result converted back to f32, so that an f32 model (an ONNX
// export as exported) runs on the AMP at its f16 rate while its storage and
// every other op stay f32. The rounding is part of the program, so the
// reference interpreter and `ipu-run --check` judge the device against the
// converted program, whose derived error bounds include it. Without `to`
// the pass changes nothing: f32 matmuls stay f32, as exported.
type MatmulPrecision struct {
	To string `pass:"to" help:"The element type f32 matmuls multiply in: f16 (empty: unchanged)"`

	NumRewritten passes.Statistic `statistic:"num-rewritten" help:"Number of f32 matmuls rewritten to multiply in f16"`
}

func (*MatmulPrecision) Name() string { return "matmul-precision" }
func (*MatmulPrecision) Summary() string {
	return "Multiply f32 matmuls in f16 (to=f16): operands and result converted around an f16 matmul"
}
func (*MatmulPrecision) Anchor() string { return "" }

func (p *MatmulPrecision) Run(op *ir.Operation, _ *passes.PassContext) error {
	switch p.To {
	case "":
		return nil
	case "f16":
	default:
		return fmt.Errorf("matmul-precision: to=%s: the AMP multiplies f16 or f32; only to=f16 lowers the precision", p.To)
	}
	n, err := tensor.LowerMatmulPrecision(op)
	p.NumRewritten.Add(uint64(n))
	return err
}
