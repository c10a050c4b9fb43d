package transforms

import (
	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/passes"
)

// WidenBF16 is the `widen-bf16` pass: the machines have no bf16
// arithmetic, so the program's bf16 values are computed as f32 where that
// is exact (tensor.WidenBF16): bf16 inputs, their data movement and
// conversions from them, and conversions to bf16 that the function
// returns, which the host rounds when it reads them. Other bf16
// arithmetic is refused, naming the op. It runs in lower-tensor-to-tiled
// beside narrow-f64; a program without bf16 is unchanged.
type WidenBF16 struct {
	NumWidened passes.Statistic `statistic:"num-widened" help:"Number of bf16 values computed as f32"`
}

func (*WidenBF16) Name() string { return "widen-bf16" }
func (*WidenBF16) Summary() string {
	return "Compute bf16 values as f32 where that is exact (inputs, data movement, conversions); refuse bf16 arithmetic"
}
func (*WidenBF16) Anchor() string { return "" }

func (p *WidenBF16) Run(op *ir.Operation, _ *passes.PassContext) error {
	n, err := tensor.WidenBF16(op)
	p.NumWidened.Add(uint64(n))
	return err
}
