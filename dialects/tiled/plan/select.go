package plan

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/ipuir/ipuir/dialects/tiled"
	"github.com/ipuir/ipuir/layout"
	"github.com/ipuir/ipuir/numeric"
	"github.com/ipuir/ipuir/target"
)

// PlanProgram chooses a plan for every matmul of prog, in program order.
//
// Matmuls planned earlier inform later ones: the result of each is
// available in its result layout, and each non-resident operand in the
// layout it was exchanged into. Matmuls that share a non-resident operand
// and a shape with later unplanned ones (Q, K and V reading x) are chosen
// jointly: a candidate scores its own cost plus, for each sibling, its cost
// with the shared operand already in place, so the first picks a layout
// good for all; each sibling is still planned on its own afterwards.
//
// Resident operands (weights) stay on their tiles for the whole program up
// to their last reader, so a matmul cannot have the memory that later
// matmuls' weights hold: after a first planning, every matmul is planned
// again with those weights' bytes per tile (in their plans' layouts)
// reserved, until the plans settle (at most three rounds).
func PlanProgram(prog Program, t *target.Target, opts Options) ([]Choice, error) {
	if opts.Finalists < 1 {
		opts.Finalists = DefaultFinalists
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(discard{})
	}
	if opts.Memo == nil {
		opts.Memo = NewMemo() // the rounds below ask again what the first asked
	}
	// A measured support memory holds from the first round on.
	var first []map[target.MemoryKind]int64
	var firstTables int64
	if opts.SupportBytes > 0 {
		first = withTables(nil, prog, nil, t, opts.SupportBytes)
		firstTables = tablesBeyondReserve(prog, nil, t, opts.SupportBytes)
	}
	choices, err := planRound(prog, t, opts, first, firstTables)
	if err != nil {
		return nil, err
	}
	for range 3 {
		reserve := withTables(residentReserve(prog, choices, t), prog, choices, t, opts.SupportBytes)
		if reserve == nil {
			return choices, nil
		}
		again, err := planRound(prog, t, opts, reserve, tablesBeyondReserve(prog, choices, t, opts.SupportBytes))
		if err != nil {
			return nil, err
		}
		same := true
		for i := range again {
			same = same && again[i].Plan == choices[i].Plan
		}
		choices = again
		if same {
			return choices, nil
		}
	}
	return choices, nil
}

// residentReserve returns, for each matmul, the bytes per tile and memory
// kind that the resident operands of later matmuls hold while it runs
// (each resident value once, in the layout its plan gave it; the largest
// shard stands for every tile) and that home operands hold throughout
// (each once, in its Source layout); nil when nothing is reserved.
func residentReserve(prog Program, choices []Choice, t *target.Target) []map[target.MemoryKind]int64 {
	type resident struct {
		last  int // the last matmul reading it
		kind  target.MemoryKind
		bytes int64
	}
	byValue := map[int]*resident{}
	for j, m := range prog.Matmuls {
		a, b, _ := m.Shape.Shapes()
		for k, o := range []Operand{m.LHS, m.RHS} {
			if !o.Resident || o.Value < 0 {
				continue
			}
			l := []*layout.Layout{&choices[j].Layouts.LHS, &choices[j].Layouts.RHS}[k]
			sm, err := layout.NewShardMap(l, [][]int64{a, b}[k], int64(t.Tiles))
			class, cerr := t.ClassByName(l.MemoryClass)
			if err != nil || cerr != nil {
				continue
			}
			r := byValue[o.Value]
			if r == nil {
				r = &resident{}
				byValue[o.Value] = r
			}
			r.last = max(r.last, j)
			r.kind = class.Kind
			r.bytes = max(r.bytes, satMul(sm.MaxShardElements(), int64(m.Shape.Elem.Bytes())))
		}
	}
	// Homes hold their Source shards for the whole program, each on the
	// tiles its layout names: homes are spread one after another over the
	// chip (homeLayouts), so they are summed tile by tile and the busiest
	// tile's sum reserved, not every home's largest shard as if all lay on
	// one tile (which refused ViT-B/16 in f32: 363 KiB reserved for homes
	// that hold 235 KiB a tile).
	homes := map[int]bool{}
	perTile := map[target.MemoryKind][]int64{}
	for _, m := range prog.Matmuls {
		a, b, _ := m.Shape.Shapes()
		for k, o := range []Operand{m.LHS, m.RHS} {
			if !o.Home || o.Source == nil || homes[o.Value] {
				continue
			}
			sm, err := layout.NewShardMap(o.Source, [][]int64{a, b}[k], int64(t.Tiles))
			class, cerr := t.ClassByName(o.Source.MemoryClass)
			if err != nil || cerr != nil {
				continue
			}
			homes[o.Value] = true
			if perTile[class.Kind] == nil {
				perTile[class.Kind] = make([]int64, t.Tiles)
			}
			bytes := satMul(sm.MaxShardElements(), int64(m.Shape.Elem.Bytes()))
			for _, tile := range sm.Tiles() {
				perTile[class.Kind][tile] += bytes
			}
		}
	}
	home := map[target.MemoryKind]int64{}
	for kind, tiles := range perTile {
		home[kind] = slices.Max(tiles)
	}
	out := make([]map[target.MemoryKind]int64, len(prog.Matmuls))
	any := false
	for i, m := range prog.Matmuls {
		out[i] = map[target.MemoryKind]int64{}
		for v, r := range byValue {
			if r.last > i && (m.LHS.Value != v || !m.LHS.Resident) && (m.RHS.Value != v || !m.RHS.Resident) {
				out[i][r.kind] += r.bytes
				any = true
			}
		}
		for kind, bytes := range home {
			out[i][kind] += bytes
			any = true
		}
	}
	if !any {
		return nil
	}
	return out
}

