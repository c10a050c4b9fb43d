package tiled

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/elem/irelem"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/kernel"
	"github.com/ipuir/ipuir/layout"
)

// Op names of the dialect's compute and data-movement ops other than
// matmul.
const (
	ConstantOpName    = "tiled.constant"
	ElementwiseOpName = "tiled.elementwise"
	BroadcastOpName   = "tiled.broadcast"
	ReduceOpName      = "tiled.reduce"
	CombineOpName     = "tiled.combine"
	TransposeOpName   = "tiled.transpose"
	ReshapeOpName     = "tiled.reshape"
	SliceOpName       = "tiled.slice"
	ConcatOpName      = "tiled.concat"
)

// Attribute names of those ops.
const (
	FnAttrName          = "fn"
	ValueAttrName       = "value"
	AxesAttrName        = "axes"
	DimensionsAttrName  = "dimensions"
	PermutationAttrName = "permutation"
	OffsetsAttrName     = "offsets"
	SizesAttrName       = "sizes"
	StridesAttrName     = "strides"
	AxisAttrName        = "axis"
)

var (
	fnAttrKind = ir.AttrKind{Desc: "name of an elementwise function", Pred: func(a ir.Attribute) bool {
		s, ok := a.(*ir.StringAttr)
		if !ok {
			return false
		}
		_, err := kernel.FnNamed(s.Val)
		return err == nil
	}}
	reductionAttrKind = ir.AttrKind{Desc: "name of a reduction (sum or max)", Pred: func(a ir.Attribute) bool {
		s, ok := a.(*ir.StringAttr)
		if !ok {
			return false
		}
		_, err := kernel.ReductionNamed(s.Val)
		return err == nil
	}}
	denseValueKind = ir.AttrKind{Desc: "dense elements attribute of static shape", Pred: func(a ir.Attribute) bool {
		d, ok := a.(*ir.DenseElementsAttr)
		return ok && ir.NumElements(d.Typ.Shape()) >= 0
	}}
	estimateAttr = ir.AttrDef{Name: EstimateAttrName, Kind: estimateAttrKind, Optional: true,
		Doc: "the cost on the busiest tile (tiled-estimate computes it)"}
)

