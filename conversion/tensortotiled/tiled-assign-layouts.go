package tensortotiled

import (
	"slices"

	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/dialects/tiled"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/layout"
	"github.com/ipuir/ipuir/passes"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/target/irtarget"
)

// TiledAssignLayouts gives every tensor value of every function a
// #tiled.layout and inserts tiled.relayout where an op needs an operand
// in another layout, so that convert-tensor-to-tiled finds every op's
// operands where its tiled form reads them. The rules, in program order:
//
//   - a matmul's operands and result are in its plan's layouts;
//   - a function argument read only as matmul weights is in the layout
//     its readers agree on, any other argument in the default layout;
//   - an elementwise op computes in the layout of its first operand that
//     has one, and its other operands are moved there;
//   - a transpose, and a reshape where the shards allow, leave their
//     result in the layout derived from their input (layout.PermuteLayout,
//     layout.ReshapeLayouts), so no data moves; a reduction's result is
//     where tiled.combine leaves it (layout.ReduceLayouts);
//   - constants and broadcasts have no layout of their own: they take the
//     one their first user wants (in reverse program order, so that chains
//     of them settle), a broadcast reading its input in the projection of
//     its result (layout.BroadcastLayouts). A constant wanted in several
//     layouts is placed once per layout: it is initial data, and a splat is
//     one scalar per tile.
type TiledAssignLayouts struct {
	NumRelayouts passes.Statistic `statistic:"num-relayouts" help:"Number of tiled.relayout ops inserted"`
	NumValues    passes.Statistic `statistic:"num-values" help:"Number of values given a layout"`
}

func (*TiledAssignLayouts) Name() string { return "tiled-assign-layouts" }
func (*TiledAssignLayouts) Summary() string {
	return "Give every tensor value a #tiled.layout encoding and insert tiled.relayout where users need another"
}
func (*TiledAssignLayouts) Anchor() string { return ir.ModuleOpName }
func (*TiledAssignLayouts) Requires() []*ir.Fact {
	return []*ir.Fact{irtarget.Named, tiled.GemmsPlanned}
}
func (*TiledAssignLayouts) Provides() []*ir.Fact { return []*ir.Fact{tiled.LaidOut} }

func (p *TiledAssignLayouts) Run(module *ir.Operation, pc *passes.PassContext) error {
	tg, err := irtarget.Of(module, pc.Env())
	if err != nil {
		return err
	}
	var called *ir.Operation
	module.Walk(func(op *ir.Operation) ir.WalkResult {
		if ir.Implements[ir.CallLike](op) {
			called = op
			return ir.WalkInterrupt
		}
		return ir.WalkAdvance
	})
	if called != nil {
		return called.EmitOpError("tiled-assign-layouts lays out whole functions and cannot change the types of a call")
	}
	if err := refuseStrings(module); err != nil {
		return err
	}
	for _, fn := range functions(module) {
		homes, placer, err := homeLayouts(fn, tg)
		if err != nil {
			return fn.EmitOpError("%v", err)
		}
		a := &layoutAssigner{ctx: pc.Context(), t: tg, fn: fn, layout: map[*ir.Value]*tiled.LayoutAttr{},
			plans: map[*ir.Operation]*layout.PlanLayouts{}, need: map[operandKey]*tiled.LayoutAttr{},
			relayouts: map[relayoutKey]*ir.Value{}, homes: homes, placer: placer}
		if err := a.run(); err != nil {
			return err
		}
		p.NumRelayouts.Add(uint64(a.numRelayouts))
		p.NumValues.Add(uint64(len(a.layout)))
	}
	return nil
}

type relayoutKey struct {
	v *ir.Value
	l *tiled.LayoutAttr
}

type operandKey struct {
	op *ir.Operation
	i  int
}

type layoutAssigner struct {
	ctx    *ir.Context
	t      *target.Target
	fn     *ir.Operation
	layout map[*ir.Value]*tiled.LayoutAttr
	plans  map[*ir.Operation]*layout.PlanLayouts
	// need holds operand layouts an op asks for beyond what its kind
	// implies (a reshape's or broadcast's input).
	need         map[operandKey]*tiled.LayoutAttr
	relayouts    map[relayoutKey]*ir.Value
	numRelayouts int
	// homes are the home weights' layouts (homeLayouts).
	homes map[*ir.Value]layout.Layout
	// placer spreads what is stored once over the chip: the homes, then
	// the constants no user asks a layout of (storeConstant).
	placer *tilePlacer
}

