package plan

import (
	"github.com/ipuir/ipuir/layout"
	"github.com/ipuir/ipuir/target"
)

// MatmulFloor is the cheapest plan the planner finds for one matmul alone,
// with both operands already on their tiles in whatever layout the plan
// wants (no operand exchange) and no other value holding memory: its own
// AMP work, partial-sum exchange, reduction and syncs, nothing else. In a
// program every matmul pays at least this much, since the plan space is
// the same and the context only adds costs (operand exchanges) and takes
// memory away; so the sum over a program's matmuls, with the vector work
// no lowering can avoid, bounds what any choice of plans can reach under
// the target's cost model (the plan-space floor, docs/tiled.md).
func MatmulFloor(s layout.MatmulShape, t *target.Target) (Choice, error) {
	return matmulAlone(s, t, Operand{Resident: true, Value: -1})
}

// MatmulStreamedFloor is MatmulFloor with the right operand streamed in
// just before the matmul (tiled.StreamedAttr): what a matmul whose weight
// no resident plan holds pays at least, its load from streaming memory
// included (the placement plan-gemms falls back to last).
func MatmulStreamedFloor(s layout.MatmulShape, t *target.Target) (Choice, error) {
	return matmulAlone(s, t, Operand{Streamed: true, Value: -1})
}

func matmulAlone(s layout.MatmulShape, t *target.Target, rhs Operand) (Choice, error) {
	prog := Program{Matmuls: []Matmul{{Name: "floor", Shape: s,
		LHS: Operand{Resident: true, Value: -1}, RHS: rhs, Result: -1}}}
	choices, err := PlanProgram(prog, t, Options{})
	if err != nil {
		return Choice{}, err
	}
	return choices[0], nil
}
