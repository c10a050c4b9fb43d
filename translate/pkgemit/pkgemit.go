// Package pkgemit translates a program at the tile-asm level into an
// application package (runtime/ipupkg): ipu-translate --emit-package.
// Every buffer becomes a package buffer with its layout and, per tile, the
// piece it holds (address, bytes, the box of indices it covers); every
// instruction its encoded form; every exchange its table; arguments and
// results host streams (the function's results in order, whatever buffer
// or view holds each); and, when the tensor-level source is given, the
// source ops' results checkpoints.
package pkgemit

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ipuir/ipuir/dialects/exchange"
	funcdialect "github.com/ipuir/ipuir/dialects/func"
	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/dialects/tileasm"
	"github.com/ipuir/ipuir/dialects/tiled"
	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/elem/irelem"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/layout"
	"github.com/ipuir/ipuir/runtime/ipupkg"
	"github.com/ipuir/ipuir/target"
)

// SourceOp is a tensor-level op a checkpoint may sample: where it is in the
// source and what its result is.
type SourceOp struct {
	Name         string // what the user calls it (%q), else the op and its place (tensor.matmul@12:8)
	Line, Column int
	Elem         elem.Type
	Shape        []int64
}

// SourceOps are the tensor-level ops a checkpoint may sample: every op
// inside a function with one ranked tensor result and a file location
// whose value reaches the function's results (a value computed for
// nothing needs no checking, and may live at no time the device could
// read it).
//
// Each is named as the user calls it (ir.SourceNames), else after the op
// and its place.
func SourceOps(module *ir.Operation) []SourceOp { return sourceOps(module, sourcesOf(module, nil)) }

func sourceOps(module *ir.Operation, sources *ir.SourceMgr) []SourceOp {
	var ops []SourceOp
	var results []*ir.Value
	module.Walk(func(op *ir.Operation) ir.WalkResult {
		if op.HasTrait(ir.TraitReturnLike) {
			results = append(results, op.Operands()...)
		}
		return ir.WalkAdvance
	})
	live := ir.BackwardSlice(results, nil)
	module.Walk(func(op *ir.Operation) ir.WalkResult {
		if op.NumResults() != 1 || op.NumRegions() > 0 || !live[op.Result(0)] {
			return ir.WalkAdvance
		}
		loc, ok := ir.FileLineColOf(op.Loc())
		rt, isTensor := op.Result(0).Type().(*ir.RankedTensorType)
		if !ok || !isTensor {
			return ir.WalkAdvance
		}
		et, ok := irelem.Of(rt.Elem)
		if !ok {
			return ir.WalkAdvance
		}
		name := joinNames(ir.SourceNames(op.Loc(), sources))
		if name == "" {
			name = op.Name() + "@" + strconv.Itoa(loc.Line) + ":" + strconv.Itoa(loc.Col)
		}
		ops = append(ops, SourceOp{Name: name,
			Line: loc.Line, Column: loc.Col, Elem: et, Shape: append([]int64(nil), rt.Dims...)})
		return ir.WalkAdvance
	})
	return ops
}

// StreamNameAttr is the argument and result attribute that names a
// function's host stream (the ONNX importer writes the graph's names).
const StreamNameAttr = "ipu.name"

