package sim

import (
	"errors"
	"fmt"

	"github.com/ipuir/ipuir/bsp"
	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/kernel"
	"github.com/ipuir/ipuir/runtime/ipupkg"
)

// Validate checks, before anything is loaded, what the reader cannot
// check without the device's semantics: the program's bulk-synchronous
// structure (bsp.Check), every instruction's parameters against its
// buffers' shapes and element types, and every view's mapping (the
// schedules are checked word by word beside it, horizons included). A
// package the reader accepts either passes or is refused here with the
// instruction named; it never reaches a kernel that would misread it. Load
// calls it; a tool that writes packages calls it so as never to write one
// a device refuses.
func Validate(p *ipupkg.Package) error {
	steps := make([]bsp.Step, len(p.Program))
	for i, in := range p.Program {
		spec, _ := in.Op.Spec()
		switch {
		case in.Op == ipupkg.OpSync:
			steps[i] = bsp.Step{Kind: bsp.Sync}
		case spec != nil && spec.InExchange:
			steps[i] = bsp.Step{Kind: bsp.Exchange, Superstep: in.Superstep}
		default:
			steps[i] = bsp.Step{Kind: bsp.Compute, Superstep: in.Superstep}
		}
	}
	if err := bsp.Check(steps); err != nil {
		var be *bsp.Error
		if errors.As(err, &be) {
			return fmt.Errorf("instruction %d (%s) %v", be.Index, p.Program[be.Index].Op, be.Msg)
		}
		return err
	}
	if _, err := viewMappings(p); err != nil {
		return err
	}
	for i, in := range p.Program {
		if in.Op == ipupkg.OpSync {
			continue
		}
		if err := checkInstruction(p, in); err != nil {
			return fmt.Errorf("instruction %d (%s): %v", i, in.Op, err)
		}
	}
	return nil
}

// checkInstruction checks one instruction's operands and parameters.
func checkInstruction(p *ipupkg.Package, in ipupkg.Instruction) error {
	if len(in.Operands) == 0 {
		return fmt.Errorf("no operands")
	}
	out := in.Operands[len(in.Operands)-1]
	ob := &p.Buffers[out]
	switch {
	case len(ob.ViewOf) > 0:
		return fmt.Errorf("writes buffer %d (%s), which is a view", out, ob.Name)
	case ob.Init != nil:
		return fmt.Errorf("writes buffer %d (%s), which is a constant", out, ob.Name)
	}
	shape := func(i int) []int64 { return p.Buffers[in.Operands[i]].Shape }
	elemOf := func(i int) elem.Type { return p.Buffers[in.Operands[i]].Elem }
	switch in.Op {
	case ipupkg.OpAmp:
		return checkAmp(p, in)
	case ipupkg.OpVector:
		name := in.Str(ipupkg.ParamFn)
		fn, err := kernel.FnNamed(name)
		if err != nil {
			return err
		}
		var ins [][]int64
		for k := range len(in.Operands) - 1 {
			ins = append(ins, shape(k))
		}
		if err := fn.CheckElementwise(ins, ob.Shape); err != nil {
			return err
		}
		var elems []elem.Type
		for k := range fn.Arity {
			elems = append(elems, elemOf(k))
		}
		// A function of f16 inputs may also write f32 (a widening output).
		if err := fn.CheckElems(elems, ob.Elem); err != nil && (ob.Elem != elem.F32 || fn.CheckElems(elems, elemOf(0)) != nil) {
			return err
		}
	case ipupkg.OpReduce:
		name := in.Str(ipupkg.ParamFn)
		if _, err := kernel.ReductionNamed(name); err != nil {
			return err
		}
		if len(in.Operands) != 2 {
			return fmt.Errorf("a reduction takes an input and an output, got %d buffers", len(in.Operands))
		}
		axes := in.Ints(ipupkg.ParamAxes)
		if err := kernel.CheckReduce(shape(0), ob.Shape, axes); err != nil {
			return err
		}
		// Each tile reduces its piece to one element along the axes.
		for _, pc := range ob.Pieces {
			for _, a := range axes {
				if pc.Box[a].Hi-pc.Box[a].Lo > 1 {
					return fmt.Errorf("tile %d holds %d elements of the output along reduced axis %d; a tile's piece reduces to one", pc.Tile, pc.Box[a].Hi-pc.Box[a].Lo, a)
				}
			}
		}
	case ipupkg.OpCopy:
		if len(in.Operands) < 2 {
			return fmt.Errorf("a copy takes inputs and an output")
		}
		kind := in.Str(ipupkg.ParamMovement)
		var ins [][]int64
		for k := range len(in.Operands) - 1 {
			ins = append(ins, shape(k))
		}
		if _, err := newMapping(kind, in.Params, in.Operands[:len(in.Operands)-1], ob.Shape, ins); err != nil {
			return err
		}
	case ipupkg.OpExchange:
		return checkExchange(p, in)
	case ipupkg.OpStreamIn:
		// The reader checked that it loads an input stream's buffer, once,
		// at the step the buffer becomes live.
	default:
		return fmt.Errorf("no such instruction")
	}
	return nil
}

