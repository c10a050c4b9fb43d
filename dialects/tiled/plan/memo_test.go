package plan

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// stackedAttention is n attention blocks in a row, each reading the one
// before's output: the identical layers the memo is for.
func stackedAttention(n int) Program {
	var prog Program
	const values = valOut + 1
	for b := range n {
		for _, m := range attentionProgram().Matmuls {
			for _, o := range []*Operand{&m.LHS, &m.RHS} {
				switch {
				case o.Value == valX && b > 0:
					o.Value = (b-1)*values + valOut
				case o.Value >= 0:
					o.Value += b * values
				}
			}
			m.Result += b * values
			prog.Matmuls = append(prog.Matmuls, m)
		}
	}
	return prog
}

// TestMemoChangesNothing plans three identical blocks with every search
// run and with the memo, and requires the same plans, estimates and counts,
// and that the memo answered some searches.
func TestMemoChangesNothing(t *testing.T) {
	tg := mustTarget(t, "ipu21")
	prog := stackedAttention(3)
	baseline := &Memo{searches: map[string]*search{}, bestCosts: map[string]bestCostResult{}, off: true}
	want, err := PlanProgram(prog, tg, Options{Memo: baseline})
	if err != nil {
		t.Fatal(err)
	}
	memo := NewMemo()
	got, err := PlanProgram(prog, tg, Options{Memo: memo})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(summaries(want), summaries(got)); diff != "" {
		t.Errorf("plans with the memo differ from plans without it (-without +with):\n%s", diff)
	}
	hits, runs := memo.Stats()
	_, all := baseline.Stats()
	t.Logf("%d matmuls: %d searches without the memo; with it %d run and %d answered", len(prog.Matmuls), all, runs, hits)
	if hits == 0 || runs >= all {
		t.Errorf("the memo answered %d searches and ran %d of %d: identical layers should be searched once", hits, runs, all)
	}
}

type choiceSummary struct {
	Plan                       string
	Cycles, Exchange, Peak     int64
	Candidates, Pruned, Reject int
}

func summaries(cs []Choice) []choiceSummary {
	var out []choiceSummary
	for _, c := range cs {
		out = append(out, choiceSummary{c.Plan.String(), c.Estimate.Cycles, c.Estimate.ExchangeCycles,
			c.Estimate.PeakStandardBytes + c.Estimate.PeakInterleavedBytes, c.Candidates, c.Pruned, c.Rejected})
	}
	return out
}
