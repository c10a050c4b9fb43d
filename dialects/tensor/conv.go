package tensor

import (
	"fmt"
	"slices"

	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/ir"
)

// ConvOpName is the convolution's op name.
const ConvOpName = "tensor.conv"

// Attribute names of the convolution.
const (
	DilationsAttr = "dilations"
	PadsAttr      = "pads"
	GroupsAttr    = "groups"
)

func convSpecs() []*opSpec {
	return []*opSpec{{
		handle: &ConvOp,
		def: &ir.OpDef{
			Name:    ConvOpName,
			Summary: "N-dimensional convolution (cross-correlation) in groups, as ONNX's Conv.",
			Description: "input [N, C, s…] by weight [M, C/groups, k…] gives [N, M, o…]: result[n, m, o…] = " +
				"Σ over the group's input channels c and kernel positions q of " +
				"input[n, c, o·strides + q·dilations − pads_before]·weight[m, c, q], positions outside the " +
				"input counting as zero. `pads` lists the zeros before each spatial axis, then after each " +
				"(ONNX's order; negative pads crop). groups = C = M is a depthwise convolution. Each sum " +
				"accumulates as a matmul does (f32 for f16, bf16 and f32), kernel position major and channel " +
				"minor, and is rounded once to the element type. The tiled lowering decomposes it " +
				"(tiled-prepare): dense and grouped convolutions into one matmul of the receptive fields per " +
				"group, depthwise ones into products and sums on the vector unit.",
			Example: "%2 = tensor.conv %0, %1 strides = [2, 2] dilations = [1, 1] pads = [3, 3, 3, 3] groups = 1 : " +
				"tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32> -> tensor<1x64x112x112xf32>",
			Operands: []ir.ValueDef{{Name: "input", Type: FloatTensor}, {Name: "weight", Type: FloatTensor}},
			Results:  []ir.ValueDef{{Name: "result", Type: FloatTensor}},
			Attributes: []ir.AttrDef{{Name: StridesAttr, Kind: ir.DenseI64ArrayKind}, {Name: DilationsAttr, Kind: ir.DenseI64ArrayKind},
				{Name: PadsAttr, Kind: ir.DenseI64ArrayKind}, {Name: GroupsAttr, Kind: ir.I64AttrKind}},
			Traits: ir.TraitPure | ir.TraitSameOperandsAndResultElementType,
			AssemblyFormat: "$input `,` $weight `strides` `=` custom<IndexList>($strides) `dilations` `=` custom<IndexList>($dilations) " +
				"`pads` `=` custom<IndexList>($pads) `groups` `=` custom<Index>($groups) attr-dict `:` type($input) `,` type($weight) `->` type($result)",
		},
		infer: inferConv,
		evaluate: func(op *ir.Operation, args []*eval.Array) (*eval.Array, error) {
			p, err := convParams(opAttrs(op))
			if err != nil {
				return nil, err
			}
			return eval.Conv(args[0], args[1], p)
		},
		bound: boundOfConv,
	}}
}

// convParams reads a conv's window from its attributes.
func convParams(attrs attrLookup) (eval.ConvParams, error) {
	var p eval.ConvParams
	var err error
	if p.Strides, err = attrs.ints(StridesAttr); err != nil {
		return p, err
	}
	if p.Dilations, err = attrs.ints(DilationsAttr); err != nil {
		return p, err
	}
	pads, err := attrs.ints(PadsAttr)
	if err != nil {
		return p, err
	}
	if len(pads) != 2*len(p.Strides) {
		return p, fmt.Errorf("'%s' lists %d values for %d spatial axes: the zeros before each axis, then after each", PadsAttr, len(pads), len(p.Strides))
	}
	p.PadBefore, p.PadAfter = pads[:len(pads)/2], pads[len(pads)/2:]
	p.Groups, err = attrs.int(GroupsAttr)
	return p, err
}

