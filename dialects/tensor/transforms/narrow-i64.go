package transforms

import (
	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/passes"
)

// NarrowI64 is the `narrow-i64` pass: the machines have no 64-bit integer
// arithmetic, so the program's i64 values (an ONNX model's indices,
// labels, ArgMax's positions) are computed as i32 (tensor.NarrowI64):
// their types become i32, and i64 constants are checked to fit 32 bits.
// The package's host streams keep the source's i64: a runner converts
// each input to 32 bits, refusing a value that does not fit, and widens
// each output. It runs first in lower-tensor-to-tiled; a program without
// i64 is unchanged.
type NarrowI64 struct {
	NumNarrowed passes.Statistic `statistic:"num-narrowed" help:"Number of i64 values computed as i32"`
}

func (*NarrowI64) Name() string { return "narrow-i64" }
func (*NarrowI64) Summary() string {
	return "Compute i64 values as i32 (the machines have no 64-bit integer arithmetic); constants must fit 32 bits"
}
func (*NarrowI64) Anchor() string { return "" }

func (p *NarrowI64) Run(op *ir.Operation, _ *passes.PassContext) error {
	n, err := tensor.NarrowI64(op)
	p.NumNarrowed.Add(uint64(n))
	return err
}