// withTables adds to reserve, for every matmul, the exchange-table bytes
// the plans' operand exchanges take on the busiest tile (tableBytes)
// beyond half the target's SupportReserveBytes, in the class that holds
// code. The reserve is sized for one block (the reference log's attention
// block keeps 4,460 of its 12,416 support bytes in tables), so a block's
// own tables are already in it; a stack of layers adds a block's tables
// per layer.
//
// supportBytes, when set, is the busiest tile's support memory as a placement
// of this program measured it (code and every exchange's tables): the
// reserve is then what it holds beyond the target's support reserve,
// instead of the tables' estimate.
func withTables(reserve []map[target.MemoryKind]int64, prog Program, choices []Choice, t *target.Target, supportBytes int64) []map[target.MemoryKind]int64 {
	extra := tablesBeyondReserve(prog, choices, t, supportBytes)
	if extra <= 0 {
		return reserve
	}
	var kind target.MemoryKind
	found := false
	for _, c := range t.MemoryClasses {
		if c.HoldsCode {
			kind, found = c.Kind, true
			break
		}
	}
	if !found {
		return reserve
	}
	if reserve == nil {
		reserve = make([]map[target.MemoryKind]int64, len(prog.Matmuls))
	}
	for i := range reserve {
		if reserve[i] == nil {
			reserve[i] = map[target.MemoryKind]int64{}
		}
		reserve[i][kind] += extra
	}
	return reserve
}

// tablesBeyondReserve is the support memory (exchange tables and code) a
// tile holds beyond the target's support reserve, as withTables reserves
// it: measured when supportBytes is given, else the plans' tables
// estimated; at most 0 when the reserve holds it.
func tablesBeyondReserve(prog Program, choices []Choice, t *target.Target, supportBytes int64) int64 {
	if supportBytes > 0 {
		return supportBytes - t.SupportReserveBytes
	}
	return tableBytes(prog, choices, t) - t.SupportReserveBytes/2
}

