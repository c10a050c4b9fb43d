package funcd

import "github.com/ipuir/ipuir/ir"

// The dialect's implementations of ir's op interfaces, so that passes and
// tools find functions and calls by what they are, not by their names.

// functionInterface makes func.func an ir.FunctionLike.
type functionInterface struct{}

func (functionInterface) FunctionType(op *ir.Operation) *ir.FunctionType { return functionType(op) }

func (functionInterface) SetFunctionType(op *ir.Operation, t *ir.FunctionType) {
	op.SetAttr(op.Context(), FunctionTypeAttr, op.Context().TypeAttr(t))
}

func (functionInterface) FunctionBody(op *ir.Operation) *ir.Region { return op.Region(0) }

// callInterface makes func.call an ir.CallLike.
type callInterface struct{}

func (callInterface) Callee(op *ir.Operation) *ir.SymbolRefAttr {
	ref, _ := op.Attr(CalleeAttr).(*ir.SymbolRefAttr)
	return ref
}

func (callInterface) CallArguments(op *ir.Operation) []*ir.Value { return op.Operands() }

// callIndirectInterface makes func.call_indirect an ir.CallLike whose
// callee is its first operand.
type callIndirectInterface struct{}

func (callIndirectInterface) Callee(*ir.Operation) *ir.SymbolRefAttr { return nil }

func (callIndirectInterface) CallArguments(op *ir.Operation) []*ir.Value { return op.Operands()[1:] }