// SetSource records the tensor-level module a package is compiled from,
// before it is lowered: its text, the ops checkpoints sample, and the
// stream names of its function.
func (o *Options) SetSource(text []byte, module *ir.Operation) {
	o.Source, o.SourceOps = text, sourceOps(module, sourcesOf(module, text))
	o.InputNames, o.OutputNames = nil, nil
	module.Walk(func(op *ir.Operation) ir.WalkResult {
		if !op.Is(funcdialect.FuncOp) || o.InputNames != nil {
			return ir.WalkAdvance
		}
		ft, ok := op.Attr(funcdialect.FunctionTypeAttr).(*ir.TypeAttr)
		if !ok {
			return ir.WalkAdvance
		}
		fty, ok := ft.T.(*ir.FunctionType)
		if !ok {
			return ir.WalkAdvance
		}
		o.InputElems, o.OutputElems = make([]elem.Type, len(fty.Inputs)), make([]elem.Type, len(fty.Results))
		o.InputText, o.OutputText = make([]bool, len(fty.Inputs)), make([]bool, len(fty.Results))
		for i, t := range fty.Inputs {
			o.InputElems[i], _ = irelem.Of(ir.ElementTypeOrSelf(t))
			o.InputText[i] = tensor.IsStringTensor(t)
		}
		for i, t := range fty.Results {
			o.OutputElems[i], _ = irelem.Of(ir.ElementTypeOrSelf(t))
			o.OutputText[i] = tensor.IsStringTensor(t)
		}
		o.InputNames = make([]string, len(fty.Inputs))
		for i := range fty.Inputs {
			if a, ok := ir.ArgumentAttr(op, i, StreamNameAttr).(*ir.StringAttr); ok {
				o.InputNames[i] = a.Val
			}
		}
		o.OutputNames = make([]string, len(fty.Results))
		if arr, ok := op.Attr(funcdialect.ResAttrsAttr).(*ir.ArrayAttr); ok {
			for i, e := range arr.Elems {
				if d, ok := e.(*ir.DictAttr); ok && i < len(o.OutputNames) {
					if a, ok := d.Get(StreamNameAttr).(*ir.StringAttr); ok {
						o.OutputNames[i] = a.Val
					}
				}
			}
		}
		return ir.WalkAdvance
	})
}

// hostElem is stream i's host element type: the source's where the
// program computes it in device (i64 as i32, f64 as f32), else device.
func hostElem(elems []elem.Type, i int, device elem.Type) elem.Type {
	if i < len(elems) && (ipupkg.Stream{Elem: elems[i]}).Carries(device) {
		return elems[i]
	}
	return device
}

// text says whether stream i is one of the source's strings.
func text(marks []bool, i int) bool { return i < len(marks) && marks[i] }

// streamName is the name of stream i: the source's, or kind and i.
func streamName(names []string, kind string, i int) string {
	if i < len(names) && names[i] != "" {
		return names[i]
	}
	return kind + " " + strconv.Itoa(i)
}

// Options are what the package records besides the program.
type Options struct {
	Compiler string
	// Source is the tensor-level module's text, and SourceOps its ops
	// whose results are sampled where a buffer holds them.
	Source    []byte
	SourceOps []SourceOp
	// InputNames and OutputNames name the host streams ("" for a stream
	// left as "input N" or "output N"): the tensor-level function's
	// ipu.name argument and result attributes, an ONNX model's graph
	// input and output names.
	InputNames, OutputNames []string
	// InputElems and OutputElems are the source's element types of the
	// streams, where the program computes them in another (i64 as i32, f64 as f32:
	// narrow-i64, narrow-f64); Invalid where they are the buffer's.
	InputElems, OutputElems []elem.Type
	// InputText and OutputText mark the streams the source holds as
	// strings, whose conversions host-strings moved to the host: the
	// package's text streams.
	InputText, OutputText []bool
	// Metadata is recorded as given, then the module's estimate
	// (tiled.summary) when it has one.
	Metadata []ipupkg.Entry
}

// HasTileAsm says whether module holds a program at the tile-asm level.
func HasTileAsm(module *ir.Operation) bool {
	return module.Find(func(op *ir.Operation) bool { return op.Is(tileasm.MemoryOp) }) != nil
}

// MeasuredSupport is the busiest tile's support memory that a failed
// storage placement recorded on one of module's functions
// (tileasm.SupportBytesAttr), when it outgrew the target's support reserve.
func MeasuredSupport(module *ir.Operation) (int64, bool) {
	var n int64
	module.Walk(func(op *ir.Operation) ir.WalkResult {
		if a, ok := op.Attr(tileasm.SupportBytesAttr).(*ir.IntegerAttr); ok {
			n = max(n, a.Int)
		}
		return ir.WalkAdvance
	})
	return n, n > 0
}

// Planned reports whether plan-gemms planned module's matmuls before a
// compile failed: a failure after it (a layout, a placement) is one that
// plans spread over the chip may avoid (the compile driver's retry).
func Planned(module *ir.Operation) bool {
	found := false
	module.Walk(func(op *ir.Operation) ir.WalkResult {
		if op.Attr(tiled.PlanAnnotation) != nil || op.Attr(tiled.PlanAttrName) != nil {
			found = true
			return ir.WalkInterrupt
		}
		return ir.WalkAdvance
	})
	return found
}

