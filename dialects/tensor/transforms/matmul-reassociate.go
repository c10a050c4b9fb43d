package transforms

import (
	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/passes"
)

// MatmulReassociate is the `matmul-reassociate` pass: it moves a matmul's
// scaling to the side of it with fewer elements (tensor.Reassociate): a
// constant factor of the product onto its smaller operand, (a·b)·c =
// (a·c)·b, and a row normalisation of its left operand onto the product,
// (e / s)·v = (e·v) / s. In attention these are the score scale, which
// then multiplies q instead of the scores, and softmax's division, which
// then divides the context instead of the probabilities: a tenth of the
// elements each. The results agree within a rounding of the source's;
// --check replays the rewrite on the source (the package names it). It runs in
// lower-tensor-to-tiled after tiled-prepare, which decomposes softmax.
type MatmulReassociate struct {
	NumReassociated passes.Statistic `statistic:"num-reassociated" help:"Number of scalings moved across a matmul"`
}

func (*MatmulReassociate) Name() string { return "matmul-reassociate" }
func (*MatmulReassociate) Summary() string {
	return "Move a matmul's scaling to its smaller side: (a·b)·c to (a·c)·b, (e / s)·v to (e·v) / s"
}
func (*MatmulReassociate) Anchor() string { return "" }

func (p *MatmulReassociate) Run(op *ir.Operation, _ *passes.PassContext) error {
	n, err := tensor.Reassociate(op)
	p.NumReassociated.Add(uint64(n))
	if n > 0 {
		// The scores and probabilities are no longer computed: the
		// package says so, for --check to replay the rewrite.
		tensor.MarkSourceRewrite(op, p.Name())
	}
	return err
}
