package tiled

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/elem/irelem"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/layout"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/target/irtarget"
)

// Op names of the dialect.
const (
	RelayoutOpName = "tiled.relayout"
	StreamInOpName = "tiled.stream_in"
	ShardOpName    = "tiled.shard"
	ViewOpName     = "tiled.view"
	MatmulOpName   = "tiled.matmul"
)

// Attribute names of the dialect's ops.
const (
	TileAttrName     = "tile"
	ExtentsAttrName  = "extents"
	PlanAttrName     = "plan"
	EstimateAttrName = "estimate"
	PartialAttrName  = "partial"
)

var (
	// LaidOutTensor accepts a statically shaped ranked tensor whose encoding
	// is a #tiled.layout.
	LaidOutTensor = ir.TypeConstraint{Desc: "statically shaped tensor with a #tiled.layout encoding", Pred: func(t ir.Type) bool {
		_, ok := LayoutOf(t)
		return ok && ir.NumElements(t.(*ir.RankedTensorType).Dims) >= 0
	}}
	// LocalTensor accepts a statically shaped ranked tensor without encoding:
	// one tile's buffer.
	LocalTensor = ir.TypeConstraint{Desc: "statically shaped tensor without encoding", Pred: func(t ir.Type) bool {
		rt, ok := t.(*ir.RankedTensorType)
		return ok && rt.Encoding == nil && ir.NumElements(rt.Dims) >= 0
	}}
	staticTensor = ir.TypeConstraint{Desc: "statically shaped tensor", Pred: func(t ir.Type) bool {
		rt, ok := t.(*ir.RankedTensorType)
		return ok && ir.NumElements(rt.Dims) >= 0
	}}

	extentsAttrKind  = ir.AttrKind{Desc: "#tiled.extents attribute", Pred: func(a ir.Attribute) bool { _, ok := a.(*ExtentsAttr); return ok }}
	PlanAttrKind     = ir.AttrKind{Desc: "#tiled.gemm_plan attribute", Pred: func(a ir.Attribute) bool { _, ok := a.(*GemmPlanAttr); return ok }}
	estimateAttrKind = ir.AttrKind{Desc: "#tiled.estimate attribute", Pred: func(a ir.Attribute) bool { _, ok := a.(*EstimateAttr); return ok }}
)

