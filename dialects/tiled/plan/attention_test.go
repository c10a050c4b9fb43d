package plan

import (
	"github.com/ipuir/ipuir/dialects/tiled"
	"github.com/ipuir/ipuir/target"
)

// The attention block of DESIGN.md and the reference log (SigLIP: 729
// tokens, hidden 1152, 16 heads of 72, f16) as the planner sees it, in the
// order of examples/attention.ipuir: x is a host input (not resident), the
// four weights are resident, q/k/v reach the score matmuls through
// reshape and transpose (new values), the scores reach the context matmul
// through scale and softmax (the same value), and the context reaches the
// output projection through transpose and reshape.
const (
	valX = iota
	valQ
	valK
	valV
	valQHeads
	valKHeads
	valVHeads
	valScores
	valContext
	valMerged
	valOut
)

func attentionProgram() Program {
	f16 := target.F16
	proj := tiled.MatmulShape{Batch: 1, M: 729, K: 1152, N: 1152, Elem: f16, ResultElem: f16}
	weight := Operand{Resident: true, Value: -1}
	x := Operand{Value: valX}
	return Program{Matmuls: []Matmul{
		{Name: "%q", Shape: proj, LHS: x, RHS: weight, Result: valQ},
		{Name: "%k", Shape: proj, LHS: x, RHS: weight, Result: valK},
		{Name: "%v", Shape: proj, LHS: x, RHS: weight, Result: valV},
		{Name: "%scores", Shape: tiled.MatmulShape{Batched: true, Batch: 16, M: 729, K: 72, N: 729, Elem: f16, ResultElem: f16},
			LHS: Operand{Value: valQHeads}, RHS: Operand{Value: valKHeads}, Result: valScores},
		{Name: "%context", Shape: tiled.MatmulShape{Batched: true, Batch: 16, M: 729, K: 729, N: 72, Elem: f16, ResultElem: f16},
			LHS: Operand{Value: valScores}, RHS: Operand{Value: valVHeads}, Result: valContext},
		{Name: "%out", Shape: proj, LHS: Operand{Value: valMerged}, RHS: weight, Result: valOut},
	}}
}