// planRound plans every matmul of prog in order, each with reserve[i]
// bytes per memory kind of its tiles held by others (nil: none), tables of
// which are support memory beyond the target's reserve (withTables).
func planRound(prog Program, t *target.Target, opts Options, reserve []map[target.MemoryKind]int64, tables int64) ([]Choice, error) {
	log := opts.Logger
	available := map[int][]*layout.Layout{}
	caches := make([]*planCache, len(prog.Matmuls))
	for i := range caches {
		caches[i] = newPlanCache()
	}
	choices := make([]Choice, len(prog.Matmuls))
	for i := range prog.Matmuls {
		m := &prog.Matmuls[i]
		pr, err := newProblem(t, m.Shape)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.Name, err)
		}
		if reserve != nil {
			for kind, bytes := range reserve[i] {
				pr.capacity[kind] = max(0, pr.capacity[kind]-bytes)
				pr.reserved += bytes
			}
			// What of it is support memory (withTables), for the message.
			pr.reservedTables = min(max(tables, 0), pr.reserved)
		}
		pr.lhs = operandState{resident: m.LHS.Resident || m.LHS.Streamed, streamed: m.LHS.Streamed, available: availableFor(available, m.LHS)}
		pr.rhs = operandState{resident: m.RHS.Resident || m.RHS.Streamed, streamed: m.RHS.Streamed, available: availableFor(available, m.RHS)}
		caches[i].attach(pr)
		shared := siblings(prog, i)
		sel := &selector{pr: pr, m: m, index: i, opts: opts, log: log, siblings: len(shared.of)}
		if len(shared.of) > 0 {
			sel.shared = []*operandState{&pr.lhs, &pr.rhs}[shared.which]
		}
		err = sel.finalists()
		if err != nil && len(m.NCuts) > 0 {
			// No grid puts the parts of a joint matmul on whole shards: plan
			// it as one matmul, and let the slices and concat exchange.
			log.Info("no plan aligns the parts of a joint matmul; planning it whole", "operation", m.Name, "cuts", fmt.Sprint(m.NCuts))
			whole := *m
			whole.NCuts = nil
			sel = &selector{pr: pr, m: &whole, index: i, opts: opts, log: log, siblings: sel.siblings, shared: sel.shared}
			pr.inPlace, pr.layouts = map[layout.GemmPlan]bool{}, caches[i].layouts
			caches[i].attach(pr)
			err = sel.finalists()
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.Name, err)
		}
		feasible, err := sel.verify()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.Name, err)
		}
		var c Choice
		if j := consumerOf(prog, i); j >= 0 && len(feasible) > 1 {
			pick, total := lookahead(prog, i, j, feasible, available, caches[j], t, opts)
			c = sel.choice(feasible[pick], "consumer", prog.Matmuls[j].Name, "with_consumer_cycles", total)
		} else {
			c = sel.choice(feasible[0])
		}
		for _, v := range feasible {
			c.Finalists = append(c.Finalists, v.f.plan)
		}
		choices[i] = c
		record(available, m.Result, &c.Layouts.Result)
		// An operand exchanged into the plan's layout is there for later
		// readers of the same value (not of a value derived from it).
		if !m.LHS.arrivesInPlace() && m.LHS.Derive == nil && c.Plan.Steps() == 1 {
			record(available, m.LHS.Value, &c.Layouts.LHS)
		}
		if !m.RHS.arrivesInPlace() && m.RHS.Derive == nil && c.Plan.Steps() == 1 {
			record(available, m.RHS.Value, &c.Layouts.RHS)
		}
	}
	return choices, nil
}

// consumerOf returns the first later matmul that reads matmul i's result
// (through layout-preserving ops), or -1.
func consumerOf(prog Program, i int) int {
	v := prog.Matmuls[i].Result
	if v < 0 {
		return -1
	}
	for j := i + 1; j < len(prog.Matmuls); j++ {
		n := &prog.Matmuls[j]
		if (!n.LHS.arrivesInPlace() && n.LHS.Value == v) || (!n.RHS.arrivesInPlace() && n.RHS.Value == v) {
			return j
		}
	}
	return -1
}

// lookahead picks, among the feasible finalists of matmul i, the one whose
// cost plus its consumer j's best cost (given i's result where that
// finalist leaves it) is least: a producer and its consumer agree on the
// layout between them when that pays. Finalists whose results are
// distributed alike leave the consumer the same choice, so each
// distribution is tried once. It returns the finalist's index in feasible
// and the joint cost.
func lookahead(prog Program, i, j int, feasible []verified, available map[int][]*layout.Layout,
	cache *planCache, t *target.Target, opts Options) (int, int64) {
	pick, best := 0, int64(-1)
	var tried []*layout.Layout
	for k, v := range feasible {
		res := &v.check.Layouts.Result
		if slices.ContainsFunc(tried, res.SameDistribution) {
			continue
		}
		tried = append(tried, res)
		av := map[int][]*layout.Layout{}
		for key, ls := range available {
			av[key] = slices.Clone(ls)
		}
		record(av, prog.Matmuls[i].Result, res)
		consumer, ok := bestCost(prog.Matmuls[j], av, cache, t, opts)
		if !ok {
			continue
		}
		if total := v.f.score + consumer; best < 0 || total < best {
			pick, best = k, total
		}
	}
	return pick, best
}

// bestCost plans m quietly and returns the cost of its best feasible plan.
func bestCost(m Matmul, available map[int][]*layout.Layout, cache *planCache,
	t *target.Target, opts Options) (int64, bool) {
	pr, err := newProblem(t, m.Shape)
	if err != nil {
		return 0, false
	}
	cache.attach(pr)
	pr.lhs = operandState{resident: m.LHS.Resident || m.LHS.Streamed, streamed: m.LHS.Streamed, available: availableFor(available, m.LHS)}
	pr.rhs = operandState{resident: m.RHS.Resident || m.RHS.Streamed, streamed: m.RHS.Streamed, available: availableFor(available, m.RHS)}
	sel := &selector{pr: pr, m: &m, opts: opts, log: slog.New(discard{})}
	key := ""
	if opts.Memo != nil {
		key = sel.searchKey()
		opts.Memo.mu.Lock()
		r, ok := opts.Memo.bestCosts[key]
		ok = ok && !opts.Memo.off
		if ok {
			opts.Memo.hits++
		}
		opts.Memo.mu.Unlock()
		if ok {
			return r.cycles, r.ok
		}
	}
	cycles, ok := int64(0), false
	if sel.finalists() == nil {
		if feasible, err := sel.verify(); err == nil {
			cycles, ok = feasible[0].f.est.Cycles, true
		}
	}
	if opts.Memo != nil {
		opts.Memo.mu.Lock()
		opts.Memo.bestCosts[key] = bestCostResult{cycles, ok}
		opts.Memo.mu.Unlock()
	}
	return cycles, ok
}