func inferConv(operands []ir.Type, attrs attrLookup) (resultType, error) {
	for i := range 2 {
		if err := requireTensor(operands, i); err != nil {
			return resultType{}, err
		}
	}
	if e1, e2 := elemOf(operands[0]), elemOf(operands[1]); e1 != e2 {
		return resultType{}, fmt.Errorf("operands have different element types: %s and %s", typeStr(e1), typeStr(e2))
	}
	p, err := convParams(attrs)
	if err != nil {
		return resultType{}, err
	}
	shape, err := eval.ConvShape(shapeOf(operands[0]), shapeOf(operands[1]), p)
	if err != nil {
		return resultType{}, err
	}
	return tensorResult(shape, elemOf(operands[0])), nil
}

// boundOfConv is the matmul's rule (boundOfMatmul) with each result
// element's sum over C/groups channels and the kernel's positions.
func boundOfConv(s *opSpec, op *ir.Operation, args, errs []*eval.Array, result *eval.Array) (*eval.Array, error) {
	w := args[1].Shape
	inner := int64(w[1])
	for _, k := range w[2:] {
		inner *= int64(k)
	}
	return boundOfContraction(s, op, args, errs, result, inner)
}

// conv decomposes a convolution for the tiled level: the input channels
// last and padded, then either (depthwise: one input and one output
// channel per group) each kernel position's strided slice times its
// weights broadcast over the positions, summed on the vector unit in f32;
// or, per group, the receptive fields as rows (im2col: one strided slice
// per kernel position, concatenated along the channels, kernel position
// major) times the weight as [kernel positions · C/groups, M/groups].
// Both sum in eval.Conv's order, so the decomposition computes the op's
// value exactly. A constant weight is rearranged here, at compile time
// (convWeight), so the program holds it once, in the order it is read.
func (d decomposer) conv(x, w *ir.Value, p eval.ConvParams) *ir.Value {
	in, ws := shapeOf(x.Type()), shapeOf(w.Type())
	out, err := eval.ConvShape(in, ws, p)
	if err != nil {
		panic("BUG: tensor-decompose: a verified conv has no shape: " + err.Error())
	}
	r := len(in)
	N, C, M, g := in[0], in[1], ws[0], p.Groups
	cg, mg := C/g, M/g
	kernel, outSp := ws[2:], out[2:]
	window := 1
	for _, k := range kernel {
		window *= k
	}
	positions := N
	for _, o := range outSp {
		positions *= o
	}
	// [N, C, s…] → [N, s…, C], padded (or cropped) on the spatial axes.
	toLast := append(append([]int{0}, seq(2, r)...), 1)
	xl := d.pad(d.transpose(x, toLast), p)
	// [M, C/g, k…] → [k…, C/g, M]
	wt := d.weight(w).transpose(append(seq(2, r), 1, 0))

	var y *ir.Value // [N, o…, M]
	if cg == 1 && mg == 1 {
		y = d.depthwise(xl, wt, kernel, outSp, p)
	} else {
		var groups []*ir.Value
		for gi := range g {
			xg, wg := xl, wt
			if g > 1 {
				xg = d.along(xl, r-1, gi*cg, cg)
				wg = wt.along(r-1, gi*mg, mg)
			}
			col := d.reshape(d.im2col(xg, kernel, outSp, p), []int{positions, window * cg})
			groups = append(groups, d.binary(MatmulOpName, col, wg.reshape([]int{window * cg, mg}).value()))
		}
		y = groups[0]
		if g > 1 {
			y = d.op(ConcatOpName, groups, ir.NamedAttr{Name: AxisAttr, Value: I64(d.rw.Ctx, 1)})
		}
		y = d.reshape(y, append(append([]int{N}, outSp...), M))
	}
	// [N, o…, M] → [N, M, o…]
	return d.transpose(y, append([]int{0, r - 1}, seq(1, r-1)...))
}

