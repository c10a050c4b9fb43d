package tensor

import (
	"fmt"
	"math"

	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/ir"
)

// DecomposeOps are the names of the fused ops that Decompose rewrites into
// primitive ops (the roots of DecomposePatterns).
var DecomposeOps = []string{SoftmaxOpName, LayerNormOpName, GeluOpName, ConvOpName}

// decomposable reports whether op is one of the fused ops.
func decomposable(op *ir.Operation) bool { return op.Is(SoftmaxOp, LayerNormOp, GeluOp, ConvOp) }

// DecomposePatterns returns one rewrite pattern per fused op, for drivers
// that apply patterns (the tensor-decompose pass). Each pattern leaves an
// op that does not verify untouched.
func DecomposePatterns() []ir.RewritePattern {
	var out []ir.RewritePattern
	for _, name := range DecomposeOps {
		out = append(out, &ir.Pattern{
			PatternName: "tensor.decompose-" + name[len(Name)+1:],
			RootOp:      name,
			Rewrite: func(op *ir.Operation, rw *ir.Rewriter) bool {
				_, err := decomposeOne(op, rw)
				return err == nil
			},
		})
	}
	return out
}

// Decompose rewrites every softmax, layer_norm and gelu nested in root into
// primitive tensor ops and reports how many it rewrote. An op that does not
// verify is an error, with the verifier's diagnostic.
func Decompose(root *ir.Operation) (int, error) { return DecomposeIf(root, nil) }

// DecomposeIf is Decompose restricted to the ops keep accepts (all
// decomposable ops when keep is nil): the tiled lowering decomposes
// softmax and layer_norm but keeps gelu, which tiles compute in one pass.
func DecomposeIf(root *ir.Operation, keep func(*ir.Operation) bool) (int, error) {
	var todo []*ir.Operation
	root.Walk(func(op *ir.Operation) ir.WalkResult {
		if decomposable(op) && (keep == nil || keep(op)) {
			todo = append(todo, op)
		}
		return ir.WalkAdvance
	})
	rw := ir.NewRewriter(root.Context(), nil)
	for _, op := range todo {
		if _, err := decomposeOne(op, rw); err != nil {
			return 0, err
		}
	}
	return len(todo), nil
}

// decomposeOne replaces op by its decomposition and returns the value
// that stands for its result.
func decomposeOne(op *ir.Operation, rw *ir.Rewriter) (*ir.Value, error) {
	if d := ir.VerifyOne(op); d != nil {
		return nil, d
	}
	rw.SetInsertionPoint(op)
	d := decomposer{rw: rw, loc: op.Loc()}
	var out *ir.Value
	switch op.Def() {
	case SoftmaxOp:
		axis, _ := opAttrs(op).int(AxisAttr)
		out = d.softmax(op.Operand(0), axis)
	case LayerNormOp:
		eps, _ := opAttrs(op).float(EpsilonAttr)
		out = d.layerNorm(op.Operand(0), op.Operand(1), op.Operand(2), eps)
	case GeluOp:
		out = d.gelu(op.Operand(0), op.Attr(ApproximateAttr) != nil)
	case ConvOp:
		p, err := convParams(opAttrs(op))
		if err != nil {
			return nil, err
		}
		out = d.conv(op.Operand(0), op.Operand(1), p)
	default:
		return nil, fmt.Errorf("'%s' has no decomposition", op.Name())
	}
	conv, weight := op.Is(ConvOp), op.Operand(op.NumOperands()-1).DefiningOp()
	rw.ReplaceOp(op, []*ir.Value{out})
	if conv && weight != nil && weight.Is(ConstantOp) && !weight.Result(0).HasUses() {
		// The conv read the constant rearranged (convWeight): the original
		// is dead, and would otherwise be placed on tiles all the same.
		rw.EraseOp(weight)
	}
	return out, nil
}

// decomposer builds primitive ops at the rewriter's insertion point, all at
// the location of the op being replaced.
type decomposer struct {
	rw  *ir.Rewriter
	loc ir.Location
}

func (d decomposer) must(v *ir.Value, err error) *ir.Value {
	if err != nil {
		panic("BUG: tensor-decompose built an invalid op: " + err.Error())
	}
	return v
}

