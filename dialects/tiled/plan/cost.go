package plan

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"

	"github.com/dustin/go-humanize"

	"github.com/ipuir/ipuir/dialects/tiled"
	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/layout"
	"github.com/ipuir/ipuir/numeric"
	"github.com/ipuir/ipuir/target"
)

// The cost of a plan is the time of its busiest tile through the supersteps
// the plan implies, all of which every tile of the grid goes through alike:
//
//  1. operands in: one exchange phase (after a sync) in which each tile
//     receives the shards of its non-resident operands that are not already
//     distributed as the plan wants — words = bytes/4, one per cycle, plus
//     the phase latency. Operands distributed alike but stored differently
//     (order, padding, memory class) cost a local copy instead;
//  2. compute: target.AMPCycles on the busiest tile's block (batch × rows ×
//     inner × columns it holds data for), the one price the simulated
//     device also charges, with the weights' load width set by their
//     class (128-bit loads from interleaved memory, 64-bit from standard).
//     Staged weights are copied into an interleaved buffer first, each
//     byte loaded and stored once at the target's load/store rate, and the
//     AMP then loads them 128 bits at a time;
//  3. with inner partitions, partial sums (f32) cross the exchange to the
//     tiles that own the reduced pieces of the result and are added there:
//     Complete in one phase, in which each tile sends its whole partial block
//     and each owner receives one piece from every inner partition — except
//     that when every tile owns a piece inside the block it computed
//     (tiled.PlanCheck.ReductionInPlace, settled on the shard maps), that
//     piece stays where it is: the busiest tile sends its block less its
//     piece and receives the other inner tiles' partials of its piece. A
//     tile never sends to itself, so this is the words the phase actually
//     moves, not an assumption. Pairwise would reduce by recursive halving
//     in ⌈log2 inner⌉ phases, but the exchange lowering runs it as
//     Complete's one phase, so it is priced as that, and the planner does
//     not choose it (a constraint still may). The adds and the final
//     conversion to the result type run on the vector unit
//     (target.ElementwiseCycles on f32), as the simulator's reduce of
//     stacked partials does (target.SliceCombineCycles).
//
// Each exchange phase is preceded by one sync. Peak bytes are the plan's
// buffers (tiled.PlanBuffers) on one tile.

// problem is one matmul being planned: the target, its figures, and what is
// known of the operands.
type problem struct {
	t        *target.Target
	s        layout.MatmulShape
	g        layout.Groups
	bpe      int64
	capacity map[target.MemoryKind]int64
	classes  map[string]target.MemoryClass
	lhs, rhs operandState
	// layouts caches grid layouts by grid (see selector.gridLayouts); the
	// lookahead shares one cache among the plannings of a consumer.
	layouts map[layout.GemmPlan]*layout.PlanLayouts
	// inPlace caches reductionInPlace by plan (with the fields it does not
	// depend on cleared); shared like layouts.
	inPlace map[layout.GemmPlan]bool
	buffers []layout.Buffer // reused by estimate
	// inputWords, when not negative, replaces the operand exchange's
	// analytic words by the exact ones of a finalist (select.go: rescore).
	inputWords int64
	// inputChipBytes, with inputWords, is that exchange's traffic between
	// the chips of a span (layout.Traffic.ChipBytes); nil: spread evenly.
	inputChipBytes []int64
	home           [2]int64 // homeElements, once computed
	// reserved is the bytes per tile that other matmuls' resident operands and home weights hold
	// while this one runs (subtracted from capacity), for messages.
	reserved int64
	// reservedTables is the part of reserved that exchange tables and code
	// hold beyond the support reserve (withTables), not weights.
	reservedTables int64
}

// operandState is what the planner knows of one operand.
type operandState struct {
	// resident operands arrive in whatever layout the plan gives them,
	// without an exchange: weights placed at load time, and streamed ones,
	// which also pay their load (streamed).
	resident bool
	streamed bool
	// free marks an operand another matmul exchanges for this one (sibling
	// scoring: see select.go).
	free      bool
	available []*layout.Layout
}

