// Package podemit turns a tensor-level module cut into pipeline stages
// (the pipeline-stages pass's ipu.stage on each op) into one module per
// stage, each a function of the values it reads, for one chip, and says
// how the stages are joined: which stage input is which model input or
// which earlier stage's output. Each stage module is then compiled as a
// single chip's program, and the packages joined into a pod package
// (runtime/ipupkg.Pod).
package podemit

import (
	"fmt"
	"github.com/ipuir/ipuir/dialects/exchange"
	"slices"

	funcdialect "github.com/ipuir/ipuir/dialects/func"
	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/runtime/ipupkg"
	"github.com/ipuir/ipuir/target/irtarget"
	"github.com/ipuir/ipuir/translate/pkgemit"
)

// Stage is one stage's module and where its function's arguments come
// from, in order.
type Stage struct {
	Module *ir.Operation
	Inputs []ipupkg.PodRef
}

// Outlined is a module's stages, and where each of its function's results
// comes from.
type Outlined struct {
	Stages  []Stage
	Outputs []ipupkg.PodRef
	// Inputs names the function's arguments (their ipu.name, else
	// "input N"), the model's inputs.
	Inputs []string
	// Function is the model's function the stages were cut from.
	Function *ir.Operation
}

// Outline splits module's function into its stages. Each stage module has
// the module's attributes with ipu.target set to chipSpec, and one
// function, named after the original with "_stage" and the stage's
// number, whose arguments are the model inputs and the earlier stages'
// values it reads (by first use) and whose results are the values later
// stages read and the model outputs it computes. Constants are copied
// into each stage that reads them. A value a stage reads must come from
// an earlier stage; an op without a stage is refused.
func Outline(module *ir.Operation, chipSpec string) (*Outlined, error) {
	fns := tensor.Functions(module)
	if len(fns) != 1 {
		return nil, module.EmitOpError("a pipeline needs one function with a body, the model; the module has %d", len(fns))
	}
	fn := fns[0]
	ctx := module.Context()
	body := fn.Region(0).Front()
	name, _ := ir.SymbolName(fn)

	// Every op's stage, and the stage count.
	stageOf := map[*ir.Operation]int{}
	stages := 0
	var ret *ir.Operation
	for _, op := range body.Ops() {
		if op.Is(funcdialect.ReturnOp) {
			ret = op
			continue
		}
		if tensor.StagelessOp(op) || op.Is(exchange.LinkPhaseOp) {
			continue // copied into each stage; the link phase, no stage's
		}
		a, ok := op.Attr(tensor.StageAttr).(*ir.IntegerAttr)
		if !ok || a.Big != nil || a.Int < 0 || a.Int >= ipupkg.MaxPodStages {
			return nil, op.EmitOpError("has no pipeline stage ('%s', an integer from 0 below %d; the pipeline-stages pass writes it)", tensor.StageAttr, ipupkg.MaxPodStages)
		}
		stageOf[op] = int(a.Int)
		stages = max(stages, stageOf[op]+1)
	}
	if ret == nil {
		return nil, fn.EmitOpError("has no func.return")
	}
	populated := make([]bool, stages)
	for _, k := range stageOf {
		populated[k] = true
	}
	if i := slices.Index(populated, false); i >= 0 {
		return nil, fn.EmitOpError("has no op in pipeline stage %d of %d: stages are numbered from 0 without gaps", i, stages)
	}
	// topOf is the op of the function's body that defines v or holds
	// the op that does (nil for an argument).
	topOf := func(v *ir.Value) *ir.Operation {
		def := v.DefiningOp()
		for def != nil && def.Block() != body {
			def = def.ParentOp()
		}
		return def
	}
	// originOf says where a value read by stage k comes from: the host
	// (an argument), a constant (copied into the stage), or an op of an
	// earlier stage.
	type origin struct {
		ref      ipupkg.PodRef
		constant bool
	}
	originOf := func(v *ir.Value, k int, user *ir.Operation) (origin, error) {
		if v.IsBlockArgument() {
			if v.OwnerBlock() == body {
				return origin{ref: ipupkg.PodRef{Stage: ipupkg.HostStage, Index: v.Index()}}, nil
			}
			return origin{ref: ipupkg.PodRef{Stage: k}}, nil // nested in the user's own regions
		}
		top := topOf(v)
		if top == nil {
			return origin{}, user.EmitOpError("reads a value from outside its function")
		}
		if tensor.StagelessOp(top) {
			return origin{constant: true}, nil
		}
		j := stageOf[top]
		if j > k {
			return origin{}, user.EmitOpError("in pipeline stage %d reads a value of stage %d: a stage reads only earlier stages", k, j)
		}
		return origin{ref: ipupkg.PodRef{Stage: j}}, nil
	}

	// First pass: what each stage reads from outside, and what each
	// stage must send on (values read by later stages, and results).
	reads := make([][]*ir.Value, stages)
	outputs := make([][]*ir.Value, stages)
	outIndex := map[*ir.Value]int{}
	send := func(v *ir.Value, j int) {
		if _, ok := outIndex[v]; !ok {
			outIndex[v] = len(outputs[j])
			outputs[j] = append(outputs[j], v)
		}
	}
	for _, op := range body.Ops() {
		k, ok := stageOf[op]
		if !ok {
			continue
		}
		seen := map[*ir.Value]bool{}
		var err error
		op.Walk(func(o *ir.Operation) ir.WalkResult {
			for _, v := range o.Operands() {
				if seen[v] || isInside(v, op) {
					continue
				}
				seen[v] = true
				or, e := originOf(v, k, o)
				if e != nil {
					err = e
					return ir.WalkInterrupt
				}
				if !or.constant && or.ref.Stage == k {
					continue // the stage's own value
				}
				if !slices.Contains(reads[k], v) { // constants too: the stage copies them
					reads[k] = append(reads[k], v)
				}
				if !or.constant && or.ref.Stage >= 0 {
					send(v, or.ref.Stage)
				}
			}
			return ir.WalkAdvance
		})
		if err != nil {
			return nil, err
		}
	}
	out := &Outlined{Stages: make([]Stage, stages), Function: fn}
	for i := range fn.Region(0).Front().Arguments() {
		n := fmt.Sprintf("input %d", i)
		if a, ok := ir.ArgumentAttr(fn, i, pkgemit.StreamNameAttr).(*ir.StringAttr); ok {
			n = a.Val
		}
		out.Inputs = append(out.Inputs, n)
	}
	// The model's results: each from the stage that computes it (a
	// constant result is copied into the last stage; an argument comes
	// straight from the host).
	resultNames := map[*ir.Value]ir.Attribute{}
	for i, v := range ret.Operands() {
		if v.IsBlockArgument() {
			out.Outputs = append(out.Outputs, ipupkg.PodRef{Stage: ipupkg.HostStage, Index: v.Index()})
			continue
		}
		j := stages - 1
		if top := topOf(v); !tensor.StagelessOp(top) {
			j = stageOf[top]
		} else if !slices.Contains(reads[j], v) {
			reads[j] = append(reads[j], v) // copied there as a constant
		}
		send(v, j)
		out.Outputs = append(out.Outputs, ipupkg.PodRef{Stage: j, Index: outIndex[v]})
		if d := ir.ResultAttr(fn, i, pkgemit.StreamNameAttr); d != nil {
			resultNames[v] = d
		}
	}

	// Second pass: build each stage's module.
	for k := range stages {
		m := ir.NewModule(ctx, module.Loc())
		for _, a := range module.AllAttrs() {
			m.SetAttr(ctx, a.Name, a.Value)
		}
		if err := irtarget.SetOnModule(m, chipSpec); err != nil {
			return nil, err
		}
		mapping := ir.NewMapping()
		var inTypes []ir.Type
		var inAttrs []ir.Attribute
		var ins []ipupkg.PodRef
		var consts []*ir.Value
		for _, v := range reads[k] {
			if !v.IsBlockArgument() && tensor.StagelessOp(topOf(v)) {
				consts = append(consts, v)
				continue
			}
			or, _ := originOf(v, k, fn)
			ref := or.ref
			if ref.Stage >= 0 {
				ref.Index = outIndex[v]
			}
			ins = append(ins, ref)
			inTypes = append(inTypes, v.Type())
			var attrs ir.Attribute = ctx.Dict([]ir.NamedAttr{{Name: pkgemit.StreamNameAttr, Value: ctx.String(ref.String())}})
			if ref.Stage == ipupkg.HostStage {
				attrs = hostArgAttrs(ctx, fn, ref.Index, out.Inputs[ref.Index])
			}
			inAttrs = append(inAttrs, attrs)
		}
		var outTypes []ir.Type
		var outAttrs []ir.Attribute
		for i, v := range outputs[k] {
			outTypes = append(outTypes, v.Type())
			var a ir.Attribute = ctx.Dict([]ir.NamedAttr{{Name: pkgemit.StreamNameAttr, Value: ctx.String(ipupkg.PodRef{Stage: k, Index: i}.String())}})
			if n, ok := resultNames[v]; ok {
				a = ctx.Dict([]ir.NamedAttr{{Name: pkgemit.StreamNameAttr, Value: n}})
			}
			outAttrs = append(outAttrs, a)
		}
		st := &ir.OperationState{Name: funcdialect.FuncOpName, Loc: fn.Loc(), NumRegions: 1, Attrs: []ir.NamedAttr{
			{Name: ir.SymbolAttrName, Value: ctx.String(fmt.Sprintf("%s_stage%d", name, k))},
			{Name: funcdialect.FunctionTypeAttr, Value: ctx.TypeAttr(ctx.Function(inTypes, outTypes))},
			{Name: ir.ArgAttrsName, Value: ctx.Array(inAttrs...)},
			{Name: ir.ResAttrsName, Value: ctx.Array(outAttrs...)},
		}}
		for _, a := range fn.AllAttrs() {
			switch a.Name {
			case ir.SymbolAttrName, funcdialect.FunctionTypeAttr, ir.ArgAttrsName, ir.ResAttrsName,
				tensor.StageCyclesAttr, tensor.StageWeightBytesAttr, tensor.StageChipsAttr:
				continue
			}
			st.Attrs = append(st.Attrs, a)
		}
		b := ir.NewBuilder(ctx)
		b.SetInsertionPointToEnd(ir.ModuleBody(m))
		f := b.Create(st)
		blk := ir.NewBlock(inTypes, nil)
		f.Region(0).AppendBlock(blk)
		for i, v := range slices.DeleteFunc(slices.Clone(reads[k]), func(v *ir.Value) bool { return slices.Contains(consts, v) }) {
			mapping.Values[v] = blk.Argument(i)
			blk.Argument(i).SetLoc(v.Loc())
		}
		b.SetInsertionPointToEnd(blk)
		// Constants first, in program order, then the stage's ops.
		for _, op := range body.Ops() {
			if tensor.StagelessOp(op) && !op.Is(funcdialect.ReturnOp) && slices.ContainsFunc(op.Results(), func(r *ir.Value) bool { return slices.Contains(consts, r) }) {
				b.Insert(op.Clone(ctx, mapping))
			}
		}
		for _, op := range body.Ops() {
			if s, ok := stageOf[op]; ok && s == k {
				c := b.Insert(op.Clone(ctx, mapping))
				c.SetAttr(ctx, tensor.StageAttr, nil)
			}
		}
		rets := make([]*ir.Value, len(outputs[k]))
		for i, v := range outputs[k] {
			rets[i] = mapping.Lookup(v)
		}
		b.Create(&ir.OperationState{Name: funcdialect.ReturnOpName, Loc: ret.Loc(), Operands: rets})
		if d := ir.Verify(m); d != nil {
			return nil, fmt.Errorf("BUG: stage %d does not verify: %v", k, d)
		}
		out.Stages[k] = Stage{Module: m, Inputs: ins}
	}
	return out, nil
}

