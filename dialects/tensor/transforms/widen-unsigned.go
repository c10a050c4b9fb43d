package transforms

import (
	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/passes"
)

// WidenUnsigned is the `widen-unsigned` pass: the machines have no
// unsigned arithmetic, so the program's ui8 and ui16 values are computed
// as i32 (tensor.WidenUnsigned), each op that can leave the unsigned
// type's range followed by its wrap (v mod 2^bits, as the reference
// computes it). The host streams keep the unsigned types; a runner
// converts at the boundary. It runs in lower-tensor-to-tiled beside
// narrow-i64; a program without ui8 or ui16 is unchanged. (ui32 and ui64
// have no such representation: their values need more than i32.)
type WidenUnsigned struct {
	NumWidened passes.Statistic `statistic:"num-widened" help:"Number of ui8 and ui16 values computed as i32"`
}

func (*WidenUnsigned) Name() string { return "widen-unsigned" }
func (*WidenUnsigned) Summary() string {
	return "Compute ui8 and ui16 values as i32 (the machines have no unsigned arithmetic), wrapping where the unsigned type wraps"
}
func (*WidenUnsigned) Anchor() string { return "" }

func (p *WidenUnsigned) Run(op *ir.Operation, _ *passes.PassContext) error {
	n, err := tensor.WidenUnsigned(op)
	p.NumWidened.Add(uint64(n))
	return err
}