func newProblem(t *target.Target, s layout.MatmulShape) (*problem, error) {
	g, err := layout.AMPGroups(t, s.Elem)
	if err != nil {
		return nil, err
	}
	pr := &problem{t: t, s: s, g: g, bpe: int64(s.Elem.Bytes()),
		capacity: map[target.MemoryKind]int64{}, classes: map[string]target.MemoryClass{}, inputWords: -1}
	for _, c := range t.MemoryClasses {
		pr.capacity[c.Kind] = c.Size()
		if c.HoldsCode {
			pr.capacity[c.Kind] -= t.SupportReserveBytes
		}
		pr.classes[c.Name] = c
	}
	return pr, nil
}

// tileShape is a plan's per-tile sizes: batch entries, AMP rows (data and
// stored), inner and columns (stored), result piece (stored), and the
// logical extents that exchange moves.
type tileShape struct {
	batch, rows, rowsStored, inner, cols int64
	rowsData, innerData, colsData        int64
	pieceRows, pieceCols                 int64
	pieceRowsData, pieceColsData         int64
}

func (pr *problem) shape(p *layout.GemmPlan) tileShape {
	rows, cols, inner := pr.s.AMP(p.Orientation)
	g := pr.g
	kBlocks := numeric.CeilDiv(inner, g.Inner)
	cBlocks := numeric.CeilDiv(cols, p.OutputColumnBlock)
	rowBlocks := numeric.CeilDiv(rows, g.Inner)
	sh := tileShape{
		batch: numeric.CeilDiv(pr.s.Batch, p.BatchPartitions),
		rows:  numeric.CeilDiv(rowBlocks, p.RowPartitions) * g.Inner,
		// One step's slice (the whole inner range of a spatial plan), cut
		// as tiled.MatmulShape.StepShape and the step's plan cut it.
		inner: numeric.CeilDiv(numeric.CeilDiv(kBlocks, p.Steps()), p.InnerPartitions) * g.Inner,
		cols:  numeric.CeilDiv(cBlocks, p.ColumnPartitions) * p.OutputColumnBlock,
	}
	sh.rowsStored = numeric.RoundUp(sh.rows, g.Row)
	sh.rowsData, sh.innerData, sh.colsData = min(sh.rows, rows), min(sh.inner, inner), min(sh.cols, cols)
	pieceRows := sh.rows // the cell's rows, in blocks of g.Inner
	if p.ResultRowPartitions > 1 {
		pieceRows = numeric.CeilDiv(rows, p.RowPartitions*p.ResultRowPartitions) // single-row blocks
	}
	sh.pieceRows, sh.pieceRowsData = numeric.RoundUp(pieceRows, g.Row), min(pieceRows, rows)
	sh.pieceCols = numeric.CeilDiv(cBlocks, p.ColumnPartitions*p.ResultColumnPartitions) * p.OutputColumnBlock
	sh.pieceColsData = min(sh.pieceCols, cols)
	return sh
}

// valid is validate without the message, for the enumeration's hot loop.
func (pr *problem) valid(p *layout.GemmPlan) bool {
	rows, cols, inner := pr.s.AMP(p.Orientation)
	g := pr.g
	_, known := pr.classes[p.WeightMemoryClass]
	return known && p.BatchPartitions >= 1 && p.RowPartitions >= 1 && p.ColumnPartitions >= 1 && p.InnerPartitions >= 1 &&
		p.ResultRowPartitions >= 1 && p.ResultColumnPartitions >= 1 && p.OutputColumnBlock >= 1 &&
		p.Tiles() <= int64(pr.t.Tiles) && (pr.s.Batched || p.BatchPartitions == 1) && p.BatchPartitions <= pr.s.Batch &&
		p.RowPartitions <= numeric.CeilDiv(rows, g.Inner) && p.RowPartitions*p.ResultRowPartitions <= rows &&
		p.ColumnPartitions*p.ResultColumnPartitions <= numeric.CeilDiv(cols, p.OutputColumnBlock) &&
		p.InnerPartitions <= numeric.CeilDiv(inner, g.Inner) && p.ResultRowPartitions*p.ResultColumnPartitions <= p.InnerPartitions &&
		p.InnerSteps >= 0 && satMul(p.InnerPartitions, p.Steps()) <= numeric.CeilDiv(inner, g.Inner)
}

