package tensortotiled

import (
	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/dialects/tiled"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/passes"
)

// TiledPrepare rewrites the tensor ops that have no tiled form of their
// own into ones that do, before anything is planned: a splat of a
// constant scalar into a splat constant (tiles hold tensors, not
// scalars); softmax and
// layer_norm into reductions, broadcasts and elementwise ops (tiled.reduce
// and tiled.combine then make the cross-tile part explicit; gelu stays
// whole, as tiles compute it in one pass), and batch matmuls with more
// than one batch axis into reshapes around a batch matmul with one, which
// the planner partitions. Matmuls that read one operand with different
// weights (Q, K and V of attention, reading x) become one wider matmul of
// the concatenated weights, sliced after: it is planned jointly, each part
// on its own range of tiles, and the concat and slices take whole shards
// (layout.SliceLayout), so they move nothing.
type TiledPrepare struct {
	FuseSharedLHS bool `pass:"fuse-shared-lhs" help:"Plan matmuls that share their left operand and read function-argument weights as one wider matmul" default:"true"`

	NumDecomposed passes.Statistic `statistic:"num-decomposed" help:"Number of softmax, layer_norm and conv ops decomposed"`
	NumCollapsed  passes.Statistic `statistic:"num-collapsed" help:"Number of batch matmuls whose batch axes were collapsed to one"`
	NumFused      passes.Statistic `statistic:"num-fused" help:"Number of matmuls planned jointly with others as one wider matmul"`
}

func (*TiledPrepare) Name() string { return "tiled-prepare" }
func (*TiledPrepare) Summary() string {
	return "Decompose softmax, layer_norm and conv, and collapse the batch axes of batch matmuls to one, for tiling"
}
func (*TiledPrepare) Anchor() string { return "" }

func (p *TiledPrepare) Run(root *ir.Operation, pc *passes.PassContext) error {
	n, err := tensor.DecomposeIf(root, func(op *ir.Operation) bool { return op.Is(tensor.SoftmaxOp, tensor.LayerNormOp, tensor.ConvOp) })
	if err != nil {
		return err
	}
	p.NumDecomposed.Add(uint64(n))
	if err := splatConstants(root, pc.Context()); err != nil {
		return err
	}
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
	if p.FuseSharedLHS {
		return p.fuseSharedLHS(root, rw)
	}
	return nil
}

