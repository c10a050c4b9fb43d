package funcd

import (
	"fmt"

	"github.com/ipuir/ipuir/ir"
)

// CallOp is func.call.
var CallOp = &ir.OpDef{
	Name:    CallOpName,
	Summary: "Calls the function a symbol names.",
	Description: "The callee must be a func.func visible from the call, whose argument and result " +
		"types are the call's operand and result types.",
	Example:        "%0 = func.call @scale(%arg0, %cst) : (tensor<4xf32>, f32) -> tensor<4xf32>",
	Operands:       []ir.ValueDef{{Name: "operands", Type: ir.AnyType, Kind: ir.Variadic}},
	Results:        []ir.ValueDef{{Name: "results", Type: ir.AnyType, Kind: ir.Variadic}},
	Attributes:     []ir.AttrDef{{Name: CalleeAttr, Kind: ir.FlatSymbolRefKind}},
	AssemblyFormat: "$callee `(` $operands `)` attr-dict `:` functional-type($operands, results)",
	Verify:         verifyCall,
	Interfaces:     []any{callInterface{}},
}

// verifyCall checks the call against its callee with MLIR's messages.
func verifyCall(op *ir.Operation) error {
	ref := op.Attr(CalleeAttr).(*ir.SymbolRefAttr)
	fn := lookupFunc(op, ref)
	if fn == nil {
		return fmt.Errorf("'%s' does not reference a valid function", ref.Root)
	}
	ft := functionType(fn)
	if ft == nil {
		return fmt.Errorf("'%s' does not reference a valid function", ref.Root)
	}
	if len(ft.Inputs) != op.NumOperands() {
		return fmt.Errorf("incorrect number of operands for callee")
	}
	for i, t := range ft.Inputs {
		if got := op.Operand(i).Type(); got != t {
			return fmt.Errorf("operand type mismatch: expected operand type '%s', but provided '%s' for operand number %d",
				ir.TypeString(t), ir.TypeString(got), i)
		}
	}
	if len(ft.Results) != op.NumResults() {
		return fmt.Errorf("incorrect number of results for callee")
	}
	for i, t := range ft.Results {
		if op.Result(i).Type() != t {
			d := op.EmitOpError("result type mismatch at index %d", i)
			d.AttachNote(nil, "      op result types: %s", quoted(op.ResultTypes()))
			d.AttachNote(nil, "function result types: %s", quoted(ft.Results))
			d.Op = op
			return d
		}
	}
	return nil
}