// flexible ops take their result's layout from their users.
func flexible(op *ir.Operation) bool {
	return op.Is(tensor.ConstantOp, tensor.SplatOp, tensor.BroadcastOp, tensor.ConcatOp)
}

// isElementwise reports whether op is a tensor op that computes each
// element from the operands' elements at the same place (ir.Elementwise).
func isElementwise(op *ir.Operation) bool {
	return inTensorDialect(op) && ir.Implements[ir.Elementwise](op)
}

func (a *layoutAssigner) run() error {
	if a.fn.NumRegions() == 0 || a.fn.Region(0).Empty() {
		return nil // a declaration
	}
	body := a.fn.Region(0)
	if body.NumBlocks() != 1 {
		return a.fn.EmitOpError("tiled-assign-layouts handles functions of one block")
	}
	entry := body.Front()
	ops := entry.Ops()
	for _, op := range ops {
		if op.NumRegions() > 0 {
			return op.EmitOpError("tiled-assign-layouts does not lay out ops with regions")
		}
		if isMatmul(op) {
			if err := a.planOf(op); err != nil {
				return err
			}
		}
		for _, r := range op.Results() {
			if err := checkStatic(r, op); err != nil {
				return err
			}
		}
	}
	a.streamWeightsFromInterleaved(ops)
	for i, arg := range entry.Arguments() {
		if _, ok := arg.Type().(*ir.RankedTensorType); !ok && !arg.HasUses() {
			// The host streams tensors to the tiles; an unused scalar would
			// be dropped from the program without a word (a used one is
			// refused where it is used, by convert-tensor-to-tiled).
			return a.fn.EmitOpError("argument #%d has type '%s': the device takes tensors only (pass a scalar as a tensor of rank 0, such as tensor<%s>)",
				i, ir.TypeString(arg.Type()), ir.TypeString(arg.Type()))
		}
		if err := checkStatic(arg, a.fn); err != nil {
			return err
		}
		if err := a.assignArgument(arg); err != nil {
			return err
		}
	}
	var deferred []*ir.Operation
	for _, op := range ops {
		ok, err := a.assignForward(op)
		if err != nil {
			return err
		}
		if !ok {
			deferred = append(deferred, op)
		}
	}
	for _, op := range slices.Backward(deferred) {
		if a.layout[op.Result(0)] != nil {
			continue // settled when an op derived its layout from it
		}
		if err := a.assignFromUsers(op); err != nil {
			return err
		}
	}
	// Weights read through a concat (the parts of a jointly planned
	// matmul) learn where their readers want them only now.
	for _, arg := range entry.Arguments() {
		if isResident(arg) {
			if l := a.commonRequirement(arg); l != nil {
				a.layout[arg] = l
			}
		}
	}
	for v, l := range a.layout {
		rt := v.Type().(*ir.RankedTensorType)
		v.SetType(a.ctx.TensorWithEncoding(rt.Dims, rt.Elem, l))
	}
	for _, op := range ops {
		for i := 0; i < op.NumOperands(); i++ {
			want := a.required(op, i)
			v := op.Operand(i)
			if want == nil || (a.layout[v] != nil && a.layout[v].Layout.Equal(&want.Layout)) {
				continue
			}
			op.SetOperand(i, a.relayout(v, want, op))
		}
	}
	for _, op := range ops {
		if op.Is(tensor.ConstantOp, tensor.SplatOp) && !op.Result(0).HasUses() {
			op.Erase()
		}
	}
	return a.updateSignature(entry)
}

func checkStatic(v *ir.Value, at *ir.Operation) error {
	rt, ok := v.Type().(*ir.RankedTensorType)
	if !ok {
		return nil
	}
	if rt.Encoding != nil {
		return at.EmitOpError("tiled-assign-layouts expects tensors without encoding, found %s", ir.TypeString(rt))
	}
	if ir.NumElements(rt.Dims) < 0 {
		return at.EmitOpError("cannot lay out the dynamically shaped %s", ir.TypeString(rt))
	}
	return nil
}

