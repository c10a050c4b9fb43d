package funcd

import (
	"fmt"

	"github.com/ipuir/ipuir/ir"
)

var functionTypeValue = ir.TypeConstraint{Desc: "function type", Pred: func(t ir.Type) bool {
	_, ok := t.(*ir.FunctionType)
	return ok
}}

// CallIndirectOp is func.call_indirect.
var CallIndirectOp = &ir.OpDef{
	Name:        CallIndirectOpName,
	Summary:     "Calls a function value.",
	Description: "The callee operand's function type gives the argument and result types.",
	Example:     "%f = func.constant @scale : (f32) -> f32\n%0 = func.call_indirect %f(%arg0) : (f32) -> f32",
	Operands: []ir.ValueDef{
		{Name: "callee", Type: functionTypeValue},
		{Name: "callee_operands", Type: ir.AnyType, Kind: ir.Variadic},
	},
	Results:    []ir.ValueDef{{Name: "results", Type: ir.AnyType, Kind: ir.Variadic}},
	Verify:     verifyCallIndirect,
	Interfaces: []any{callIndirectInterface{}},
	Parse:      parseCallIndirect,
	Print:      printCallIndirect,
}

func verifyCallIndirect(op *ir.Operation) error {
	ft := op.Operand(0).Type().(*ir.FunctionType)
	if !sameTypes(ft.Inputs, op.OperandTypes()[1:]) {
		return fmt.Errorf("failed to verify that callee input types match argument types")
	}
	if !sameTypes(ft.Results, op.ResultTypes()) {
		return fmt.Errorf("failed to verify that callee result types match result types")
	}
	return nil
}

func sameTypes(a, b []ir.Type) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// printCallIndirect prints `%f(%a, %b) {attrs} : (i32, i32) -> i32`; the
// callee's type says the argument and result types.
func printCallIndirect(p ir.OpAsmPrinter, op *ir.Operation) {
	p.WriteString(" ")
	p.PrintOperand(op.Operand(0))
	p.WriteString("(")
	p.PrintOperands(op.Operands()[1:])
	p.WriteString(")")
	p.PrintOptionalAttrDict(op.AllAttrs())
	p.WriteString(" : ")
	p.PrintType(op.Operand(0).Type())
}

func parseCallIndirect(p ir.OpAsmParser, st *ir.OperationState) error {
	callee, err := p.ParseOperand()
	if err != nil {
		return err
	}
	if err := p.ParsePunct("("); err != nil {
		return err
	}
	args, err := p.ParseOperandList()
	if err != nil {
		return err
	}
	if err := p.ParsePunct(")"); err != nil {
		return err
	}
	if err := p.ParseOptionalAttrDict(st); err != nil {
		return err
	}
	t, err := p.ParseColonType()
	if err != nil {
		return err
	}
	ft, ok := t.(*ir.FunctionType)
	if !ok {
		return p.Errorf("expected function type")
	}
	if err := p.ResolveOperands([]ir.UnresolvedOperand{callee}, []ir.Type{ft}, st); err != nil {
		return err
	}
	if len(args) != len(ft.Inputs) {
		return p.Errorf("%d operands present, but expected %d", len(args), len(ft.Inputs))
	}
	if err := p.ResolveOperands(args, ft.Inputs, st); err != nil {
		return err
	}
	st.ResultTypes = append(st.ResultTypes, ft.Results...)
	return nil
}
