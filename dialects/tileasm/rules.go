package tileasm

import (
	"errors"
	"fmt"
	"slices"

	"github.com/ipuir/ipuir/bsp"
	"github.com/ipuir/ipuir/dialects/tiled"
	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/kernel"
	"github.com/ipuir/ipuir/layout"
	"github.com/ipuir/ipuir/layout/movement"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/target/storage"
)

// The rules of each instruction and of the program, one function each.
// The simulated device checks a package by the same rules (the movement
// and bsp packages are shared; the device restates the shape rules on the
// package's numbers), so what verifies here is what a device runs.

func shapeOf(v *ir.Value) []int64 {
	if rt, ok := v.Type().(*ir.RankedTensorType); ok {
		return rt.Dims
	}
	return nil
}

func elemOf(v *ir.Value) elem.Type {
	et, _ := tiled.ElemTypeOf(ir.ElementTypeOrSelf(v.Type()))
	return et
}

// AMPBlocks is the AMP blocks of an AMP instruction's busiest tile:
// [row groups, inner groups, column groups] as the target's AMP takes
// them, from its operands' largest shards.
func AMPBlocks(lhs, rhs *ir.Value, swapped bool, tg *target.Target) ([]int64, error) {
	shard := func(v *ir.Value) ([]int64, error) {
		rt := v.Type().(*ir.RankedTensorType)
		l, ok := tiled.LayoutOf(rt)
		if !ok {
			return nil, fmt.Errorf("operand of type %s has no layout", ir.TypeString(rt))
		}
		m, err := tiled.CheckLayout(l, rt, tg)
		if err != nil {
			return nil, err
		}
		return m.MaxShardShape(), nil
	}
	a, err := shard(lhs)
	if err != nil {
		return nil, err
	}
	b, err := shard(rhs)
	if err != nil {
		return nil, err
	}
	g, err := layout.AMPGroups(tg, elemOf(lhs))
	if err != nil {
		return nil, err
	}
	n := len(a)
	if n < 2 || len(b) != n {
		return nil, fmt.Errorf("operands of ranks %d and %d", len(a), len(b))
	}
	rows, inner, cols := a[n-2], a[n-1], b[n-1]
	if swapped {
		rows, inner, cols = b[n-1], b[n-2], a[n-2]
	}
	up := func(x, m int64) int64 { return (x + m - 1) / m }
	return []int64{up(rows, g.Row), up(inner, g.Inner), up(cols, g.Column)}, nil
}

// verifyAmp checks an AMP instruction: lhs B…×M×K, rhs B…×K×N and an
// output B…×M×N (the inner partitions first when partial) of the
// operands' element type or f32; the right operand (the weights: #1, or
// #0 when the plan is swapped) in the memory class its plan asks for; and
// `blocks` the busiest tile's blocks as its shards give them.
func verifyAmp(op *ir.Operation, env *ir.Env) error {
	if err := arity(3, 3)(op); err != nil {
		return err
	}
	lhs, rhs, out := op.Operand(0), op.Operand(1), op.Operand(2)
	_, partial := op.Attr(tiled.PartialAttrName).(*ir.UnitAttr)
	if err := kernel.CheckMatmul(shapeOf(lhs), shapeOf(rhs), shapeOf(out), partial); err != nil {
		return err
	}
	if elemOf(lhs) != elemOf(rhs) || (elemOf(out) != elemOf(lhs) && elemOf(out) != elem.F32) {
		return fmt.Errorf("multiplies %v by %v into %v", elemOf(lhs), elemOf(rhs), elemOf(out))
	}
	plan := op.Attr(tiled.PlanAttrName).(*tiled.GemmPlanAttr).Plan
	right := 1
	if plan.Orientation == layout.Swapped {
		right = 0
	}
	l, ok := tiled.LayoutOf(op.Operand(right).Type().(*ir.RankedTensorType))
	if ok && l.MemoryClass != plan.WeightMemoryClass {
		return fmt.Errorf("the AMP's right operand (#%d) is in %s, but its plan asks for %s", right, l.MemoryClass, plan.WeightMemoryClass)
	}
	tg, err := targetOf(env)
	if err != nil {
		return err
	}
	want, err := AMPBlocks(lhs, rhs, plan.Orientation == layout.Swapped, tg)
	if err != nil {
		return err
	}
	if got := op.Attr(BlocksAttr).(*ir.DenseArrayAttr).Ints; !slices.Equal(got, want) {
		return fmt.Errorf("'blocks' is %v, but the operands' shards make %v (row, inner and column groups of the busiest tile)", got, want)
	}
	return nil
}

