package ir

import (
	"runtime"
	"sync"
	"weak"
)

// SuccessorOperandsFunc tells which operands a branch op passes to its
// successor i: operands [start, start+n), in order, become that block's
// arguments. It is the forwarded part of MLIR's
// BranchOpInterface::getSuccessorOperands. Region simplification removes
// such operands with Operation.SetOperands when it drops a dead block
// argument, so the hook suits ops whose operand list carries no segment
// sizes (or whose Verify recomputes nothing from them).
type SuccessorOperandsFunc func(op *Operation, i int) (start, n int)

// successorOperands holds each OpDef's hook. It is a side table rather
// than an OpDef field so that adding the hook changed no declaration; its
// keys are weak, and the entry goes when its OpDef does (each context
// declares dialects afresh).
var successorOperands sync.Map // weak.Pointer[OpDef] → SuccessorOperandsFunc

// SetSuccessorOperands declares which operands d's ops pass to their
// successors. Call it on the declaration before the dialect is used.
func (d *OpDef) SetSuccessorOperands(f SuccessorOperandsFunc) {
	key := weak.Make(d)
	if _, loaded := successorOperands.Swap(key, f); !loaded {
		runtime.AddCleanup(d, func(k weak.Pointer[OpDef]) { successorOperands.Delete(k) }, key)
	}
}

// SuccessorOperands returns the operands op passes to its successor i, as
// its declaration says (SetSuccessorOperands). ok is false for ops that do
// not declare them, unregistered ones included, and when the declared
// range does not fit the op, so that callers treat it as unknown.
func (op *Operation) SuccessorOperands(i int) (start, n int, ok bool) {
	if op.def == nil || i < 0 || i >= len(op.successors) {
		return 0, 0, false
	}
	f, found := successorOperands.Load(weak.Make(op.def))
	if !found {
		return 0, 0, false
	}
	start, n = f.(SuccessorOperandsFunc)(op, i)
	if start < 0 || n < 0 || start+n > len(op.operands) {
		return 0, 0, false
	}
	return start, n, true
}