// depthwise is a depthwise convolution of xl [N, s…, C] (padded) by wt
// [k…, 1, C]: Σ over kernel positions q of slice_q(xl)·broadcast(wt[q]),
// in f32 for f16 and bf16 (as the sum accumulates), each product rounded
// and added in kernel-position order, which is eval.Conv's.
func (d decomposer) depthwise(xl *ir.Value, wt convWeight, kernel, outSp []int, p eval.ConvParams) *ir.Value {
	ctx := d.rw.Ctx
	et := elemOf(xl.Type())
	narrow := et == ctx.F16() || et == ctx.BF16()
	if narrow {
		xl = d.convert(xl, ctx.F32())
		wt = wt.convert(ctx.F32())
	}
	r := len(shapeOf(xl.Type()))
	C := shapeOf(xl.Type())[r-1]
	window := len(d.kernelOffsets(kernel))
	wk := wt.reshape([]int{window, C})
	var sum *ir.Value
	k := 0
	d.windowSlices(xl, kernel, outSp, p, func(s *ir.Value) {
		row := wk.along(0, k, 1).reshape([]int{C}).value()
		term := d.binary(MulOpName, s, d.broadcast(row, s.Type(), []int{r - 1}))
		if sum == nil {
			sum = term
		} else {
			sum = d.binary(AddOpName, sum, term)
		}
		k++
	})
	if narrow {
		sum = d.convert(sum, et)
	}
	return sum
}

// convWeight is a conv's weight on its way into the order a decomposition
// reads it: an array when the weight is a constant (rearranged at compile
// time, as an importer folds it, so the program never holds two copies or
// moves it at run time), else the value the ops built so far give.
type convWeight struct {
	d     decomposer
	v     *ir.Value
	array *eval.Array
}

// weight starts w's rearrangement. A convert of a constant (a weight an
// f16 program multiplies) is converted here too, as the device would.
func (d decomposer) weight(w *ir.Value) convWeight {
	def := w.DefiningOp()
	if def != nil && def.Is(ConvertOp) {
		if c := def.Operand(0).DefiningOp(); c != nil && c.Is(ConstantOp) {
			if a, err := ArrayFromAttr(c.Attr("value")); err == nil {
				if k, ok := kindOf(elemOf(w.Type())); ok {
					return convWeight{d: d, array: convWeight{d: d}.must(eval.Convert(a, k))}
				}
			}
		}
	}
	if def != nil && def.Is(ConstantOp) {
		if a, err := ArrayFromAttr(def.Attr("value")); err == nil {
			return convWeight{d: d, array: a}
		}
	}
	return convWeight{d: d, v: w}
}

func (w convWeight) transpose(perm []int) convWeight {
	if w.array == nil {
		return convWeight{d: w.d, v: w.d.transpose(w.v, perm)}
	}
	return convWeight{d: w.d, array: w.must(eval.Transpose(w.array, perm))}
}

func (w convWeight) along(axis, start, count int) convWeight {
	if w.array == nil {
		return convWeight{d: w.d, v: w.d.along(w.v, axis, start, count)}
	}
	offsets, sizes, strides := alongAxis(w.array.Shape, axis, start, count)
	return convWeight{d: w.d, array: w.must(eval.Slice(w.array, offsets, sizes, strides))}
}

func (w convWeight) reshape(shape []int) convWeight {
	if w.array == nil {
		return convWeight{d: w.d, v: w.d.reshape(w.v, shape)}
	}
	return convWeight{d: w.d, array: w.must(eval.Reshape(w.array, shape))}
}

func (w convWeight) convert(et ir.Type) convWeight {
	if w.array == nil {
		return convWeight{d: w.d, v: w.d.convert(w.v, et)}
	}
	k, ok := kindOf(et)
	if !ok {
		panic("BUG: tensor-decompose: a conv's weight converted to " + typeStr(et))
	}
	return convWeight{d: w.d, array: w.must(eval.Convert(w.array, k))}
}

