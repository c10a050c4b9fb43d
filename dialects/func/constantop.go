package funcd

import (
	"fmt"

	"github.com/ipuir/ipuir/ir"
)

// ConstantOp is func.constant.
var ConstantOp = &ir.OpDef{
	Name:        ConstantOpName,
	Summary:     "A function as a value, for func.call_indirect.",
	Description: "The result's type is the referenced function's type. Its result prints as %f.",
	Example:     "%f = func.constant @scale : (f32) -> f32",
	Results:     []ir.ValueDef{{Name: "result", Type: ir.AnyType}},
	Attributes:  []ir.AttrDef{{Name: ValueAttr, Kind: ir.FlatSymbolRefKind}},
	Traits:      ir.TraitConstantLike | ir.TraitPure,
	// MLIR names every function constant "f".
	AsmResultNames: func(*ir.Operation) []string { return []string{"f"} },
	AssemblyFormat: "attr-dict $value `:` type(results)",
	Verify:         verifyConstant,
}

func verifyConstant(op *ir.Operation) error {
	ref := op.Attr(ValueAttr).(*ir.SymbolRefAttr)
	fn := lookupFunc(op, ref)
	if fn == nil {
		return fmt.Errorf("reference to undefined function '%s'", ref.Root)
	}
	if ft := functionType(fn); ft == nil || ir.Type(ft) != op.Result(0).Type() {
		return fmt.Errorf("reference to function with mismatched type")
	}
	return nil
}