func availableFor(av map[int][]*layout.Layout, o Operand) []*layout.Layout {
	if o.arrivesInPlace() || o.Value < 0 {
		return nil
	}
	src := av[o.Value]
	if len(src) == 0 && o.Source != nil {
		src = []*layout.Layout{o.Source}
	}
	if o.Derive == nil {
		return src
	}
	var out []*layout.Layout
	for _, l := range src {
		if d, ok := o.Derive(l); ok {
			out = append(out, &d)
		}
	}
	return out
}

func record(av map[int][]*layout.Layout, value int, l *layout.Layout) {
	if value < 0 {
		return
	}
	for _, have := range av[value] {
		if have.SameDistribution(l) {
			return
		}
	}
	av[value] = append(av[value], l)
}

// planCache holds what costing one matmul's candidates computes from a
// plan alone (grid layouts, whether its reduction is in place), shared by
// its own planning and every lookahead that plans it again.
type planCache struct {
	layouts map[layout.GemmPlan]*layout.PlanLayouts
	inPlace map[layout.GemmPlan]bool
}

func newPlanCache() *planCache {
	return &planCache{layouts: map[layout.GemmPlan]*layout.PlanLayouts{}, inPlace: map[layout.GemmPlan]bool{}}
}

func (c *planCache) attach(pr *problem) { pr.layouts, pr.inPlace = c.layouts, c.inPlace }

// siblingSet is the later matmuls that share an operand with one.
type siblingSet struct {
	which int // the shared operand: 0 for LHS, 1 for RHS
	of    []int
}

func siblings(prog Program, i int) siblingSet {
	m := &prog.Matmuls[i]
	for which, o := range []Operand{m.LHS, m.RHS} {
		if o.arrivesInPlace() || o.Value < 0 {
			continue
		}
		var of []int
		for j := i + 1; j < len(prog.Matmuls); j++ {
			n := &prog.Matmuls[j]
			other := []Operand{n.LHS, n.RHS}[which]
			if other.Value == o.Value && !other.arrivesInPlace() && n.Shape == m.Shape && sameConstraint(n.Constraint, m.Constraint) {
				of = append(of, j)
			}
		}
		if len(of) > 0 {
			return siblingSet{which: which, of: of}
		}
	}
	return siblingSet{}
}

func sameConstraint(a, b *layout.GemmConstraint) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.String() == b.String()
}

// finalist is a costed candidate.
type finalist struct {
	plan  layout.GemmPlan
	est   tiled.Estimate
	score int64
}

// before orders finalists: the lower score first, and among equal scores
// the one that needs less tile memory (what the plan leaves for the rest
// of the program is worth having when it costs no cycles).
func (f *finalist) before(g *finalist) bool {
	if f.score != g.score {
		return f.score < g.score
	}
	return f.est.PeakStandardBytes+f.est.PeakInterleavedBytes < g.est.PeakStandardBytes+g.est.PeakInterleavedBytes
}

// selector plans one matmul.
type selector struct {
	pr       *problem
	m        *Matmul
	index    int
	opts     Options
	log      *slog.Logger
	siblings int
	shared   *operandState

	best        []finalist // sorted by score, at most opts.Finalists
	costed      int
	pruned      int
	unfit       int
	rejected    int
	firstReject string
	// smallestUnfit is the candidate that came closest to fitting tile
	// memory (least total peak), for the message when none fits.
	smallestUnfit *tiled.Estimate
}