func (d decomposer) op(name string, operands []*ir.Value, attrs ...ir.NamedAttr) *ir.Value {
	return d.must(Build(&d.rw.Builder, name, d.loc, operands, attrs...))
}

func (d decomposer) binary(name string, x, y *ir.Value) *ir.Value {
	return d.op(name, []*ir.Value{x, y})
}

func (d decomposer) unary(name string, x *ir.Value) *ir.Value { return d.op(name, []*ir.Value{x}) }

func (d decomposer) splat(like *ir.Value, v float64) *ir.Value {
	return d.must(SplatConstant(&d.rw.Builder, d.loc, like.Type(), v))
}

func (d decomposer) reduce(name string, x *ir.Value, axis int) *ir.Value {
	return d.op(name, []*ir.Value{x}, ir.NamedAttr{Name: AxesAttr, Value: I64Array(d.rw.Ctx, axis)})
}

// broadcastBack broadcasts a reduced value back to the type of full, the
// reduced axis being axis.
func (d decomposer) broadcastBack(reduced *ir.Value, full *ir.Value, axis int) *ir.Value {
	rank := len(shapeOf(full.Type()))
	var dims []int
	for i := 0; i < rank; i++ {
		if i != axis {
			dims = append(dims, i)
		}
	}
	return d.broadcast(reduced, full.Type(), dims)
}

func (d decomposer) broadcast(x *ir.Value, to ir.Type, dims []int) *ir.Value {
	return d.must(BuildTyped(&d.rw.Builder, BroadcastOpName, d.loc, to, []*ir.Value{x},
		ir.NamedAttr{Name: DimensionsAttr, Value: I64Array(d.rw.Ctx, dims...)}))
}

// softmax: e = exp(x - broadcast(reduce_max(x))), e / broadcast(reduce_sum(e)).
func (d decomposer) softmax(x *ir.Value, axis int) *ir.Value {
	m := d.broadcastBack(d.reduce(ReduceMaxOpName, x, axis), x, axis)
	e := d.unary(ExpOpName, d.binary(SubOpName, x, m))
	s := d.broadcastBack(d.reduce(ReduceSumOpName, e, axis), x, axis)
	return d.binary(DivOpName, e, s)
}

// layerNorm over the last axis: mean and biased variance by reduce_sum and
// division by the axis length (exact in every float type up to 2048, unlike
// its reciprocal), then (x - mean)·rsqrt(var + eps)·scale + bias.
func (d decomposer) layerNorm(x, scale, bias *ir.Value, eps float64) *ir.Value {
	shape := shapeOf(x.Type())
	last := len(shape) - 1
	n := float64(shape[last])
	sum := d.reduce(ReduceSumOpName, x, last)
	count := d.splat(sum, n)
	mean := d.broadcastBack(d.binary(DivOpName, sum, count), x, last)
	centred := d.binary(SubOpName, x, mean)
	variance := d.binary(DivOpName, d.reduce(ReduceSumOpName, d.binary(MulOpName, centred, centred), last), count)
	inv := d.unary(RsqrtOpName, d.binary(AddOpName, variance, d.splat(variance, eps)))
	normed := d.binary(MulOpName, centred, d.broadcastBack(inv, x, last))
	scaled := d.binary(MulOpName, normed, d.broadcast(scale, x.Type(), []int{last}))
	return d.binary(AddOpName, scaled, d.broadcast(bias, x.Type(), []int{last}))
}

// gelu: x/2·(1 + erf(x/√2)), or x/2·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
func (d decomposer) gelu(x *ir.Value, approximate bool) *ir.Value {
	var inner *ir.Value
	if approximate {
		cube := d.binary(MulOpName, d.binary(MulOpName, x, x), x)
		poly := d.binary(AddOpName, x, d.binary(MulOpName, cube, d.splat(x, eval.GeluTanhCoefficient)))
		inner = d.unary(TanhOpName, d.binary(MulOpName, poly, d.splat(x, math.Sqrt(2/math.Pi))))
	} else {
		inner = d.unary(ErfOpName, d.binary(MulOpName, x, d.splat(x, 1/math.Sqrt2)))
	}
	half := d.binary(MulOpName, x, d.splat(x, 0.5))
	return d.binary(MulOpName, half, d.binary(AddOpName, inner, d.splat(x, 1)))
}