// verifyVector checks a vector instruction: a function of the kernel
// table, as many inputs as it takes, each of the output's shape.
func verifyVector(op *ir.Operation) error {
	fn, err := kernel.FnNamed(op.Attr(tiled.FnAttrName).(*ir.StringAttr).Val)
	if err != nil {
		return err
	}
	if op.NumOperands() == 0 {
		return fmt.Errorf("takes inputs and an output, got no buffers")
	}
	var ins [][]int64
	for _, v := range op.Operands()[:op.NumOperands()-1] {
		ins = append(ins, shapeOf(v))
	}
	return fn.CheckElementwise(ins, shapeOf(op.Operand(op.NumOperands()-1)))
}

// verifyReduce checks a reduction: a combining function of the kernel
// table, axes within the rank (each once), and an output of the input's
// rank that matches it off the axes.
func verifyReduce(op *ir.Operation) error {
	if _, err := kernel.ReductionNamed(op.Attr(tiled.FnAttrName).(*ir.StringAttr).Val); err != nil {
		return err
	}
	return kernel.CheckReduce(shapeOf(op.Operand(0)), shapeOf(op.Operand(1)), op.Attr(tiled.AxesAttrName).(*ir.DenseArrayAttr).Ints)
}

// movementOf reads a copy's or a view's movement parameters.
func movementOf(op *ir.Operation) movement.Params {
	ints := func(name string) []int64 {
		if a, ok := op.Attr(name).(*ir.DenseArrayAttr); ok {
			return a.Ints
		}
		return nil
	}
	p := movement.Params{Permutation: ints(tiled.PermutationAttrName), Dimensions: ints(tiled.DimensionsAttrName),
		Offsets: ints(tiled.OffsetsAttrName), Sizes: ints(tiled.SizesAttrName), Strides: ints(tiled.StridesAttrName)}
	if a, ok := op.Attr(tiled.AxisAttrName).(*ir.IntegerAttr); ok {
		p.Axis, p.HasAxis = a.Int, true
	}
	return p
}

// verifyMovement checks that a copy's or view's kind and parameters map
// its result's indices into its operands' (movement.Check).
func verifyMovement(op *ir.Operation, ins []*ir.Value, out *ir.Value) error {
	shapes := make([][]int64, len(ins))
	for i, v := range ins {
		shapes[i] = shapeOf(v)
	}
	p := movementOf(op)
	return movement.Check(op.Attr(KindAttr).(*ir.StringAttr).Val, &p, shapeOf(out), shapes)
}

func verifyCopy(op *ir.Operation) error {
	if err := arity(2, -1)(op); err != nil {
		return err
	}
	return verifyMovement(op, op.Operands()[:op.NumOperands()-1], op.Operand(op.NumOperands()-1))
}

func verifyView(op *ir.Operation) error {
	return verifyMovement(op, op.Operands(), op.Result(0))
}

// The program's rules, checked by tileasm.memory over its block.

// checkSupersteps checks the bulk-synchronous structure (bsp.Check).
func checkSupersteps(memory *ir.Operation) error {
	var steps []bsp.Step
	var ops []*ir.Operation
	for _, op := range memory.Block().Ops() {
		switch {
		case op.Is(SyncOp):
			steps = append(steps, bsp.Step{Kind: bsp.Sync})
		case IsInstruction(op):
			kind := bsp.Compute
			if op.Is(ExchangeOp, StreamInOp) {
				kind = bsp.Exchange
			}
			steps = append(steps, bsp.Step{Kind: kind, Superstep: op.Attr(SuperstepAttr).(*ir.IntegerAttr).Int})
		default:
			continue
		}
		ops = append(ops, op)
	}
	if err := bsp.Check(steps); err != nil {
		var be *bsp.Error
		if errors.As(err, &be) {
			return ops[be.Index].EmitOpError("%s", be.Msg)
		}
		return err
	}
	return nil
}