// score costs p; with siblings, adds their cost with the shared operand in
// place. ok is false when p does not fit tile memory. layouts are p's
// operand layouts when an operand has available ones (see gridLayouts).
func (s *selector) score(p *layout.GemmPlan, layouts *layout.PlanLayouts) (finalist, bool) {
	est, fits := s.pr.estimate(p, layouts)
	if !fits {
		s.unfit++
		if u := s.smallestUnfit; u == nil || est.PeakStandardBytes+est.PeakInterleavedBytes < u.PeakStandardBytes+u.PeakInterleavedBytes {
			s.smallestUnfit = &est
		}
		return finalist{}, false
	}
	f := finalist{plan: *p, est: est, score: est.Cycles}
	if s.shared != nil && s.siblings > 0 {
		s.shared.free = true
		exact := s.pr.inputWords
		s.pr.inputWords = -1 // the siblings' exchange lacks the shared operand
		other, _ := s.pr.estimate(p, layouts)
		s.pr.inputWords = exact
		s.shared.free = false
		f.score += int64(s.siblings) * other.Cycles
	}
	return f, true
}

// rescore costs the finalists again with their exact operand exchange:
// from the shard map of where each moved operand is (its first available
// layout) to the plan's, per tile and in both directions
// (tiled.ExchangeTraffic, multicast where the target has it), in place of
// the enumeration's per-tile analytic figure. The finalists are then
// ranked by their exact scores.
func (s *selector) rescore() {
	pr := s.pr
	if !pr.needLayouts() {
		return
	}
	a, b, _ := pr.s.Shapes()
	tiles := int64(pr.t.Tiles)
	for i := range s.best {
		f := &s.best[i]
		if f.plan.Steps() > 1 {
			continue
		}
		ls, err := layout.LayoutsForPlan(&f.plan, pr.s, pr.t)
		if err != nil {
			continue
		}
		var total layout.Traffic
		exact := false
		for _, o := range []struct {
			st    *operandState
			shape []int64
			want  *layout.Layout
		}{{&pr.lhs, a, &ls.LHS}, {&pr.rhs, b, &ls.RHS}} {
			if o.st.resident || o.st.free || len(o.st.available) == 0 || slices.ContainsFunc(o.st.available, o.want.SameDistribution) {
				continue
			}
			src, err1 := layout.NewShardMap(o.st.available[0], o.shape, tiles)
			dst, err2 := layout.NewShardMap(o.want, o.shape, tiles)
			if err1 != nil || err2 != nil {
				continue
			}
			tr := layout.ExchangeTraffic(src, layout.ShardNeeds(dst), pr.bpe, pr.t)
			total.Add(&tr)
			exact = true
		}
		if !exact {
			continue
		}
		pr.inputWords, pr.inputChipBytes = total.MaxWords(), total.ChipBytes
		if g, ok := s.score(&f.plan, ls); ok {
			*f = g
		}
		pr.inputWords, pr.inputChipBytes = -1, nil
	}
	slices.SortStableFunc(s.best, func(x, y finalist) int {
		switch {
		case x.before(&y):
			return -1
		case y.before(&x):
			return 1
		}
		return 0
	})
}

// gridLayouts returns the operand layouts of a grid when costing needs them
// (an operand has available layouts to compare with), else nil. Operand
// layouts do not depend on a plan's result pieces, memory classes or
// stagings, so one computation serves every variant of the grid.
func (s *selector) gridLayouts(p *layout.GemmPlan) (*layout.PlanLayouts, error) {
	if !s.pr.needLayouts() || !s.pr.mayShareDistribution(p) {
		return nil, nil
	}
	if l, ok := s.pr.layouts[*p]; ok {
		return l, nil
	}
	l, err := layout.LayoutsForPlan(p, s.pr.s, s.pr.t)
	if err == nil && s.pr.layouts != nil {
		s.pr.layouts[*p] = l
	}
	return l, err
}

func (s *selector) bound(p *layout.GemmPlan, layouts *layout.PlanLayouts) int64 {
	lb := s.pr.lowerBound(p, layouts)
	if s.shared != nil && s.siblings > 0 {
		s.shared.free = true
		lb += int64(s.siblings) * s.pr.lowerBound(p, layouts)
		s.shared.free = false
	}
	return lb
}

func (s *selector) reject(err error) {
	if s.firstReject == "" {
		s.firstReject = err.Error()
	}
}

// keep inserts f among the best finalists in the order of before
// (stable: earlier candidates win full ties, so the choice does not
// depend on anything but the enumeration).
func (s *selector) keep(f finalist) {
	k := s.opts.Finalists
	if len(s.best) == k && !f.before(&s.best[k-1]) {
		return
	}
	i, _ := slices.BinarySearchFunc(s.best, f, func(a, f finalist) int {
		if !f.before(&a) {
			return -1
		}
		return 1
	})
	s.best = slices.Insert(s.best, i, f)
	if len(s.best) > k {
		s.best = s.best[:k]
	}
}

// threshold is the score a candidate must beat to become a finalist.
func (s *selector) threshold() int64 {
	if len(s.best) < s.opts.Finalists {
		return 1<<63 - 1
	}
	return s.best[len(s.best)-1].score
}

