package ir

// SuccessorOperandsFunc tells which operands a branch op passes to its
// successor i: operands [start, start+n), in order, become that block's
// arguments. It is the forwarded part of MLIR's
// BranchOpInterface::getSuccessorOperands. Region simplification removes
// such operands with Operation.SetOperands when it drops a dead block
// argument, so the hook suits ops whose operand list carries no segment
// sizes (or whose Verify recomputes nothing from them).
type SuccessorOperandsFunc func(op *Operation, i int) (start, n int)

// SuccessorOperands returns the operands op passes to its successor i, as
// its declaration says (OpDef.SuccessorOperands). ok is false for ops that do
// not declare them, unregistered ones included, and when the declared
// range does not fit the op, so that callers treat it as unknown.
func (op *Operation) SuccessorOperands(i int) (start, n int, ok bool) {
	if op.def == nil || op.def.SuccessorOperands == nil || i < 0 || i >= len(op.successorList()) {
		return 0, 0, false
	}
	start, n = op.def.SuccessorOperands(op, i)
	if start < 0 || n < 0 || start+n > len(op.operands) {
		return 0, 0, false
	}
	return start, n, true
}
