package tensor

import (
	"testing"

	"github.com/ipuir/ipuir/ir"
)

// Every verifier message of the dialect, exactly.
func TestVerifierMessages(t *testing.T) {
	f16 := func(f *fixture) ir.Type { return f.ctx.F16() }
	type tc struct {
		name  string
		build func(f *fixture) *ir.Operation
		msg   string
	}
	arr := func(f *fixture, xs ...int) *ir.DenseArrayAttr { return I64Array(f.ctx, xs...) }
	cases := []tc{
		{"matmul rank", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 2, 3, 4), nil)
			return f.raw(MatmulOpName, f.tensor(f16(f), 2, 4), []*ir.Value{x, x})
		}, "operands must have rank 2, but have ranks 3 and 3"},
		{"matmul contracting", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 2, 3), nil)
			return f.raw(MatmulOpName, f.tensor(f16(f), 2, 3), []*ir.Value{x, x})
		}, "contracting dimensions differ: lhs has 3 columns, rhs has 2 rows"},
		{"matmul element types", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 2, 3), nil)
			y := f.block.AddArgument(f.tensor(f.ctx.F32(), 3, 2), nil)
			return f.raw(MatmulOpName, f.tensor(f16(f), 2, 2), []*ir.Value{x, y})
		}, "requires the same element type for all operands and results"},
		{"matmul result", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 2, 3), nil)
			y := f.block.AddArgument(f.tensor(f16(f), 3, 5), nil)
			return f.raw(MatmulOpName, f.tensor(f16(f), 2, 3), []*ir.Value{x, y})
		}, "result type 'tensor<2x3xf16>' does not match the inferred type 'tensor<2x5xf16>'"},
		{"matmul integer operand", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f.ctx.I(32), 2, 2), nil)
			return f.raw(MatmulOpName, f.tensor(f.ctx.I(32), 2, 2), []*ir.Value{x, x})
		}, "operand #0 must be statically shaped tensor of f16, bf16, f32 or f64 values, but got 'tensor<2x2xi32>'"},
		{"matmul dynamic operand", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), ir.Dynamic, 2), nil)
			return f.raw(MatmulOpName, f.tensor(f16(f), 2, 2), []*ir.Value{x, x})
		}, "operand #0 must be statically shaped tensor of f16, bf16, f32 or f64 values, but got 'tensor<?x2xf16>'"},
		{"batch_matmul rank", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 2, 2), nil)
			return f.raw(BatchMatmulOpName, f.tensor(f16(f), 2, 2), []*ir.Value{x, x})
		}, "operands must have one rank of at least 3, but have ranks 2 and 2"},
		{"batch_matmul batch", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 16, 4, 8), nil)
			y := f.block.AddArgument(f.tensor(f16(f), 8, 8, 4), nil)
			return f.raw(BatchMatmulOpName, f.tensor(f16(f), 16, 4, 4), []*ir.Value{x, y})
		}, "batch dimensions differ: 16 and 8"},
		{"add types", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 4), nil)
			y := f.block.AddArgument(f.tensor(f.ctx.F32(), 4), nil)
			return f.raw(AddOpName, f.tensor(f16(f), 4), []*ir.Value{x, y})
		}, "requires the same type for all operands and results"},
		{"exp result", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 4), nil)
			return f.raw(ExpOpName, f.tensor(f16(f), 5), []*ir.Value{x})
		}, "requires the same type for all operands and results"},
		{"gelu approximate kind", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 4), nil)
			return f.raw(GeluOpName, x.Type(), []*ir.Value{x}, named(ApproximateAttr, f.ctx.String("tanh")))
		}, "attribute 'approximate' failed to satisfy constraint: unit attribute"},
		{"convert shape", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 4), nil)
			return f.raw(ConvertOpName, f.tensor(f.ctx.F32(), 2, 2), []*ir.Value{x})
		}, "operand type 'tensor<4xf16>' and result type 'tensor<2x2xf32>' have different shapes"},
		{"convert to index", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 4), nil)
			return f.raw(ConvertOpName, f.tensor(f.ctx.Index(), 4), []*ir.Value{x})
		}, "result #0 must be statically shaped tensor of floats, integers or i1, but got 'tensor<4xindex>'"},
		{"exp of integers", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f.ctx.I(32), 4), nil)
			return f.raw(ExpOpName, f.tensor(f.ctx.I(32), 4), []*ir.Value{x})
		}, "operand #0 must be statically shaped tensor of f16, bf16, f32 or f64 values, but got 'tensor<4xi32>'"},
		{"select of two types", func(f *fixture) *ir.Operation {
			c := f.block.AddArgument(f.tensor(f.ctx.I(1), 4), nil)
			x := f.block.AddArgument(f.tensor(f16(f), 4), nil)
			y := f.block.AddArgument(f.tensor(f.ctx.F32(), 4), nil)
			return f.raw("tensor.select", f.tensor(f16(f), 4), []*ir.Value{c, x, y})
		}, "values of types 'tensor<4xf16>' and 'tensor<4xf32>': both have the result's type"},
		{"select on a float condition", func(f *fixture) *ir.Operation {
			c := f.block.AddArgument(f.tensor(f16(f), 4), nil)
			x := f.block.AddArgument(f.tensor(f16(f), 4), nil)
			return f.raw("tensor.select", f.tensor(f16(f), 4), []*ir.Value{c, x, x})
		}, "operand #0 must be statically shaped tensor of i1, but got 'tensor<4xf16>'"},
		{"compare of two types", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 4), nil)
			y := f.block.AddArgument(f.tensor(f.ctx.F32(), 4), nil)
			return f.raw("tensor.less", f.tensor(f.ctx.I(1), 4), []*ir.Value{x, y})
		}, "operands of types 'tensor<4xf16>' and 'tensor<4xf32>': a comparison's operands have one type"},
		{"reduce axis range", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 4, 8), nil)
			return f.raw(ReduceSumOpName, f.tensor(f16(f), 4), []*ir.Value{x}, named(AxesAttr, arr(f, 2)))
		}, "axis 2 is out of range for rank 2"},
		{"reduce axes order", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 4, 8), nil)
			return f.raw(ReduceMaxOpName, f.tensor(f16(f)), []*ir.Value{x}, named(AxesAttr, arr(f, 1, 0)))
		}, "axes [1, 0] must be strictly increasing"},
		{"reduce missing axes", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 4, 8), nil)
			return f.raw(ReduceMaxOpName, f.tensor(f16(f), 4), []*ir.Value{x})
		}, "requires attribute 'axes'"},
		{"reduce axes kind", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 4, 8), nil)
			return f.raw(ReduceMaxOpName, f.tensor(f16(f), 4), []*ir.Value{x}, named(AxesAttr, f.ctx.DenseIntArray(f.ctx.I(32), []int64{1})))
		}, "attribute 'axes' failed to satisfy constraint: i64 dense array attribute"},
		{"reduce result", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 4, 8), nil)
			return f.raw(ReduceSumOpName, f.tensor(f16(f), 4, 1), []*ir.Value{x}, named(AxesAttr, arr(f, 1)))
		}, "result type 'tensor<4x1xf16>' does not match the inferred type 'tensor<4xf16>'"},
		{"softmax axis", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 4, 8), nil)
			return f.raw(SoftmaxOpName, x.Type(), []*ir.Value{x}, named(AxisAttr, I64(f.ctx, -1)))
		}, "axis -1 is out of range for rank 2"},
		{"softmax axis kind", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 4, 8), nil)
			return f.raw(SoftmaxOpName, x.Type(), []*ir.Value{x}, named(AxisAttr, f.ctx.IntegerAttr(f.ctx.I(32), 1)))
		}, "attribute 'axis' failed to satisfy constraint: 64-bit signless integer attribute"},
		{"layer_norm scale", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 4, 8), nil)
			g := f.block.AddArgument(f.tensor(f16(f), 4), nil)
			return f.raw(LayerNormOpName, x.Type(), []*ir.Value{x, g, g}, named(EpsilonAttr, f.ctx.FloatAttr(f.ctx.F32(), 1e-5)))
		}, "scale must have type 'tensor<8xf16>' (the input's last dimension and element type), but has 'tensor<4xf16>'"},
		{"layer_norm epsilon", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 4, 8), nil)
			g := f.block.AddArgument(f.tensor(f16(f), 8), nil)
			return f.raw(LayerNormOpName, x.Type(), []*ir.Value{x, g, g}, named(EpsilonAttr, f.ctx.FloatAttr(f.ctx.F32(), -1)))
		}, "epsilon must be a non-negative number, but is -1"},
		{"layer_norm epsilon kind", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 4, 8), nil)
			g := f.block.AddArgument(f.tensor(f16(f), 8), nil)
			return f.raw(LayerNormOpName, x.Type(), []*ir.Value{x, g, g}, named(EpsilonAttr, f.ctx.FloatAttr(f.ctx.F64(), 1e-5)))
		}, "attribute 'epsilon' failed to satisfy constraint: 32-bit float attribute"},
		{"transpose repeats", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 4, 8), nil)
			return f.raw(TransposeOpName, f.tensor(f16(f), 8, 4), []*ir.Value{x}, named(PermutationAttr, arr(f, 0, 0)))
		}, "permutation [0, 0] is not a permutation of 0..1: 0 repeats"},
		{"transpose range", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 4, 8), nil)
			return f.raw(TransposeOpName, f.tensor(f16(f), 8, 4), []*ir.Value{x}, named(PermutationAttr, arr(f, 2, 0)))
		}, "permutation [2, 0] is not a permutation of 0..1: 2 is out of range"},
		{"transpose length", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 4, 8), nil)
			return f.raw(TransposeOpName, f.tensor(f16(f), 8, 4), []*ir.Value{x}, named(PermutationAttr, arr(f, 1, 0, 2)))
		}, "permutation [1, 0, 2] has 3 entries, expected 2 (the operand's rank)"},
		{"transpose result", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 4, 8), nil)
			return f.raw(TransposeOpName, x.Type(), []*ir.Value{x}, named(PermutationAttr, arr(f, 1, 0)))
		}, "result type 'tensor<4x8xf16>' does not match the inferred type 'tensor<8x4xf16>'"},
		{"reshape count", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 4, 8), nil)
			return f.raw(ReshapeOpName, f.tensor(f16(f), 30), []*ir.Value{x})
		}, "operand type 'tensor<4x8xf16>' has 32 elements, but result type 'tensor<30xf16>' has 30"},
		{"reshape element", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 4, 8), nil)
			return f.raw(ReshapeOpName, f.tensor(f.ctx.F32(), 32), []*ir.Value{x})
		}, "requires the same element type for all operands and results"},
		{"broadcast size", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 4), nil)
			return f.raw(BroadcastOpName, f.tensor(f16(f), 4, 8), []*ir.Value{x}, named(DimensionsAttr, arr(f, 1)))
		}, "operand dimension 0 (size 4) cannot be broadcast to result dimension 1 (size 8)"},
		{"broadcast order", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 4, 4), nil)
			return f.raw(BroadcastOpName, f.tensor(f16(f), 4, 4, 2), []*ir.Value{x}, named(DimensionsAttr, arr(f, 1, 0)))
		}, "broadcast dimensions [1, 0] must be strictly increasing"},
		{"broadcast length", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 4, 4), nil)
			return f.raw(BroadcastOpName, f.tensor(f16(f), 4, 4, 2), []*ir.Value{x}, named(DimensionsAttr, arr(f, 0)))
		}, "broadcast dimensions [0] have 1 entries, expected 2 (the operand's rank)"},
		{"broadcast range", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 4), nil)
			return f.raw(BroadcastOpName, f.tensor(f16(f), 4, 4), []*ir.Value{x}, named(DimensionsAttr, arr(f, 2)))
		}, "broadcast dimension 2 is out of range for result rank 2"},
		{"slice bounds", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 4, 8), nil)
			return f.raw(SliceOpName, f.tensor(f16(f), 4, 4), []*ir.Value{x}, named(OffsetsAttr, arr(f, 0, 2)),
				named(SizesAttr, arr(f, 4, 4)), named(StridesAttr, arr(f, 1, 2)))
		}, "axis 1: slice of 4 elements from offset 2 with stride 2 runs past the dimension size 8"},
		{"slice stride", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 4, 8), nil)
			return f.raw(SliceOpName, f.tensor(f16(f), 4, 4), []*ir.Value{x}, named(OffsetsAttr, arr(f, 0, 0)),
				named(SizesAttr, arr(f, 4, 4)), named(StridesAttr, arr(f, 1, 0)))
		}, "axis 1: offset 0 and size 4 must be non-negative and stride 0 positive"},
		{"slice lengths", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 4, 8), nil)
			return f.raw(SliceOpName, f.tensor(f16(f), 4, 4), []*ir.Value{x}, named(OffsetsAttr, arr(f, 0)),
				named(SizesAttr, arr(f, 4, 4)), named(StridesAttr, arr(f, 1, 1)))
		}, "offsets, sizes and strides need 2 entries each (the operand's rank), got 1, 2 and 2"},
		{"concat mismatch", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 4, 8), nil)
			y := f.block.AddArgument(f.tensor(f16(f), 3, 8), nil)
			return f.raw(ConcatOpName, f.tensor(f16(f), 4, 16), []*ir.Value{x, y}, named(AxisAttr, I64(f.ctx, 1)))
		}, "operand #1 has size 3 in dimension 0, but operand #0 has 4"},
		{"concat rank", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 4, 8), nil)
			y := f.block.AddArgument(f.tensor(f16(f), 4), nil)
			return f.raw(ConcatOpName, f.tensor(f16(f), 8, 8), []*ir.Value{x, y}, named(AxisAttr, I64(f.ctx, 0)))
		}, "operand #1 has rank 1, but operand #0 has rank 2"},
		{"concat none", func(f *fixture) *ir.Operation {
			return f.raw(ConcatOpName, f.tensor(f16(f), 8, 8), nil, named(AxisAttr, I64(f.ctx, 0)))
		}, "expected at least one operand"},
		{"constant type", func(f *fixture) *ir.Operation {
			return f.raw(ConstantOpName, f.tensor(f16(f), 3), nil, named("value", f.ctx.DenseFloats(f.tensor(f16(f), 2), []float64{1, 2})))
		}, "result type 'tensor<3xf16>' does not match the inferred type 'tensor<2xf16>'"},
		{"constant of another type", func(f *fixture) *ir.Operation {
			return f.raw(ConstantOpName, f.tensor(f.ctx.I(16), 2), nil, named("value", f.ctx.DenseInts(f.tensor(f.ctx.I(32), 2), []int64{1, 2})))
		}, "result type 'tensor<2xi16>' does not match the inferred type 'tensor<2xi32>'"},
		{"splat element", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.ctx.F32(), nil)
			return f.raw(SplatOpName, f.tensor(f16(f), 4), []*ir.Value{x})
		}, "result element type 'f16' differs from the operand type 'f32'"},
		{"splat tensor operand", func(f *fixture) *ir.Operation {
			x := f.block.AddArgument(f.tensor(f16(f), 1), nil)
			return f.raw(SplatOpName, f.tensor(f16(f), 4), []*ir.Value{x})
		}, "operand #0 must be a float or integer type, but got 'tensor<1xf16>'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			wantVerifyError(t, c.build(f), c.msg)
		})
	}
}