// Build makes the package of module's one tile-asm function.
func Build(module *ir.Operation, tg *target.Target, opts Options) (*ipupkg.Package, error) {
	var memories []*ir.Operation
	module.Walk(func(op *ir.Operation) ir.WalkResult {
		if op.Is(tileasm.MemoryOp) {
			memories = append(memories, op)
		}
		return ir.WalkAdvance
	})
	switch len(memories) {
	case 0:
		return nil, module.EmitError("no program at the tile-asm level to package (run the lower-to-tile-asm pipeline)")
	case 1:
	default:
		return nil, memories[1].EmitOpError("a package holds one program; this module has %d", len(memories))
	}
	b := &builder{tg: tg, sources: sourcesOf(module, opts.Source), index: map[*ir.Value]int{}, inputNames: opts.InputNames, outputNames: opts.OutputNames,
		inputElems: opts.InputElems, outputElems: opts.OutputElems, inputText: opts.InputText, outputText: opts.OutputText, pkg: &ipupkg.Package{
			Compiler: opts.Compiler, Target: tg.Name, Tiles: tg.Tiles, SRAMBytes: tg.SRAMBytesPerTile, ExchangeBusPairs: tg.ExchangeBusPairs,
			Source: opts.Source, Metadata: opts.Metadata}}
	for _, c := range tg.MemoryClasses {
		b.pkg.Classes = append(b.pkg.Classes, ipupkg.MemoryClass{Name: c.Name, Kind: c.Kind.String(), Start: c.Start, End: c.End, Alignment: c.Alignment, HoldsCode: c.HoldsCode})
	}
	if s := module.Attr(tiled.SummaryAnnotation); s != nil {
		b.pkg.Metadata = append(b.pkg.Metadata, ipupkg.Entry{Key: "estimate", Value: ir.AttrString(s)})
	}
	if rewrites := tensor.SourceRewrites(module); len(rewrites) > 0 {
		b.pkg.Metadata = append(b.pkg.Metadata, ipupkg.Entry{Key: ipupkg.MetadataSourceRewrites, Value: strings.Join(rewrites, ",")})
	}
	mem := memories[0]
	for tile := range tg.Tiles {
		at := func(name string) int64 { v, _ := mem.Attr(name).(*tileasm.PerTileAttr).At(int64(tile)); return v }
		b.pkg.TileImages = append(b.pkg.TileImages, ipupkg.TileImage{SupportAddress: at(tileasm.SupportAttr),
			CodeBytes: at(tileasm.CodeBytesAttr), ExchangeTableBytes: at(tileasm.ExchangeTableBytesAttr), HostCodeBytes: at(tileasm.HostCodeBytesAttr)})
	}
	for _, op := range mem.Block().Ops() {
		var err error
		switch {
		case op.Is(tileasm.BufferOp):
			err = b.buffer(op)
		case op.Is(tileasm.ViewOp):
			err = b.view(op)
		case op.Is(tileasm.SyncOp):
			b.pkg.Program = append(b.pkg.Program, ipupkg.Instruction{Op: ipupkg.OpSync})
		case tileasm.IsInstruction(op):
			err = b.instruction(op)
			b.steps++
		}
		if err != nil {
			return nil, err
		}
	}
	if err := b.outputs(mem); err != nil {
		return nil, err
	}
	b.checkpoints(opts)
	if err := b.pkg.Validate(); err != nil {
		return nil, mem.EmitOpError("the package does not validate: %v", err)
	}
	return b.pkg, nil
}

type builder struct {
	// inputNames and outputNames name the streams, inputElems and
	// outputElems give their host types (Options).
	inputNames, outputNames []string
	inputElems, outputElems []elem.Type
	inputText, outputText   []bool
	tg                      *target.Target
	sources                 *ir.SourceMgr // where locations find the names the user wrote
	pkg                     *ipupkg.Package
	index                   map[*ir.Value]int // value → buffer
	locs                    []ir.Location     // per buffer
	// order is, per buffer, where its value appears in the program: a
	// buffer written by step s at 2s+1, a view made before step s at 2s,
	// so that the last value made at a location is its op's result.
	order []int64
	steps int64 // instructions seen so far
}