// The ops of the dialect, by definition: recognise them with
// op.Is(...), never by comparing names.
var (
	// RelayoutOp is tiled.relayout.
	RelayoutOp = &ir.OpDef{
		Name:    RelayoutOpName,
		Summary: "Moves a tensor into a layout.",
		Description: "The result holds the input's values in the result type's #tiled.layout. Between two " +
			"layouts that put the same elements on the same tiles it is a local copy on each tile; " +
			"otherwise it is an exchange. The input may have no layout (a model-level value entering " +
			"the tiled program) or another one.",
		Example:        "%1 = tiled.relayout %0 : tensor<729x1152xf16> -> tensor<729x1152xf16, #layout>",
		Operands:       []ir.ValueDef{{Name: "input", Type: staticTensor}},
		Results:        []ir.ValueDef{{Name: "result", Type: LaidOutTensor}},
		Traits:         ir.TraitPure,
		AssemblyFormat: "$input attr-dict `:` type($input) `->` type($result)",
		VerifyEnv:      verifyRelayout,
	}

	// StreamInOp is tiled.stream_in.
	StreamInOp = &ir.OpDef{
		Name:    StreamInOpName,
		Summary: "Loads a weight from the chip's streaming memory into a layout.",
		Description: "The input is a function argument marked tiled.streamed, which the host writes to the " +
			"chip's streaming memory (it has no layout: no tile holds it); the result holds its values " +
			"in the result type's #tiled.layout, from this op until its last reader. The load takes " +
			"the place of an exchange phase, after a sync, as long as the target's streaming transfer " +
			"of every byte the layout stores (each replica's shard included): Target.StreamingCycles.",
		Example:        "%1 = tiled.stream_in %w : tensor<1152x4304xf16> -> tensor<1152x4304xf16, #layout>",
		Operands:       []ir.ValueDef{{Name: "input", Type: LocalTensor}},
		Results:        []ir.ValueDef{{Name: "result", Type: LaidOutTensor}},
		AssemblyFormat: "$input attr-dict `:` type($input) `->` type($result)",
		VerifyEnv:      verifyStreamIn,
	}

	// ShardOp is tiled.shard.
	ShardOp = &ir.OpDef{
		Name:    ShardOpName,
		Summary: "One tile's shard of a laid-out tensor, as a local tensor.",
		Description: "The result is the whole stored shard on `tile`, padding included: its shape is the " +
			"shard's physical extent on each axis.",
		Example:        "%s = tiled.shard %t tile 45 : tensor<1x729x1152xf16, #layout> -> tensor<1x16x384xf16>",
		Operands:       []ir.ValueDef{{Name: "source", Type: LaidOutTensor}},
		Results:        []ir.ValueDef{{Name: "result", Type: LocalTensor}},
		Attributes:     []ir.AttrDef{{Name: TileAttrName, Kind: ir.I64AttrKind, Doc: "the tile whose shard is taken"}},
		Traits:         ir.TraitPure,
		AssemblyFormat: "$source `tile` custom<Tile>($tile) attr-dict `:` type($source) `->` type($result)",
		VerifyEnv:      verifyShard,
	}

	// ViewOp is tiled.view.
	ViewOp = &ir.OpDef{
		Name:    ViewOpName,
		Summary: "A region of the shard a tile stores, as a local tensor.",
		Description: "The extents are in the tensor's positions, one [start, logical_end, physical_end] " +
			"per axis; the result's shape is their physical sizes. Shard-view containment: the view " +
			"must lie inside the shard stored on `tile` (start no earlier, logical and physical ends " +
			"no later), or the op is rejected with `tensor view falls outside its storage shard`, the " +
			"layout, the shard extents and the view extents.",
		Example:        "%v = tiled.view %t tile 45 extents [[0, 1, 1], [720, 729, 736], [0, 16, 16]] : tensor<1x729x1152xf16, #layout> -> tensor<1x16x16xf16>",
		Operands:       []ir.ValueDef{{Name: "source", Type: LaidOutTensor}},
		Results:        []ir.ValueDef{{Name: "result", Type: LocalTensor}},
		Attributes:     []ir.AttrDef{{Name: TileAttrName, Kind: ir.I64AttrKind, Doc: "the tile whose shard is viewed"}, {Name: ExtentsAttrName, Kind: extentsAttrKind}},
		Traits:         ir.TraitPure,
		AssemblyFormat: "$source `tile` custom<Tile>($tile) `extents` custom<Extents>($extents) attr-dict `:` type($source) `->` type($result)",
		VerifyEnv:      verifyView,
	}

	// MatmulOp is tiled.matmul.
	MatmulOp = &ir.OpDef{
		Name:    MatmulOpName,
		Summary: "A matmul partitioned by a GEMM plan, on laid-out tensors.",
		Description: "C = A·B (rank 2) or per batch entry (rank 3), with the plan's orientation, partitions, " +
			"reduction and weight staging. The operands and the result must be in exactly the layouts " +
			"the plan gives them (LayoutsForPlan), except that the operand the AMP streams (order " +
			"amp_left) may be in any memory class of the target, and the plan must be feasible on the module's " +
			"target (ipu.target): every tile's AMP reads and writes inside its shards and its buffers " +
			"fit its memory classes. `estimate` is the planner's cost estimate.",
		Example: "%c = tiled.matmul %a, %b {plan = #gemm_plan} : tensor<729x1152xf16, #layout>, " +
			"tensor<1152x1152xf16, #layout1> -> tensor<729x1152xf16, #layout2>",
		Operands: []ir.ValueDef{{Name: "lhs", Type: LaidOutTensor}, {Name: "rhs", Type: LaidOutTensor}},
		Results:  []ir.ValueDef{{Name: "result", Type: LaidOutTensor}},
		Attributes: []ir.AttrDef{{Name: PlanAttrName, Kind: PlanAttrKind},
			{Name: EstimateAttrName, Kind: estimateAttrKind, Optional: true},
			{Name: PartialAttrName, Kind: ir.UnitAttrKind, Optional: true,
				Doc: "the result is the partial sums of every inner partition (PartialsLayout), which a tiled.combine reduces"},
			{Name: PartialsTypeAttrName, Kind: ir.TypeAttrKind, Optional: true,
				Doc: "the type each tile keeps its partial sums in, as tensor.matmul's: f32 (the default) or f16"}},
		Traits: ir.TraitPure,
		// The plan sits in the attribute dictionary: a dialect attribute
		// followed by `:` would read the type as its own.
		AssemblyFormat: "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)",
		VerifyEnv:      verifyMatmul,
	}
)