func (a *layoutAssigner) planOf(op *ir.Operation) error {
	pa, ok := op.Attr(tiled.PlanAnnotation).(*tiled.GemmPlanAttr)
	if !ok {
		return op.EmitOpError("has no '%s' attribute: run plan-gemms before tiled-assign-layouts", tiled.PlanAnnotation)
	}
	shape, err := tiled.MatmulShapeOf(op.Operand(0).Type(), op.Operand(1).Type(), op.Result(0).Type())
	if err != nil {
		return op.EmitOpError("%v", err)
	}
	ls, err := layout.LayoutsForPlan(&pa.Plan, shape, a.t)
	if err != nil {
		return op.EmitOpError("plan %s is not valid: %v", ir.AttrString(pa), err)
	}
	a.plans[op] = ls
	return nil
}

// streamWeightsFromInterleaved moves resident weights that their plans
// stream (the AMP's left operand, order amp_left: a swapped plan's
// weights) from the standard class to the interleaved one where that
// class has room for them from the program's start to their matmul. A
// resident weight lives from the first step, so in standard memory it
// sits beside every earlier matmul's operands (the attention block's
// output projection holds 82,944 bytes a tile through the whole block);
// the interleaved class, which holds no code, is mostly free outside the
// AMP's right operands. The streamed operand is read by ordinary loads,
// so the matmul's cycles are the same (tiled.matmul's verifier accepts
// the streamed operand in any class). A weight moves only when, at every
// matmul up to its reader, that matmul's interleaved peak (its
// estimate), the resident weights plans put in interleaved for later
// matmuls and the weights moved before it leave its bytes free, weights
// taken in program order.
func (a *layoutAssigner) streamWeightsFromInterleaved(ops []*ir.Operation) {
	interleaved, err := a.t.Class(target.Interleaved)
	if err != nil {
		return
	}
	var matmuls []*ir.Operation
	for _, op := range ops {
		if a.plans[op] != nil {
			matmuls = append(matmuls, op)
		}
	}
	operandLayout := func(op *ir.Operation, k int) *layout.Layout {
		if k == 0 {
			return &a.plans[op].LHS
		}
		return &a.plans[op].RHS
	}
	shardBytes := func(v *ir.Value, l *layout.Layout) (int64, bool) {
		rt := v.Type().(*ir.RankedTensorType)
		et, err := tiled.ElemTypeOf(rt)
		if err != nil {
			return 0, false
		}
		m, err := layout.NewShardMap(l, rt.Dims, int64(a.t.Tiles))
		if err != nil {
			return 0, false
		}
		n := m.MaxShardElements() * int64(et.Bytes())
		return (n + interleaved.Alignment - 1) / interleaved.Alignment * interleaved.Alignment, true
	}
	used := make([]int64, len(matmuls))
	for j, op := range matmuls {
		est, ok := op.Attr(tiled.EstimateAnnotation).(*tiled.EstimateAttr)
		if !ok {
			return // no estimate to plan the class's memory by
		}
		used[j] += est.Estimate.PeakInterleavedBytes
		for k := range 2 {
			if l := operandLayout(op, k); isResident(op.Operand(k)) && l.MemoryClass == interleaved.Name {
				if b, ok := shardBytes(op.Operand(k), l); ok {
					for i := range j {
						used[i] += b
					}
				}
			}
		}
	}
	for j, op := range matmuls {
		for k := range 2 {
			v, l := op.Operand(k), operandLayout(op, k)
			if l.Order.Kind != layout.AmpLeft || l.MemoryClass == interleaved.Name || !isResident(v) ||
				v.DefiningOp() != nil || !v.HasOneUse() || a.plans[op].Step != nil {
				continue
			}
			b, ok := shardBytes(v, l)
			if !ok || slices.ContainsFunc(used[:j+1], func(u int64) bool { return u+b > interleaved.Size() }) {
				continue
			}
			for i := range j + 1 {
				used[i] += b
			}
			l.MemoryClass = interleaved.Name
		}
	}
}

func (a *layoutAssigner) attr(l layout.Layout) *tiled.LayoutAttr {
	return tiled.NewLayoutAttr(a.ctx, l)
}

// set gives v the layout l after checking that it fits the target.
func (a *layoutAssigner) set(v *ir.Value, l layout.Layout, at *ir.Operation) error {
	rt := v.Type().(*ir.RankedTensorType)
	if _, err := tiled.CheckLayout(&l, rt, a.t); err != nil {
		return at.EmitOpError("no layout fits %s on target %s: %v", ir.TypeString(rt), a.t.Name, err)
	}
	a.layout[v] = a.attr(l)
	return nil
}