// enumerate costs every candidate that survives the lower bound.
func (s *selector) enumerate() {
	pr, c := s.pr, s.m.Constraint
	t := pr.t
	tiles := int64(t.Tiles)
	extra := partitionsOf(pr.lhs.available, pr.rhs.available)
	orientations := []layout.Orientation{layout.Normal, layout.Swapped}
	if c != nil && c.IsPinned("orientation") {
		orientations = []layout.Orientation{c.Values.Orientation}
	}
	blocks := []int64{pr.g.Column, 2 * pr.g.Column, 4 * pr.g.Column}
	blocks = pinnedOr(c, "output_column_block", blocks)
	batches := pinnedOr(c, "batch_partitions", withExtra(representatives(pr.s.Batch, tiles), extra, pr.s.Batch))
	weights := weightChoices(t, c)
	// Pairwise is lowered as Complete (see cost.go): not a choice of its own.
	stagings := []layout.ReductionStaging{layout.Complete}
	if c != nil && c.IsPinned("reduction_staging") {
		stagings = []layout.ReductionStaging{c.Values.ReductionStaging}
	}
	pinnedRows, rowsPinned := int64(0), false
	if c != nil {
		pinnedRows, rowsPinned = c.PinnedInt("row_partitions")
	}

	for _, o := range orientations {
		rows, cols, inner := pr.s.AMP(o)
		kBlocks, rowBlocks := numeric.CeilDiv(inner, pr.g.Inner), numeric.CeilDiv(rows, pr.g.Inner)
		rowSet := withExtra(representatives(rowBlocks, tiles), extra, rowBlocks)
		if rowsPinned {
			rowSet = []int64{pinnedRows}
		}
		innerSet := pinnedOr(c, "inner_partitions", withExtra(representatives(kBlocks, tiles), extra, kBlocks))
		for _, ocb := range blocks {
			cBlocks := numeric.CeilDiv(cols, max(ocb, 1))
			colSet := pinnedOr(c, "column_partitions", withExtra(representatives(cBlocks, tiles), extra, cBlocks))
			// The sets ascend, and a grid of more partitions than tiles is
			// invalid: each loop stops at the first such value after its
			// first (which is visited so that a pinned value too large is
			// reported). This bounds the grids by the tuples whose product
			// fits the tiles, whatever the matmul's size.
			for i, bp := range batches {
				if i > 0 && bp > tiles {
					break
				}
				for i, r := range rowSet {
					if i > 0 && bp*r > tiles {
						break
					}
					for i, cp := range colSet {
						if i > 0 && satMul(bp*r, cp) > tiles {
							break
						}
						for i, kp := range innerSet {
							if i > 0 && satMul(satMul(bp*r, cp), kp) > tiles {
								break
							}
							s.cell(o, ocb, bp, r, cp, kp, weights, stagings)
						}
					}
				}
			}
		}
	}
}

// cell costs the variants of one grid: result pieces, weight placement,
// reduction staging.
func (s *selector) cell(o layout.Orientation, ocb, bp, r, cp, kp int64, weights []weightChoice, stagings []layout.ReductionStaging) {
	pr, c := s.pr, s.m.Constraint
	base := layout.GemmPlan{Orientation: o, BatchPartitions: bp, RowPartitions: r, ColumnPartitions: cp,
		InnerPartitions: kp, InnerSteps: 1, ResultRowPartitions: 1, ResultColumnPartitions: 1, OutputColumnBlock: ocb,
		WeightMemoryClass: weights[0].class, ReductionStaging: layout.Complete, LocalWeightStaging: weights[0].staging}
	if c != nil {
		if v, ok := c.PinnedInt("inner_steps"); ok {
			base.InnerSteps = v
		}
	}
	if !pr.valid(&base) {
		if c != nil && !c.Empty() && s.firstReject == "" {
			s.reject(pr.validate(&base)) // only pinned values can make a grid invalid
		}
		return
	}
	if !layout.NCutsAlign(&base, pr.s, pr.g, s.m.NCuts) {
		return
	}
	if !s.gridMayFit(&base) && !s.stepsToFit(&base, c) {
		return
	}
	layouts, err := s.gridLayouts(&base)
	if err != nil {
		s.reject(err)
		return
	}
	if s.bound(&base, layouts) > s.threshold() { // an equal score may still need less memory
		s.pruned++
		return
	}
	rows, cols, _ := pr.s.AMP(o)
	cellRows := numeric.CeilDiv(numeric.CeilDiv(rows, pr.g.Inner), r)
	cellCols := numeric.CeilDiv(numeric.CeilDiv(cols, ocb), cp)
	staged := stagings
	if kp == 1 {
		staged = stagings[:1]
	}
	for _, pieces := range resultPieces(kp, cellRows, cellCols, c) {
		for _, w := range weights {
			for _, rs := range staged {
				p := base
				p.ResultRowPartitions, p.ResultColumnPartitions = pieces[0], pieces[1]
				p.WeightMemoryClass, p.LocalWeightStaging = w.class, w.staging
				p.ReductionStaging = rs
				if (c != nil && !c.Matches(&p)) || !layout.NCutsAlign(&p, pr.s, pr.g, s.m.NCuts) {
					continue
				}
				if !pr.valid(&p) {
					if s.firstReject == "" {
						s.reject(pr.validate(&p))
					}
					continue
				}
				s.costed++
				if f, ok := s.score(&p, layouts); ok {
					s.keep(f)
				}
			}
		}
	}
}