// ElemTypeOf maps an IR element type to an element type the targets
// compute on.
func ElemTypeOf(t ir.Type) (elem.Type, error) {
	if e, ok := irelem.Of(t); ok && target.Computes(e) {
		return e, nil
	}
	return elem.Invalid, fmt.Errorf("element type %s has no tile representation", ir.TypeString(ir.ElementTypeOrSelf(t)))
}

// CheckLayout is layout.Check for a value of type t.
func CheckLayout(l *layout.Layout, t *ir.RankedTensorType, tg *target.Target) (*layout.ShardMap, error) {
	et, err := ElemTypeOf(t.Elem)
	if err != nil && tg != nil {
		return nil, err
	}
	return layout.Check(l, t.Dims, et, tg)
}

// ReshapeLayouts is layout.ReshapeLayouts for a reshape from type in to
// type out.
func ReshapeLayouts(l *layout.Layout, in, out *ir.RankedTensorType, tg *target.Target) (layout.Layout, layout.Layout, error) {
	et, err := ElemTypeOf(in.Elem)
	if err != nil {
		return layout.Layout{}, layout.Layout{}, err
	}
	return layout.ReshapeLayouts(l, in.Dims, out.Dims, et, tg)
}

// layoutOfValue checks the layout of an operand's type and returns its map.
// Checks that need a machine run when env names a target.
func layoutOfValue(env *ir.Env, v *ir.Value, what string) (*layout.ShardMap, error) {
	t := v.Type().(*ir.RankedTensorType)
	l, _ := LayoutOf(t)
	tg, _ := irtarget.FromEnv(env)
	m, err := CheckLayout(l, t, tg)
	if err != nil {
		return nil, fmt.Errorf("%s layout is not valid for %s: %v", what, ir.TypeString(t), err)
	}
	return m, nil
}

func sameShapeAndElement(a, b *ir.RankedTensorType) bool {
	if a.Elem != b.Elem || len(a.Dims) != len(b.Dims) {
		return false
	}
	for i := range a.Dims {
		if a.Dims[i] != b.Dims[i] {
			return false
		}
	}
	return true
}

func verifyRelayout(op *ir.Operation, env *ir.Env) error {
	in := op.Operand(0).Type().(*ir.RankedTensorType)
	out := op.Result(0).Type().(*ir.RankedTensorType)
	if !sameShapeAndElement(in, out) {
		return fmt.Errorf("result %s must have the input's shape and element type (%s)", ir.TypeString(out), ir.TypeString(in))
	}
	if _, ok := LayoutOf(in); ok {
		if _, err := layoutOfValue(env, op.Operand(0), "input"); err != nil {
			return err
		}
	}
	_, err := layoutOfValue(env, op.Result(0), "result")
	return err
}

func verifyStreamIn(op *ir.Operation, env *ir.Env) error {
	in := op.Operand(0).Type().(*ir.RankedTensorType)
	out := op.Result(0).Type().(*ir.RankedTensorType)
	if !sameShapeAndElement(in, out) {
		return fmt.Errorf("result %s must have the input's shape and element type (%s)", ir.TypeString(out), ir.TypeString(in))
	}
	if !IsStreamedArgument(op.Operand(0)) {
		return fmt.Errorf("the input must be a function argument marked '%s' (a weight the host writes to streaming memory)", StreamedAttr)
	}
	_, err := layoutOfValue(env, op.Result(0), "result")
	return err
}

// IsStreamedArgument reports whether v is an argument of a function, marked
// StreamedAttr: a weight in the chip's streaming memory.
func IsStreamedArgument(v *ir.Value) bool {
	blk := v.OwnerBlock()
	if blk == nil || v.DefiningOp() != nil || blk.ParentOp() == nil || !ir.Implements[ir.FunctionLike](blk.ParentOp()) ||
		blk.Parent().Front() != blk {
		return false
	}
	return ir.ArgumentAttr(blk.ParentOp(), v.Index(), StreamedAttr) != nil
}

// StreamedBytes is what loading v, a laid-out value, from streaming memory
// writes into tiles: every stored shard's elements (each replica's), padding
// aside.
func StreamedBytes(v *ir.Value, tg *target.Target) (int64, error) {
	m, et, err := shardMapOf(v, tg)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, t := range m.Tiles() {
		shard, _ := m.OnTile(t)
		k := int64(1)
		for _, e := range shard.Extents {
			k *= e.LogicalSize()
		}
		n += k
	}
	return n * int64(et.Bytes()), nil
}

func tileOf(op *ir.Operation) int64 { return op.Attr(TileAttrName).(*ir.IntegerAttr).Int }

