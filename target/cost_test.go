package target

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/elem"
)

func mustLookup(t *testing.T, name string) *Target {
	t.Helper()
	tg, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// Hand-worked values of PopLibs' 1×1 conv-partials estimator as AMPCycles
// follows it (see amp.go and the figures): for each block of input
// channels, ⌈n/units⌉ passes of PassCycles + weight load + the workers'
// time, the busiest worker's ⌈m/6⌉ rows times six, or the least busy one's
// plus the 14-cycle tag if that is more.
func TestAMPCyclesHandComputed(t *testing.T) {
	tg := mustLookup(t, "ipu21")
	f16 := func(m, k, n int64, partials elem.Type, ld128 bool) AMPWork {
		return AMPWork{Batch: 1, Rows: m, Inner: k, Columns: n, Elem: elem.F16, Partials: partials, Loads128: ld128}
	}
	cases := []struct {
		name string
		w    AMPWork
		want int64
	}{
		// f16 partials, 16 units: one pass; 8 × 32 bytes / 16 = 32 cycles
		// of weights; each worker one row: 6·26 = 156, the tag makes it
		// 170. 25 + 32 + 170 = 227 a pass; + 29 for the block, 13 for the
		// product, 74 for the vertex.
		{"one f16 block, f16 partials", f16(6, 16, 16, elem.F16, true), 74 + 13 + 29 + 227},
		// The same weights from standard memory: 64-bit loads, 64 cycles.
		{"one f16 block from standard memory", f16(6, 16, 16, elem.F16, false), 74 + 13 + 29 + 25 + 64 + 170},
		// f32 partials: 8 units, so two passes of 16 cycles of weights.
		{"one f16 block, f32 partials", f16(6, 16, 16, elem.F32, true), 74 + 13 + 29 + 2*(25+16+170)},
		// Seven rows: the busiest worker has two (35 → 210), the least busy
		// one (26 → 156 + 14): 210.
		{"seven rows", f16(7, 16, 16, elem.F16, true), 74 + 13 + 29 + 25 + 32 + 210},
		// Three rows: three workers idle, so the tag adds nothing (14 < 156).
		{"three rows", f16(3, 16, 16, elem.F16, true), 74 + 13 + 29 + 25 + 32 + 156},
		// A per-tile slice of the reference workload with f32 partials: 729
		// rows (122 and 121 a worker: 6·(19 + 4·122) = 3042 beats
		// 6·(19 + 4·121) + 14 = 3032), 72 blocks of 16 inputs, two passes:
		// 74 + 13 + [29 + 2·(25 + 16 + 3042)] + 71·[33 + 2·(25 + 16 + 3042)].
		{"reference slice", f16(729, 1152, 16, elem.F32, true), 74 + 13 + (29 + 2*3083) + 71*(33+2*3083)},
		// f32: 16 units of 8 inputs, 32 cycles of weights, 8 cycles a row;
		// the first block zeroes its partials: one row is 47 + 2 + 8 = 57
		// (6·57 + 14 = 356), a later block's 47 (6·47 + 14 = 296).
		{"f32, two blocks", AMPWork{Batch: 1, Rows: 6, Inner: 16, Columns: 16, Elem: elem.F32, Partials: elem.F32, Loads128: true},
			50 + 13 + (11 + 25 + 32 + 356) + (15 + 25 + 32 + 296)},
		// The batch repeats the product, not the vertex.
		{"batch of three", AMPWork{Batch: 3, Rows: 6, Inner: 16, Columns: 16, Elem: elem.F16, Partials: elem.F16, Loads128: true}, 74 + 3*(13+29+227)},
		{"zero rows", f16(0, 16, 16, elem.F32, true), 0},
		{"zero batch", AMPWork{Rows: 6, Inner: 16, Columns: 16, Elem: elem.F16, Partials: elem.F32}, 0},
	}
	for _, c := range cases {
		got, err := tg.AMPCycles(c.w)
		if err != nil || got != c.want {
			t.Errorf("%s: AMPCycles(%+v) = %d, %v; want %d", c.name, c.w, got, err, c.want)
		}
	}
}

// Each vertex's peak is what the figures say: the brief's 64 f16 and
// 16 f32 MACs a cycle, and half the f16 rate with f32 partials; a large
// block runs within a few per cent of its vertex's peak.
func TestAMPVerticesReachTheirPeak(t *testing.T) {
	tg := mustLookup(t, "ipu21")
	for _, c := range []struct {
		in, partials elem.Type
		peak         int
	}{{elem.F16, elem.F16, 64}, {elem.F16, elem.F32, 32}, {elem.F32, elem.F32, 16}} {
		v, ok := tg.AMPVertexFor(c.in, c.partials)
		if !ok || v.MACsPerCycle() != c.peak {
			t.Errorf("%v/%v: vertex %+v runs %d MACs a cycle, want %d", c.in, c.partials, v, v.MACsPerCycle(), c.peak)
			continue
		}
		const m, k, n = 6 * 400, 256, 64
		cycles, err := tg.AMPCycles(AMPWork{Batch: 1, Rows: m, Inner: k, Columns: n, Elem: c.in, Partials: c.partials, Loads128: true})
		if err != nil {
			t.Fatal(err)
		}
		if rate := float64(m*k*n) / float64(cycles); rate > float64(c.peak) || rate < 0.95*float64(c.peak) {
			t.Errorf("%v/%v: a %d×%d×%d block runs at %.1f MACs a cycle, want just under %d", c.in, c.partials, m, k, n, rate, c.peak)
		}
	}
}

func TestAMPCyclesErrors(t *testing.T) {
	tg := mustLookup(t, "ipu21")
	if _, err := tg.AMPCycles(AMPWork{Batch: 1, Rows: -1, Inner: 16, Columns: 16, Elem: elem.F16, Partials: elem.F32}); err == nil {
		t.Error("negative m accepted")
	}
	if _, err := tg.AMPCycles(AMPWork{Batch: 1, Rows: 6, Inner: 16, Columns: 16, Elem: elem.I32, Partials: elem.I32}); err == nil || !strings.Contains(err.Error(), "no vertex for i32") {
		t.Errorf("i32 matmul: err = %v, want a 'no vertex for i32' error", err)
	}
	if _, err := tg.AMPCycles(AMPWork{Batch: 1, Rows: 6, Inner: 16, Columns: 16, Elem: elem.F32, Partials: elem.F16}); err == nil {
		t.Error("f32 inputs with f16 partials priced: no vertex takes them")
	}
	if _, err := tg.AMPCycles(AMPWork{Batch: math.MaxInt32, Rows: math.MaxInt64 / 2, Inner: math.MaxInt32, Columns: math.MaxInt32, Elem: elem.F16, Partials: elem.F32}); err == nil {
		t.Error("overflowing matmul cost was not reported")
	}
}

// More inner or more columns never costs less, nor does a larger batch; a
// batch of b costs b products and one vertex. (Rows are not monotone in
// PopLibs' estimator: a worker's pass over two rows, 42 cycles less 7,
// costs more than one over three, 38 less 7.)
func TestAMPCyclesMonotone(t *testing.T) {
	tg := mustLookup(t, "ipu21")
	for _, v := range tg.AMPVertices {
		for m := int64(1); m <= 40; m += 3 {
			for k := int64(1); k <= 70; k += 5 {
				for n := int64(1); n <= 70; n += 5 {
					w := AMPWork{Batch: 1, Rows: m, Inner: k, Columns: n, Elem: v.Elem, Partials: v.Partials, Loads128: true}
					base, _ := tg.AMPCycles(w)
					for _, next := range []AMPWork{{Inner: k + 1, Columns: n}, {Inner: k, Columns: n + 1}} {
						next.Batch, next.Rows, next.Elem, next.Partials, next.Loads128 = 1, m, v.Elem, v.Partials, true
						if c, _ := tg.AMPCycles(next); c < base {
							t.Fatalf("%v/%v: cycles fell from %d at %dx%dx%d to %d at %+v", v.Elem, v.Partials, base, m, k, n, c, next)
						}
					}
					w.Loads128 = false
					if slow, _ := tg.AMPCycles(w); slow <= base {
						t.Fatalf("%v/%v: 64-bit weight loads cost %d, not more than %d", v.Elem, v.Partials, slow, base)
					}
					w.Loads128, w.Batch = true, 2
					if two, _ := tg.AMPCycles(w); two != 2*base-int64(v.VertexCycles) {
						t.Fatalf("batch 2 costs %d, not two products and one vertex of %d", two, base)
					}
				}
			}
		}
	}
}

func TestElementwiseCyclesHandComputed(t *testing.T) {
	tg := mustLookup(t, "ipu21")
	cases := []struct {
		name  string
		n     int64
		et    elem.Type
		class OpClass
		want  int64
	}{
		// 240 f16 = 60 vectors, 10 per worker, each worker slot every 6th
		// cycle: 10·1·6 = 60, plus the 30-cycle vertex launch.
		{"f16 simple, even split", 240, elem.F16, Simple, 90},
		// A single element still occupies one worker for one slot.
		{"one element", 1, elem.F16, Simple, 6 + 30},
		// 12 f32 = 6 vectors, one per worker, 4 slots each: 4·6 = 24.
		{"f32 transcendental", 12, elem.F32, Transcendental, 24 + 30},
		// 24,000 f16 run at 4 elements per cycle: 6000 vectors, 1000 per
		// worker, 6000 cycles.
		{"large f16", 24000, elem.F16, Simple, 6000 + 30},
		// Integers are one element per vector.
		{"i32 simple", 12, elem.I32, Simple, 2*6 + 30},
		{"nothing to do", 0, elem.F16, Simple, 0},
	}
	for _, c := range cases {
		got, err := tg.ElementwiseCycles(c.n, c.et, c.class)
		if err != nil || got != c.want {
			t.Errorf("%s: ElementwiseCycles(%d, %v, %v) = %d, %v; want %d", c.name, c.n, c.et, c.class, got, err, c.want)
		}
	}
	for _, bad := range []struct {
		n     int64
		et    elem.Type
		class OpClass
	}{{-1, elem.F16, Simple}, {8, elem.I1, Transcendental}, {8, elem.Invalid, Simple}, {8, elem.F16, OpClass(7)}} {
		if _, err := tg.ElementwiseCycles(bad.n, bad.et, bad.class); err == nil {
			t.Errorf("ElementwiseCycles(%d, %v, %v) accepted", bad.n, bad.et, bad.class)
		}
	}
}

func TestReduceCyclesHandComputed(t *testing.T) {
	tg := mustLookup(t, "ipu21")
	cases := []struct {
		name      string
		n, groups int64
		et        elem.Type
		want      int64
	}{
		// One row of 1152 f16: 288 vector adds + 2 lane folds = 290 slots over
		// 6 workers: ⌈290/6⌉ = 49 slots · 6 = 294; plus 30 launch; plus the
		// six workers' partials combined in ⌈log2 6⌉ = 3 steps · 6 = 18.
		{"one f16 row", 1152, 1, elem.F16, 294 + 30 + 18},
		// 12 rows of 5 f32: (⌈5/2⌉ + 1) = 4 slots per row, 48 in all, 8 per
		// worker: 48 cycles + 30; twelve rows keep every worker busy, so
		// there is no cross-worker combine.
		{"twelve f32 rows", 60, 12, elem.F32, 48 + 30},
		// Three rows of 8 i32 over 6 workers: 8 slots per row, 24 in all,
		// 4 per worker: 24 + 30; each row split over 2 workers: +1 step · 6.
		{"three i32 rows", 24, 3, elem.I32, 24 + 30 + 6},
		{"empty", 0, 0, elem.F16, 0},
	}
	for _, c := range cases {
		got, err := tg.ReduceCycles(c.n, c.groups, c.et)
		if err != nil || got != c.want {
			t.Errorf("%s: ReduceCycles(%d, %d, %v) = %d, %v; want %d", c.name, c.n, c.groups, c.et, got, err, c.want)
		}
	}
	for _, bad := range [][2]int64{{10, 3}, {10, 0}, {-4, 2}, {4, -2}} {
		if _, err := tg.ReduceCycles(bad[0], bad[1], elem.F16); err == nil {
			t.Errorf("ReduceCycles(%d, %d) accepted", bad[0], bad[1])
		}
	}
}

func TestExchangeSyncAndSuperstep(t *testing.T) {
	tg := mustLookup(t, "ipu21")
	for bytes, words := range map[int64]int64{0: 0, 1: 1, 4: 1, 5: 2, 4608: 1152} {
		if got, err := tg.ExchangeWords(bytes); err != nil || got != words {
			t.Errorf("ExchangeWords(%d) = %d, %v; want %d", bytes, got, err, words)
		}
	}
	// One word per cycle each way: the bound is the busiest tile's words
	// (the reference log's endpoint_lower_bound=1152 for row_words phases).
	if got, _ := tg.ExchangeCycles(1152); got != 1152 {
		t.Errorf("ExchangeCycles(1152) = %d", got)
	}
	if got, _ := tg.ExchangePhaseCycles(1152); got != 1152+30 {
		t.Errorf("ExchangePhaseCycles(1152) = %d, want bound + 30 latency", got)
	}
	if got, _ := tg.ExchangePhaseCycles(0); got != 0 {
		t.Errorf("an empty exchange phase costs %d", got)
	}
	if got, _ := tg.SuperstepCycles(1000, 1152); got != 1000+118+1182 {
		t.Errorf("SuperstepCycles(1000, 1152) = %d", got)
	}
	if got, _ := tg.SuperstepCycles(1000, 0); got != 1000+118 {
		t.Errorf("SuperstepCycles without exchange = %d", got)
	}
	for _, err := range []error{
		second(tg.ExchangeWords(-1)), second(tg.ExchangeCycles(-1)),
		second(tg.ExchangePhaseCycles(-1)), second(tg.SuperstepCycles(-1, 0)),
		second(tg.SuperstepCycles(math.MaxInt64, 0)),
	} {
		if err == nil {
			t.Errorf("a negative or overflowing exchange input was accepted")
		}
	}
}

func TestBytesFor(t *testing.T) {
	tg := mustLookup(t, "ipu21")
	cases := []struct {
		n    int64
		et   elem.Type
		want int64
	}{{729 * 1152, elem.F16, 1679616}, {10, elem.F32, 40}, {10, elem.I1, 10}, {3, elem.I16, 6}, {0, elem.F32, 0}}
	for _, c := range cases {
		if got, err := tg.BytesFor(c.n, c.et); err != nil || got != c.want {
			t.Errorf("BytesFor(%d, %v) = %d, %v; want %d", c.n, c.et, got, err, c.want)
		}
	}
	if _, err := tg.BytesFor(math.MaxInt64, elem.F32); err == nil {
		t.Error("overflowing byte count accepted")
	}
	if _, err := tg.BytesFor(-1, elem.F32); err == nil {
		t.Error("negative element count accepted")
	}
}

// The reference attention block is 5.09 G MAC, and on ipu21 the
// compute bound is 5.09 G / 94,208 ≈ 54 k cycles.
func TestComputeLowerBoundReferenceWorkload(t *testing.T) {
	const tokens, hidden, heads, headDim = 729, 1152, 16, 72
	projections := int64(4 * tokens * hidden * hidden)        // Q, K, V and output
	attention := int64(2 * heads * tokens * tokens * headDim) // scores and scores·V
	total := projections + attention
	if total != 5094275328 {
		t.Fatalf("reference workload MACs = %d, want 5,094,275,328", total)
	}
	tg := mustLookup(t, "ipu21")
	if peak, _ := tg.PeakMACsPerCycle(elem.F16); peak != 94208 {
		t.Errorf("ipu21 f16 peak = %d MAC/cycle, want 94,208", peak)
	}
	bound, err := tg.ComputeLowerBoundCycles(total, elem.F16)
	if err != nil || bound != 54075 { // 5,094,275,328 / 94,208 = 54,074.3
		t.Errorf("compute lower bound = %d, %v; want 54,075", bound, err)
	}
	if _, err := tg.ComputeLowerBoundCycles(total, elem.I8); err == nil {
		t.Error("lower bound for a type the AMP does not take was accepted")
	}
	if _, err := tg.ComputeLowerBoundCycles(-1, elem.F16); err == nil {
		t.Error("negative MAC count accepted")
	}
}

func TestComputeLowerBoundNeverSlowerWithMoreTiles(t *testing.T) {
	tg := mustLookup(t, "ipu21")
	for _, macs := range []int64{1, 1000, 5094275328} {
		prev := int64(math.MaxInt64)
		for tiles := 1; tiles <= 2048; tiles++ {
			tg.Tiles = tiles
			b, err := tg.ComputeLowerBoundCycles(macs, elem.F16)
			if err != nil {
				t.Fatal(err)
			}
			if b > prev {
				t.Fatalf("%d MACs: bound rose from %d to %d going to %d tiles", macs, prev, b, tiles)
			}
			prev = b
		}
	}
}

func TestFits(t *testing.T) {
	tg := mustLookup(t, "test16") // 48 KiB standard, 16 KiB interleaved
	if err := tg.Fits(map[MemoryKind]int64{Standard: 48 * 1024, Interleaved: 16 * 1024}); err != nil {
		t.Errorf("exactly full tile rejected: %v", err)
	}
	if err := tg.Fits(nil); err != nil {
		t.Errorf("empty demand rejected: %v", err)
	}
	err := tg.Fits(map[MemoryKind]int64{Standard: 50000, Interleaved: 100})
	var overflow *MemoryOverflowError
	if !errors.As(err, &overflow) || len(overflow.Overflows) != 1 {
		t.Fatalf("standard overflow: err = %v", err)
	}
	o := overflow.Overflows[0]
	if o.Class != "Test16Standard" || o.Kind != Standard || o.Need != 50000 || o.Capacity != 49152 || o.Over() != 848 {
		t.Errorf("overflow = %+v, over %d", o, o.Over())
	}
	if !strings.Contains(err.Error(), "Test16Standard") || !strings.Contains(err.Error(), "over by 848") {
		t.Errorf("overflow message %q does not name the class and the excess", err)
	}
	err = tg.Fits(map[MemoryKind]int64{Standard: 1 << 20, Interleaved: 1 << 20})
	if !errors.As(err, &overflow) || len(overflow.Overflows) != 2 || overflow.Overflows[1].Class != "Test16Interleaved" {
		t.Errorf("double overflow: err = %v", err)
	}
	for _, bad := range []map[MemoryKind]int64{{Standard: -1}, {MemoryKind(9): 1}} {
		err := tg.Fits(bad)
		if err == nil || errors.As(err, &overflow) {
			t.Errorf("Fits(%v) = %v, want a plain error", bad, err)
		}
	}
	if c, _ := tg.Capacity(Interleaved); c != 16*1024 {
		t.Errorf("Capacity(interleaved) = %d", c)
	}
}

func second(_ int64, err error) error { return err }

// A reduction over leading axes (stacked partial sums) adds its slices
// elementwise; one over trailing axes reduces rows. ReductionCycles picks
// by the axes, and agrees with the two formulas.
func TestReductionCyclesPicksTheKernelByAxes(t *testing.T) {
	tg := mustLookup(t, "ipu21")
	// Three f32 partial pieces of 4×64: 2·256 adds = 512 elements, 256
	// two-lane vectors, as ElementwiseCycles counts them.
	slices, err := tg.ElementwiseCycles(512, elem.F32, Simple)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := tg.ReduceCycles(3*4*64, 4*64, elem.F32)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		shape []int64
		axes  []int
		want  int64
	}{
		{"partials in front", []int64{3, 4, 64}, []int{0}, slices},
		{"partials in front of a unit axis", []int64{3, 1, 4, 64}, []int{0}, slices},
		{"rows", []int64{4, 64, 3}, []int{2}, rows},
		{"empty", []int64{3, 0, 64}, []int{0}, 0},
	} {
		got, err := tg.ReductionCycles(c.shape, c.axes, elem.F32)
		if err != nil || got != c.want {
			t.Errorf("%s: ReductionCycles(%v, %v) = %d, %v; want %d", c.name, c.shape, c.axes, got, err, c.want)
		}
	}
	if slices >= rows {
		t.Errorf("adding three slices (%d cycles) should cost less than reducing 256 rows of three (%d)", slices, rows)
	}
	// A single slice is copied: one operation per result.
	copied, _ := tg.ElementwiseCycles(256, elem.F32, Simple)
	if one, err := tg.SliceCombineCycles(256, 256, elem.F32); err != nil || one != copied {
		t.Errorf("one slice: %d, %v; want %d", one, err, copied)
	}
	for _, bad := range [][2]int64{{10, 3}, {10, 0}, {-4, 2}} {
		if _, err := tg.SliceCombineCycles(bad[0], bad[1], elem.F32); err == nil {
			t.Errorf("SliceCombineCycles(%d, %d) accepted", bad[0], bad[1])
		}
	}
}