func (a *layoutAssigner) setDefault(v *ir.Value, at *ir.Operation) error {
	rt := v.Type().(*ir.RankedTensorType)
	l, err := layout.DefaultLayout(rt.Dims, a.t)
	if err != nil {
		return at.EmitOpError("no layout fits %s on target %s: %v", ir.TypeString(rt), a.t.Name, err)
	}
	return a.set(v, l, at)
}

// storeConstant lays out a constant that no user asks a layout of (a
// bias a reshape reads, say) as a home is: in pieces of at least
// layout.StoredPieceBytes, on the least loaded tiles. The default layout
// put one element on each of the first tiles, so that every reader took
// one exchange-table entry per element and the first tiles held a piece
// of every such constant in the program.
func (a *layoutAssigner) storeConstant(v *ir.Value, at *ir.Operation) error {
	rt := v.Type().(*ir.RankedTensorType)
	et, err := tiled.ElemTypeOf(rt)
	if err != nil {
		return a.setDefault(v, at)
	}
	l, err := layout.StorageLayout(rt.Dims, int64(et.Bytes()), a.t)
	if err != nil {
		return at.EmitOpError("no layout fits %s on target %s: %v", ir.TypeString(rt), a.t.Name, err)
	}
	a.placer.placeHome(&l, rt)
	return a.set(v, l, at)
}

func (a *layoutAssigner) assignArgument(arg *ir.Value) error {
	if _, ok := arg.Type().(*ir.RankedTensorType); !ok || isStreamed(arg) {
		return nil // a streamed weight is in no tile's memory
	}
	if isResident(arg) {
		if l := a.commonRequirement(arg); l != nil {
			a.layout[arg] = l
			return nil
		}
	}
	if l, ok := a.homes[arg]; ok {
		return a.set(arg, l, a.fn)
	}
	return a.setDefault(arg, a.fn)
}

// layoutOf returns v's layout, giving a value that has none yet (a
// constant or broadcast read before its layout is settled) the default.
func (a *layoutAssigner) layoutOf(v *ir.Value, at *ir.Operation) (*layout.Layout, error) {
	if l := a.layout[v]; l != nil {
		return &l.Layout, nil
	}
	// A value whose layout comes from its users, read by an op that derives
	// its own from it: settle it now, once, as the users known so far want.
	if def := v.DefiningOp(); def != nil && def.NumResults() == 1 && def.Result(0) == v {
		if err := a.assignFromUsers(def); err != nil {
			return nil, err
		}
		return &a.layout[v].Layout, nil
	}
	if err := a.setDefault(v, at); err != nil {
		return nil, err
	}
	return &a.layout[v].Layout, nil
}

// assignForward lays out op's results from its operands; it returns false
// for an op whose result takes its layout from its users.
func (a *layoutAssigner) assignForward(op *ir.Operation) (bool, error) {
	if op.NumResults() != 1 {
		return true, nil
	}
	r := op.Result(0)
	rt, ok := r.Type().(*ir.RankedTensorType)
	if !ok {
		return true, nil
	}
	switch {
	case a.plans[op] != nil:
		a.layout[r] = a.attr(a.plans[op].Result)
	case flexible(op):
		return false, nil
	case isElementwise(op):
		for _, v := range op.Operands() {
			if l := a.layout[v]; l != nil {
				if op.Is(tensor.ConvertOp) {
					return true, a.set(r, l.Layout, op)
				}
				a.layout[r] = l
				return true, nil
			}
		}
		return false, nil
	case op.Is(tensor.TransposeOp):
		in, err := a.layoutOf(op.Operand(0), op)
		if err != nil {
			return true, err
		}
		return true, a.set(r, layout.PermuteLayout(in, op.Attr(tensor.PermutationAttr).(*ir.DenseArrayAttr).Ints), op)
	case op.Is(tensor.ReshapeOp):
		in, err := a.layoutOf(op.Operand(0), op)
		if err != nil {
			return true, err
		}
		inL, outL, err := tiled.ReshapeLayouts(in, op.Operand(0).Type().(*ir.RankedTensorType), rt, a.t)
		if err != nil {
			return true, op.EmitOpError("cannot be tiled: %v", err)
		}
		a.need[operandKey{op, 0}] = a.attr(inL)
		return true, a.set(r, outL, op)
	case op.Is(tensor.SliceOp):
		in, err := a.layoutOf(op.Operand(0), op)
		if err != nil {
			return true, err
		}
		if axis, lo, hi, ok := sliceRange(op); ok {
			if l, ok := layout.SliceLayout(in, op.Operand(0).Type().(*ir.RankedTensorType).Dims, axis, lo, hi); ok {
				return true, a.set(r, l, op)
			}
		}
		if window, ok := a.windowInput(op); ok {
			// A kernel position's slice of a window: the input in blocks,
			// each slice beside them (moving its halo); an input laid out
			// otherwise is moved there once for all its slices.
			if !in.Equal(&window.Layout) {
				a.need[operandKey{op, 0}] = window
				in = &window.Layout
			}
			offsets, sizes, strides := sliceAttrs(op)
			if l, ok := layout.WindowSliceLayout(in, op.Operand(0).Type().(*ir.RankedTensorType).Dims, offsets, sizes, strides); ok {
				return true, a.set(r, l, op)
			}
			delete(a.need, operandKey{op, 0})
		}
		return true, a.setDefault(r, op)
	case op.Is(tensor.ReduceSumOp, tensor.ReduceMaxOp):
		in, err := a.layoutOf(op.Operand(0), op)
		if err != nil {
			return true, err
		}
		_, _, res, err := layout.ReduceLayouts(in, op.Operand(0).Type().(*ir.RankedTensorType).Dims,
			op.Attr(tensor.AxesAttr).(*ir.DenseArrayAttr).Ints, a.t)
		if err != nil {
			return true, op.EmitOpError("cannot be tiled: %v", err)
		}
		return true, a.set(r, res, op)
	default:
		return true, a.setDefault(r, op)
	}
	return true, nil
}