func verifyShard(op *ir.Operation, env *ir.Env) error {
	m, err := layoutOfValue(env, op.Operand(0), "source")
	if err != nil {
		return err
	}
	tile := tileOf(op)
	shard, ok := m.OnTile(tile)
	if !ok {
		return fmt.Errorf("tile %d holds no shard of the source (tile_count %d)", tile, m.Layout.Tiling.TileCount)
	}
	src := op.Operand(0).Type().(*ir.RankedTensorType)
	out := op.Result(0).Type().(*ir.RankedTensorType)
	want := make([]int64, len(shard.Extents))
	for i, e := range shard.Extents {
		want[i] = e.PhysicalSize()
	}
	if out.Elem != src.Elem || !slices.Equal(out.Dims, want) {
		return fmt.Errorf("result %s must be the shard on tile %d: %s", ir.TypeString(out), tile,
			ir.TypeString(&ir.RankedTensorType{Dims: want, Elem: src.Elem}))
	}
	return nil
}

func verifyView(op *ir.Operation, env *ir.Env) error {
	m, err := layoutOfValue(env, op.Operand(0), "source")
	if err != nil {
		return err
	}
	ext := op.Attr(ExtentsAttrName).(*ExtentsAttr)
	src := op.Operand(0).Type().(*ir.RankedTensorType)
	out := op.Result(0).Type().(*ir.RankedTensorType)
	if len(ext.Extents) != len(src.Dims) {
		return fmt.Errorf("extents give %d axes but the source has rank %d", len(ext.Extents), len(src.Dims))
	}
	if out.Elem != src.Elem || !slices.Equal(out.Dims, ext.Shape()) {
		return fmt.Errorf("result %s must have the extents' physical sizes %v and the source's element type", ir.TypeString(out), ext.Shape())
	}
	return m.CheckView(tileOf(op), ext.Extents)
}

// MatmulShapeOf reads a matmul's problem from its operand and result types:
// rank 2, or rank 3 with one batch axis.
func MatmulShapeOf(lhs, rhs, result ir.Type) (layout.MatmulShape, error) {
	a, okA := lhs.(*ir.RankedTensorType)
	b, okB := rhs.(*ir.RankedTensorType)
	c, okC := result.(*ir.RankedTensorType)
	if !okA || !okB || !okC {
		return layout.MatmulShape{}, fmt.Errorf("operands and result must be ranked tensors")
	}
	r := len(a.Dims)
	if (r != 2 && r != 3) || len(b.Dims) != r || len(c.Dims) != r {
		return layout.MatmulShape{}, fmt.Errorf("operands and result must all have rank 2, or rank 3 with one batch axis; got ranks %d, %d and %d",
			len(a.Dims), len(b.Dims), len(c.Dims))
	}
	s := layout.MatmulShape{Batched: r == 3, Batch: 1, M: a.Dims[r-2], K: a.Dims[r-1], N: b.Dims[r-1]}
	if r == 3 {
		s.Batch = a.Dims[0]
		if b.Dims[0] != s.Batch || c.Dims[0] != s.Batch {
			return layout.MatmulShape{}, fmt.Errorf("batch sizes differ: %d, %d and %d", a.Dims[0], b.Dims[0], c.Dims[0])
		}
	}
	if b.Dims[r-2] != s.K {
		return layout.MatmulShape{}, fmt.Errorf("contracting dimensions differ: lhs has %d columns, rhs has %d rows", s.K, b.Dims[r-2])
	}
	if c.Dims[r-2] != s.M || c.Dims[r-1] != s.N {
		return layout.MatmulShape{}, fmt.Errorf("result must be %dx%d, got %dx%d", s.M, s.N, c.Dims[r-2], c.Dims[r-1])
	}
	if a.Elem != b.Elem {
		return layout.MatmulShape{}, fmt.Errorf("operands have different element types: %s and %s", ir.TypeString(a.Elem), ir.TypeString(b.Elem))
	}
	var err error
	if s.Elem, err = ElemTypeOf(a.Elem); err != nil {
		return layout.MatmulShape{}, err
	}
	if s.ResultElem, err = ElemTypeOf(c.Elem); err != nil {
		return layout.MatmulShape{}, err
	}
	return s, nil
}

// MatmulShapeOfOp reads a tiled.matmul's problem, its partials type
// included; the partial sums of a `partial` matmul carry the inner
// partitions first and are f32, so its shape is read from C's.
func MatmulShapeOfOp(op *ir.Operation) (layout.MatmulShape, error) {
	s, err := matmulShapeOfOp(op)
	s.Partials = PartialsOf(op)
	return s, err
}