func (b *builder) classIndex(name string) (int, error) {
	for i, c := range b.tg.MemoryClasses {
		if c.Name == name {
			return i, nil
		}
	}
	return 0, fmt.Errorf("unknown memory class %q", name)
}

// common fills what buffers and views share: element type, shape, class,
// layout.
func (b *builder) common(op *ir.Operation, name string) (ipupkg.Buffer, *layout.ShardMap, error) {
	rt := op.Result(0).Type().(*ir.RankedTensorType)
	l, _ := tiled.LayoutOf(rt)
	m, err := tiled.CheckLayout(l, rt, b.tg)
	if err != nil {
		return ipupkg.Buffer{}, nil, op.EmitOpError("%v", err)
	}
	et, ok := irelem.Of(rt.Elem)
	if !ok {
		return ipupkg.Buffer{}, nil, op.EmitOpError("element type %s has no place in a package", ir.TypeString(rt.Elem))
	}
	class, err := b.classIndex(l.MemoryClass)
	if err != nil {
		return ipupkg.Buffer{}, nil, op.EmitOpError("%v", err)
	}
	out := ipupkg.Buffer{Name: name, Elem: et, Shape: append([]int64(nil), rt.Dims...), Class: class, End: -1, Layout: ipupkg.LayoutOf(l)}
	return out, m, nil
}

func (b *builder) add(v *ir.Value, buf ipupkg.Buffer, loc ir.Location) {
	b.index[v] = len(b.pkg.Buffers)
	b.pkg.Buffers = append(b.pkg.Buffers, buf)
	b.locs = append(b.locs, loc)
	if len(buf.ViewOf) > 0 {
		b.order = append(b.order, 2*b.steps)
	} else {
		b.order = append(b.order, 2*buf.Start+1)
	}
}

func (b *builder) buffer(op *ir.Operation) error {
	buf, m, err := b.common(op, op.Attr(tileasm.NameAttr).(*ir.StringAttr).Val)
	if err != nil {
		return err
	}
	buf.Start, buf.End = tileasmLive(op)
	_, bytesOn, err := tileasm.ShardBytes(op, b.tg)
	if err != nil {
		return op.EmitOpError("%v", err)
	}
	pl := op.Attr(tileasm.PlacementAttr).(*tileasm.PerTileAttr)
	for _, tile := range m.Tiles() {
		addr, _ := pl.At(tile)
		box, _ := m.BoxOnTile(tile)
		piece := ipupkg.Piece{Tile: int(tile), Address: addr, Bytes: bytesOn(tile)}
		for _, s := range box {
			piece.Box = append(piece.Box, ipupkg.Span{Lo: s.Lo, Hi: s.Hi})
		}
		buf.Pieces = append(buf.Pieces, piece)
	}
	if init, ok := op.Attr(tileasm.InitAttr).(*ir.DenseElementsAttr); ok {
		data, err := elementBytes(init, buf.Elem)
		if err != nil {
			return op.EmitOpError("its initial value: %v", err)
		}
		buf.Init = &ipupkg.Init{Splat: init.Splat, Data: data}
	}
	if a, ok := op.Attr(tileasm.HostInputAttr).(*ir.IntegerAttr); ok {
		b.pkg.Streams = append(b.pkg.Streams, ipupkg.Stream{Name: streamName(b.inputNames, "input", int(a.Int)),
			Index: int(a.Int), Elem: hostElem(b.inputElems, int(a.Int), buf.Elem), Shape: buf.Shape, Buffer: len(b.pkg.Buffers),
			Text: text(b.inputText, int(a.Int))})
	}
	b.add(op.Result(0), buf, op.Loc())
	return nil
}

func tileasmLive(op *ir.Operation) (int64, int64) {
	d := op.Attr(tileasm.LiveAttr).(*ir.DenseArrayAttr).Ints
	return d[0], d[1]
}