// stepsToFit makes p, a grid whose blocks do not fit tile memory, a
// temporal plan: the fewest inner steps whose slices fit (fewer steps cost
// fewer syncs and per-call overheads for the same work). It reports
// whether some number of steps does; the steps tried are 2, 3, 4, 6, 8,
// 12, ... (about ×1.5 each), so a grid costs O(log) tries.
func (s *selector) stepsToFit(p *layout.GemmPlan, c *layout.GemmConstraint) bool {
	if c != nil && c.IsPinned("inner_steps") {
		return false
	}
	_, _, inner := s.pr.s.AMP(p.Orientation)
	most := numeric.CeilDiv(inner, s.pr.g.Inner) / p.InnerPartitions
	for steps := int64(2); steps <= most; steps = max(steps+1, steps*3/2) {
		p.InnerSteps = steps
		if s.gridMayFit(p) {
			return true
		}
	}
	p.InnerSteps = 1
	return false
}

// gridMayFit reports whether some variant of the grid p might fit tile
// memory: the buffers every variant holds (both operand shards, and the
// result shard or, with inner partitions, the f32 partial sums) must fit
// the tile's memory, the weights in the larger class. A grid that cannot
// counts as one unfit candidate, with those buffers as its need; its
// variants are not costed.
func (s *selector) gridMayFit(p *layout.GemmPlan) bool {
	pr := s.pr
	sh := pr.shape(p)
	left := sh.batch * sh.rowsStored * sh.inner * pr.bpe
	right := sh.batch * sh.inner * sh.cols * pr.bpe
	rest := sh.batch * sh.pieceRows * sh.pieceCols * int64(pr.s.ResultElem.Bytes())
	if p.InnerPartitions > 1 {
		rest = sh.batch * sh.rowsStored * sh.cols * 4
	}
	if p.Steps() > 1 {
		homeL, homeR := pr.homeElements()
		rest += (homeL + homeR) * pr.bpe
		if p.InnerPartitions == 1 {
			rest += sh.batch * sh.rowsStored * sh.cols * 4 // the accumulator
		}
	}
	std, il := pr.capacity[target.Standard], pr.capacity[target.Interleaved]
	if left+rest <= std && right <= max(std-left-rest, il) {
		return true
	}
	s.unfit++
	est := tiled.Estimate{PeakStandardBytes: left + rest, PeakInterleavedBytes: right}
	if right <= std-left-rest {
		est = tiled.Estimate{PeakStandardBytes: left + rest + right}
	}
	if u := s.smallestUnfit; u == nil || left+rest+right < u.PeakStandardBytes+u.PeakInterleavedBytes {
		s.smallestUnfit = &est
	}
	return false
}

// verified is a finalist that passed tiled.VerifyPlan.
type verified struct {
	index int // its place among the finalists
	f     finalist
	check *layout.PlanCheck
}