// validate checks what the cost model relies on; the planner only proposes
// plans that pass, but pinned fields may not.
func (pr *problem) validate(p *layout.GemmPlan) error {
	rows, cols, inner := pr.s.AMP(p.Orientation)
	switch {
	case p.BatchPartitions < 1 || p.RowPartitions < 1 || p.ColumnPartitions < 1 || p.InnerPartitions < 1 ||
		p.ResultRowPartitions < 1 || p.ResultColumnPartitions < 1 || p.OutputColumnBlock < 1:
		return fmt.Errorf("every partition count and the output column block must be at least 1")
	case p.Tiles() > int64(pr.t.Tiles):
		return fmt.Errorf("plan needs %d tiles but target %s has %d", p.Tiles(), pr.t.Name, pr.t.Tiles)
	case !pr.s.Batched && p.BatchPartitions != 1:
		return fmt.Errorf("batch_partitions is %d but the matmul has no batch axis", p.BatchPartitions)
	case p.BatchPartitions > pr.s.Batch:
		return fmt.Errorf("batch_partitions %d exceeds the batch of %d", p.BatchPartitions, pr.s.Batch)
	case p.RowPartitions > numeric.CeilDiv(rows, pr.g.Inner):
		return fmt.Errorf("row_partitions %d exceeds the %d row blocks of %d", p.RowPartitions, numeric.CeilDiv(rows, pr.g.Inner), pr.g.Inner)
	case p.RowPartitions*p.ResultRowPartitions > rows:
		return fmt.Errorf("row_partitions × result_row_partitions = %d exceeds the %d AMP rows", p.RowPartitions*p.ResultRowPartitions, rows)
	case p.ColumnPartitions*p.ResultColumnPartitions > numeric.CeilDiv(cols, p.OutputColumnBlock):
		return fmt.Errorf("column_partitions × result_column_partitions = %d exceeds the %d column blocks of %d",
			p.ColumnPartitions*p.ResultColumnPartitions, numeric.CeilDiv(cols, p.OutputColumnBlock), p.OutputColumnBlock)
	case p.InnerPartitions > numeric.CeilDiv(inner, pr.g.Inner):
		return fmt.Errorf("inner_partitions %d exceeds the %d inner groups of %d", p.InnerPartitions, numeric.CeilDiv(inner, pr.g.Inner), pr.g.Inner)
	case p.InnerSteps < 0:
		return fmt.Errorf("inner_steps must be at least 1")
	case satMul(p.InnerPartitions, p.Steps()) > numeric.CeilDiv(inner, pr.g.Inner):
		return fmt.Errorf("inner_partitions × inner_steps = %d exceeds the %d inner groups of %d",
			satMul(p.InnerPartitions, p.Steps()), numeric.CeilDiv(inner, pr.g.Inner), pr.g.Inner)
	case p.ResultRowPartitions*p.ResultColumnPartitions > p.InnerPartitions:
		return fmt.Errorf("result_row_partitions × result_column_partitions = %d exceeds inner_partitions %d",
			p.ResultRowPartitions*p.ResultColumnPartitions, p.InnerPartitions)
	}
	if _, ok := pr.classes[p.WeightMemoryClass]; !ok {
		return fmt.Errorf("target %s has no memory class %q", pr.t.Name, p.WeightMemoryClass)
	}
	return nil
}