// checkStreams checks the host streams: the host inputs are numbered 0 to
// n-1, each once, and fill buffers that no instruction writes but the one
// stream_in that loads a weight from streaming memory; every
// instruction writes a buffer (not a view, a constant or an input); and
// the function's results, which the host reads, live to the program's
// end.
func checkStreams(memory *ir.Operation) error {
	block := memory.Block()
	// The inputs loaded from streaming memory, each by one stream_in, at
	// its step.
	loadedAt := map[*ir.Operation]int{}
	step := 0
	for _, op := range block.Ops() {
		if !IsInstruction(op) {
			continue
		}
		if op.Is(StreamInOp) {
			buf := op.Operand(0).DefiningOp()
			if _, twice := loadedAt[buf]; twice {
				return op.EmitOpError("loads buffer %s, which an earlier stream_in loaded", buf.Attr(NameAttr).(*ir.StringAttr).Val)
			}
			loadedAt[buf] = step
		}
		step++
	}
	inputs := map[int64]*ir.Operation{}
	for _, op := range block.Ops() {
		if !op.Is(BufferOp) {
			continue
		}
		if a, ok := op.Attr(HostInputAttr).(*ir.IntegerAttr); ok {
			if prev, dup := inputs[a.Int]; dup {
				return op.EmitOpError("is host input %d, and so is %s", a.Int, prev.Attr(NameAttr).(*ir.StringAttr).Val)
			}
			inputs[a.Int] = op
			if at, loaded := loadedAt[op]; loaded {
				if start, _ := Live(op); start != at {
					return op.EmitOpError("is host input %d, which a stream_in loads at step %d, but it is live from step %d", a.Int, at, start)
				}
			} else if start, _ := Live(op); start != 0 {
				return op.EmitOpError("is host input %d, which the host fills before the program, but it is live only from step %d", a.Int, start)
			}
		}
	}
	for i := range int64(len(inputs)) {
		if _, ok := inputs[i]; !ok {
			return memory.EmitOpError("the program has %d host inputs, but none is numbered %d: they are numbered 0 to %d, each once", len(inputs), i, len(inputs)-1)
		}
	}
	for _, op := range block.Ops() {
		if !IsInstruction(op) || op.NumOperands() == 0 {
			continue
		}
		out := op.Operand(op.NumOperands() - 1).DefiningOp()
		switch {
		case out == nil || !out.Is(BufferOp):
			return op.EmitOpError("writes a value that is not a buffer (the last operand is the output; a view has no storage of its own)")
		case out.Attr(InitAttr) != nil:
			return op.EmitOpError("writes buffer %s, which is a constant", out.Attr(NameAttr).(*ir.StringAttr).Val)
		case out.Attr(HostInputAttr) != nil && !op.Is(StreamInOp):
			return op.EmitOpError("writes buffer %s, which is host input %d: the host fills an input, and no instruction writes it",
				out.Attr(NameAttr).(*ir.StringAttr).Val, out.Attr(HostInputAttr).(*ir.IntegerAttr).Int)
		}
	}
	term := block.Last()
	if term == nil || !term.HasTrait(ir.TraitReturnLike) {
		return nil
	}
	for i, v := range term.Operands() {
		work := []*ir.Value{v}
		for len(work) > 0 {
			w := work[len(work)-1]
			work = work[:len(work)-1]
			def := w.DefiningOp()
			switch {
			case def == nil:
				return term.EmitOpError("result #%d is not a buffer or view of the program", i)
			case def.Is(ViewOp):
				work = append(work, def.Operands()...)
			case def.Is(BufferOp):
				if _, end := Live(def); end != storage.Forever {
					return term.EmitOpError("result #%d reads buffer %s, which is live only until step %d: the host reads the results after the program", i,
						def.Attr(NameAttr).(*ir.StringAttr).Val, end)
				}
			default:
				return term.EmitOpError("result #%d is not a buffer or view of the program", i)
			}
		}
	}
	return nil
}