// The compute ops. Each runs on every tile that holds a shard of its
// result, reading only what that tile holds (the verifier checks it, with
// the shard-view containment message), except tiled.combine, which is an
// exchange followed by local combining.
var (
	// ConstantOp is tiled.constant.
	ConstantOp = &ir.OpDef{
		Name:    ConstantOpName,
		Summary: "A constant tensor, laid out.",
		Description: "The result holds `value` in the result type's layout. A splat value is stored as one " +
			"scalar per tile, never per element; any other value is stored as each tile's shard " +
			"(its initial data in the application package).",
		Example:        "%s = tiled.constant dense<1.178590e-01> : tensor<16x729x729xf16> -> tensor<16x729x729xf16, #layout>",
		Results:        []ir.ValueDef{{Name: "result", Type: LaidOutTensor}},
		Attributes:     []ir.AttrDef{{Name: ValueAttrName, Kind: denseValueKind}, estimateAttr},
		Traits:         ir.TraitPure | ir.TraitConstantLike,
		AssemblyFormat: "attr-dict $value `->` type($result)",
		VerifyEnv:      verifyConstant,
	}

	// ElementwiseOp is tiled.elementwise.
	ElementwiseOp = &ir.OpDef{
		Name:    ElementwiseOpName,
		Summary: "An elementwise function of laid-out tensors, on each tile's shard.",
		Description: "`fn` is a function of the kernel table (kernel.Fns): " + fnList() + ". Operands and " +
			"result have one shape and one layout, so each tile computes its shard from its own shards; " +
			"only convert changes the element type. The arithmetic is the tensor dialect's.",
		Example:        "%2 = tiled.elementwise mul %0, %1 : tensor<16x729x729xf16, #layout>, tensor<16x729x729xf16, #layout> -> tensor<16x729x729xf16, #layout>",
		Operands:       []ir.ValueDef{{Name: "inputs", Type: LaidOutTensor, Kind: ir.Variadic}},
		Results:        []ir.ValueDef{{Name: "result", Type: LaidOutTensor}},
		Attributes:     []ir.AttrDef{{Name: FnAttrName, Kind: fnAttrKind}, estimateAttr},
		Traits:         ir.TraitPure,
		AssemblyFormat: "custom<Name>($fn) $inputs attr-dict `:` type($inputs) `->` type($result)",
		VerifyEnv:      verifyElementwise,
	}

	// BroadcastOp is tiled.broadcast.
	BroadcastOp = &ir.OpDef{
		Name:    BroadcastOpName,
		Summary: "Expands a tensor along new or size-1 axes, on each tile's shard.",
		Description: "As tensor.broadcast: input axis i is result axis dimensions[i], of equal size or of " +
			"size 1. Every tile of the result must hold the input elements its shard expands (the " +
			"projection of its shard): a layout with the result's partitions on the kept axes and " +
			"replicas along the others, which tiled.relayout provides. Read only by elementwise ops it " +
			"is a view: they read its input with a stride of zero along the new axes, and it costs " +
			"nothing and holds no memory (BroadcastIsView).",
		Example:        "%b = tiled.broadcast %m dimensions = [0, 1] : tensor<16x729xf16, #layout> -> tensor<16x729x729xf16, #layout1>",
		Operands:       []ir.ValueDef{{Name: "input", Type: LaidOutTensor}},
		Results:        []ir.ValueDef{{Name: "result", Type: LaidOutTensor}},
		Attributes:     []ir.AttrDef{{Name: DimensionsAttrName, Kind: ir.DenseI64ArrayKind}, estimateAttr},
		Traits:         ir.TraitPure,
		AssemblyFormat: "$input `dimensions` `=` custom<IndexList>($dimensions) attr-dict `:` type($input) `->` type($result)",
		VerifyEnv:      verifyBroadcast,
	}

	// ReduceOp is tiled.reduce.
	ReduceOp = &ir.OpDef{
		Name:    ReduceOpName,
		Summary: "Partial reduction: each tile reduces its own shard over `axes`.",
		Description: "The result keeps every reduced axis, with one entry per partition of that axis in " +
			"the input's layout (1 where the axis is whole): entry p is the reduction of partition " +
			"p's elements. Each tile of the result must hold exactly one entry along each reduced " +
			"axis and the whole partition it reduces. tiled.combine then reduces the entries across " +
			"tiles.",
		Example:        "%p = tiled.reduce max %x axes = [2] : tensor<16x729x729xf16, #layout> -> tensor<16x729x4xf16, #layout1>",
		Operands:       []ir.ValueDef{{Name: "input", Type: LaidOutTensor}},
		Results:        []ir.ValueDef{{Name: "result", Type: LaidOutTensor}},
		Attributes:     []ir.AttrDef{{Name: FnAttrName, Kind: reductionAttrKind}, {Name: AxesAttrName, Kind: ir.DenseI64ArrayKind}, estimateAttr},
		Traits:         ir.TraitPure,
		AssemblyFormat: "custom<Name>($fn) $input `axes` `=` custom<IndexList>($axes) attr-dict `:` type($input) `->` type($result)",
		VerifyEnv:      verifyReduce,
	}

	// CombineOp is tiled.combine.
	CombineOp = &ir.OpDef{
		Name:    CombineOpName,
		Summary: "Cross-tile combine of partial reductions.",
		Description: "Reduces the input over `axes` and drops them, as tensor.reduce does: every tile of " +
			"the result receives, in one exchange phase, the partial entries of its shard that other " +
			"tiles hold, and reduces them. The data movement is the op's: its estimate prices the " +
			"phase on both sides, with multicast where the target has it.",
		Example:        "%m = tiled.combine max %p axes = [2] : tensor<16x729x4xf16, #layout1> -> tensor<16x729xf16, #layout2>",
		Operands:       []ir.ValueDef{{Name: "input", Type: LaidOutTensor}},
		Results:        []ir.ValueDef{{Name: "result", Type: LaidOutTensor}},
		Attributes:     []ir.AttrDef{{Name: FnAttrName, Kind: reductionAttrKind}, {Name: AxesAttrName, Kind: ir.DenseI64ArrayKind}, estimateAttr},
		Traits:         ir.TraitPure,
		AssemblyFormat: "custom<Name>($fn) $input `axes` `=` custom<IndexList>($axes) attr-dict `:` type($input) `->` type($result)",
		VerifyEnv:      verifyCombine,
	}

	// TransposeOp is tiled.transpose.
	TransposeOp = &ir.OpDef{
		Name:    TransposeOpName,
		Summary: "Permutes axes, on each tile's shard.",
		Description: "Result axis j is input axis permutation[j]. Every tile of the result must hold the " +
			"input elements of its shard (PermuteLayout gives that layout). Where the shard's memory " +
			"order does not change (row major, and only axes of one element move) it costs nothing; " +
			"otherwise each tile copies its shard.",
		Example:        "%t = tiled.transpose %x permutation = [1, 0, 2] : tensor<729x16x72xf16, #layout> -> tensor<16x729x72xf16, #layout1>",
		Operands:       []ir.ValueDef{{Name: "input", Type: LaidOutTensor}},
		Results:        []ir.ValueDef{{Name: "result", Type: LaidOutTensor}},
		Attributes:     []ir.AttrDef{{Name: PermutationAttrName, Kind: ir.DenseI64ArrayKind}, estimateAttr},
		Traits:         ir.TraitPure,
		AssemblyFormat: "$input `permutation` `=` custom<IndexList>($permutation) attr-dict `:` type($input) `->` type($result)",
		VerifyEnv:      verifyTranspose,
	}

	// ReshapeOp is tiled.reshape.
	ReshapeOp = &ir.OpDef{
		Name:    ReshapeOpName,
		Summary: "Reinterprets each tile's shard in a new shape.",
		Description: "The result's layout must put the same elements on the same tiles as the input's " +
			"(ReshapeLayout derives it where the shards are contiguous chunks of every regrouped run " +
			"of axes); a reshape that would move data is a tiled.relayout first. From row-major " +
			"shards it costs nothing.",
		Example:        "%r = tiled.reshape %x : tensor<729x1152xf16, #layout> -> tensor<729x16x72xf16, #layout1>",
		Operands:       []ir.ValueDef{{Name: "input", Type: LaidOutTensor}},
		Results:        []ir.ValueDef{{Name: "result", Type: LaidOutTensor}},
		Attributes:     []ir.AttrDef{estimateAttr},
		Traits:         ir.TraitPure,
		AssemblyFormat: "$input attr-dict `:` type($input) `->` type($result)",
		VerifyEnv:      verifyReshape,
	}
)