// value is the weight as it now stands: the value built, or a new
// constant holding the array.
func (w convWeight) value() *ir.Value {
	if w.array == nil {
		return w.v
	}
	ctx := w.d.rw.Ctx
	et := FloatType(ctx, w.array.Kind)
	t := ctx.Tensor(dims64(w.array.Shape), et)
	attr, err := AttrFromArray(ctx, t, w.array)
	if err != nil {
		panic("BUG: tensor-decompose: a conv's weight as a constant: " + err.Error())
	}
	return w.d.must(Constant(&w.d.rw.Builder, w.d.loc, attr))
}

func (w convWeight) must(a *eval.Array, err error) *eval.Array {
	if err != nil {
		panic("BUG: tensor-decompose: rearranging a conv's constant weight: " + err.Error())
	}
	return a
}

// im2col is the receptive fields of xl [N, s…, C] (padded) as
// [N, o…, window·C], kernel position major: one strided slice per kernel
// position, concatenated; a single position is its slice. Where the
// windows tile the input (stride = kernel, no dilation: a ViT's patch
// embedding) it is a reshape and a transpose instead, which move each
// value once.
func (d decomposer) im2col(xl *ir.Value, kernel, outSp []int, p eval.ConvParams) *ir.Value {
	if patches := slices.Equal(p.Strides, kernel) && !slices.ContainsFunc(p.Dilations, func(x int) bool { return x != 1 }); patches && len(kernel) > 0 {
		shape := shapeOf(xl.Type())
		r := len(shape)
		split, window := []int{shape[0]}, 1
		for i, k := range kernel {
			if used := outSp[i] * k; used != shape[1+i] {
				xl = d.along(xl, 1+i, 0, used)
			}
			split = append(split, outSp[i], k)
			window *= k
		}
		split = append(split, shape[r-1])
		// [N, o1, k1, o2, k2, …, C] → [N, o1, o2, …, k1, k2, …, C]
		perm := []int{0}
		for i := range kernel {
			perm = append(perm, 1+2*i)
		}
		for i := range kernel {
			perm = append(perm, 2+2*i)
		}
		perm = append(perm, 2*len(kernel)+1)
		fields := d.transpose(d.reshape(xl, split), perm)
		return d.reshape(fields, append(append([]int{shape[0]}, outSp...), window*shape[r-1]))
	}
	var cols []*ir.Value
	d.windowSlices(xl, kernel, outSp, p, func(s *ir.Value) { cols = append(cols, s) })
	if len(cols) == 1 {
		return cols[0]
	}
	r := len(shapeOf(xl.Type()))
	return d.op(ConcatOpName, cols, ir.NamedAttr{Name: AxisAttr, Value: I64(d.rw.Ctx, r-1)})
}

// windowSlices calls f with the strided slice of xl [N, s…, C] that each
// kernel position (row major) reads.
func (d decomposer) windowSlices(xl *ir.Value, kernel, outSp []int, p eval.ConvParams, f func(*ir.Value)) {
	shape := shapeOf(xl.Type())
	for _, q := range d.kernelOffsets(kernel) {
		offsets, sizes, strides := alongAxis(shape, 0, 0, shape[0])
		for i := range kernel {
			offsets[1+i] = q[i] * p.Dilations[i]
			sizes[1+i] = outSp[i]
			strides[1+i] = p.Strides[i]
		}
		f(d.slice(xl, offsets, sizes, strides))
	}
}

// kernelOffsets lists a kernel's positions in row-major order.
func (decomposer) kernelOffsets(kernel []int) [][]int {
	var out [][]int
	q := make([]int, len(kernel))
	for {
		out = append(out, slices.Clone(q))
		i := len(q) - 1
		for ; i >= 0; i-- {
			if q[i]++; q[i] < kernel[i] {
				break
			}
			q[i] = 0
		}
		if i < 0 {
			return out
		}
	}
}