// inputExchange returns the words of the operand exchange on its busiest
// tile in its busier direction, and the cycles of local copies for operands
// distributed alike but stored differently. A tile receives its blocks of
// the operands that are not distributed as the plan wants; the tiles
// holding an operand send it to every tile that needs it: once per piece
// with multicast, else once per replica the plan makes (the left operand is
// replicated over column partitions, the right over row partitions), the
// work shared by the tiles that hold it. layouts is nil unless an operand
// has available layouts, in which case it is the plan's layouts.
func (pr *problem) inputExchange(p *layout.GemmPlan, sh tileShape, layouts *layout.PlanLayouts) (words, copyCycles int64) {
	leftElems := sh.batch * sh.rowsData * sh.innerData
	rightElems := sh.batch * sh.innerData * sh.colsData
	lhsElems, rhsElems := leftElems, rightElems
	lhsRep, rhsRep := p.ColumnPartitions, p.RowPartitions
	if p.Orientation == layout.Swapped {
		lhsElems, rhsElems = rightElems, leftElems
		lhsRep, rhsRep = rhsRep, lhsRep
	}
	a, b, _ := pr.s.Shapes()
	var recv, sent int64
	for _, o := range []struct {
		st    *operandState
		elems int64
		rep   int64
		shape []int64
		want  func() *layout.Layout
	}{
		{&pr.lhs, lhsElems, lhsRep, a, func() *layout.Layout { return &layouts.LHS }},
		{&pr.rhs, rhsElems, rhsRep, b, func() *layout.Layout { return &layouts.RHS }},
	} {
		if o.st.resident || o.st.free {
			continue
		}
		moved := true
		senders := int64(pr.t.Tiles)
		for i, have := range o.st.available {
			if i == 0 {
				senders = max(1, min(senders, satMul(have.Tiling.ShardsPerReplica(), have.Tiling.Replicas)))
			}
			if layouts == nil {
				break // no available layout shares the plan's distribution (mayShareDistribution)
			}
			want := o.want()
			if have.SameDistribution(want) {
				moved = false
				if !have.Equal(want) {
					c, _ := pr.t.ElementwiseCycles(o.elems, pr.s.Elem, target.Simple)
					copyCycles += c
				}
				break
			}
		}
		if moved {
			recv += numeric.CeilDiv(o.elems*pr.bpe, int64(pr.t.ExchangeWordBytes))
			total := int64(1)
			for _, d := range o.shape {
				total = satMul(total, d)
			}
			if !pr.t.ExchangeMulticast {
				total = satMul(total, o.rep)
			}
			sent += numeric.CeilDiv(numeric.CeilDiv(satMul(total, pr.bpe), int64(pr.t.ExchangeWordBytes)), senders)
		}
	}
	if pr.inputWords >= 0 {
		return pr.inputWords, copyCycles
	}
	return max(recv, sent), copyCycles
}

// mayShareDistribution reports whether an available layout of a moved
// operand might be distributed as p's layout of it: only one with the same
// number of shards and replicas can (the left operand of the AMP is cut
// rows × inner × batch and replicated over columns, the right inner ×
// columns × batch and replicated over rows). Costing needs p's layouts
// only then, which saves building them for most grids.
func (pr *problem) mayShareDistribution(p *layout.GemmPlan) bool {
	b := p.BatchPartitions
	left := [2]int64{satMul(satMul(p.RowPartitions, p.InnerPartitions), b), p.ColumnPartitions}
	right := [2]int64{satMul(satMul(p.InnerPartitions, p.ColumnPartitions), b), p.RowPartitions}
	lhs, rhs := left, right
	if p.Orientation == layout.Swapped {
		lhs, rhs = right, left
	}
	for _, o := range []struct {
		st   *operandState
		want [2]int64
	}{{&pr.lhs, lhs}, {&pr.rhs, rhs}} {
		if o.st.resident || o.st.free {
			continue
		}
		for _, l := range o.st.available {
			if l.Tiling.ShardsPerReplica() == o.want[0] && l.Tiling.Replicas == o.want[1] {
				return true
			}
		}
	}
	return false
}

// needLayouts reports whether costing needs the plan's layouts (to compare
// with available ones).
func (pr *problem) needLayouts() bool {
	return (!pr.lhs.resident && !pr.lhs.free && len(pr.lhs.available) > 0) ||
		(!pr.rhs.resident && !pr.rhs.free && len(pr.rhs.available) > 0)
}