func (b *builder) view(op *ir.Operation) error {
	buf, m, err := b.common(op, "view")
	if err != nil {
		return err
	}
	// A view's pieces say which indices each tile sees; their memory is the
	// sources'.
	for _, tile := range m.Tiles() {
		box, _ := m.BoxOnTile(tile)
		piece := ipupkg.Piece{Tile: int(tile)}
		for _, s := range box {
			piece.Box = append(piece.Box, ipupkg.Span{Lo: s.Lo, Hi: s.Hi})
		}
		buf.Pieces = append(buf.Pieces, piece)
	}
	for _, v := range op.Operands() {
		i, ok := b.index[v]
		if !ok {
			return op.EmitOpError("views a value that is no buffer")
		}
		buf.ViewOf = append(buf.ViewOf, i)
	}
	params, err := paramsOf(op, map[string]bool{tileasm.KindAttr: true}, movementParams)
	if err != nil {
		return err
	}
	buf.ViewKind, buf.ViewParams = op.Attr(tileasm.KindAttr).(*ir.StringAttr).Val, params
	buf.Start = 0
	b.add(op.Result(0), buf, op.Loc())
	return nil
}

// movementParams maps the movement attributes of a copy or a view to the
// package's parameters.
var movementParams = map[string]string{
	tiled.PermutationAttrName: ipupkg.ParamPermutation, tiled.DimensionsAttrName: ipupkg.ParamDimensions,
	tiled.OffsetsAttrName: ipupkg.ParamOffsets, tiled.SizesAttrName: ipupkg.ParamSizes,
	tiled.StridesAttrName: ipupkg.ParamStrides, tiled.AxisAttrName: ipupkg.ParamAxis,
}

// instructions maps each tile-asm instruction to its opcode and each of
// its attributes to the package parameter that encodes it (the
// instruction table, ipupkg.Instructions, declares the parameters): the
// one place where the IR's names meet the package's, so that renaming an
// attribute cannot change the file format. Every instruction's superstep
// is the instruction's own field; an exchange's phase attributes are its
// exchange table. An attribute in no row is refused.
var instructions = []instructionRow{
	{tileasm.AmpOp, ipupkg.OpAmp, map[string]string{tiled.PlanAttrName: ipupkg.ParamPlan, tileasm.BlocksAttr: ipupkg.ParamBlocks,
		tiled.PartialAttrName: ipupkg.ParamPartial, tiled.PartialsTypeAttrName: ipupkg.ParamPartials}},
	{tileasm.VectorOp, ipupkg.OpVector, map[string]string{tiled.FnAttrName: ipupkg.ParamFn}},
	{tileasm.ReduceOp, ipupkg.OpReduce, map[string]string{tiled.FnAttrName: ipupkg.ParamFn, tiled.AxesAttrName: ipupkg.ParamAxes}},
	{tileasm.CopyOp, ipupkg.OpCopy, withMovement(map[string]string{tileasm.KindAttr: ipupkg.ParamMovement})},
	{tileasm.ExchangeOp, ipupkg.OpExchange, map[string]string{}},
	{tileasm.StreamInOp, ipupkg.OpStreamIn, map[string]string{}},
}

type instructionRow struct {
	def    *ir.OpDef
	op     ipupkg.Opcode
	params map[string]string // IR attribute → package parameter
}

func withMovement(m map[string]string) map[string]string {
	for k, v := range movementParams {
		m[k] = v
	}
	return m
}

// exchangeTableAttrs are the exchange attributes its table holds.
var exchangeTableAttrs = map[string]bool{exchange.PhaseAttrName: true, exchange.TransfersAttrName: true,
	exchange.ScheduleAttrName: true, exchange.SourceOffsetsAttrName: true, exchange.SourceStridesAttrName: true}