// finalists enumerates and logs the constraint and the retained finalists.
func (s *selector) finalists() error {
	if sh := s.pr.s; sh.M == 0 || sh.K == 0 || sh.N == 0 || sh.Batch == 0 {
		return fmt.Errorf("an empty matmul (batch %d of %d×%d by %d×%d) has no plan: its result is empty or all zeros, so replace it by a constant",
			sh.Batch, sh.M, sh.K, sh.K, sh.N)
	}
	if err := s.pr.fitsAtAll(); err != nil {
		return err
	}
	key := ""
	if s.opts.Memo != nil {
		key = s.searchKey()
	}
	if !s.recall(key) {
		s.enumerate()
		s.rescore()
		s.remember(key)
	}
	c := s.m.Constraint
	if c != nil && !c.Empty() {
		shown := *c
		shown.SourceOperation = int64(s.index)
		s.log.Info("applied GEMM plan constraint", "operation", s.m.Name, "source_operation", s.index,
			"matching_plans", s.costed, "constraint", shown.DebugString())
	}
	if len(s.best) == 0 {
		return s.noCandidate()
	}
	for i, f := range s.best {
		attrs := []any{"operation", s.m.Name, "finalist", i, "estimated_cycles", f.est.Cycles,
			"estimated_exchange_cycles", f.est.ExchangeCycles, "exchange_words", f.est.ExchangeWords,
			"peak_standard_bytes", f.est.PeakStandardBytes, "peak_interleaved_bytes", f.est.PeakInterleavedBytes,
			"peak_total_bytes", f.est.PeakStandardBytes + f.est.PeakInterleavedBytes}
		if s.siblings > 0 {
			attrs = append(attrs, "joint_cycles", f.score, "sharing_matmuls", s.siblings+1)
		}
		s.log.Info("retained operator-plan finalist", append(attrs, "plan", f.plan.DebugString())...)
	}
	return nil
}

// verify checks the finalists in order and returns the feasible ones; it
// fails, with every finalist's reason, when none is.
func (s *selector) verify() ([]verified, error) {
	var ok []verified
	var reasons []string
	for i, f := range s.best {
		chk, err := layout.VerifyPlan(&f.plan, s.pr.s, s.pr.t)
		if err != nil {
			s.log.Info("rejected infeasible operator-plan finalist", "operation", s.m.Name, "finalist", i, "error", err.Error())
			reasons = append(reasons, fmt.Sprintf("finalist %d (%s): %v", i, f.plan.String(), err))
			continue
		}
		ok = append(ok, verified{index: i, f: f, check: chk})
	}
	if len(ok) > 0 {
		s.rejected = len(reasons)
		return ok, nil
	}
	what := "all finalists are infeasible"
	if c := s.m.Constraint; c != nil && !c.Empty() {
		what = fmt.Sprintf("every finalist satisfying %s is infeasible", c.DebugString())
	}
	return nil, fmt.Errorf("%s:\n  %s", what, strings.Join(reasons, "\n  "))
}

// choice makes the Choice of a verified finalist and logs the selection.
func (s *selector) choice(v verified, extra ...any) Choice {
	attrs := []any{"operation", s.m.Name, "selected", v.index, "estimated_cycles", v.f.est.Cycles,
		"candidates", s.costed, "pruned", s.pruned, "rejected", s.rejected}
	s.log.Info("selected operator-plan finalist", append(append(attrs, extra...), "plan", v.f.plan.DebugString())...)
	return Choice{Name: s.m.Name, Plan: v.f.plan, Estimate: v.f.est, Layouts: v.check.Layouts,
		Candidates: s.costed, Pruned: s.pruned, Rejected: s.rejected}
}

// noCandidate explains why no candidate was kept.
func (s *selector) noCandidate() error {
	c := s.m.Constraint
	subject := "no plan"
	if c != nil && !c.Empty() {
		subject = "no plan satisfying " + c.DebugString()
	}
	constrained := c != nil && !c.Empty()
	switch {
	case s.firstReject != "" && (constrained || s.unfit == 0):
		// Only pinned values make the planner's own grids invalid, so the
		// reason is the user's to fix.
		return fmt.Errorf("%s is valid: %s", subject, s.firstReject)
	case s.unfit > 0:
		beside := ""
		weights, tables := s.pr.reserved-s.pr.reservedTables, s.pr.reservedTables
		switch {
		case weights > 0 && tables > 0:
			beside = fmt.Sprintf(" beside the %s per tile that resident and home weights hold and the %s that exchange tables and code take beyond the support reserve",
				formatBytes(float64(weights)), formatBytes(float64(tables)))
		case tables > 0:
			beside = fmt.Sprintf(" beside the %s per tile that exchange tables and code take beyond the support reserve", formatBytes(float64(tables)))
		case weights > 0:
			beside = fmt.Sprintf(" beside the %s per tile that resident and home weights hold", formatBytes(float64(weights)))
		}
		return target.TileMemoryError("%s fits the tile memory of target %s%s: the smallest of %d candidates %s", subject, s.pr.t.Name, beside, s.unfit, s.pr.shortOf(s.smallestUnfit))
	}
	return fmt.Errorf("%s exists for this matmul on target %s", subject, s.pr.t.Name)
}

// discard is a slog handler that drops every record.
type discard struct{}

func (discard) Enabled(context.Context, slog.Level) bool  { return false }
func (discard) Handle(context.Context, slog.Record) error { return nil }
func (d discard) WithAttrs([]slog.Attr) slog.Handler      { return d }
func (d discard) WithGroup(string) slog.Handler           { return d }
