package plan

import (
	"math/rand/v2"
	"testing"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/layout"
)

// A Complete reduction whose pieces stay on the tiles that computed them
// moves only the other inner tiles' partials: for the attention
// projections' plan (288 × 16 f32 block, 8 pieces of 36 × 16) that is
// 7 × 576 words instead of the whole 4,608-word block, and the estimate
// drops by exactly the difference.
func TestInPlaceReductionMovesFewerWords(t *testing.T) {
	tg := mustTarget(t, "ipu21")
	pr, _ := newProblem(tg, projection)
	pr.lhs.resident, pr.rhs.resident = true, true // isolate the reduction
	p := layout.GemmPlan{Orientation: layout.Swapped, BatchPartitions: 1, RowPartitions: 4, ColumnPartitions: 46,
		InnerPartitions: 8, ResultRowPartitions: 8, ResultColumnPartitions: 1, OutputColumnBlock: 16,
		WeightMemoryClass: "Ipu21Interleaved", ReductionStaging: layout.Complete, LocalWeightStaging: layout.Direct}
	if !pr.reductionInPlace(&p) {
		t.Fatalf("%s does not reduce in place", p.String())
	}
	e, _ := pr.estimate(&p, nil)
	if want := int64(7 * 36 * 16); e.ExchangeWords != want {
		t.Errorf("in-place reduction moves %d words, want %d", e.ExchangeWords, want)
	}
	// The same sizes with pieces that straddle cells (729 rows) cannot.
	pr2, _ := newProblem(tg, layout.MatmulShape{Batch: 1, M: 729, K: 1152, N: 1152, Elem: elem.F16, ResultElem: elem.F16})
	pr2.lhs.resident, pr2.rhs.resident = true, true
	q := p
	q.Orientation, q.ColumnPartitions = layout.Normal, 18
	if pr2.reductionInPlace(&q) {
		t.Fatalf("%s reduces in place though its pieces straddle cells", q.String())
	}
	e2, _ := pr2.estimate(&q, nil)
	sh := pr2.shape(&q)
	if want := max(sh.rowsData*sh.colsData, 8*sh.pieceRowsData*sh.pieceColsData); e2.ExchangeWords != want {
		t.Errorf("reduction not in place moves %d words, want the whole block's %d", e2.ExchangeWords, want)
	}
}

// lowerBound never exceeds the estimate of any plan of its grid, whatever
// its result pieces, memory classes and stagings (pruning relies on it).
func TestLowerBoundBoundsEstimates(t *testing.T) {
	tg := mustTarget(t, "ipu21")
	rng := rand.New(rand.NewPCG(5, 6))
	checked := 0
	for trial := 0; trial < 400; trial++ {
		s := layout.MatmulShape{Batch: 1, M: 1 + rng.Int64N(1200), K: 16 + rng.Int64N(1200), N: 1 + rng.Int64N(1200),
			Elem: elem.F16, ResultElem: elem.F16}
		pr, err := newProblem(tg, s)
		if err != nil {
			t.Fatal(err)
		}
		pr.rhs.resident = rng.IntN(2) == 0
		k := 1 + rng.Int64N(12)
		rr := 1 + rng.Int64N(k)
		p := layout.GemmPlan{Orientation: layout.Orientation(rng.IntN(2)), BatchPartitions: 1,
			RowPartitions: 1 + rng.Int64N(8), ColumnPartitions: 1 + rng.Int64N(8), InnerPartitions: k,
			ResultRowPartitions: rr, ResultColumnPartitions: max(1, k/rr), OutputColumnBlock: 16 << rng.IntN(3),
			WeightMemoryClass: "Ipu21Interleaved", ReductionStaging: layout.ReductionStaging(rng.IntN(2)), LocalWeightStaging: layout.Direct,
			InnerSteps: 1 + rng.Int64N(3)}
		if !pr.valid(&p) {
			continue
		}
		checked++
		e, _ := pr.estimate(&p, nil)
		if lb := pr.lowerBound(&p, nil); lb > e.Cycles {
			t.Fatalf("%+v %s: lower bound %d exceeds the estimate %d (in place %v)", s, p.String(), lb, e.Cycles, pr.reductionInPlace(&p))
		}
	}
	if checked < 100 {
		t.Fatalf("only %d valid random plans", checked)
	}
}