// lowerBound is a bound on the cost of every plan that shares p's
// orientation, partitions and output column block, whatever its result
// pieces, memory classes and stagings: the AMP work at full weight speed,
// the operand exchange, and for inner partitions at least one phase moving
// (kp-1)/kp of each tile's partial block: a piece of P words reduced in
// place costs max(block-P, (kp-1)·P) ≥ block·(kp-1)/kp whatever P, one not
// in place at least block (Pairwise is priced as Complete).
func (pr *problem) lowerBound(p *layout.GemmPlan, layouts *layout.PlanLayouts) int64 {
	sh := pr.shape(p)
	// At full weight speed: 128-bit loads, whatever the plan's class.
	compute, _ := pr.ampCycles(sh, true)
	if steps := p.Steps(); steps > 1 {
		left, right := pr.stepWords(p, sh)
		return steps * (compute + pr.phase(left) + pr.phase(right))
	}
	words, _ := pr.inputExchange(p, sh, layouts)
	lb := compute + pr.phase(words)
	if p.InnerPartitions > 1 {
		kp := p.InnerPartitions
		lb += pr.phase(sh.batch * sh.rowsData * sh.colsData * (kp - 1) / kp)
	}
	return lb
}

// ampCycles is the AMP's time on the busiest tile's block of the plan:
// the rows, inner elements and columns it holds data for (the workers
// split the rows that are there, and a pass computes the columns that are
// there: the layouts' padding to 16 is storage, not work), with the
// default partials and the weights loaded 128 bits at a time or not. The
// simulated device prices the same block the same way.
func (pr *problem) ampCycles(sh tileShape, loads128 bool) (int64, error) {
	return pr.t.AMPCycles(target.AMPWork{Batch: sh.batch, Rows: sh.rowsData, Inner: sh.innerData, Columns: sh.colsData,
		Elem: pr.s.Elem, Partials: pr.partials(), Loads128: loads128})
}

// partials is the matmul's partials type, the target's default unless it
// chose one.
func (pr *problem) partials() elem.Type {
	if pr.s.Partials.Valid() {
		return pr.s.Partials
	}
	return target.DefaultPartials
}

// reductionInPlace reports whether every tile of p's grid reduces a piece
// of its own partial block (tiled.PlanCheck.ReductionInPlace). Only plans
// with as many result pieces as inner partitions can be: otherwise some
// inner tile owns no piece and sends its whole block.
func (pr *problem) reductionInPlace(p *layout.GemmPlan) bool {
	if p.InnerPartitions <= 1 || p.ResultRowPartitions*p.ResultColumnPartitions != p.InnerPartitions {
		return false
	}
	key := *p
	key.WeightMemoryClass, key.LocalWeightStaging, key.ReductionStaging = "", layout.Direct, layout.Complete
	if v, ok := pr.inPlace[key]; ok {
		return v
	}
	v := false
	if ls, err := layout.LayoutsForPlan(p, pr.s, pr.t); err == nil {
		v = layout.ReductionInPlaceFor(p, ls, pr.t)
	}
	if pr.inPlace == nil {
		pr.inPlace = map[layout.GemmPlan]bool{}
	}
	pr.inPlace[key] = v
	return v
}

// stepSends are the elements a home tile holds of one step's inner range,
// for the left and the right operand, at most.
func (pr *problem) stepSends(p *layout.GemmPlan) (int64, int64) {
	a, b, _ := pr.s.Shapes()
	stepK := pr.s.StepShape(p, pr.g).K
	tiles := int64(pr.t.Tiles)
	within := func(shape []int64, kAxis int) int64 {
		dims := layout.DefaultShardDims(shape, tiles)
		n := int64(1)
		for i, d := range dims {
			if i == kAxis {
				d = min(d, stepK)
			}
			n = satMul(n, d)
		}
		return n
	}
	return within(a, len(a)-1), within(b, len(b)-2)
}

// homeElements are the largest shards of the operands' default layouts,
// where a temporal plan keeps them between steps.
func (pr *problem) homeElements() (int64, int64) {
	if pr.home[0] == 0 {
		a, b, _ := pr.s.Shapes()
		tiles := int64(pr.t.Tiles)
		pr.home = [2]int64{layout.DefaultShardElements(a, tiles), layout.DefaultShardElements(b, tiles)}
	}
	return pr.home[0], pr.home[1]
}