func (b *builder) instruction(op *ir.Operation) error {
	in := ipupkg.Instruction{Origin: originOf(op, b.sources)}
	i := slices.IndexFunc(instructions, func(r instructionRow) bool { return op.Is(r.def) })
	if i < 0 {
		return op.EmitOpError("has no instruction in the package")
	}
	row := instructions[i]
	in.Op = row.op
	for _, v := range op.Operands() {
		i, ok := b.index[v]
		if !ok {
			return op.EmitOpError("uses a value that is no buffer")
		}
		in.Operands = append(in.Operands, i)
	}
	if row.op == ipupkg.OpExchange {
		x, err := b.exchangeTable(op)
		if err != nil {
			return err
		}
		in.Params = append(in.Params, ipupkg.Param{Key: ipupkg.ParamExchange, Ints: []int64{int64(len(b.pkg.Exchanges))}})
		b.pkg.Exchanges = append(b.pkg.Exchanges, x)
	}
	for _, a := range op.AllAttrs() {
		if a.Name == tileasm.SuperstepAttr {
			if ia, ok := a.Value.(*ir.IntegerAttr); ok {
				in.Superstep = ia.Int
			}
			continue
		}
		if row.op == ipupkg.OpExchange && exchangeTableAttrs[a.Name] {
			continue
		}
		pr, err := paramOf(op, a, row.params)
		if err != nil {
			return err
		}
		in.Params = append(in.Params, pr)
	}
	// Parameters in the order the instruction table declares them.
	spec, _ := in.Op.Spec()
	order := func(key string) int {
		return slices.IndexFunc(spec.Params, func(s ipupkg.ParamSpec) bool { return s.Key == key })
	}
	slices.SortStableFunc(in.Params, func(a, b ipupkg.Param) int { return order(a.Key) - order(b.Key) })
	b.pkg.Program = append(b.pkg.Program, in)
	return nil
}

// paramOf encodes attribute a as the parameter keys names for it.
func paramOf(op *ir.Operation, a ir.NamedAttr, keys map[string]string) (ipupkg.Param, error) {
	key, ok := keys[a.Name]
	if !ok {
		return ipupkg.Param{}, op.EmitOpError("attribute '%s' has no encoding in the package", a.Name)
	}
	switch v := a.Value.(type) {
	case *ir.IntegerAttr:
		return ipupkg.Param{Key: key, Ints: []int64{v.Int}}, nil
	case *ir.StringAttr:
		return ipupkg.Param{Key: key, IsString: true, Str: v.Val}, nil
	case *ir.DenseArrayAttr:
		return ipupkg.Param{Key: key, Ints: append([]int64(nil), v.Ints...)}, nil
	case *ir.UnitAttr:
		return ipupkg.Param{Key: key}, nil
	case *ir.TypeAttr:
		return ipupkg.Param{Key: key, IsString: true, Str: ir.TypeString(v.T)}, nil
	case *tiled.GemmPlanAttr:
		p := v.Plan
		orientation := int64(ipupkg.PlanNormal)
		if p.Orientation == layout.Swapped {
			orientation = ipupkg.PlanSwapped
		}
		return ipupkg.Param{Key: key, Ints: []int64{orientation, p.BatchPartitions, p.RowPartitions,
			p.ColumnPartitions, p.InnerPartitions, p.ResultRowPartitions, p.ResultColumnPartitions, p.OutputColumnBlock}}, nil
	}
	return ipupkg.Param{}, op.EmitOpError("attribute '%s' (%s) has no encoding in the package", a.Name, ir.AttrString(a.Value))
}

// paramsOf encodes op's attributes but those in skip, as keys names them.
func paramsOf(op *ir.Operation, skip map[string]bool, keys map[string]string) ([]ipupkg.Param, error) {
	var out []ipupkg.Param
	for _, a := range op.AllAttrs() {
		if skip[a.Name] {
			continue
		}
		pr, err := paramOf(op, a, keys)
		if err != nil {
			return nil, err
		}
		out = append(out, pr)
	}
	return out, nil
}

func (b *builder) exchangeTable(op *ir.Operation) (ipupkg.Exchange, error) {
	ta := op.Attr(exchange.TransfersAttrName).(*exchange.TransfersAttr)
	sa := op.Attr(exchange.ScheduleAttrName).(*exchange.ScheduleAttr)
	x := ipupkg.Exchange{Horizon: sa.Horizon, LowerBound: sa.LowerBound, Kind: string(sa.Kind)}
	if p, ok := op.Attr(exchange.PhaseAttrName).(*ir.IntegerAttr); ok {
		x.Phase = p.Int
	}
	for _, t := range ta.List {
		tr := ipupkg.Transfer{Operand: int(t.Operand), Src: int(t.Src), Words: t.Words}
		for _, d := range t.Dst {
			tr.Dst = append(tr.Dst, int(d))
		}
		for _, s := range t.Box {
			tr.Box = append(tr.Box, ipupkg.Span{Lo: s.Lo, Hi: s.Hi})
		}
		x.Transfers = append(x.Transfers, tr)
	}
	for _, s := range sa.Segments {
		x.Segments = append(x.Segments, ipupkg.Segment{Transfer: int(s.Transfer), Start: s.Start, Words: s.Words})
	}
	for _, n := range []struct {
		name string
		dst  *[]int64
	}{{exchange.SourceOffsetsAttrName, &x.SourceOffsets}, {exchange.SourceStridesAttrName, &x.SourceStrides}} {
		if a, ok := op.Attr(n.name).(*ir.DenseArrayAttr); ok {
			*n.dst = append([]int64(nil), a.Ints...)
		}
	}
	return x, nil
}

