package plan

import (
	"bytes"
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/dialects/tiled"
	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/layout"
)

var projection = layout.MatmulShape{Batch: 1, M: 729, K: 1152, N: 1152, Elem: elem.F16, ResultElem: elem.F16}

func single(m Matmul) Program { return Program{Matmuls: []Matmul{m}} }

func constraint(t *testing.T, text string) *layout.GemmConstraint {
	t.Helper()
	c, err := tiled.ParseGemmConstraint(text)
	if err != nil {
		t.Fatal(err)
	}
	return &c
}

// The reference log's constraint pins every field; the pinned plan is the
// one chosen, and it verifies.
func TestReferenceConstraintIsHonoured(t *testing.T) {
	tg := mustTarget(t, "ipu21")
	c := constraint(t, "orientation = swapped, row_partitions = 16, column_partitions = 46, inner_partitions = 2, "+
		"result_row_partitions = 1, result_column_partitions = 1, output_column_block = 16, "+
		"weight_memory_class = Ipu21Standard, reduction_staging = complete, local_weight_staging = direct")
	var log bytes.Buffer
	choices, err := PlanProgram(single(Matmul{Name: "%q", Shape: projection, LHS: Operand{Value: 0},
		RHS: Operand{Resident: true, Value: -1}, Result: 1, Constraint: c}), tg,
		Options{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	got := choices[0].Plan
	if !c.Matches(&got) || got.BatchPartitions != 1 {
		t.Errorf("chosen plan %s does not honour %s", got.String(), c.String())
	}
	if got.Tiles() != 1472 {
		t.Errorf("the reference plan fills the 1,472 tiles; got %d", got.Tiles())
	}
	want := `msg="applied GEMM plan constraint" operation=%q source_operation=0 matching_plans=1 constraint="GemmPlanConstraint { source_operation: 0, orientation: Swapped, row_partitions: 16, column_partitions: 46, inner_partitions: 2, result_row_partitions: 1, result_column_partitions: 1, output_column_block: 16, weight_memory_class: Ipu21Standard, reduction_staging: Complete, local_weight_staging: Direct }"`
	if !strings.Contains(log.String(), want) {
		t.Errorf("log lacks the constraint line %s\nlog:\n%s", want, log.String())
	}
	for _, line := range []string{`msg="retained operator-plan finalist" operation=%q finalist=0 estimated_cycles=`, "peak_standard_bytes=",
		`msg="selected operator-plan finalist" operation=%q selected=0`} {
		if !strings.Contains(log.String(), line) {
			t.Errorf("log lacks %q", line)
		}
	}
	// Pinning costs: the free choice is no worse.
	free, err := PlanProgram(single(Matmul{Name: "%q", Shape: projection, LHS: Operand{Value: 0},
		RHS: Operand{Resident: true, Value: -1}, Result: 1}), tg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if free[0].Estimate.Cycles > choices[0].Estimate.Cycles {
		t.Errorf("unconstrained plan (%d cycles) is worse than the pinned one (%d)", free[0].Estimate.Cycles, choices[0].Estimate.Cycles)
	}
}

// A partial pin leaves the rest to the planner.
func TestPartialConstraint(t *testing.T) {
	tg := mustTarget(t, "ipu21")
	for _, text := range []string{"orientation = normal", "inner_partitions = 1", "row_partitions = 3, reduction_staging = pairwise",
		"weight_memory_class = Ipu21Standard, local_weight_staging = staged", "output_column_block = 64"} {
		c := constraint(t, text)
		choices, err := PlanProgram(single(Matmul{Name: "%m", Shape: projection, LHS: Operand{Value: 0},
			RHS: Operand{Resident: true, Value: -1}, Result: 1, Constraint: c}), tg, Options{})
		if err != nil {
			t.Errorf("%s: %v", text, err)
			continue
		}
		if p := choices[0].Plan; !c.Matches(&p) {
			t.Errorf("%s: chosen %s", text, p.String())
		}
	}
}

// Impossible pins are reported with the reason, never silently dropped.
func TestInfeasibleConstraints(t *testing.T) {
	small := layout.MatmulShape{Batch: 1, M: 96, K: 256, N: 256, Elem: elem.F16, ResultElem: elem.F16}
	cases := []struct {
		target, text string
		shape        layout.MatmulShape
		want         []string
	}{
		// Output columns in blocks of 8: the AMP writes 16 columns at a
		// time, past the result shard. The cost model does not see it; the
		// verifier rejects every finalist with the containment error.
		{"ipu21", "orientation = normal, column_partitions = 144, output_column_block = 8, inner_partitions = 1", projection,
			[]string{"every finalist satisfying GemmPlanConstraint { orientation: Normal, column_partitions: 144, inner_partitions: 1, output_column_block: 8 } is infeasible",
				"on tile 0: tensor view falls outside its storage shard layout=Layout {"}},
		{"ipu21", "row_partitions = 100", projection,
			[]string{"no plan satisfying GemmPlanConstraint { row_partitions: 100 } is valid", "row_partitions 100 exceeds the 46 row blocks of 16"}},
		{"ipu21", "row_partitions = 46, column_partitions = 72, inner_partitions = 72", projection,
			[]string{"plan needs 238464 tiles but target ipu21 has 1472"}},
		{"ipu21", "result_row_partitions = 4, inner_partitions = 2", projection,
			[]string{"result_row_partitions × result_column_partitions = 4 exceeds inner_partitions 2"}},
		{"ipu21", "weight_memory_class = Nowhere", projection, []string{`no memory class "Nowhere"`}},
		// On the 16-tile target a whole 256×256 weight block (128 KiB) per
		// tile does not fit: one tile, no inner split.
		{"test16", "row_partitions = 1, column_partitions = 1, inner_partitions = 1", small,
			[]string{"fits the tile memory of target test16"}},
	}
	for _, c := range cases {
		tg := mustTarget(t, c.target)
		var log bytes.Buffer
		_, err := PlanProgram(single(Matmul{Name: "%m", Shape: c.shape, LHS: Operand{Value: 0},
			RHS: Operand{Resident: true, Value: -1}, Result: 1, Constraint: constraint(t, c.text)}), tg,
			Options{Logger: slog.New(slog.NewTextHandler(&log, nil))})
		if err == nil {
			t.Errorf("%s: accepted", c.text)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", c.text, err, w)
			}
		}
		if strings.Contains(c.text, "output_column_block = 8") &&
			!strings.Contains(log.String(), `msg="rejected infeasible operator-plan finalist" operation=%m finalist=0 error="AMP right operand on tile 0: tensor view falls outside its storage shard`) {
			t.Errorf("rejections are not logged:\n%s", log.String())
		}
	}
}

// Without a constraint every choice verifies and fits, on both targets and
// for awkward shapes.
func TestChoicesVerify(t *testing.T) {
	for _, name := range []string{"ipu21", "test16"} {
		tg := mustTarget(t, name)
		for _, s := range []layout.MatmulShape{
			{Batch: 1, M: 1, K: 1, N: 1, Elem: elem.F16, ResultElem: elem.F16},
			{Batch: 1, M: 37, K: 300, N: 5, Elem: elem.F32, ResultElem: elem.F32},
			{Batched: true, Batch: 3, M: 50, K: 17, N: 90, Elem: elem.F16, ResultElem: elem.F16},
			{Batch: 1, M: 129, K: 64, N: 1000, Elem: elem.F16, ResultElem: elem.F16},
		} {
			choices, err := PlanProgram(single(Matmul{Name: "%m", Shape: s, LHS: Operand{Value: 0}, RHS: Operand{Value: 1}, Result: 2}), tg, Options{})
			if err != nil {
				t.Errorf("%s %+v: %v", name, s, err)
				continue
			}
			c := choices[0]
			if _, err := layout.VerifyPlan(&c.Plan, s, tg); err != nil {
				t.Errorf("%s %+v: chosen plan fails verification: %v", name, s, err)
			}
			lb, _ := tg.ComputeLowerBoundCycles(s.MACs(), s.Elem)
			if c.Estimate.Cycles < lb || c.Estimate.Cycles != c.Estimate.ComputeCycles+c.Estimate.ExchangeCycles+c.Estimate.ReductionCycles+c.Estimate.SyncCycles {
				t.Errorf("%s %+v: inconsistent estimate %+v (bound %d)", name, s, c.Estimate, lb)
			}
		}
	}
}

// Costs move the right way as partitions change. For random problems and
// plans, raising one partition count (all else equal) never raises the AMP
// compute; more inner partitions never lower the reduction's exchange; more
// row (column) partitions never raise what a tile receives of the operand
// cut along rows (columns); any more partitions never raise the peak bytes
// of the operand shards.
func TestCostsMoveTheRightWay(t *testing.T) {
	tg := mustTarget(t, "ipu21")
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 300; trial++ {
		s := layout.MatmulShape{Batch: 1, M: 1 + rng.Int64N(800), K: 1 + rng.Int64N(1200), N: 1 + rng.Int64N(1200),
			Elem: elem.F16, ResultElem: elem.F16}
		pr, err := newProblem(tg, s)
		if err != nil {
			t.Fatal(err)
		}
		base := layout.GemmPlan{Orientation: layout.Orientation(rng.IntN(2)), BatchPartitions: 1,
			RowPartitions: 1 + rng.Int64N(4), ColumnPartitions: 1 + rng.Int64N(4), InnerPartitions: 1 + rng.Int64N(4),
			ResultRowPartitions: 1, ResultColumnPartitions: 1, OutputColumnBlock: 16,
			WeightMemoryClass: "Ipu21Interleaved", ReductionStaging: layout.Complete, LocalWeightStaging: layout.Direct}
		if pr.validate(&base) != nil {
			continue
		}
		e0, _ := pr.estimate(&base, nil)
		sh0 := pr.shape(&base)
		for _, grow := range []string{"rows", "columns", "inner"} {
			p := base
			switch grow {
			case "rows":
				p.RowPartitions *= 2
			case "columns":
				p.ColumnPartitions *= 2
			case "inner":
				p.InnerPartitions *= 2
			}
			if pr.validate(&p) != nil {
				continue
			}
			e1, _ := pr.estimate(&p, nil)
			sh1 := pr.shape(&p)
			amp0, _ := pr.ampCycles(sh0, true)
			amp1, _ := pr.ampCycles(sh1, true)
			// Rows are exempt: PopLibs' estimator prices a worker's pass
			// over two rows above one over three (target.AMPVertex's
			// ShortRowCycles), so fewer rows a tile can cost more.
			if amp1 > amp0 && grow != "rows" {
				t.Fatalf("%+v: more %s partitions raised AMP compute %d → %d (%s → %s)", s, grow, amp0, amp1, base.String(), p.String())
			}
			left0, left1 := sh0.rowsData*sh0.innerData, sh1.rowsData*sh1.innerData
			right0, right1 := sh0.innerData*sh0.colsData, sh1.innerData*sh1.colsData
			if left1 > left0 || right1 > right0 {
				t.Fatalf("%+v: more %s partitions grew an operand shard (%d→%d, %d→%d)", s, grow, left0, left1, right0, right1)
			}
			if grow == "inner" && base.InnerPartitions > 1 {
				red0 := e0.ExchangeWords - inputWords(pr, &base)
				red1 := e1.ExchangeWords - inputWords(pr, &p)
				if red1 < red0 && sh1.rowsData*sh1.colsData == sh0.rowsData*sh0.colsData {
					t.Fatalf("%+v: more inner partitions lowered the reduction exchange %d → %d", s, red0, red1)
				}
			}
		}
	}
}

func inputWords(pr *problem, p *layout.GemmPlan) int64 {
	w, _ := pr.inputExchange(p, pr.shape(p), nil)
	return w
}

// The exchange an operand costs follows where it is: resident operands and
// operands already distributed as wanted cost none.
func TestOperandExchange(t *testing.T) {
	tg := mustTarget(t, "ipu21")
	p := layout.GemmPlan{Orientation: layout.Normal, BatchPartitions: 1, RowPartitions: 4, ColumnPartitions: 18,
		InnerPartitions: 4, ResultRowPartitions: 4, ResultColumnPartitions: 1, OutputColumnBlock: 64,
		WeightMemoryClass: "Ipu21Interleaved", ReductionStaging: layout.Complete, LocalWeightStaging: layout.Direct}
	pr, _ := newProblem(tg, projection)
	ls, err := layout.LayoutsForPlan(&p, projection, tg)
	if err != nil {
		t.Fatal(err)
	}
	words := func() int64 { w, _ := pr.inputExchange(&p, pr.shape(&p), ls); return w }
	all := words()
	// x's shard: 192 rows × 288 inner × 2 bytes; w's: 288 × 64 × 2 bytes.
	if want := int64(192*288*2/4 + 288*64*2/4); all != want {
		t.Errorf("both operands moved: %d words, want %d", all, want)
	}
	pr.rhs.resident = true
	if got, want := words(), int64(192*288*2/4); got != want {
		t.Errorf("resident weights: %d words, want %d", got, want)
	}
	pr.lhs.available = []*layout.Layout{&ls.LHS}
	if got := words(); got != 0 {
		t.Errorf("x already in place: %d words", got)
	}
	other := ls.LHS
	other.Tiling.Replicas = 1
	pr.lhs.available = []*layout.Layout{&other}
	if got := words(); got == 0 {
		t.Error("x distributed differently cost nothing")
	}
}

// Siblings sharing x take one plan; the first pays for x.
func TestSiblingsShareALayout(t *testing.T) {
	tg := mustTarget(t, "ipu21")
	prog := attentionProgram()
	prog.Matmuls = prog.Matmuls[:3]
	choices, err := PlanProgram(prog, tg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if choices[1].Plan != choices[0].Plan || choices[2].Plan != choices[0].Plan {
		t.Errorf("q, k and v chose different plans: %s / %s / %s", choices[0].Plan.String(), choices[1].Plan.String(), choices[2].Plan.String())
	}
	if choices[1].Estimate.ExchangeWords >= choices[0].Estimate.ExchangeWords {
		t.Errorf("k paid for x again: %d words vs q's %d", choices[1].Estimate.ExchangeWords, choices[0].Estimate.ExchangeWords)
	}
}

func TestRepresentatives(t *testing.T) {
	for _, c := range []struct {
		n, limit int64
		want     []int64
	}{
		{10, 100, []int64{1, 2, 3, 4, 5, 10}},
		{46, 1472, []int64{1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 23, 46}}, // ⌈46/9⌉ = ⌈46/8⌉
		{46, 8, []int64{1, 2, 3, 4, 5, 6, 7, 8}},
		{1, 5, []int64{1}},
	} {
		got := representatives(c.n, c.limit)
		if len(got) != len(c.want) {
			t.Errorf("representatives(%d, %d) = %v, want %v", c.n, c.limit, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("representatives(%d, %d) = %v, want %v", c.n, c.limit, got, c.want)
				break
			}
		}
	}
}

// The enumeration's fast validity test agrees with the one that explains.
func TestValidAgreesWithValidate(t *testing.T) {
	tg := mustTarget(t, "ipu21")
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 5000; trial++ {
		s := layout.MatmulShape{Batched: rng.IntN(2) == 0, M: 1 + rng.Int64N(300), K: 1 + rng.Int64N(300), N: 1 + rng.Int64N(300),
			Elem: elem.F16, ResultElem: elem.F16}
		s.Batch = 1
		if s.Batched {
			s.Batch = 1 + rng.Int64N(20)
		}
		pr, _ := newProblem(tg, s)
		pick := func(n int64) int64 { return rng.Int64N(n) } // 0 included: invalid counts too
		p := layout.GemmPlan{Orientation: layout.Orientation(rng.IntN(2)), BatchPartitions: pick(25), RowPartitions: pick(40),
			ColumnPartitions: pick(40), InnerPartitions: pick(40), ResultRowPartitions: pick(5), ResultColumnPartitions: pick(5),
			OutputColumnBlock: 16 * (1 + pick(3)), WeightMemoryClass: []string{"Ipu21Interleaved", "Ipu21Standard", "Elsewhere"}[rng.IntN(3)]}
		if got, want := pr.valid(&p), pr.validate(&p) == nil; got != want {
			t.Fatalf("%+v %s: valid = %v, validate = %v", s, p.String(), got, pr.validate(&p))
		}
	}
}