// The data-movement ops that change a tensor's shape: like tiled.relayout,
// each is one exchange phase (elements a result tile already holds stay).
var (
	// SliceOp is tiled.slice.
	SliceOp = &ir.OpDef{
		Name:    SliceOpName,
		Summary: "A strided box of a tensor, moved into the result's layout.",
		Description: "As tensor.slice: along axis i the result takes sizes[i] elements from offsets[i], " +
			"strides[i] apart. Every result tile receives the elements of its shard from the tiles " +
			"that hold them; a strided slice is priced by the bounding box of what each tile reads.",
		Example:        "%s = tiled.slice %x offsets = [0, 72] sizes = [729, 72] strides = [1, 1] : tensor<729x1152xf16, #layout> -> tensor<729x72xf16, #layout1>",
		Operands:       []ir.ValueDef{{Name: "input", Type: LaidOutTensor}},
		Results:        []ir.ValueDef{{Name: "result", Type: LaidOutTensor}},
		Attributes:     []ir.AttrDef{{Name: OffsetsAttrName, Kind: ir.DenseI64ArrayKind}, {Name: SizesAttrName, Kind: ir.DenseI64ArrayKind}, {Name: StridesAttrName, Kind: ir.DenseI64ArrayKind}, estimateAttr},
		Traits:         ir.TraitPure,
		AssemblyFormat: "$input `offsets` `=` custom<IndexList>($offsets) `sizes` `=` custom<IndexList>($sizes) `strides` `=` custom<IndexList>($strides) attr-dict `:` type($input) `->` type($result)",
		VerifyEnv:      verifySlice,
	}

	// ConcatOp is tiled.concat.
	ConcatOp = &ir.OpDef{
		Name:    ConcatOpName,
		Summary: "Tensors joined along an axis, moved into the result's layout.",
		Description: "As tensor.concat. Every result tile receives the elements of its shard from the " +
			"tiles of whichever input holds them, all inputs in one exchange phase.",
		Example:        "%c = tiled.concat %a, %b axis = 1 : tensor<729x72xf16, #layout>, tensor<729x72xf16, #layout> -> tensor<729x144xf16, #layout1>",
		Operands:       []ir.ValueDef{{Name: "inputs", Type: LaidOutTensor, Kind: ir.Variadic}},
		Results:        []ir.ValueDef{{Name: "result", Type: LaidOutTensor}},
		Attributes:     []ir.AttrDef{{Name: AxisAttrName, Kind: ir.I64AttrKind}, estimateAttr},
		Traits:         ir.TraitPure,
		AssemblyFormat: "$inputs `axis` `=` custom<Tile>($axis) attr-dict `:` type($inputs) `->` type($result)",
		VerifyEnv:      verifyConcat,
	}
)

