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

// The attention block's plan-space floor: each matmul planned alone with
// its operands in place (MatmulFloor), the projections both as three
// matmuls and as the one fused QKV matmul tiled-prepare makes of them
// (whichever is cheaper), plus the vector work no lowering avoids: the
// exponential of every score and one multiply of every context element by
// its row's normaliser. Every chosen plan must cost at least its floor
// (the floor is the same plan space with costs taken away). `go test -v
// -run TestAttentionPlanSpaceFloor` prints the table docs/tiled.md quotes.
func TestAttentionPlanSpaceFloor(t *testing.T) {
	tg := mustTarget(t, "ipu21")
	prog := attentionProgram()
	choices, err := PlanProgram(prog, tg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "part\tfloor\tcompute\texchange\treduction\tsync\tbound\tplan\t")
	row := func(name string, c Choice, bound int64) {
		p := c.Plan
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s b%d r%d c%d k%d\t\n", name, c.Estimate.Cycles, c.Estimate.ComputeCycles,
			c.Estimate.ExchangeCycles, c.Estimate.ReductionCycles, c.Estimate.SyncCycles, bound,
			p.Orientation, p.BatchPartitions, p.RowPartitions, p.ColumnPartitions, p.InnerPartitions)
	}
	var floor int64
	for i, m := range prog.Matmuls {
		f, err := MatmulFloor(m.Shape, tg)
		if err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		if choices[i].Estimate.Cycles < f.Estimate.Cycles {
			t.Errorf("%s: chosen plan costs %d, under its floor %d", m.Name, choices[i].Estimate.Cycles, f.Estimate.Cycles)
		}
		lb, _ := tg.ComputeLowerBoundCycles(m.Shape.MACs(), m.Shape.Elem)
		if f.Estimate.Cycles < lb {
			t.Errorf("%s: floor %d beats the compute bound %d", m.Name, f.Estimate.Cycles, lb)
		}
		row(m.Name, f, lb)
		if i >= 3 { // the projections are counted below, fused or not
			floor += f.Estimate.Cycles
		}
		if i == 2 {
			separate := 3 * f.Estimate.Cycles
			qkv := prog.Matmuls[0].Shape
			qkv.N *= 3
			fused, err := MatmulFloor(qkv, tg)
			if err != nil {
				t.Fatal(err)
			}
			lb, _ := tg.ComputeLowerBoundCycles(qkv.MACs(), qkv.Elem)
			row("%qkv (fused)", fused, lb)
			floor += min(separate, fused.Estimate.Cycles)
		}
	}
	perTile := func(n int64) int64 { return (n + int64(tg.Tiles) - 1) / int64(tg.Tiles) }
	exp, _ := tg.ElementwiseCycles(perTile(16*729*729), elem.F16, target.Transcendental)
	scale, _ := tg.ElementwiseCycles(perTile(16*729*72), elem.F16, target.Simple)
	fmt.Fprintf(w, "exp of the scores\t%d\t%d\t\t\t\t\t\t\n", exp, exp)
	fmt.Fprintf(w, "context × 1/sum\t%d\t%d\t\t\t\t\t\t\n", scale, scale)
	floor += exp + scale
	fmt.Fprintf(w, "block\t%d\t\t\t\t\t\t\t\n", floor)
	w.Flush()
	t.Log("\n" + b.String())
	var chosen int64
	for _, c := range choices {
		chosen += c.Estimate.Cycles
	}
	if chosen < floor-exp-scale {
		t.Errorf("the chosen plans cost %d together, under the matmuls' floor %d", chosen, floor-exp-scale)
	}
}