// isInside reports whether v is defined inside op (its regions).
func isInside(v *ir.Value, op *ir.Operation) bool {
	for o := v.DefiningOp(); o != nil; o = o.ParentOp() {
		if o == op {
			return true
		}
	}
	if v.IsBlockArgument() && v.OwnerBlock() != nil {
		for o := v.OwnerBlock().ParentOp(); o != nil; o = o.ParentOp() {
			if o == op {
				return true
			}
		}
	}
	return false
}

// hostArgAttrs is the attribute dictionary of fn's argument i, a model
// input, for the stage argument it becomes: its own, named as the model
// names it (so every stage's stream for it has the model's name).
func hostArgAttrs(ctx *ir.Context, fn *ir.Operation, i int, name string) ir.Attribute {
	var entries []ir.NamedAttr
	if arr, ok := fn.Attr(ir.ArgAttrsName).(*ir.ArrayAttr); ok && i < len(arr.Elems) {
		if d, ok := arr.Elems[i].(*ir.DictAttr); ok {
			entries = append(entries, d.Entries...)
		}
	}
	if !slices.ContainsFunc(entries, func(a ir.NamedAttr) bool { return a.Name == pkgemit.StreamNameAttr }) {
		entries = append(entries, ir.NamedAttr{Name: pkgemit.StreamNameAttr, Value: ctx.String(name)})
	}
	return ctx.Dict(entries)
}

// StageChips is how many chips each stage of module's model spans, as
// pipeline-stages chose (1 on one chip), and whether it cut the model at
// all (false when the cut failed).
func StageChips(module *ir.Operation) (chips int, cut bool) {
	for _, fn := range tensor.Functions(module) {
		return tensor.StageChips(fn), fn.Attr(tensor.StageCyclesAttr) != nil
	}
	return 1, false
}

// LinkPhase is the link phase pipeline-stages wrote on module's model
// (exchange.link_phase): its transfers and cycles; ok is false when no
// value crosses chips. A pod package's schedule (runtime/pipeline) is
// computed by the same scheduler from the same values, and must agree.
func LinkPhase(module *ir.Operation) (transfers int, cycles int64, ok bool) {
	for _, fn := range tensor.Functions(module) {
		for _, op := range fn.Region(0).Front().Ops() {
			if op.Is(exchange.LinkPhaseOp) {
				return op.NumOperands(), op.Attr(exchange.CyclesAttrName).(*ir.IntegerAttr).Int, true
			}
		}
	}
	return 0, 0, false
}