func rankedOf(v *ir.Value) *ir.RankedTensorType { return v.Type().(*ir.RankedTensorType) }

func intsOf(op *ir.Operation, name string) []int64 {
	return op.Attr(name).(*ir.DenseArrayAttr).Ints
}

func verifyConstant(op *ir.Operation, env *ir.Env) error {
	v := op.Attr(ValueAttrName).(*ir.DenseElementsAttr)
	out := rankedOf(op.Result(0))
	vt, ok := v.Typ.(*ir.RankedTensorType)
	if !ok || vt.Elem != out.Elem || !slices.Equal(vt.Dims, out.Dims) {
		return fmt.Errorf("value of type %s does not have the result's shape and element type (%s)",
			ir.TypeString(v.Typ), ir.TypeString(&ir.RankedTensorType{Dims: out.Dims, Elem: out.Elem}))
	}
	_, err := layoutOfValue(env, op.Result(0), "result")
	return err
}

func verifyElementwise(op *ir.Operation, env *ir.Env) error {
	fn, _ := kernel.FnNamed(op.Attr(FnAttrName).(*ir.StringAttr).Val)
	if op.NumOperands() != fn.Arity {
		return fmt.Errorf("'%s' takes %d operands, got %d", fn.Name, fn.Arity, op.NumOperands())
	}
	out := rankedOf(op.Result(0))
	lo, _ := LayoutOf(out)
	var ins []elem.Type
	for i := 0; i < op.NumOperands(); i++ {
		in := rankedOf(op.Operand(i))
		li, _ := LayoutOf(in)
		if !slices.Equal(in.Dims, out.Dims) || !li.Equal(lo) {
			return fmt.Errorf("operand #%d of type %s must have the result's shape and layout (%s)",
				i, ir.TypeString(in), ir.TypeString(out))
		}
		e, _ := irelem.Of(in.Elem)
		ins = append(ins, e)
	}
	oe, _ := irelem.Of(out.Elem)
	if err := fn.CheckElems(ins, oe); err != nil {
		return err
	}
	_, err := layoutOfValue(env, op.Result(0), "result")
	return err
}

// checkReads checks, for every tile holding a shard of the result, that
// the input shard on the same tile holds what read returns for the
// result's box: the shard-view containment rule of a local op.
func checkReads(env *ir.Env, op *ir.Operation, read func(result layout.Box) layout.Box) error {
	in, err := layoutOfValue(env, op.Operand(0), "input")
	if err != nil {
		return err
	}
	out, err := layoutOfValue(env, op.Result(0), "result")
	if err != nil {
		return err
	}
	for _, tile := range out.Tiles() {
		box, _ := out.BoxOnTile(tile)
		if err := in.CheckCovers(tile, read(box)); err != nil {
			return fmt.Errorf("tile %d reads its input where it does not lie: %v", tile, err)
		}
	}
	return nil
}

func verifyBroadcast(op *ir.Operation, env *ir.Env) error {
	dims := intsOf(op, DimensionsAttrName)
	in, out := rankedOf(op.Operand(0)), rankedOf(op.Result(0))
	if in.Elem != out.Elem {
		return fmt.Errorf("input and result element types differ")
	}
	if len(dims) != len(in.Dims) {
		return fmt.Errorf("dimensions has %d entries but the input has rank %d", len(dims), len(in.Dims))
	}
	for i, d := range dims {
		if d < 0 || int(d) >= len(out.Dims) || (i > 0 && d <= dims[i-1]) {
			return fmt.Errorf("dimensions %v must be strictly increasing result axes", dims)
		}
		if in.Dims[i] != out.Dims[d] && in.Dims[i] != 1 {
			return fmt.Errorf("input axis %d of size %d cannot broadcast to result axis %d of size %d", i, in.Dims[i], d, out.Dims[d])
		}
	}
	return checkReads(env, op, func(r layout.Box) layout.Box {
		b := make(layout.Box, len(dims))
		for i, d := range dims {
			b[i] = layout.Span{Lo: 0, Hi: 1}
			if in.Dims[i] == out.Dims[d] {
				b[i] = r[d]
			}
		}
		return b
	})
}