// Huge attribute values are reported as written, without overflow.
func TestVerifierHugeValues(t *testing.T) {
	f := newFixture(t)
	x := f.block.AddArgument(f.tensor(f.ctx.F32(), 4, 8), nil)
	huge := int64(1) << 62
	op := f.raw(SliceOpName, f.tensor(f.ctx.F32(), 1, 1), []*ir.Value{x},
		named(OffsetsAttr, f.ctx.DenseI64Array(0, huge)), named(SizesAttr, f.ctx.DenseI64Array(1, 1)),
		named(StridesAttr, f.ctx.DenseI64Array(1, huge)))
	wantVerifyError(t, op, "axis 1: slice of 1 elements from offset 4611686018427387904 with stride 4611686018427387904 runs past the dimension size 8")
	op = f.raw(SliceOpName, f.tensor(f.ctx.F32(), 1, 1), []*ir.Value{x},
		named(OffsetsAttr, f.ctx.DenseI64Array(0, 0)), named(SizesAttr, f.ctx.DenseI64Array(1, huge)),
		named(StridesAttr, f.ctx.DenseI64Array(1, huge)))
	wantVerifyError(t, op, "axis 1: slice of 4611686018427387904 elements from offset 0 with stride 4611686018427387904 runs past the dimension size 8")
	op = f.raw(SoftmaxOpName, x.Type(), []*ir.Value{x}, named(AxisAttr, f.ctx.IntegerAttr(f.ctx.I(64), huge)))
	wantVerifyError(t, op, "axis 4611686018427387904 is out of range for rank 2")
}