// assignFromUsers lays out the result of a flexible op (or an elementwise
// op of flexible operands) in the layout its first user wants.
func (a *layoutAssigner) assignFromUsers(op *ir.Operation) error {
	r := op.Result(0)
	if l, ok := a.homes[r]; ok {
		return a.set(r, l, op) // stored once; moved before each use
	}
	var want *tiled.LayoutAttr
	r.Uses(func(u *ir.OpOperand) {
		if want == nil {
			want = a.wantedBy(u.Owner(), u.Index())
		}
	})
	if want == nil && op.Is(tensor.ConstantOp) {
		if err := a.storeConstant(r, op); err != nil {
			return err
		}
	} else if want == nil {
		if err := a.setDefault(r, op); err != nil {
			return err
		}
	} else if err := a.set(r, want.Layout, op); err != nil {
		return err
	}
	if op.Is(tensor.ConcatOp) {
		// Each input in the slice of the result it fills, when that takes
		// whole shards: the concat then moves nothing.
		out := r.Type().(*ir.RankedTensorType)
		axis := int(op.Attr(tensor.AxisAttr).(*ir.IntegerAttr).Int)
		start := int64(0)
		for i, v := range op.Operands() {
			n := v.Type().(*ir.RankedTensorType).Dims[axis]
			if l, ok := layout.SliceLayout(&a.layout[r].Layout, out.Dims, axis, start, start+n); ok {
				a.need[operandKey{op, i}] = a.attr(l)
			}
			start += n
		}
	}
	if op.Is(tensor.BroadcastOp) {
		out := r.Type().(*ir.RankedTensorType)
		in := op.Operand(0).Type().(*ir.RankedTensorType)
		inL, computeL := layout.BroadcastLayouts(&a.layout[r].Layout, out.Dims, in.Dims,
			op.Attr(tensor.DimensionsAttr).(*ir.DenseArrayAttr).Ints)
		a.need[operandKey{op, 0}] = a.attr(inL)
		if !computeL.Equal(&a.layout[r].Layout) {
			// The broadcast computes in a layout of its own and is moved to
			// its users' after: in standard memory, whatever class they
			// want. The interleaved class is small and is for what the
			// AMP loads; a broadcast's whole rows there (a one-hot's
			// comparison, replicated over a plan's rows) can crowd out
			// the operand the plan put there.
			if std, err := a.t.Class(target.Standard); err == nil {
				computeL.MemoryClass = std.Name
			}
			return a.set(r, computeL, op)
		}
	}
	return nil
}