// checkAxes checks a strictly increasing list of axes of a rank-r tensor.
func checkAxes(axes []int64, rank int) error {
	for i, a := range axes {
		if a < 0 || int(a) >= rank || (i > 0 && a <= axes[i-1]) {
			return fmt.Errorf("axes %v must be strictly increasing axes of the rank-%d input", axes, rank)
		}
	}
	return nil
}

func verifyReduce(op *ir.Operation, env *ir.Env) error {
	axes := intsOf(op, AxesAttrName)
	in, out := rankedOf(op.Operand(0)), rankedOf(op.Result(0))
	if err := checkAxes(axes, len(in.Dims)); err != nil {
		return err
	}
	im, err := layoutOfValue(env, op.Operand(0), "input")
	if err != nil {
		return err
	}
	want := slices.Clone(in.Dims)
	for _, a := range axes {
		want[a] = im.Partitions(int(a))
	}
	if in.Elem != out.Elem || !slices.Equal(out.Dims, want) {
		return fmt.Errorf("result %s must be %s: one entry per partition of each reduced axis",
			ir.TypeString(out), ir.TypeString(&ir.RankedTensorType{Dims: want, Elem: in.Elem}))
	}
	om, err := layoutOfValue(env, op.Result(0), "result")
	if err != nil {
		return err
	}
	for _, tile := range om.Tiles() {
		r, _ := om.BoxOnTile(tile)
		need := slices.Clone(r)
		for _, a := range axes {
			if r[a].Len() > 1 {
				return fmt.Errorf("tile %d holds %d entries along reduced axis %d; a tile reduces one partition", tile, r[a].Len(), a)
			}
			need[a] = layout.Span{Lo: 0, Hi: in.Dims[a]}
			if r[a].Len() == 1 {
				need[a] = im.PartitionSpan(int(a), r[a].Lo)
			}
		}
		have, ok := im.BoxOnTile(tile)
		if err := im.CheckCovers(tile, need); err != nil || !ok {
			return fmt.Errorf("tile %d reads its input where it does not lie: %v", tile, err)
		}
		for _, a := range axes {
			if have[a] != need[a] && need[a].Len() > 0 {
				return fmt.Errorf("tile %d holds input elements %v along reduced axis %d but reduces %v", tile, have[a], a, need[a])
			}
		}
	}
	return nil
}

func verifyCombine(op *ir.Operation, env *ir.Env) error {
	axes := intsOf(op, AxesAttrName)
	in, out := rankedOf(op.Operand(0)), rankedOf(op.Result(0))
	if err := checkAxes(axes, len(in.Dims)); err != nil {
		return err
	}
	var want []int64
	for i, d := range in.Dims {
		if !slices.Contains(axes, int64(i)) {
			want = append(want, d)
		}
	}
	if in.Elem != out.Elem || !slices.Equal(out.Dims, want) {
		return fmt.Errorf("result %s must be %s: the input without the combined axes",
			ir.TypeString(out), ir.TypeString(&ir.RankedTensorType{Dims: want, Elem: in.Elem}))
	}
	if _, err := layoutOfValue(env, op.Operand(0), "input"); err != nil {
		return err
	}
	_, err := layoutOfValue(env, op.Result(0), "result")
	return err
}

func verifyTranspose(op *ir.Operation, env *ir.Env) error {
	perm := intsOf(op, PermutationAttrName)
	in, out := rankedOf(op.Operand(0)), rankedOf(op.Result(0))
	seen := make([]bool, len(in.Dims))
	if len(perm) != len(in.Dims) {
		return fmt.Errorf("permutation has %d entries but the input has rank %d", len(perm), len(in.Dims))
	}
	for _, p := range perm {
		if p < 0 || int(p) >= len(seen) || seen[p] {
			return fmt.Errorf("permutation %v is not a permutation of the input's axes", perm)
		}
		seen[p] = true
	}
	for j, p := range perm {
		if out.Dims[j] != in.Dims[p] {
			return fmt.Errorf("result axis %d has size %d but input axis %d has %d", j, out.Dims[j], p, in.Dims[p])
		}
	}
	if in.Elem != out.Elem || len(out.Dims) != len(in.Dims) {
		return fmt.Errorf("result must have the input's element type and rank")
	}
	return checkReads(env, op, func(r layout.Box) layout.Box {
		b := make(layout.Box, len(perm))
		for j, p := range perm {
			b[p] = r[j]
		}
		return b
	})
}

