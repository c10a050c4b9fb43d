package plan

import (
	"fmt"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/layout"
	"github.com/ipuir/ipuir/target"
)

// The attention block (examples/attention.ipuir) and the reference log (SigLIP: 729
// tokens, hidden 1152, 16 heads of 72, f16) as the planner sees it, in the
// order of examples/attention.ipuir: x is a host input (not resident), the
// four weights are resident, q, k and v reach the score matmul through
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
	f16 := elem.F16
	proj := layout.MatmulShape{Batch: 1, M: 729, K: 1152, N: 1152, Elem: f16, ResultElem: f16}
	weight := Operand{Resident: true, Value: -1}
	x := Operand{Value: valX}
	return Program{Matmuls: []Matmul{
		{Name: "%q", Shape: proj, LHS: x, RHS: weight, Result: valQ},
		{Name: "%k", Shape: proj, LHS: x, RHS: weight, Result: valK},
		{Name: "%v", Shape: proj, LHS: x, RHS: weight, Result: valV},
		{Name: "%scores", Shape: layout.MatmulShape{Batched: true, Batch: 16, M: 729, K: 72, N: 729, Elem: f16, ResultElem: f16},
			LHS: Operand{Value: valQHeads}, RHS: Operand{Value: valKHeads}, Result: valScores},
		{Name: "%context", Shape: layout.MatmulShape{Batched: true, Batch: 16, M: 729, K: 729, N: 72, Elem: f16, ResultElem: f16},
			LHS: Operand{Value: valScores}, RHS: Operand{Value: valVHeads}, Result: valContext},
		{Name: "%out", Shape: proj, LHS: Operand{Value: valMerged}, RHS: weight, Result: valOut},
	}}
}

func mustTarget(t testing.TB, name string) *target.Target {
	t.Helper()
	tg, err := target.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// PlanTable renders choices as the report the README's figures ask for:
// each matmul's plan, its estimate and its compute bound, and the totals.
func PlanTable(choices []Choice, prog Program, t *target.Target) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "matmul\tplan\testimated\tcompute\texchange\treduction\tsync\tbound\t")
	var total, bound int64
	for i, c := range choices {
		m := prog.Matmuls[i]
		lb, _ := t.ComputeLowerBoundCycles(m.Shape.MACs(), m.Shape.Elem)
		p := c.Plan
		fmt.Fprintf(w, "%s\t%s b%d r%d c%d k%d res %dx%d ocb%d %s %s %s\t%d\t%d\t%d\t%d\t%d\t%d\t\n", c.Name,
			p.Orientation, p.BatchPartitions, p.RowPartitions, p.ColumnPartitions, p.InnerPartitions,
			p.ResultRowPartitions, p.ResultColumnPartitions, p.OutputColumnBlock, p.WeightMemoryClass,
			p.ReductionStaging, p.LocalWeightStaging, c.Estimate.Cycles, c.Estimate.ComputeCycles,
			c.Estimate.ExchangeCycles, c.Estimate.ReductionCycles, c.Estimate.SyncCycles, lb)
		total += c.Estimate.Cycles
		bound += lb
	}
	fmt.Fprintf(w, "total\t\t%d\t\t\t\t\t%d\t\n", total, bound)
	w.Flush()
	return b.String()
}

// The attention block plans on ipu21 within sight of the README's figures:
// every plan verified, no estimate below its compute bound, the scores cut
// in two dimensions, the weights never exchanged, and the total well under
// the reference log's 406,211 cycles. `go test -v -run TestAttentionPlans`
// prints the table.
func TestAttentionPlans(t *testing.T) {
	tg := mustTarget(t, "ipu21")
	prog := attentionProgram()
	choices, err := PlanProgram(prog, tg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + PlanTable(choices, prog, tg))
	var total int64
	for i, c := range choices {
		m := prog.Matmuls[i]
		chk, err := layout.VerifyPlan(&c.Plan, m.Shape, tg)
		if err != nil {
			t.Errorf("%s: chosen plan does not verify: %v", c.Name, err)
		} else if pr, _ := newProblem(tg, m.Shape); pr.reductionInPlace(&c.Plan) != chk.ReductionInPlace(&c.Plan) {
			t.Errorf("%s: the estimate's in-place reduction disagrees with the verified shard maps", c.Name)
		}
		lb, _ := tg.ComputeLowerBoundCycles(m.Shape.MACs(), m.Shape.Elem)
		if c.Estimate.Cycles < lb {
			t.Errorf("%s: estimate %d beats the compute bound %d", c.Name, c.Estimate.Cycles, lb)
		}
		if c.Plan.Tiles() > int64(tg.Tiles) {
			t.Errorf("%s: plan uses %d tiles", c.Name, c.Plan.Tiles())
		}
		total += c.Estimate.Cycles
	}
	scores := choices[3].Plan
	if scores.RowPartitions < 2 || scores.ColumnPartitions < 2 {
		t.Errorf("scores are not cut in two dimensions: %s", scores.String())
	}
	// The weights are resident: a projection's exchange is x's shard (or
	// nothing, once q has brought it) and its partial sums.
	for _, i := range []int{1, 2} {
		if choices[i].Plan != choices[0].Plan || choices[i].Estimate.Cycles >= choices[0].Estimate.Cycles {
			t.Errorf("%s does not share q's plan and reuse x where q put it", choices[i].Name)
		}
	}
	const referenceCycles = 406211
	if total >= referenceCycles/2 {
		t.Errorf("total estimate %d is not even half the reference log's %d", total, referenceCycles)
	}
}

func BenchmarkPlanAttention(b *testing.B) {
	tg := mustTarget(b, "ipu21")
	prog := attentionProgram()
	for b.Loop() {
		if _, err := PlanProgram(prog, tg, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