// fuseSharedLHS rewrites each group of rank-2 matmuls of one block that
// read the same left operand, each with its own weights (a function
// argument read only as matmul weights), into a concat of the weights, one
// matmul, and a slice per original result. A matmul with a plan
// constraint keeps its own plan.
func (p *TiledPrepare) fuseSharedLHS(root *ir.Operation, rw *ir.Rewriter) error {
	groups := map[*ir.Value][]*ir.Operation{}
	var order []*ir.Value
	root.Walk(func(op *ir.Operation) ir.WalkResult {
		if !op.Is(tensor.MatmulOp) || op.Attr(tiled.ConstraintAnnotation) != nil || rankOf(op.Result(0)) != 2 {
			return ir.WalkAdvance
		}
		w := op.Operand(1)
		if w.DefiningOp() != nil || !readAsWeights(w) || !w.HasOneUse() {
			return ir.WalkAdvance
		}
		x := op.Operand(0)
		if len(groups[x]) > 0 && (groups[x][0].Block() != op.Block() ||
			ir.ElementTypeOrSelf(groups[x][0].Result(0).Type()) != ir.ElementTypeOrSelf(op.Result(0).Type()) ||
			groups[x][0].Attr(tensor.PartialsTypeAttr) != op.Attr(tensor.PartialsTypeAttr)) {
			return ir.WalkAdvance
		}
		if groups[x] == nil {
			order = append(order, x)
		}
		groups[x] = append(groups[x], op)
		return ir.WalkAdvance
	})
	ctx := root.Context()
	for _, x := range order {
		ops := groups[x]
		if len(ops) < 2 {
			continue
		}
		first := ops[0]
		rw.SetInsertionPoint(first)
		weights := make([]*ir.Value, len(ops))
		var n int64
		for i, op := range ops {
			weights[i] = op.Operand(1)
			n += op.Result(0).Type().(*ir.RankedTensorType).Dims[1]
		}
		wt := weights[0].Type().(*ir.RankedTensorType)
		// The joint matmul is all of them: its location fuses theirs, so
		// that what it is compiled to is named after every part (the
		// first part's file location stays the first, for checkpoints).
		locs := make([]ir.Location, len(ops))
		for i, op := range ops {
			locs[i] = op.Loc()
		}
		loc := ctx.FusedLoc(locs, nil)
		w, err := tensor.BuildTyped(&rw.Builder, tensor.ConcatOpName, loc, ctx.Tensor([]int64{wt.Dims[0], n}, wt.Elem),
			weights, ir.NamedAttr{Name: tensor.AxisAttr, Value: ctx.IntegerAttr(ctx.I(64), 1)})
		if err != nil {
			return err
		}
		var partials []ir.NamedAttr // the parts' own, which they share
		if a := first.Attr(tensor.PartialsTypeAttr); a != nil {
			partials = append(partials, ir.NamedAttr{Name: tensor.PartialsTypeAttr, Value: a})
		}
		wide, err := tensor.Build(&rw.Builder, tensor.MatmulOpName, loc, []*ir.Value{x, w}, partials...)
		if err != nil {
			return err
		}
		var start int64
		for _, op := range ops {
			rt := op.Result(0).Type().(*ir.RankedTensorType)
			rw.SetInsertionPoint(op)
			part, err := tensor.BuildTyped(&rw.Builder, tensor.SliceOpName, op.Loc(), rt, []*ir.Value{wide},
				ir.NamedAttr{Name: tensor.OffsetsAttr, Value: ctx.DenseI64Array(0, start)},
				ir.NamedAttr{Name: tensor.SizesAttr, Value: ctx.DenseI64Array(rt.Dims...)},
				ir.NamedAttr{Name: tensor.StridesAttr, Value: ctx.DenseI64Array(1, 1)})
			if err != nil {
				return err
			}
			rw.ReplaceOp(op, []*ir.Value{part})
			start += rt.Dims[1]
			p.NumFused.Inc()
		}
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

// splatConstants replaces each tensor.splat of a constant scalar, and
// each tensor.broadcast of a constant of one value, by the splat constant
// it makes, and drops the scalars no op uses any more. A splat constant
// takes whatever layout its user wants, one value a tile; a broadcast
// needs its input in the projection of that layout, which some plans'
// layouts (tiles that are no one progression) do not have.
func splatConstants(root *ir.Operation, ctx *ir.Context) error {
	var splats []*ir.Operation
	root.Walk(func(op *ir.Operation) ir.WalkResult {
		if op.Is(tensor.SplatOp, tensor.BroadcastOp) && op.NumOperands() == 1 {
			if def := op.Operand(0).DefiningOp(); def != nil && def.Is(tensor.ConstantOp) {
				splats = append(splats, op)
			}
		}
		return ir.WalkAdvance
	})
	rw := ir.NewRewriter(ctx, nil)
	for _, op := range splats {
		scalar := op.Operand(0).DefiningOp()
		val, ok := tensor.SplatValue(scalar.Attr("value"))
		if !ok || !ir.IsFloat(ir.ElementTypeOrSelf(op.Result(0).Type())) {
			continue // not one value (a broadcast of a row), or the verifier says what is wrong
		}
		rw.SetInsertionPoint(op)
		c, err := tensor.SplatConstant(&rw.Builder, op.Loc(), op.Result(0).Type(), val)
		if err != nil {
			return op.EmitOpError("%v", err)
		}
		rw.ReplaceOp(op, []*ir.Value{c})
		if !scalar.Result(0).HasUses() {
			rw.EraseOp(scalar)
		}
	}
	return nil
}
