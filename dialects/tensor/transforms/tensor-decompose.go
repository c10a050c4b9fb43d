// Package transforms holds the passes of the tensor dialect alone (MLIR's
// lib/Dialect/Tensor/Transforms): tensor-decompose, matmul-precision, narrow-i64,
// narrow-f64 and matmul-reassociate. The rewrites
// themselves live in the dialect; a pass here only runs them.
package transforms

import (
	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/passes"
)

// TensorDecompose is the `tensor-decompose` pass: it rewrites the fused
// ops of the tensor dialect into primitive ones, so that later stages
// (tiling, exchange, tile code) implement only matmuls, elementwise ops,
// reductions and data movement. softmax becomes max-subtracted exp over a
// reduce_sum and a division; layer_norm becomes mean, biased variance,
// rsqrt, scale and bias; gelu becomes its erf form, or with `approximate`
// its tanh form. The rewrites themselves live in dialects/tensor
// (tensor.Decompose), next to the ops they know.
type TensorDecompose struct {
	NumDecomposed passes.Statistic `statistic:"num-decomposed" help:"Number of softmax, layer_norm and gelu ops rewritten"`
}

func (*TensorDecompose) Name() string { return "tensor-decompose" }
func (*TensorDecompose) Summary() string {
	return "Rewrite tensor.softmax, tensor.layer_norm and tensor.gelu into primitive tensor ops"
}
func (*TensorDecompose) Anchor() string { return "" }

func (p *TensorDecompose) Run(op *ir.Operation, _ *passes.PassContext) error {
	n, err := tensor.Decompose(op)
	p.NumDecomposed.Add(uint64(n))
	return err
}
