package tensor

import "github.com/ipuir/ipuir/ir"

// The ops of the tensor dialect, by definition. Each is declared in the
// file of its group (matmul.go, elementwise.go, ...) and bound here by its
// spec's handle. Passes recognise ops with op.Is(tensor.MatmulOp), never by
// comparing names; the names (MatmulOpName, ...) are for building ops.
var (
	ConstantOp, SplatOp *ir.OpDef

	AddOp, SubOp, MulOp, DivOp, MaxOp   *ir.OpDef
	ExpOp, RsqrtOp, TanhOp, ErfOp       *ir.OpDef
	GeluOp, ConvertOp                   *ir.OpDef
	MatmulOp, BatchMatmulOp, ConvOp     *ir.OpDef
	ReduceSumOp, ReduceMaxOp            *ir.OpDef
	SoftmaxOp, LayerNormOp              *ir.OpDef
	TransposeOp, ReshapeOp, BroadcastOp *ir.OpDef
	SliceOp, ConcatOp                   *ir.OpDef
)
