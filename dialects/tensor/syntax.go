package tensor

import (
	"github.com/ipuir/ipuir/ir"
)

// Custom directives of the dialect's assembly formats. They give the
// attribute spellings MLIR's ODS gives attributes whose type is implied:
// an i64 array as `[1, 0, 2]` (not `array<i64: 1, 0, 2>`), an i64 as `2`
// (not `2 : i64`), an f32 as `9.99999997E-7` (not `... : f32`).
const (
	customIndexList = "IndexList"
	customIndex     = "Index"
	customF32       = "F32"
)

// directives are the dialect's custom directives (Dialect.Directives).
var directives = map[string]*ir.CustomDirective{
	customIndexList: ir.IndexListDirective,
	customIndex:     {Print: printIndex, Parse: parseIndex},
	customF32:       {Print: printF32, Parse: parseF32},
}

func printIndex(p ir.OpAsmPrinter, _ *ir.Operation, args []*ir.DirectiveArg) {
	if !ir.I64AttrKind.Pred(args[0].Attr) {
		p.PrintAttr(args[0].Attr)
		return
	}
	p.Asm().WriteInt(args[0].Attr.(*ir.IntegerAttr).Int)
}

func parseIndex(p ir.OpAsmParser, _ *ir.OperationState, args []*ir.DirectiveArg) error {
	v, err := p.ParseInteger()
	if err != nil {
		return err
	}
	args[0].Attr = I64(p.Context(), int(v))
	return nil
}

func printF32(p ir.OpAsmPrinter, _ *ir.Operation, args []*ir.DirectiveArg) {
	if !F32AttrKind.Pred(args[0].Attr) {
		p.PrintAttr(args[0].Attr)
		return
	}
	p.PrintAttrWithoutType(args[0].Attr)
}

func parseF32(p ir.OpAsmParser, _ *ir.OperationState, args []*ir.DirectiveArg) error {
	a, err := p.ParseAttribute(p.Context().F32())
	if err != nil {
		return err
	}
	args[0].Attr = a
	return nil
}