// stepWords is one step of a temporal plan on its busiest tile: the
// lowering slices each operand into the step's layouts in a phase of its
// own (convert-tiled-to-exchange's lowerSteps), so each is priced alone,
// in its busier direction. A tile receives its slice of the operand (the
// left one paired where the target shares buses between tile pairs); a
// home tile sends its part of the step's slice to every grid tile that
// needs it (once with multicast, else once per replica). That part is the
// home shard's elements within the step's inner range: a home layout that
// cuts the inner axis (the right operand's rows) keeps a step's slice on
// few tiles, which send their whole shard in that step.
func (pr *problem) stepWords(p *layout.GemmPlan, sh tileShape) (left, right int64) {
	word := int64(pr.t.ExchangeWordBytes)
	recvL := numeric.CeilDiv(sh.batch*sh.rowsData*sh.innerData*pr.bpe, word)
	if pr.t.ExchangeBusPairs && p.ColumnPartitions%2 == 0 {
		// The AMP-left slice's replicas sit on adjacent tiles, an even
		// number of them in whole pairs, each pair taking it at two words
		// a cycle (what the scheduler reaches on these phases).
		recvL = numeric.CeilDiv(recvL, 2)
	}
	recvR := numeric.CeilDiv(sh.batch*sh.innerData*sh.colsData*pr.bpe, word)
	sendL, sendR := pr.stepSends(p)
	if !pr.t.ExchangeMulticast {
		// The left operand's slices go to every column tile, the right's to
		// every row tile (AMP terms; swapped plans exchange the roles).
		lr, rr := p.ColumnPartitions, p.RowPartitions
		if p.Orientation == layout.Swapped {
			lr, rr = rr, lr
		}
		sendL, sendR = satMul(sendL, lr), satMul(sendR, rr)
	}
	sendL, sendR = numeric.CeilDiv(sendL*pr.bpe, word), numeric.CeilDiv(sendR*pr.bpe, word)
	return max(recvL, sendL), max(recvR, sendR)
}

// phase is the cost of one exchange phase moving words on the busiest tile,
// with the sync before it; nothing to move costs nothing.
func (pr *problem) phase(words int64) int64 {
	if words == 0 {
		return 0
	}
	c, _ := pr.t.ExchangePhaseCycles(words)
	return c + int64(pr.t.SyncCycles)
}

