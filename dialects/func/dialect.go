package funcd

import (
	"github.com/ipuir/ipuir/asmformat"
	"github.com/ipuir/ipuir/ir"
)

// Name is the dialect's namespace.
const Name = "func"

// Op names.
const (
	FuncOpName         = "func.func"
	ReturnOpName       = "func.return"
	CallOpName         = "func.call"
	CallIndirectOpName = "func.call_indirect"
	ConstantOpName     = "func.constant"
)

// Attribute names of func.func and the calls.
const (
	FunctionTypeAttr = "function_type"
	ArgAttrsAttr     = ir.ArgAttrsName
	ResAttrsAttr     = "res_attrs"
	CalleeAttr       = "callee"
	ValueAttr        = "value"
)

// Dialect is the func dialect, declared once and registered in each
// context that uses it.
var Dialect = &ir.Dialect{
	Name:    Name,
	Summary: "Functions, calls and returns.",
	Description: "The func dialect of MLIR: func.func holds a body region isolated from above, " +
		"func.return ends it, func.call and func.call_indirect call functions by symbol or value.",
	Ops: []*ir.OpDef{FuncOp, ReturnOp, CallOp, CallIndirectOp, ConstantOp},
}

// Register adds the func dialect to ctx after checking its assembly
// formats.
func Register(ctx *ir.Context) error {
	if err := asmformat.CheckDialect(Dialect); err != nil {
		return err
	}
	return ctx.RegisterDialect(Dialect)
}

// quoted formats types as MLIR's diagnostics do: 'i32', 'i64'.
func quoted(ts []ir.Type) string {
	s := ""
	for i, t := range ts {
		if i > 0 {
			s += ", "
		}
		s += "'" + ir.TypeString(t) + "'"
	}
	return s
}

// functionType returns the type of a func.func, or nil when its
// function_type attribute is missing or not a function type.
func functionType(op *ir.Operation) *ir.FunctionType {
	if t, ok := op.Attr(FunctionTypeAttr).(*ir.TypeAttr); ok {
		ft, _ := t.T.(*ir.FunctionType)
		return ft
	}
	return nil
}

// lookupFunc resolves a flat symbol reference to a func.func from op.
func lookupFunc(op *ir.Operation, ref *ir.SymbolRefAttr) *ir.Operation {
	target := ir.LookupNearestSymbolFrom(op, ref)
	if target == nil || !target.Is(FuncOp) {
		return nil
	}
	return target
}