// wantedBy is the layout op wants its operand i in, if it wants one and
// knows it yet.
func (a *layoutAssigner) wantedBy(op *ir.Operation, i int) *tiled.LayoutAttr {
	if ls, ok := a.plans[op]; ok && i < 2 {
		return a.attr([]layout.Layout{ls.LHS, ls.RHS}[i])
	}
	if isElementwise(op) && op.NumResults() == 1 {
		if l := a.layout[op.Result(0)]; l != nil && !op.Is(tensor.ConvertOp) {
			return l
		}
		if l := a.layout[op.Result(0)]; l != nil {
			return a.attr(l.Layout)
		}
	}
	if l, ok := a.windowInput(op); ok && i == 0 {
		return l
	}
	return a.need[operandKey{op, i}]
}

// windowInput is the layout that op, a slice of a window (a kernel
// position's strided slice of a channels-last input [N, s…, C], which
// tensor-decompose makes of a convolution), reads its input in: the
// input's own when that is already cut in window blocks, else
// layout.WindowInputLayout. ok is false for other slices.
func (a *layoutAssigner) windowInput(op *ir.Operation) (*tiled.LayoutAttr, bool) {
	if !op.Is(tensor.SliceOp) {
		return nil, false
	}
	inShape := op.Operand(0).Type().(*ir.RankedTensorType).Dims
	offsets, sizes, strides := sliceAttrs(op)
	r := len(inShape)
	if r < 3 || sizes[0] != inShape[0] || sizes[r-1] != inShape[r-1] || offsets[0] != 0 || offsets[r-1] != 0 {
		return nil, false
	}
	if l := a.layout[op.Operand(0)]; l != nil {
		if _, ok := layout.WindowSliceLayout(&l.Layout, inShape, offsets, sizes, strides); ok {
			return l, true
		}
	}
	l, ok := layout.WindowInputLayout(inShape, sizes[1:r-1], strides[1:r-1], a.t)
	if !ok {
		return nil, false
	}
	return a.attr(l), true
}

// sliceAttrs are a tensor.slice's offsets, sizes and strides.
func sliceAttrs(op *ir.Operation) (offsets, sizes, strides []int64) {
	return op.Attr(tensor.OffsetsAttr).(*ir.DenseArrayAttr).Ints, op.Attr(tensor.SizesAttr).(*ir.DenseArrayAttr).Ints,
		op.Attr(tensor.StridesAttr).(*ir.DenseArrayAttr).Ints
}

// required is the layout op needs operand i in, or nil for any.
func (a *layoutAssigner) required(op *ir.Operation, i int) *tiled.LayoutAttr {
	if _, ok := op.Operand(i).Type().(*ir.RankedTensorType); !ok {
		return nil
	}
	if ls, ok := a.plans[op]; ok && i < 2 {
		if ls.Step != nil && a.layout[op.Operand(i)] != nil {
			// A temporal plan's steps slice an operand where it is: a
			// home weight where it is stored, an activation where its
			// producer left it. Moving each whole to the default layout
			// first moved every weight of a ViT-B/16 MLP (9.4 MB) before
			// each use, and cut its input one row a tile, so that each
			// step's tile gathered its rows from 66 tiles. (A streamed
			// weight has no layout: it is streamed in, in the plan's.)
			return nil
		}
		return a.attr([]layout.Layout{ls.LHS, ls.RHS}[i])
	}
	if isElementwise(op) {
		return a.layout[op.Result(0)]
	}
	return a.need[operandKey{op, i}]
}

// commonRequirement is the layout every reader of v wants, if they agree.
func (a *layoutAssigner) commonRequirement(v *ir.Value) *tiled.LayoutAttr {
	var common *tiled.LayoutAttr
	agree := true
	v.Uses(func(u *ir.OpOperand) {
		want := a.wantedBy(u.Owner(), u.Index())
		if want == nil || (common != nil && common != want) {
			agree = false
		}
		common = want
	})
	if !agree {
		return nil
	}
	return common
}