// pad crops (negative pads) and zero-pads the spatial axes 1…r−2 of xl
// [N, s…, C].
func (d decomposer) pad(xl *ir.Value, p eval.ConvParams) *ir.Value {
	for i := range p.PadBefore {
		axis, b, a := 1+i, p.PadBefore[i], p.PadAfter[i]
		n := shapeOf(xl.Type())[axis]
		if b < 0 || a < 0 {
			lo, hi := max(-b, 0), n-max(-a, 0)
			xl = d.along(xl, axis, lo, hi-lo)
			b, a = max(b, 0), max(a, 0)
		}
		parts := []*ir.Value{}
		if b > 0 {
			parts = append(parts, d.zeros(xl, axis, b))
		}
		parts = append(parts, xl)
		if a > 0 {
			parts = append(parts, d.zeros(xl, axis, a))
		}
		if len(parts) > 1 {
			xl = d.op(ConcatOpName, parts, ir.NamedAttr{Name: AxisAttr, Value: I64(d.rw.Ctx, axis)})
		}
	}
	return xl
}

// zeros is a splat of zeros of like's type with n positions on axis.
func (d decomposer) zeros(like *ir.Value, axis, n int) *ir.Value {
	shape := slices.Clone(shapeOf(like.Type()))
	shape[axis] = n
	return d.must(SplatConstant(&d.rw.Builder, d.loc, d.rw.Ctx.Tensor(dims64(shape), elemOf(like.Type())), 0))
}

func (d decomposer) transpose(x *ir.Value, perm []int) *ir.Value {
	if isIdentity(perm) {
		return x
	}
	return d.op(TransposeOpName, []*ir.Value{x}, ir.NamedAttr{Name: PermutationAttr, Value: I64Array(d.rw.Ctx, perm...)})
}

func (d decomposer) slice(x *ir.Value, offsets, sizes, strides []int) *ir.Value {
	ctx := d.rw.Ctx
	return d.op(SliceOpName, []*ir.Value{x}, ir.NamedAttr{Name: OffsetsAttr, Value: I64Array(ctx, offsets...)},
		ir.NamedAttr{Name: SizesAttr, Value: I64Array(ctx, sizes...)}, ir.NamedAttr{Name: StridesAttr, Value: I64Array(ctx, strides...)})
}

// along is the slice of x of count positions from start on one axis.
func (d decomposer) along(x *ir.Value, axis, start, count int) *ir.Value {
	offsets, sizes, strides := alongAxis(shapeOf(x.Type()), axis, start, count)
	return d.slice(x, offsets, sizes, strides)
}

// alongAxis is the slice of a tensor of shape that takes count positions
// from start on one axis and the rest whole, as tensor.slice's
// attributes (or eval.Slice's arguments).
func alongAxis(shape []int, axis, start, count int) (offsets, sizes, strides []int) {
	offsets, sizes, strides = make([]int, len(shape)), slices.Clone(shape), make([]int, len(shape))
	for i := range strides {
		strides[i] = 1
	}
	offsets[axis], sizes[axis] = start, count
	return offsets, sizes, strides
}

func (d decomposer) reshape(x *ir.Value, shape []int) *ir.Value {
	if slices.Equal(shapeOf(x.Type()), shape) {
		return x
	}
	return d.must(BuildTyped(&d.rw.Builder, ReshapeOpName, d.loc, d.rw.Ctx.Tensor(dims64(shape), elemOf(x.Type())), []*ir.Value{x}))
}

func (d decomposer) convert(x *ir.Value, et ir.Type) *ir.Value {
	return d.must(BuildTyped(&d.rw.Builder, ConvertOpName, d.loc, d.rw.Ctx.Tensor(dims64(shapeOf(x.Type())), et), []*ir.Value{x}))
}

// seq is [lo, hi).
func seq(lo, hi int) []int {
	out := make([]int, 0, max(hi-lo, 0))
	for i := lo; i < hi; i++ {
		out = append(out, i)
	}
	return out
}