// outputs makes the output streams: the function's results in order,
// each read from the buffer or view the function returns (one buffer may
// feed several streams).
func (b *builder) outputs(mem *ir.Operation) error {
	term := mem.Block().Last()
	if term == nil || !term.HasTrait(ir.TraitReturnLike) {
		return mem.EmitOpError("the program's block has no return naming its results")
	}
	for i, v := range term.Operands() {
		k, ok := b.index[v]
		if !ok {
			return term.EmitOpError("result #%d is not a buffer or a view of the program", i)
		}
		buf := b.pkg.Buffers[k]
		b.pkg.Streams = append(b.pkg.Streams, ipupkg.Stream{Name: streamName(b.outputNames, "output", i), Output: true, Index: i,
			Elem: hostElem(b.outputElems, i, buf.Elem), Shape: buf.Shape, Buffer: k, Text: text(b.outputText, i)})
	}
	return nil
}

// checkpoints names, for each source op, the last buffer or view (in
// program order) made at its location that holds its result's type
// (constants and views of them aside: nothing computes them); a view
// stands for a value the
// program never stores alone, such as one of the results of fused
// matmuls. A buffer located as computing the source op's value with its
// axes rearranged (tensor.PermutedLoc) holds its type once transposed
// back, and its checkpoint says how. The outputs need none: a runner
// compares what the host receives.
func (b *builder) checkpoints(opts Options) {
	taken := map[int]bool{}
	for _, so := range opts.SourceOps {
		best := -1
		var bestPerm []int
		for i, buf := range b.pkg.Buffers {
			loc, ok := ir.FileLineColOf(b.locs[i])
			if !ok || b.constant(i) || loc.Line != so.Line || loc.Col != so.Column || !(ipupkg.Stream{Elem: so.Elem}).Carries(buf.Elem) ||
				(best >= 0 && b.order[i] < b.order[best]) {
				continue
			}
			perm, _ := tensor.SourcePermutation(b.locs[i])
			cp := ipupkg.Checkpoint{Permutation: perm}
			if len(perm) == len(buf.Shape) && slices.Equal(cp.SourceShape(buf.Shape), so.Shape) || len(perm) == 0 && slices.Equal(buf.Shape, so.Shape) {
				best, bestPerm = i, perm
			}
		}
		if best >= 0 && !taken[best] {
			taken[best] = true
			b.pkg.Checkpoints = append(b.pkg.Checkpoints, ipupkg.Checkpoint{Name: so.Name, Buffer: best, Line: so.Line, Column: so.Column, Permutation: bestPerm})
		}
	}
}

// constant says whether buffer i holds a constant, or is a view of
// constants only: nothing computes it, so nothing needs checking.
func (b *builder) constant(i int) bool {
	buf := &b.pkg.Buffers[i]
	if len(buf.ViewOf) == 0 {
		return buf.Init != nil
	}
	for _, v := range buf.ViewOf {
		if !b.constant(v) {
			return false
		}
	}
	return true
}

// elementBytes is a constant's elements as stored (little endian, row
// major; one element for a splat).
func elementBytes(d *ir.DenseElementsAttr, et elem.Type) ([]byte, error) {
	want := int64(et.Bytes())
	if !d.Splat {
		want *= d.NumElements()
	}
	if int64(len(d.Data)) != want {
		return nil, fmt.Errorf("%d bytes of data for %d bytes of %v elements", len(d.Data), want, et)
	}
	return slices.Clone(d.Data), nil
}