// checkAmp checks an AMP instruction's shapes: lhs B…×M×K, rhs B…×K×N,
// output B…×M×N (with the inner partitions first when partial).
func checkAmp(p *ipupkg.Package, in ipupkg.Instruction) error {
	if len(in.Operands) != 3 {
		return fmt.Errorf("an AMP instruction takes lhs, rhs and output, got %d buffers", len(in.Operands))
	}
	l, r, o := &p.Buffers[in.Operands[0]], &p.Buffers[in.Operands[1]], &p.Buffers[in.Operands[2]]
	partial := in.Flag(ipupkg.ParamPartial)
	if err := kernel.CheckMatmul(l.Shape, r.Shape, o.Shape, partial); err != nil {
		return err
	}
	if l.Elem != r.Elem || (o.Elem != l.Elem && o.Elem != elem.F32) {
		return fmt.Errorf("%v × %v into %v", l.Elem, r.Elem, o.Elem)
	}
	if in.Str(ipupkg.ParamPartials) == elem.F16.String() && l.Elem != elem.F16 {
		return fmt.Errorf("f16 partials of %v inputs: only f16 inputs may accumulate in f16", l.Elem)
	}
	// The reader has checked the plan's length and signs (the instruction
	// table); what its entries mean is the device's.
	plan := in.Ints(ipupkg.ParamPlan)
	if plan[0] != ipupkg.PlanNormal && plan[0] != ipupkg.PlanSwapped {
		return fmt.Errorf("plan %v: orientation %d is neither normal (0) nor swapped (1)", plan, plan[0])
	}
	for _, v := range plan[1:] {
		if v < 1 {
			return fmt.Errorf("plan %v has a partition count below 1", plan)
		}
	}
	return nil
}

// checkExchange checks a phase's sources, destination and transfers
// against their shapes.
func checkExchange(p *ipupkg.Package, in ipupkg.Instruction) error {
	x := &p.Exchanges[in.Int(ipupkg.ParamExchange)]
	srcs, dst := in.Operands[:len(in.Operands)-1], &p.Buffers[in.Operands[len(in.Operands)-1]]
	rank := len(dst.Shape)
	for _, list := range []struct {
		name string
		vals []int64
	}{{"source offsets", x.SourceOffsets}, {"source strides", x.SourceStrides}} {
		if len(list.vals) != 0 && len(list.vals) != len(srcs)*rank {
			return fmt.Errorf("%d %s for %d sources of rank %d", len(list.vals), list.name, len(srcs), rank)
		}
	}
	for k, s := range srcs {
		sb := &p.Buffers[s]
		if len(sb.Shape) != rank || sb.Elem != dst.Elem {
			return fmt.Errorf("source %d (%v %v) and the destination (%v %v) differ in rank or element type", k, sb.Elem, sb.Shape, dst.Elem, dst.Shape)
		}
		// A destination index d reads source index offset + stride·d
		// (each transfer's box is checked against the source below).
		for i := range rank {
			if len(x.SourceStrides) > 0 && x.SourceStrides[k*rank+i] < 1 {
				return fmt.Errorf("source %d: stride %d on axis %d", k, x.SourceStrides[k*rank+i], i)
			}
		}
	}
	for t, tr := range x.Transfers {
		if tr.Operand >= len(srcs) || len(tr.Box) != rank {
			return fmt.Errorf("transfer %d reads source %d of %d with a rank-%d box", t, tr.Operand, len(srcs), len(tr.Box))
		}
		src := p.Buffers[srcs[tr.Operand]].Shape
		for i, s := range tr.Box {
			if s.Lo < 0 || s.Hi < s.Lo || s.Hi > dst.Shape[i] {
				return fmt.Errorf("transfer %d: box %v leaves the destination's shape %v", t, tr.Box, dst.Shape)
			}
			off, str := int64(0), int64(1)
			if len(x.SourceOffsets) > 0 {
				off = x.SourceOffsets[tr.Operand*rank+i]
			}
			if len(x.SourceStrides) > 0 {
				str = x.SourceStrides[tr.Operand*rank+i]
			}
			if s.Hi > s.Lo && (off+str*s.Lo < 0 || off+str*(s.Hi-1) >= src[i]) {
				return fmt.Errorf("transfer %d: box %v reads past source %d's shape %v", t, tr.Box, tr.Operand, src)
			}
		}
	}
	return nil
}
