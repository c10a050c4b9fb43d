package plan

import (
	"errors"
	"github.com/ipuir/ipuir/target"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/layout"
)

func square(n int64) layout.MatmulShape {
	return layout.MatmulShape{Batch: 1, M: n, K: n, N: n, Elem: elem.F16, ResultElem: elem.F16}
}

func planOne(t testing.TB, s layout.MatmulShape) (Choice, error) {
	t.Helper()
	choices, err := PlanProgram(single(Matmul{Name: "%m", Shape: s, LHS: Operand{Value: 0}, RHS: Operand{Value: 1}, Result: 2}),
		mustTarget(t, "ipu21"), Options{})
	if err != nil {
		return Choice{}, err
	}
	return choices[0], nil
}

// Square f16 matmuls whose operands fit the chip but not any spatial grid
// (every grid replicates an operand across rows or columns) plan with
// inner steps: each tile holds one slice of its blocks at a time. The
// chosen plans verify (views of a step, the operands' home shards and the
// accumulator in tile memory) and cost at least the compute bound.
func TestLargeMatmulsPlanInSteps(t *testing.T) {
	tg := mustTarget(t, "ipu21")
	for _, n := range []int64{3072, 4096, 8192} {
		s := square(n)
		c, err := planOne(t, s)
		if err != nil {
			t.Errorf("%d³: %v", n, err)
			continue
		}
		if c.Plan.Steps() < 2 {
			t.Errorf("%d³: plan %s has no inner steps", n, &c.Plan)
		}
		chk, err := layout.VerifyPlan(&c.Plan, s, tg)
		if err != nil {
			t.Errorf("%d³: chosen plan fails verification: %v", n, err)
			continue
		}
		if !chk.Layouts.LHS.Equal(mustDefault(t, chk.Layouts.LHSShape)) {
			t.Errorf("%d³: a temporal plan's lhs lives in its default layout, got %s", n, &chk.Layouts.LHS)
		}
		bound, _ := tg.PartialsBoundCycles(s.MACs(), s.Elem, target.DefaultPartials)
		// At most 4× the bound at the partials' rate: a step costs its AMP work, one phase per
		// operand slice (the right one sent whole by the few home tiles
		// that hold the step's rows) and an f32 accumulation; 8192³ plans
		// 141 steps at 3.57×.
		if c.Estimate.Cycles < bound || c.Estimate.Cycles > 4*bound {
			t.Errorf("%d³: estimate %d cycles against a compute bound of %d", n, c.Estimate.Cycles, bound)
		}
		local, err := Estimate(&c.Plan, s, tg)
		if err != nil || local.ExchangeCycles == 0 || local.Cycles != c.Estimate.Cycles {
			t.Errorf("%d³: the op's own estimate %+v (%v) must keep the steps' exchanges, as the plan's %+v", n, local, err, c.Estimate)
		}
	}
}

func mustDefault(t *testing.T, shape []int64) *layout.Layout {
	l, err := layout.DefaultLayout(shape, mustTarget(t, "ipu21"))
	if err != nil {
		t.Fatal(err)
	}
	return &l
}

// A matmul whose operands and result exceed the chip is refused with the
// bytes it needs and the bytes a tile has; one that fits only with steps
// pinned off is refused with the smallest candidate's shortfall.
func TestRefusalsNameTheBytes(t *testing.T) {
	_, err := planOne(t, square(16384))
	if err == nil || !strings.Contains(err.Error(), "(1.5 GiB) need at least 1.0 MiB per tile even spread over all 1472 tiles, and a tile has 608 KiB for data (16 KiB kept for code and exchange tables)") {
		t.Errorf("16384³: %v", err)
	}
	tg := mustTarget(t, "ipu21")
	_, err = PlanProgram(single(Matmul{Name: "%m", Shape: square(4096), LHS: Operand{Value: 0}, RHS: Operand{Value: 1}, Result: 2,
		Constraint: constraint(t, "inner_steps = 1")}), tg, Options{})
	if err == nil || !strings.Contains(err.Error(), "fits the tile memory of target ipu21: the smallest of") {
		t.Errorf("4096³ without steps: %v", err)
	}
	// Both refusals are for want of tile memory, which a compile driver
	// acts on (it tries phases); a pinned value that makes no plan valid
	// is not.
	if !errors.Is(err, target.ErrTileMemory) {
		t.Errorf("4096³ without steps: %v is not target.ErrTileMemory", err)
	}
	if _, err := planOne(t, square(16384)); !errors.Is(err, target.ErrTileMemory) {
		t.Errorf("16384³: %v is not target.ErrTileMemory", err)
	}
	_, err = PlanProgram(single(Matmul{Name: "%m", Shape: square(4096), LHS: Operand{Value: 0}, RHS: Operand{Value: 1}, Result: 2,
		Constraint: constraint(t, "row_partitions = 100000")}), tg, Options{})
	if err == nil || errors.Is(err, target.ErrTileMemory) {
		t.Errorf("an invalid pin: %v, want an error other than target.ErrTileMemory", err)
	}
}

func BenchmarkPlan4096(b *testing.B) {
	for b.Loop() {
		if _, err := planOne(b, square(4096)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPlan8192(b *testing.B) {
	for b.Loop() {
		if _, err := planOne(b, square(8192)); err != nil {
			b.Fatal(err)
		}
	}
}
