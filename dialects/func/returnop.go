package funcd

import (
	"fmt"

	"github.com/ipuir/ipuir/ir"
)

// ReturnOp is func.return.
var ReturnOp = &ir.OpDef{
	Name:           ReturnOpName,
	Summary:        "Returns from a function: its operands are the function's results.",
	Description:    "The terminator of func.func bodies; operand count and types match the function type.",
	Example:        "func.func @f(%arg0: i32) -> i32 {\n  return %arg0 : i32\n}",
	Operands:       []ir.ValueDef{{Name: "operands", Type: ir.AnyType, Kind: ir.Variadic}},
	Traits:         ir.TraitTerminator | ir.TraitReturnLike | ir.TraitPure,
	ParentOps:      []string{FuncOpName},
	AssemblyFormat: "attr-dict ($operands^ `:` type($operands))?",
	Verify:         verifyReturn,
}

func verifyReturn(op *ir.Operation) error {
	fn := op.ParentOp()
	ft := functionType(fn)
	if ft == nil {
		return nil // the function's own verifier reports it
	}
	name, _ := ir.SymbolName(fn)
	if op.NumOperands() != len(ft.Results) {
		return fmt.Errorf("has %d operands, but enclosing function (@%s) returns %d", op.NumOperands(), name, len(ft.Results))
	}
	for i, t := range ft.Results {
		if got := op.Operand(i).Type(); got != t {
			d := op.EmitError("type of return operand %d ('%s') doesn't match function result type ('%s') in function @%s",
				i, ir.TypeString(got), ir.TypeString(t), name)
			d.Op = op
			return d
		}
	}
	return nil
}