// PartialsTypeAttrName is tiled.matmul's (and tileasm.amp's) partials
// type, tensor.matmul's carried down.
const PartialsTypeAttrName = tensor.PartialsTypeAttr

// PartialsOf is a matmul's partials type (tensor.matmul's or
// tiled.matmul's partials_type), else the target's default.
func PartialsOf(op *ir.Operation) elem.Type {
	if p, ok := tensor.PartialsOf(op); ok {
		return p
	}
	return target.DefaultPartials
}

func matmulShapeOfOp(op *ir.Operation) (layout.MatmulShape, error) {
	resultType := op.Result(0).Type()
	if op.Attr(PartialAttrName) != nil {
		rt, ok := resultType.(*ir.RankedTensorType)
		lhs, ok2 := op.Operand(0).Type().(*ir.RankedTensorType)
		if !ok || !ok2 || len(rt.Dims) < 3 {
			return layout.MatmulShape{}, fmt.Errorf("the partial sums of a matmul are a tensor of rank 3 or 4 (inner partitions first)")
		}
		resultType = &ir.RankedTensorType{Dims: rt.Dims[1:], Elem: lhs.Elem}
	}
	return MatmulShapeOf(op.Operand(0).Type(), op.Operand(1).Type(), resultType)
}

// streamedFromAnotherClass reports whether got is want, the layout of the
// operand the AMP streams (order amp_left), in another memory class of the
// target: the streamed operand is read by ordinary loads, so any class
// holds it, where the AMP's right operand needs the class its plan names
// (weight_memory_class). tiled-assign-layouts puts a resident weight that
// its plan streams in the interleaved class when it fits there.
func streamedFromAnotherClass(got, want *layout.Layout, tg *target.Target) bool {
	if want.Order.Kind != layout.AmpLeft {
		return false
	}
	if _, err := tg.ClassByName(got.MemoryClass); err != nil {
		return false
	}
	moved := *got
	moved.MemoryClass = want.MemoryClass
	return moved.Equal(want)
}

func verifyMatmul(op *ir.Operation, env *ir.Env) error {
	partial := op.Attr(PartialAttrName) != nil
	s, err := MatmulShapeOfOp(op)
	if err != nil {
		return err
	}
	tg, ok := irtarget.FromEnv(env)
	if !ok {
		return fmt.Errorf("needs the module's target to check its plan: the module has no '%s' attribute naming one (known targets: %s)",
			irtarget.ModuleAttr, strings.Join(target.Names(), ", "))
	}
	plan := &op.Attr(PlanAttrName).(*GemmPlanAttr).Plan
	ls, err := layout.LayoutsForPlan(plan, s, tg)
	if err != nil {
		return fmt.Errorf("plan is not valid: %v", err)
	}
	result := &ls.Result
	if partial {
		if plan.InnerPartitions < 2 || plan.Steps() > 1 {
			return fmt.Errorf("only a spatial plan with inner partitions has partial sums")
		}
		rt := op.Result(0).Type().(*ir.RankedTensorType)
		f32 := op.Context().F32()
		if want := layout.PartialsShape(plan, s); !slices.Equal(rt.Dims, want) || rt.Elem != f32 {
			return fmt.Errorf("partial sums must be %s", ir.TypeString(&ir.RankedTensorType{Dims: want, Elem: f32}))
		}
		pl, err := layout.PartialsLayout(plan, s, tg)
		if err != nil {
			return err
		}
		result = &pl
	}
	for _, c := range []struct {
		what string
		v    *ir.Value
		want *layout.Layout
	}{{"lhs", op.Operand(0), &ls.LHS}, {"rhs", op.Operand(1), &ls.RHS}, {"result", op.Result(0), result}} {
		got, _ := LayoutOf(c.v.Type())
		if plan.Steps() > 1 && c.what != "result" {
			continue // a temporal plan's steps slice an operand wherever it is (a home weight in place)
		}
		if !got.Equal(c.want) && !streamedFromAnotherClass(got, c.want, tg) {
			return fmt.Errorf("%s layout #tiled.layout<%s> is not the one the plan gives it: #tiled.layout<%s>", c.what, got, c.want)
		}
	}
	if _, err := layout.VerifyPlan(plan, s, tg); err != nil {
		return fmt.Errorf("plan is not feasible: %v", err)
	}
	return nil
}
