package asmformat

import (
	"github.com/ipuir/ipuir/ir"
)

// Parse reads op's custom form (after its name) by def's assembly format
// into st: operands resolved, attributes, regions, successors, and result
// types printed or inferred (InferResultTypes, or the operand type under
// SameOperandsAndResultType).
func Parse(def *ir.OpDef, p ir.OpAsmParser, st *ir.OperationState) error {
	f, err := formatOf(def)
	if err != nil {
		return p.Errorf("%v", err)
	}
	ps := &parseState{
		f: f, p: p, st: st,
		operands:     make([][]ir.UnresolvedOperand, len(def.Operands)),
		parsedGroup:  make([]bool, len(def.Operands)),
		operandTypes: make([][]ir.Type, len(def.Operands)),
		resultTypes:  make([][]ir.Type, len(def.Results)),
		regions:      make([]*ir.Region, len(def.Regions)),
	}
	for _, e := range f.elems {
		if err := ps.element(e); err != nil {
			return err
		}
	}
	return ps.finish()
}

type parseState struct {
	f  *format
	p  ir.OpAsmParser
	st *ir.OperationState

	operands       [][]ir.UnresolvedOperand // per operand group
	parsedGroup    []bool
	allOperands    []ir.UnresolvedOperand
	parsedAll      bool
	operandTypes   [][]ir.Type // nil until printed types were read
	allOperandTyps []ir.Type
	resultTypes    [][]ir.Type
	allResultTyps  []ir.Type
	regions        []*ir.Region
	allRegions     []*ir.Region
	successors     []*ir.Block
}

func (ps *parseState) element(e *element) error {
	p := ps.p
	switch e.kind {
	case elLiteral:
		if isKeyword(e.text) {
			return p.ParseKeyword(e.text)
		}
		return p.ParsePunct(e.text)
	case elSpace:
		return nil
	case elVar:
		return ps.variable(e.ref)
	case elType:
		count := ps.typeCount(e.ref)
		if count > 0 && ps.variadic(e.ref) {
			// As MLIR's generated parsers: a variadic group's types are a
			// list of any length, checked against the operands when they
			// are resolved.
			count = -1
		}
		ts, err := ps.parseTypes(count)
		if err != nil {
			return err
		}
		ps.setTypes(e.ref, ts)
		return nil
	case elFunctional:
		if err := p.ParsePunct("("); err != nil {
			return err
		}
		var in []ir.Type
		if !p.ParseOptionalPunct(")") {
			var err error
			if in, err = p.ParseTypeList(); err != nil {
				return err
			}
			if err := p.ParsePunct(")"); err != nil {
				return err
			}
		}
		if err := p.ParsePunct("->"); err != nil {
			return err
		}
		out, err := ps.parseResultList()
		if err != nil {
			return err
		}
		ps.setTypes(e.ref, in)
		ps.setTypes(e.ref2, out)
		return nil
	case elAttrDict:
		if e.keyword {
			return p.ParseOptionalAttrDictWithKeyword(ps.st)
		}
		return p.ParseOptionalAttrDict(ps.st)
	case elCustom:
		return ps.custom(e)
	case elGroup:
		return ps.group(e)
	}
	return nil
}

// parseResultList reads the results of a function type: `type` or
// `(types)`, possibly `()`.
func (ps *parseState) parseResultList() ([]ir.Type, error) {
	p := ps.p
	if !p.ParseOptionalPunct("(") {
		t, err := p.ParseType()
		if err != nil {
			return nil, err
		}
		return []ir.Type{t}, nil
	}
	if p.ParseOptionalPunct(")") {
		return nil, nil
	}
	ts, err := p.ParseTypeList()
	if err != nil {
		return nil, err
	}
	return ts, p.ParsePunct(")")
}

