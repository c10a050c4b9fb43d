package tensortotiled

import (
	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/passes"
)

// TiledPrepare rewrites the tensor ops that have no tiled form of their
// own into ones that do, before anything is planned: softmax and
// layer_norm into reductions, broadcasts and elementwise ops (tiled.reduce
// and tiled.combine then make the cross-tile part explicit; gelu stays
// whole, as tiles compute it in one pass), and batch matmuls with more
// than one batch axis into reshapes around a batch matmul with one, which
// the planner partitions.
type TiledPrepare struct {
	NumDecomposed passes.Statistic `statistic:"num-decomposed" help:"Number of softmax and layer_norm ops decomposed"`
	NumCollapsed  passes.Statistic `statistic:"num-collapsed" help:"Number of batch matmuls whose batch axes were collapsed to one"`
}

func (*TiledPrepare) Name() string { return "tiled-prepare" }
func (*TiledPrepare) Summary() string {
	return "Decompose softmax and layer_norm, and collapse the batch axes of batch matmuls to one, for tiling"
}
func (*TiledPrepare) Anchor() string { return "" }

func (p *TiledPrepare) Run(root *ir.Operation, pc *passes.PassContext) error {
	n, err := tensor.DecomposeIf(root, func(op *ir.Operation) bool { return op.Is(tensor.SoftmaxOp, tensor.LayerNormOp) })
	if err != nil {
		return err
	}
	p.NumDecomposed.Add(uint64(n))
	var wide []*ir.Operation
	root.Walk(func(op *ir.Operation) ir.WalkResult {
		if op.Is(tensor.BatchMatmulOp) && rankOf(op.Result(0)) > 3 {
			wide = append(wide, op)
		}
		return ir.WalkAdvance
	})
	rw := ir.NewRewriter(pc.Context(), nil)
	for _, op := range wide {
		if d := ir.VerifyOne(op); d != nil {
			return d
		}
		rw.SetInsertionPoint(op)
		collapse := func(v *ir.Value) (*ir.Value, error) {
			t := v.Type().(*ir.RankedTensorType)
			r := len(t.Dims)
			batch := int64(1)
			for _, d := range t.Dims[:r-2] {
				batch *= d
			}
			return tensor.BuildTyped(&rw.Builder, tensor.ReshapeOpName, op.Loc(),
				pc.Context().Tensor([]int64{batch, t.Dims[r-2], t.Dims[r-1]}, t.Elem), []*ir.Value{v})
		}
		lhs, err := collapse(op.Operand(0))
		if err != nil {
			return err
		}
		rhs, err := collapse(op.Operand(1))
		if err != nil {
			return err
		}
		mm, err := tensor.Build(&rw.Builder, tensor.BatchMatmulOpName, op.Loc(), []*ir.Value{lhs, rhs})
		if err != nil {
			return err
		}
		if d := op.Attrs(); d != nil {
			for _, a := range d.Entries {
				mm.DefiningOp().SetAttr(pc.Context(), a.Name, a.Value)
			}
		}
		out, err := tensor.BuildTyped(&rw.Builder, tensor.ReshapeOpName, op.Loc(), op.Result(0).Type(), []*ir.Value{mm})
		if err != nil {
			return err
		}
		rw.ReplaceOp(op, []*ir.Value{out})
		p.NumCollapsed.Inc()
	}
	return nil
}

func rankOf(v *ir.Value) int {
	t, ok := v.Type().(*ir.RankedTensorType)
	if !ok {
		return 0
	}
	return len(t.Dims)
}
