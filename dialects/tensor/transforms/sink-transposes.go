package transforms

import (
	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/passes"
)

// SinkTransposes is the `sink-transposes` pass: each transpose moves past
// the elementwise ops, slices, concats, reductions and broadcasts that
// read it until one with the inverse permutation cancels it
// (tensor.SinkTransposes). After tiled-prepare has computed each
// convolution channels-last, this leaves a channels-first model
// channels-last from its first convolution to its last, with no
// transpose, and so no relayout, between layers.
type SinkTransposes struct {
	NumMoved passes.Statistic `statistic:"num-moved" help:"Number of ops a transpose moved past or was folded into"`
}

func (*SinkTransposes) Name() string { return "sink-transposes" }
func (*SinkTransposes) Summary() string {
	return "Move transposes toward the results past ops that do not care about axis order, cancelling inverse pairs"
}
func (*SinkTransposes) Anchor() string { return "" }

func (p *SinkTransposes) Run(op *ir.Operation, _ *passes.PassContext) error {
	n, err := tensor.SinkTransposes(op)
	p.NumMoved.Add(uint64(n))
	return err
}
