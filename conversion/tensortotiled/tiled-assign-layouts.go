package tensortotiled

import (
	"slices"

	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/dialects/tiled"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/passes"
	"github.com/ipuir/ipuir/target"
)

// TiledAssignLayouts is the `tiled-assign-layouts` pass: it gives every
// statically shaped tensor value of each function a #tiled.layout, as the
// encoding of its type, and inserts tiled.relayout where a value's layout is
// not the one its user needs. It runs after plan-gemms:
//
//   - a planned matmul's result has its plan's result layout, and its
//     operands must be in the plan's operand layouts;
//   - a layout-preserving op (elementwise, softmax, layer_norm, gelu,
//     convert) computes where its first operand lies: its result takes that
//     layout, and its other operands of the same shape must be in it;
//   - weights (function arguments used only as the right operand of
//     matmuls) are placed at load time, so they take the layout their users
//     need when all of them need the same one; constants keep their type
//     (it is their value's) and are relaid out where users need a layout;
//   - every other value (host inputs, transposed, reshaped, reduced values)
//     gets tiled.DefaultLayout: spread over the tiles, row major.
//
// Function signatures follow. Functions that are called are left alone,
// since their callers would need new types too; the pass reports them.
type TiledAssignLayouts struct {
	NumRelayouts passes.Statistic `statistic:"num-relayouts" help:"Number of tiled.relayout ops inserted"`
	NumValues    passes.Statistic `statistic:"num-values" help:"Number of values given a layout"`
}

func (*TiledAssignLayouts) Name() string { return "tiled-assign-layouts" }
func (*TiledAssignLayouts) Summary() string {
	return "Give every tensor value a #tiled.layout encoding and insert tiled.relayout where users need another"
}
func (*TiledAssignLayouts) Anchor() string { return ir.ModuleOpName }

func (p *TiledAssignLayouts) Run(module *ir.Operation, pc *passes.PassContext) error {
	tg, err := targetOf(module, pc)
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
	for _, fn := range functions(module) {
		a := &layoutAssigner{ctx: pc.Context(), t: tg, fn: fn, layout: map[*ir.Value]*tiled.LayoutAttr{},
			plans: map[*ir.Operation]*tiled.PlanLayouts{}, relayouts: map[relayoutKey]*ir.Value{}}
		if err := a.run(); err != nil {
			return err
		}
		p.NumRelayouts.Add(uint64(len(a.relayouts)))
		p.NumValues.Add(uint64(len(a.layout)))
	}
	return nil
}

type relayoutKey struct {
	v *ir.Value
	l *tiled.LayoutAttr
}

// layoutAssigner lays out one function.
type layoutAssigner struct {
	ctx       *ir.Context
	t         *target.Target
	fn        *ir.Operation
	layout    map[*ir.Value]*tiled.LayoutAttr
	plans     map[*ir.Operation]*tiled.PlanLayouts
	relayouts map[relayoutKey]*ir.Value
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
		if isMatmul(op) {
			if err := a.planOf(op); err != nil {
				return err
			}
		}
		if op.NumRegions() > 0 {
			return op.EmitOpError("tiled-assign-layouts does not lay out ops with regions")
		}
	}
	// Layouts, in program order: arguments first.
	for _, arg := range entry.Arguments() {
		if err := a.assign(arg, nil); err != nil {
			return err
		}
	}
	for _, op := range ops {
		for _, r := range op.Results() {
			if err := a.assign(r, op); err != nil {
				return err
			}
		}
	}
	// Types, then relayouts where users need another layout.
	for v, l := range a.layout {
		v.SetType(a.ctx.TensorWithEncoding(v.Type().(*ir.RankedTensorType).Dims, v.Type().(*ir.RankedTensorType).Elem, l))
	}
	for _, op := range ops {
		for i := 0; i < op.NumOperands(); i++ {
			want := a.required(op, i)
			v := op.Operand(i)
			if want == nil || (a.layout[v] != nil && a.layout[v].Layout.Equal(&want.Layout)) {
				continue
			}
			op.SetOperand(i, a.relayout(v, want))
		}
	}
	return a.updateSignature(entry)
}

// planOf reads a matmul's plan and derives the layouts it needs.
func (a *layoutAssigner) planOf(op *ir.Operation) error {
	pa, ok := op.Attr(tiled.PlanAnnotation).(*tiled.GemmPlanAttr)
	if !ok {
		return op.EmitOpError("has no '%s' attribute: run plan-gemms before tiled-assign-layouts", tiled.PlanAnnotation)
	}
	shape, err := tiled.MatmulShapeOf(op.Operand(0).Type(), op.Operand(1).Type(), op.Result(0).Type())
	if err != nil {
		return op.EmitOpError("%v", err)
	}
	ls, err := tiled.LayoutsForPlan(&pa.Plan, shape, a.t)
	if err != nil {
		return op.EmitOpError("plan %s is not valid: %v", ir.AttrString(pa), err)
	}
	a.plans[op] = ls
	return nil
}

