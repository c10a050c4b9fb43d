package asmformat

import (
	"fmt"

	"github.com/ipuir/ipuir/ir"
)

// Print prints op's custom form after its name by def's assembly format.
// A format that does not compile prints as a comment saying so; Check
// catches that before any op is printed.
func Print(def *ir.OpDef, p ir.OpAsmPrinter, op *ir.Operation) {
	f, err := formatOf(def)
	if err != nil {
		p.WriteString(fmt.Sprintf(" <<%v>>", err))
		return
	}
	pr := &printer{f: f, p: p, op: op}
	pr.elements(f.elems)
}

type printer struct {
	f  *format
	p  ir.OpAsmPrinter
	op *ir.Operation
}

func (pr *printer) elements(elems []*element) {
	for _, e := range elems {
		pr.element(e)
	}
}

func (pr *printer) element(e *element) {
	p := pr.p
	if e.space {
		p.WriteString(" ")
	}
	switch e.kind {
	case elLiteral:
		p.WriteString(e.text)
	case elSpace:
		// Its space, if any, printed above.
	case elVar:
		pr.variable(e.ref)
	case elType:
		p.Asm().PrintTypes(pr.types(e.ref))
	case elFunctional:
		p.WriteString("(")
		p.Asm().PrintTypes(pr.types(e.ref))
		p.WriteString(") -> ")
		ir.PrintResultTypes(p.Asm(), pr.types(e.ref2))
	case elAttrDict:
		elided := []string{operandSegmentsAttr, resultSegmentsAttr}
		for i, a := range pr.f.def.Attributes {
			if pr.attrBound(i) {
				elided = append(elided, a.Name)
			}
		}
		if e.keyword {
			p.PrintOptionalAttrDictWithKeyword(pr.op.AllAttrs(), elided...)
		} else {
			p.PrintOptionalAttrDict(pr.op.AllAttrs(), elided...)
		}
	case elCustom:
		args := make([]*Arg, len(e.args))
		for i, a := range e.args {
			args[i] = pr.customArg(a)
		}
		e.custom.Print(p, pr.op, args)
	case elGroup:
		if pr.present(e.anchor) {
			for _, t := range e.then {
				if !t.elidedAnchor {
					pr.element(t)
				}
			}
		} else {
			pr.elements(e.els)
		}
	}
}

// attrBound reports whether the format prints attribute i itself, so
// attr-dict leaves it out.
func (pr *printer) attrBound(i int) bool {
	var found bool
	var walk func([]*element)
	walk = func(es []*element) {
		for _, e := range es {
			switch {
			case e.kind == elVar && e.ref.kind == refAttr && e.ref.index == i:
				found = true
			case e.kind == elCustom:
				for _, a := range e.args {
					found = found || a.ref.kind == refAttr && a.ref.index == i
				}
			case e.kind == elGroup:
				walk(e.then)
				walk(e.els)
			}
		}
	}
	walk(pr.f.elems)
	return found
}

func (pr *printer) variable(r ref) {
	p, op, def := pr.p, pr.op, pr.f.def
	switch r.kind {
	case refOperand, refAllOperands:
		p.PrintOperands(pr.values(r))
	case refAttr:
		a := op.Attr(def.Attributes[r.index].Name)
		if s, ok := a.(*ir.StringAttr); ok && def.Attributes[r.index].Name == ir.SymbolAttrName {
			p.PrintSymbolName(s.Val)
			return
		}
		p.PrintAttr(a)
	case refRegion:
		if r.index < op.NumRegions() {
			p.PrintRegion(op.Region(r.index), true, true)
		}
	case refAllRegions:
		for i, reg := range op.Regions() {
			if i > 0 {
				p.WriteString(", ")
			}
			p.PrintRegion(reg, true, true)
		}
	case refSuccessors:
		for i, b := range op.Successors() {
			if i > 0 {
				p.WriteString(", ")
			}
			p.PrintSuccessor(b)
		}
	}
}

func (pr *printer) values(r ref) []*ir.Value {
	op, def := pr.op, pr.f.def
	switch r.kind {
	case refOperand:
		return group(op.Operands(), def.Operands, r.index, op.Attr(operandSegmentsAttr))
	case refResult:
		return group(op.Results(), def.Results, r.index, op.Attr(resultSegmentsAttr))
	case refAllOperands:
		return op.Operands()
	case refAllResults:
		return op.Results()
	}
	return nil
}

func (pr *printer) types(r ref) []ir.Type { return types(pr.values(r)) }

// present reports whether an optional group's anchor has something to
// print.
func (pr *printer) present(anchor *element) bool {
	op, def := pr.op, pr.f.def
	switch anchor.kind {
	case elCustom:
		return pr.present(&element{kind: elVar, ref: anchor.args[0].ref})
	case elVar, elType:
		switch anchor.ref.kind {
		case refAttr:
			return op.Attr(def.Attributes[anchor.ref.index].Name) != nil
		case refRegion:
			return anchor.ref.index < op.NumRegions() && !op.Region(anchor.ref.index).Empty()
		case refAllRegions:
			return op.NumRegions() > 0
		case refSuccessors:
			return op.NumSuccessors() > 0
		}
		return len(pr.values(anchor.ref)) > 0
	}
	return false
}

func (pr *printer) customArg(a customArg) *Arg {
	op, def := pr.op, pr.f.def
	arg := &Arg{Kind: a.kind, Name: a.ref.name, Ref: a.isRef}
	switch a.kind {
	case ArgOperands:
		arg.Values = pr.values(a.ref)
		arg.Types = types(arg.Values)
	case ArgTypes:
		arg.Types = pr.types(a.ref)
	case ArgAttr:
		arg.Attr = op.Attr(def.Attributes[a.ref.index].Name)
	case ArgRegion:
		if a.ref.index < op.NumRegions() {
			arg.Region = op.Region(a.ref.index)
		}
	case ArgSuccessors:
		arg.Successors = op.Successors()
	}
	return arg
}