// parseTypes reads count comma-separated types (count < 0: at least one,
// as many as there are).
func (ps *parseState) parseTypes(count int) ([]ir.Type, error) {
	if count < 0 {
		return ps.p.ParseTypeList()
	}
	out := make([]ir.Type, 0, count)
	for i := 0; i < count; i++ {
		if i > 0 {
			if err := ps.p.ParsePunct(","); err != nil {
				return nil, err
			}
		}
		t, err := ps.p.ParseType()
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// variadic reports whether type(r) names a group that may hold several
// values (a variadic operand or result, or all operands or results).
func (ps *parseState) variadic(r ref) bool {
	def := ps.f.def
	switch r.kind {
	case refOperand:
		return def.Operands[r.index].Kind == ir.Variadic
	case refResult:
		return def.Results[r.index].Kind == ir.Variadic
	}
	return false
}

// typeCount is how many types type(r) has: known from the operands read
// so far or from the definition, else -1.
func (ps *parseState) typeCount(r ref) int {
	def := ps.f.def
	switch r.kind {
	case refOperand:
		if ps.parsedGroup[r.index] {
			return len(ps.operands[r.index])
		}
		if def.Operands[r.index].Kind == ir.Single {
			return 1
		}
	case refAllOperands:
		if ps.parsedAll {
			return len(ps.allOperands)
		}
		if n, ok := ps.parsedOperandCount(); ok {
			return n
		}
	case refResult:
		if def.Results[r.index].Kind == ir.Single {
			return 1
		}
	case refAllResults:
		if flexibleGroups(def.Results) == 0 {
			return len(def.Results)
		}
	}
	return -1
}

func (ps *parseState) parsedOperandCount() (int, bool) {
	n := 0
	for i, done := range ps.parsedGroup {
		if !done {
			return 0, false
		}
		n += len(ps.operands[i])
	}
	return n, true
}

func (ps *parseState) setTypes(r ref, ts []ir.Type) {
	switch r.kind {
	case refOperand:
		ps.operandTypes[r.index] = nonNil(ts)
	case refAllOperands:
		ps.allOperandTyps = nonNil(ts)
	case refResult:
		ps.resultTypes[r.index] = nonNil(ts)
	case refAllResults:
		ps.allResultTyps = nonNil(ts)
	}
}

// nonNil marks types as read even when there are none.
func nonNil(ts []ir.Type) []ir.Type {
	if ts == nil {
		return []ir.Type{}
	}
	return ts
}

func (ps *parseState) variable(r ref) error {
	p, def := ps.p, ps.f.def
	switch r.kind {
	case refOperand:
		var ops []ir.UnresolvedOperand
		var err error
		if def.Operands[r.index].Kind == ir.Single {
			var op ir.UnresolvedOperand
			op, err = p.ParseOperand()
			ops = []ir.UnresolvedOperand{op}
		} else {
			ops, err = p.ParseOperandList()
		}
		if err != nil {
			return err
		}
		ps.setOperands(r, ops)
	case refAllOperands:
		ops, err := p.ParseOperandList()
		if err != nil {
			return err
		}
		ps.setOperands(r, ops)
	case refAttr:
		name := def.Attributes[r.index].Name
		if name == ir.SymbolAttrName {
			sym, err := p.ParseSymbolName()
			if err != nil {
				return err
			}
			ps.st.AddAttr(name, p.Context().String(sym))
			return nil
		}
		a, err := p.ParseAttribute(nil)
		if err != nil {
			return err
		}
		ps.st.AddAttr(name, a)
	case refRegion:
		reg := &ir.Region{}
		if err := p.ParseRegion(reg, nil); err != nil {
			return err
		}
		ps.regions[r.index] = reg
	case refAllRegions:
		for {
			reg := &ir.Region{}
			ok, err := p.ParseOptionalRegion(reg, nil)
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			ps.allRegions = append(ps.allRegions, reg)
			if !p.ParseOptionalPunct(",") {
				break
			}
		}
	case refSuccessors:
		for {
			b, err := p.ParseSuccessor()
			if err != nil {
				return err
			}
			ps.successors = append(ps.successors, b)
			if !p.ParseOptionalPunct(",") {
				break
			}
		}
	}
	return nil
}

func (ps *parseState) setOperands(r ref, ops []ir.UnresolvedOperand) {
	if r.kind == refAllOperands {
		ps.allOperands, ps.parsedAll = ops, true
		return
	}
	ps.operands[r.index], ps.parsedGroup[r.index] = ops, true
}

// group parses an optional group: its first element decides whether the
// group is there.
func (ps *parseState) group(e *element) error {
	p, def := ps.p, ps.f.def
	first := firstParsable(e.then)
	present := false
	switch {
	case first.kind == elLiteral && isKeyword(first.text):
		present = p.ParseOptionalKeyword(first.text)
	case first.kind == elLiteral:
		present = p.ParseOptionalPunct(first.text)
	case first.ref.kind == refOperand || first.ref.kind == refAllOperands:
		op, ok, err := p.ParseOptionalOperand()
		if err != nil {
			return err
		}
		present = ok
		var ops []ir.UnresolvedOperand
		if ok {
			ops = append(ops, op)
			variadic := first.ref.kind == refAllOperands || def.Operands[first.ref.index].Kind == ir.Variadic
			for variadic && p.ParseOptionalPunct(",") {
				next, err := p.ParseOperand()
				if err != nil {
					return err
				}
				ops = append(ops, next)
			}
		}
		ps.setOperands(first.ref, ops)
	case first.ref.kind == refRegion:
		reg := &ir.Region{}
		ok, err := p.ParseOptionalRegion(reg, nil)
		if err != nil {
			return err
		}
		if ok {
			ps.regions[first.ref.index] = reg
		}
		present = ok
	case first.ref.kind == refAttr:
		sym, ok, err := p.ParseOptionalSymbolName()
		if err != nil {
			return err
		}
		if ok {
			ps.st.AddAttr(def.Attributes[first.ref.index].Name, p.Context().String(sym))
		}
		present = ok
	}
	if !present {
		for _, el := range e.els {
			if err := ps.element(el); err != nil {
				return err
			}
		}
		return nil
	}
	if e.anchor.elidedAnchor {
		ps.st.AddAttr(def.Attributes[e.anchor.ref.index].Name, p.Context().Unit())
	}
	for _, el := range e.then {
		if el == first || el.elidedAnchor {
			continue
		}
		if err := ps.element(el); err != nil {
			return err
		}
	}
	return nil
}

func (ps *parseState) custom(e *element) error {
	args := make([]*Arg, len(e.args))
	for i, a := range e.args {
		arg := &Arg{Kind: a.kind, Name: a.ref.name, Ref: a.isRef}
		if a.isRef {
			ps.fillRef(a, arg)
		} else if a.kind == ArgRegion {
			arg.Region = &ir.Region{}
		}
		args[i] = arg
	}
	if err := e.custom.Parse(ps.p, ps.st, args); err != nil {
		return err
	}
	for i, a := range e.args {
		if a.isRef {
			continue
		}
		arg := args[i]
		switch a.kind {
		case ArgOperands:
			ps.setOperands(a.ref, arg.Operands)
		case ArgTypes:
			ps.setTypes(a.ref, arg.Types)
		case ArgAttr:
			if arg.Attr != nil {
				ps.st.AddAttr(ps.f.def.Attributes[a.ref.index].Name, arg.Attr)
			}
		case ArgRegion:
			ps.regions[a.ref.index] = arg.Region
		case ArgSuccessors:
			ps.successors = arg.Successors
		}
	}
	return nil
}

// fillRef hands a ref(...) argument what the format parsed before it.
func (ps *parseState) fillRef(a customArg, arg *Arg) {
	switch a.kind {
	case ArgOperands:
		if a.ref.kind == refAllOperands {
			arg.Operands = ps.allOperands
		} else {
			arg.Operands = ps.operands[a.ref.index]
		}
	case ArgTypes:
		switch a.ref.kind {
		case refOperand:
			arg.Types = ps.operandTypes[a.ref.index]
		case refAllOperands:
			arg.Types = ps.allOperandTyps
		case refResult:
			arg.Types = ps.resultTypes[a.ref.index]
		case refAllResults:
			arg.Types = ps.allResultTyps
		}
	case ArgAttr:
		name := ps.f.def.Attributes[a.ref.index].Name
		for _, na := range ps.st.Attrs {
			if na.Name == name {
				arg.Attr = na.Value
			}
		}
	case ArgRegion:
		arg.Region = ps.regions[a.ref.index]
	case ArgSuccessors:
		arg.Successors = ps.successors
	}
}

// finish resolves operands with their types, infers result types and
// puts regions and successors in place.
func (ps *parseState) finish() error {
	p, def, st := ps.p, ps.f.def, ps.st
	ctx := p.Context()

	// Operands and their types, group by group.
	var ops []ir.UnresolvedOperand
	var opTypes []ir.Type
	var sizes []int64
	if ps.parsedAll {
		ops = ps.allOperands
	} else {
		for i := range def.Operands {
			ops = append(ops, ps.operands[i]...)
			sizes = append(sizes, int64(len(ps.operands[i])))
		}
	}
	switch {
	case ps.allOperandTyps != nil:
		opTypes = ps.allOperandTyps
	case !ps.parsedAll:
		for i := range def.Operands {
			opTypes = append(opTypes, ps.operandTypes[i]...)
		}
	}
	results := ps.resultTypesRead()
	if len(opTypes) != len(ops) && def.Traits&ir.TraitSameOperandsAndResultType != 0 {
		// One type for all: a printed operand type, else a result type.
		var t ir.Type
		if len(opTypes) > 0 {
			t = opTypes[0]
		} else if len(results) > 0 {
			t = results[0]
		}
		if t != nil {
			opTypes = opTypes[:0]
			for range ops {
				opTypes = append(opTypes, t)
			}
		}
	}
	// A count that differs is reported by the parser at the first
	// operand, in mlir-opt's words ("2 operands present, but expected 1").
	if err := p.ResolveOperands(ops, opTypes, st); err != nil {
		return err
	}
	if ps.f.operandSegments && !ps.parsedAll {
		st.AddAttr(operandSegmentsAttr, ctx.DenseIntArray(ctx.I(32), sizes))
	}

	// Result types: printed, inferred, or the operands' type.
	switch {
	case results != nil:
		st.ResultTypes = results
		if ps.f.resultSegments {
			var rs []int64
			for _, g := range ps.resultTypes {
				rs = append(rs, int64(len(g)))
			}
			st.AddAttr(resultSegmentsAttr, ctx.DenseIntArray(ctx.I(32), rs))
		}
	case def.InferResultTypes != nil:
		ts, err := def.InferResultTypes(ctx, st.Operands, st.Attrs)
		if err != nil {
			return p.Errorf("%v", err)
		}
		st.ResultTypes = ts
	case len(def.Results) > 0:
		if len(st.Operands) == 0 {
			return p.Errorf("cannot infer the result types of '%s' without operands", def.Name)
		}
		for range def.Results {
			st.ResultTypes = append(st.ResultTypes, st.Operands[0].Type())
		}
	}

	// Regions in declaration order, then successors.
	if ps.allRegions != nil {
		st.Regions = append(st.Regions, ps.allRegions...)
	} else {
		for _, r := range ps.regions {
			if r == nil {
				r = &ir.Region{}
			}
			st.Regions = append(st.Regions, r)
		}
	}
	st.Successors = append(st.Successors, ps.successors...)
	return nil
}

// resultTypesRead gathers the result types the format printed, or nil
// when it printed none.
func (ps *parseState) resultTypesRead() []ir.Type {
	if ps.allResultTyps != nil {
		return ps.allResultTyps
	}
	var out []ir.Type
	any := false
	for _, g := range ps.resultTypes {
		if g != nil {
			any = true
		}
		out = append(out, g...)
	}
	if !any {
		return nil
	}
	return nonNil(out)
}