// required returns the layout op needs operand i in, or nil when any will do.
func (a *layoutAssigner) required(op *ir.Operation, i int) *tiled.LayoutAttr {
	if ls, ok := a.plans[op]; ok && i < 2 {
		return tiled.NewLayoutAttr(a.ctx, []tiled.Layout{ls.LHS, ls.RHS}[i])
	}
	if preservesLayout(op) {
		in, ok := op.Operand(i).Type().(*ir.RankedTensorType)
		out := op.Result(0).Type().(*ir.RankedTensorType)
		if ok && slices.Equal(in.Dims, out.Dims) {
			return a.layout[op.Result(0)]
		}
	}
	return nil
}

// assign gives v its layout; def is its defining op (nil for arguments).
func (a *layoutAssigner) assign(v *ir.Value, def *ir.Operation) error {
	rt, ok := v.Type().(*ir.RankedTensorType)
	if !ok {
		return nil
	}
	if rt.Encoding != nil {
		return a.locate(v, def).EmitOpError("tiled-assign-layouts expects tensors without encoding, found %s", ir.TypeString(rt))
	}
	if ir.NumElements(rt.Dims) < 0 {
		return a.locate(v, def).EmitOpError("cannot lay out the dynamically shaped %s", ir.TypeString(rt))
	}
	switch {
	case def != nil && a.plans[def] != nil:
		a.layout[v] = tiled.NewLayoutAttr(a.ctx, a.plans[def].Result)
		return nil
	case def != nil && preservesLayout(def):
		if l := a.layout[def.Operand(0)]; l != nil {
			a.layout[v] = l
			return nil
		}
	case def != nil && def.Is(tensor.ConstantOp):
		// A constant's type is its value's: it stays without a layout and
		// is relaid out (materialised on each tile) where users need one.
		return nil
	case def == nil && isResident(v):
		if l := a.commonRequirement(v); l != nil {
			a.layout[v] = l
			return nil
		}
	}
	l, err := tiled.DefaultLayout(rt.Dims, a.t)
	if err == nil {
		_, err = tiled.CheckLayout(&l, rt, a.t)
	}
	if err != nil {
		return a.locate(v, def).EmitOpError("no layout fits %s on target %s: %v", ir.TypeString(rt), a.t.Name, err)
	}
	a.layout[v] = tiled.NewLayoutAttr(a.ctx, l)
	return nil
}

// commonRequirement is the layout every user of v needs, if they agree.
func (a *layoutAssigner) commonRequirement(v *ir.Value) *tiled.LayoutAttr {
	var common *tiled.LayoutAttr
	agree := true
	v.Uses(func(u *ir.OpOperand) {
		var want *tiled.LayoutAttr
		if ls, ok := a.plans[u.Owner()]; ok && u.Index() < 2 {
			want = tiled.NewLayoutAttr(a.ctx, []tiled.Layout{ls.LHS, ls.RHS}[u.Index()])
		}
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

func (a *layoutAssigner) locate(v *ir.Value, def *ir.Operation) *ir.Operation {
	if def != nil {
		return def
	}
	return a.fn
}

// relayout returns v in layout l, inserting one tiled.relayout per value and
// layout right after v's definition.
func (a *layoutAssigner) relayout(v *ir.Value, l *tiled.LayoutAttr) *ir.Value {
	key := relayoutKey{v, l}
	if r, ok := a.relayouts[key]; ok {
		return r
	}
	b := ir.NewBuilder(a.ctx)
	if def := v.DefiningOp(); def != nil {
		b.SetInsertionPointAfter(def)
	} else {
		b.SetInsertionPointToStart(v.OwnerBlock())
	}
	rt := v.Type().(*ir.RankedTensorType)
	op := b.Create(&ir.OperationState{Name: tiled.RelayoutOpName, Loc: v.Loc(), Operands: []*ir.Value{v},
		ResultTypes: []ir.Type{a.ctx.TensorWithEncoding(rt.Dims, rt.Elem, l)}})
	a.relayouts[key] = op.Result(0)
	return op.Result(0)
}

// updateSignature sets the function type from the new argument types and
// the types of what the function returns.
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