func verifyReshape(op *ir.Operation, env *ir.Env) error {
	in, out := rankedOf(op.Operand(0)), rankedOf(op.Result(0))
	if in.Elem != out.Elem || ir.NumElements(in.Dims) != ir.NumElements(out.Dims) {
		return fmt.Errorf("result %s must have the input's element type and element count", ir.TypeString(out))
	}
	if _, err := layoutOfValue(env, op.Operand(0), "input"); err != nil {
		return err
	}
	if _, err := layoutOfValue(env, op.Result(0), "result"); err != nil {
		return err
	}
	li, _ := LayoutOf(in)
	lo, _ := LayoutOf(out)
	want, ok := layout.ReshapeLayout(li, in.Dims, out.Dims)
	if !ok {
		return fmt.Errorf("the input's shards are not contiguous chunks of the reshaped axes, so the reshape would move data: relayout the input first")
	}
	if !lo.SameDistribution(&want) || lo.Tiling.Replicas != want.Tiling.Replicas {
		return fmt.Errorf("result layout #tiled.layout<%s> does not keep the input's elements on their tiles: the reshape's layout is #tiled.layout<%s>", lo, &want)
	}
	return nil
}

func verifySlice(op *ir.Operation, env *ir.Env) error {
	in, out := rankedOf(op.Operand(0)), rankedOf(op.Result(0))
	off, sizes, strides := intsOf(op, OffsetsAttrName), intsOf(op, SizesAttrName), intsOf(op, StridesAttrName)
	r := len(in.Dims)
	if len(off) != r || len(sizes) != r || len(strides) != r {
		return fmt.Errorf("offsets, sizes and strides need one entry per input axis (%d)", r)
	}
	for i := range r {
		if off[i] < 0 || sizes[i] < 0 || strides[i] < 1 || (sizes[i] > 0 && off[i]+(sizes[i]-1)*strides[i] >= in.Dims[i]) {
			return fmt.Errorf("axis %d: %d elements from %d, %d apart, do not lie in the input's %d", i, sizes[i], off[i], strides[i], in.Dims[i])
		}
	}
	if in.Elem != out.Elem || !slices.Equal(out.Dims, sizes) {
		return fmt.Errorf("result %s must have the sizes %v and the input's element type", ir.TypeString(out), sizes)
	}
	if _, err := layoutOfValue(env, op.Operand(0), "input"); err != nil {
		return err
	}
	_, err := layoutOfValue(env, op.Result(0), "result")
	return err
}

func verifyConcat(op *ir.Operation, env *ir.Env) error {
	out := rankedOf(op.Result(0))
	axis := op.Attr(AxisAttrName).(*ir.IntegerAttr).Int
	if op.NumOperands() == 0 {
		return fmt.Errorf("needs at least one input")
	}
	if axis < 0 || int(axis) >= len(out.Dims) {
		return fmt.Errorf("axis %d is not an axis of the rank-%d result", axis, len(out.Dims))
	}
	total := int64(0)
	for i := 0; i < op.NumOperands(); i++ {
		in := rankedOf(op.Operand(i))
		if in.Elem != out.Elem || len(in.Dims) != len(out.Dims) {
			return fmt.Errorf("input #%d must have the result's rank and element type", i)
		}
		for a := range in.Dims {
			if int64(a) != axis && in.Dims[a] != out.Dims[a] {
				return fmt.Errorf("input #%d has size %d on axis %d, the result %d", i, in.Dims[a], a, out.Dims[a])
			}
		}
		total += in.Dims[axis]
		if _, err := layoutOfValue(env, op.Operand(i), fmt.Sprintf("input #%d", i)); err != nil {
			return err
		}
	}
	if total != out.Dims[axis] {
		return fmt.Errorf("inputs add up to %d on axis %d but the result has %d", total, axis, out.Dims[axis])
	}
	_, err := layoutOfValue(env, op.Result(0), "result")
	return err
}

// fnList lists the kernel table's functions with their operand counts,
// for the op's description.
func fnList() string {
	var parts []string
	for _, f := range kernel.Fns {
		parts = append(parts, fmt.Sprintf("%s (%d)", f.Name, f.Arity))
	}
	return strings.Join(parts, ", ")
}