// estimate costs a valid plan. It returns the estimate and whether the
// plan's buffers fit the tile's memory classes.
func (pr *problem) estimate(p *layout.GemmPlan, layouts *layout.PlanLayouts) (tiled.Estimate, bool) {
	t := pr.t
	sh := pr.shape(p)
	var e tiled.Estimate
	var phases []int64

	steps := p.Steps()
	var copies int64
	if steps == 1 {
		var words int64
		words, copies = pr.inputExchange(p, sh, layouts)
		if words > 0 {
			phases = append(phases, words)
		}
	} else {
		// Every step exchanges its slice of each operand in a phase of its
		// own; moving the operands to their home layouts is the relayouts'
		// cost, before the matmul.
		left, right := pr.stepWords(p, sh)
		for range steps {
			for _, w := range []int64{left, right} {
				if w > 0 {
					phases = append(phases, w)
				}
			}
		}
	}
	weights := pr.classes[p.WeightMemoryClass]
	staged := p.LocalWeightStaging == layout.Staged
	e.ComputeCycles, _ = pr.ampCycles(sh, staged || weights.Loads128)
	if staged {
		bytes := sh.batch * sh.inner * sh.cols * pr.bpe
		e.ComputeCycles += numeric.CeilDiv(2*bytes, int64(t.LoadStoreBytesPerCycle))
	}
	e.ComputeCycles = e.ComputeCycles*steps + copies
	if steps > 1 {
		// Each step after the first adds its f32 partial sums (the whole
		// block with inner partitions, else the tile's result piece) to
		// the accumulator.
		acc := sh.batch * sh.pieceRowsData * sh.pieceColsData
		if p.InnerPartitions > 1 {
			acc = sh.batch * sh.rowsData * sh.colsData
		}
		adds, _ := t.ElementwiseCycles(acc, elem.F32, target.Simple)
		e.ReductionCycles += (steps - 1) * adds
	}
	if steps > 1 && p.InnerPartitions == 1 {
		// The f32 accumulator is converted to the result once, at the end.
		convert, _ := t.ElementwiseCycles(sh.batch*sh.pieceRowsData*sh.pieceColsData, elem.F32, target.Simple)
		e.ReductionCycles += convert
	}

	if kp := p.InnerPartitions; kp > 1 {
		block := sh.batch * sh.rowsData * sh.colsData
		piece := sh.batch * sh.pieceRowsData * sh.pieceColsData
		// Both stagings are lowered as one phase to the pieces' owners
		// (convert-tiled-to-exchange does not yet run the halvings of
		// Pairwise), so both are priced as that phase.
		if pr.reductionInPlace(p) {
			phases = append(phases, max(block-piece, (kp-1)*piece))
		} else {
			phases = append(phases, max(block, kp*piece))
		}
		adds, _ := t.ElementwiseCycles((kp-1)*piece, elem.F32, target.Simple)
		e.ReductionCycles += adds
		convert, _ := t.ElementwiseCycles(piece, elem.F32, target.Simple)
		e.ReductionCycles += convert
	}
	for i, w := range phases {
		// On a span of chips a phase also crosses the links: its exact
		// traffic where rescore measured the input exchange's, else its
		// bytes on the plan's tiles spread evenly over the chips they
		// cover (a plan's tiles start at the first).
		chipBytes := t.UniformChipBytes(satMul(satMul(w, int64(t.ExchangeWordBytes)), p.Tiles()), t.ChipsCovered(p.Tiles()))
		if i == 0 && steps == 1 && pr.inputWords > 0 && pr.inputChipBytes != nil {
			chipBytes = pr.inputChipBytes
		}
		c, sync, _ := t.ExchangeStepCycles(w, chipBytes)
		e.ExchangeCycles += c
		e.ExchangeWords += w
		e.SyncCycles += sync
	}
	e.ExchangeCycles += pr.streamingCycles(p, &e)
	e.Cycles = e.ComputeCycles + e.ExchangeCycles + e.ReductionCycles + e.SyncCycles

	dims := layout.TileDims{Batch: sh.batch, Rows: sh.rowsStored, Inner: sh.inner, Cols: sh.cols,
		PieceRows: sh.pieceRows, PieceCols: sh.pieceCols, ResultRows: sh.pieceRows, ResultCols: sh.pieceCols}
	if steps > 1 {
		dims.HomeLHS, dims.HomeRHS = pr.homeElements()
	}
	pr.buffers = layout.PlanBuffers(pr.buffers[:0], p, dims, pr.s, pr.g, weights.Kind)
	for _, b := range pr.buffers {
		switch b.Kind {
		case target.Standard:
			e.PeakStandardBytes += b.Bytes
		case target.Interleaved:
			e.PeakInterleavedBytes += b.Bytes
		}
	}
	fits := e.PeakStandardBytes <= pr.capacity[target.Standard] && e.PeakInterleavedBytes <= pr.capacity[target.Interleaved]
	return e, fits
}

// streamingCycles is what loading the plan's streamed operands from
// streaming memory costs: each its whole tensor once per replica the plan
// makes of it (as inputExchange counts them), in one load after a sync
// (added to e's syncs).
func (pr *problem) streamingCycles(p *layout.GemmPlan, e *tiled.Estimate) int64 {
	a, b, _ := pr.s.Shapes()
	lhsRep, rhsRep := p.ColumnPartitions, p.RowPartitions
	if p.Orientation == layout.Swapped {
		lhsRep, rhsRep = rhsRep, lhsRep
	}
	var total int64
	for _, o := range []struct {
		st    *operandState
		shape []int64
		rep   int64
	}{{&pr.lhs, a, lhsRep}, {&pr.rhs, b, rhsRep}} {
		if !o.st.streamed {
			continue
		}
		elems := int64(1)
		for _, d := range o.shape {
			elems = satMul(elems, d)
		}
		c, err := pr.t.StreamingCycles(satMul(satMul(elems, o.rep), pr.bpe))
		if err != nil {
			c = math.MaxInt64 / 4 // more than the streaming memory holds: never chosen
		}
		total += c
		e.SyncCycles += int64(pr.t.SyncCycles)
	}
	return total
}