// relayout returns v in layout l for user: a tiled.relayout after v's
// definition, or for a constant, the constant placed in l. A weight in its
// home layout (tiled.HomeAttr) is brought over just before its first
// user instead, so that the copy lives only around its use, and a
// streamed weight (tiled.StreamedAttr) is loaded from streaming memory
// just before each reader (tiled.stream_in).
func (a *layoutAssigner) relayout(v *ir.Value, l *tiled.LayoutAttr, user *ir.Operation) *ir.Value {
	key := relayoutKey{v, l}
	if r, ok := a.relayouts[key]; ok {
		return r
	}
	b := ir.NewBuilder(a.ctx)
	def := v.DefiningOp()
	rt := v.Type().(*ir.RankedTensorType)
	if isStreamed(v) {
		// Loaded from streaming memory just before its reader, for each
		// reader: the copy lives only around its use.
		b.SetInsertionPoint(user)
		a.numRelayouts++
		return b.Create(&ir.OperationState{Name: tiled.StreamInOpName, Loc: v.Loc(), Operands: []*ir.Value{v},
			ResultTypes: []ir.Type{a.ctx.TensorWithEncoding(rt.Dims, rt.Elem, l)}}).Result(0)
	}
	switch {
	case isHome(v) && user.Block() == v.OwnerBlock():
		b.SetInsertionPoint(user) // users are visited in program order
	case def != nil:
		b.SetInsertionPointAfter(def)
	default:
		b.SetInsertionPointToStart(v.OwnerBlock())
	}
	st := &ir.OperationState{Name: tiled.RelayoutOpName, Loc: v.Loc(), Operands: []*ir.Value{v},
		ResultTypes: []ir.Type{a.ctx.TensorWithEncoding(rt.Dims, rt.Elem, l)}}
	if def != nil && def.Is(tensor.ConstantOp, tensor.SplatOp) && !isHome(v) {
		// Every attribute, inherent (the constant's value is a property
		// when the op was parsed from the generic form) or not.
		st = &ir.OperationState{Name: def.Name(), Loc: def.Loc(), Operands: def.Operands(), ResultTypes: st.ResultTypes,
			Attrs: def.AllAttrs()}
	} else {
		a.numRelayouts++
	}
	r := b.Create(st).Result(0)
	a.relayouts[key] = r
	return r
}

func (a *layoutAssigner) updateSignature(entry *ir.Block) error {
	fn, _ := ir.Interface[ir.FunctionLike](a.fn)
	old := fn.FunctionType(a.fn)
	if old == nil {
		return a.fn.EmitOpError("has no function type")
	}
	inputs := make([]ir.Type, entry.NumArguments())
	for i, arg := range entry.Arguments() {
		inputs[i] = arg.Type()
	}
	results := old.Results
	if term := entry.Last(); term != nil && term.HasTrait(ir.TraitReturnLike) {
		results = term.OperandTypes()
	}
	fn.SetFunctionType(a.fn, a.ctx.Function(inputs, results))
	return nil
}

// sliceRange returns the one axis a unit-stride slice cuts and its range.
func sliceRange(op *ir.Operation) (int, int64, int64, bool) {
	in := op.Operand(0).Type().(*ir.RankedTensorType)
	off := op.Attr(tensor.OffsetsAttr).(*ir.DenseArrayAttr).Ints
	sizes := op.Attr(tensor.SizesAttr).(*ir.DenseArrayAttr).Ints
	strides := op.Attr(tensor.StridesAttr).(*ir.DenseArrayAttr).Ints
	axis := -1
	for i := range off {
		if strides[i] != 1 {
			return 0, 0, 0, false
		}
		if off[i] != 0 || sizes[i] != in.Dims[i] {
			if axis >= 0 {
				return 0, 0, 0, false
			}
			axis = i
		}
	}
	if axis < 0 {
		return 0, 0, in.Dims[0], true
	}
	return axis, off[axis], off[axis] + sizes[axis], true
}

// refuseStrings names the first function argument or op that holds
// strings: only the reference interpreter computes on them, and no tile
// has a representation for one (nor for the lengths a StringNormalizer
// leaves to run time).
func refuseStrings(module *ir.Operation) error {
	const why = "holds strings, which only the reference interpreter computes on: no machine has a representation for them"
	for _, fn := range functions(module) {
		for _, r := range fn.Regions() {
			for _, b := range r.Blocks() {
				for i, a := range b.Arguments() {
					if tensor.IsStringTensor(a.Type()) {
						return fn.EmitOpError("argument #%d %s", i, why)
					}
				}
			}
		}
	}
	var bad *ir.Operation
	module.Walk(func(op *ir.Operation) ir.WalkResult {
		for _, v := range op.Results() {
			if tensor.IsStringTensor(v.Type()) {
				bad = op
				return ir.WalkInterrupt
			}
		}
		return ir.WalkAdvance
	})
	if bad != nil {
		return bad.EmitOpError("%s", why)
	}
	return nil
}