// fitsAtAll refuses, before any enumeration, a matmul whose operands and
// result cannot fit the target's tiles under any plan: every element is
// held by some tile, so the busiest holds at least the total over the
// tile count. (Sizes are multiplied in float64: a 2^31-cubed matmul's
// products overflow int64, and the bound only needs to be approximate
// where it is far off.) A matmul past it is refused in microseconds
// instead of after enumerating millions of grids.
func (pr *problem) fitsAtAll() error {
	s := pr.s
	batch := float64(max(s.Batch, 1))
	elems := batch * (float64(s.M)*float64(s.K) + float64(s.K)*float64(s.N) + float64(s.M)*float64(s.N))
	need := elems * float64(pr.bpe) / float64(pr.t.Tiles)
	var have int64
	for _, c := range pr.capacity {
		have += c
	}
	if need > float64(have) {
		return target.TileMemoryError("no plan fits the tile memory of target %s: its operands and result (%s) need at least %s per tile even spread over all %d tiles, and a tile has %s for data (%s kept for code and exchange tables)",
			pr.t.Name, formatBytes(elems*float64(pr.bpe)), formatBytes(need), pr.t.Tiles, formatBytes(float64(have)), formatBytes(float64(pr.t.SupportReserveBytes)))
	}
	return nil
}

// shortOf says which memory of a tile est overflows: "needs N of standard
// memory per tile, the target has M".
func (pr *problem) shortOf(est *tiled.Estimate) string {
	std, il := pr.capacity[target.Standard], pr.capacity[target.Interleaved]
	switch {
	case est.PeakStandardBytes > std && est.PeakInterleavedBytes > il:
		return fmt.Sprintf("needs %s of standard and %s of interleaved memory per tile, the target has %s and %s for data",
			formatBytes(float64(est.PeakStandardBytes)), formatBytes(float64(est.PeakInterleavedBytes)), formatBytes(float64(std)), formatBytes(float64(il)))
	case est.PeakInterleavedBytes > il:
		return fmt.Sprintf("needs %s of interleaved memory per tile, the target has %s", formatBytes(float64(est.PeakInterleavedBytes)), formatBytes(float64(il)))
	}
	return fmt.Sprintf("needs %s of standard memory per tile, the target has %s for data (%s kept for code and exchange tables)",
		formatBytes(float64(est.PeakStandardBytes)), formatBytes(float64(std)), formatBytes(float64(pr.t.SupportReserveBytes)))
}

// formatBytes writes n as bytes with a binary unit ("624 KiB"); sizes
// past uint64 occur in refusals of huge matmuls.
func formatBytes(n float64) string {
	if n >= 1<<63 {
		b, _ := big.NewFloat(n).Int(nil)
		return humanize.BigIBytes(b)
	}
	return humanize.IBytes(uint64(n))
}

// satMul multiplies partition counts, saturating instead of overflowing.
func satMul(a, b int64) int64 {
	if hi, lo := bits.Mul64(uint64(a), uint64(b)); a < 0 || b < 0 || hi != 0 || lo > 1<<62 {
		return 1 << 62
	}
	return a * b
}

// Estimate costs plan p for a matmul of shape s whose operands are already
// in the plan's layouts: the compute, the reduction of partial sums and
// its exchange. Moving the operands there is the cost of the relayouts
// before the matmul, which are ops of their own in the tiled program.
func Estimate(p *layout.GemmPlan, s layout.MatmulShape, t *target.Target) (tiled.Estimate, error) {
	pr, err := newProblem(t, s)
	if err != nil {
		return tiled.Estimate{}, err
	}
	if err := pr.validate(p); err != nil {
		return tiled.Estimate{}, err
	}
	pr.lhs.resident, pr.rhs.resident = true, true
	e, _ := pr.estimate(p, nil)
	return e, nil
}
