package layout

import (
	"fmt"
	"strconv"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/numeric"
	"github.com/ipuir/ipuir/target"
)

// MatmulShape is the problem a GEMM plan partitions: C[b,m,n] = A[b,m,k] ·
// B[b,k,n], or without the batch axis when Batched is false (Batch is then 1).
type MatmulShape struct {
	Batched    bool
	Batch      int64
	M, K, N    int64
	Elem       elem.Type
	ResultElem elem.Type
	// Partials is the type the AMP keeps partial sums in (the matmul's
	// partials_type); Invalid is the target's default.
	Partials elem.Type
}

// Shapes returns the tensor shapes of A, B and C.
func (s MatmulShape) Shapes() (a, b, c []int64) {
	if s.Batched {
		return []int64{s.Batch, s.M, s.K}, []int64{s.Batch, s.K, s.N}, []int64{s.Batch, s.M, s.N}
	}
	return []int64{s.M, s.K}, []int64{s.K, s.N}, []int64{s.M, s.N}
}

// MACs is the number of multiply-accumulates of the problem.
func (s MatmulShape) MACs() int64 { return satMul(satMul(satMul(s.Batch, s.M), s.K), s.N) }

// AMP returns the problem in AMP terms for an orientation: the AMP's rows,
// columns and inner size.
func (s MatmulShape) AMP(o Orientation) (rows, cols, inner int64) {
	if o == Swapped {
		return s.N, s.M, s.K
	}
	return s.M, s.N, s.K
}

// Groups are the AMP's access granules on the target for an element type:
// it streams rows in groups of Row, reduces Inner elements at a time and
// writes Column result columns at a time.
type Groups struct{ Row, Inner, Column int64 }

// AMPGroups reads the groups from the target's AMP vertex for et (with
// the default partials: the grain is the same for every partials type).
func AMPGroups(t *target.Target, et elem.Type) (Groups, error) {
	fit, ok := t.AMPVertexFor(et, target.DefaultPartials)
	if !ok {
		if et == elem.F64 {
			return Groups{}, fmt.Errorf("target %s has no AMP matmul for f64 (binary64 is software, on the vector path; a module without ipu.f64 = \"binary64\" computes f64 as f32, on the AMP)", t.Name)
		}
		return Groups{}, fmt.Errorf("target %s has no AMP matmul for %v", t.Name, et)
	}
	return Groups{Row: int64(fit.RowGroup), Inner: int64(fit.InnerGroupBytes / et.Bytes()), Column: int64(fit.ColumnGroup)}, nil
}

// PlanLayouts are the layouts a plan gives a matmul's operands and result,
// with the tensor shapes they apply to. A temporal plan's operands live in
// their default layouts; Step holds the layouts of one step's slices (a
// spatial plan of the step's matmul), which each step exchanges them into.
type PlanLayouts struct {
	LHS, RHS, Result                Layout
	LHSShape, RHSShape, ResultShape []int64
	Step                            *PlanLayouts
}

// Steps is the plan's number of serial inner steps (at least 1).
func (p *GemmPlan) Steps() int64 { return max(p.InnerSteps, 1) }

// StepPlan is the spatial plan each step of a temporal plan runs.
func (p *GemmPlan) StepPlan() GemmPlan {
	q := *p
	q.InnerSteps = 1
	return q
}

// StepShape is the matmul one step of p computes: the inner axis cut into
// p.Steps() slices of whole inner groups (the last may be short; this is
// the longest), the rest as s.
func (s MatmulShape) StepShape(p *GemmPlan, g Groups) MatmulShape {
	if p.Steps() == 1 {
		return s
	}
	per := numeric.CeilDiv(numeric.CeilDiv(s.K, g.Inner), p.Steps())
	s.K = min(s.K, per*g.Inner)
	return s
}

// gridStrides are the tile distances of the plan's grid dimensions. The grid
// is laid out columns fastest, then inner, rows and batch, so that a result
// whose columns are cut like a following matmul's inner axis lands where
// that matmul wants its operand.
type gridStrides struct{ col, inner, row, batch int64 }

func (p *GemmPlan) strides() gridStrides {
	g := gridStrides{col: 1, inner: p.ColumnPartitions}
	g.row = satMul(g.inner, p.InnerPartitions)
	g.batch = satMul(g.row, p.RowPartitions)
	return g
}

// checkPlanFields checks a plan's fields on their own and against the
// problem and target: counts positive, the grid within the tile count,
// reduction pieces no more than inner tiles, partitions within what the
// axes can be cut into, a weight memory class the target has.
func (p *GemmPlan) check(s MatmulShape, t *target.Target, g Groups) error {
	for f := planField(0); f < numPlanFields; f++ {
		least := int64(1)
		if f == fieldStartTile {
			least = 0
		}
		if v := p.intField(f); v != nil && *v < least && (f != fieldInnerSteps || *v != 0) {
			return fmt.Errorf("%s must be at least %d, got %d", planFieldNames[f], least, *v)
		}
	}
	if p.Orientation > Swapped || p.ReductionStaging > Pairwise || p.LocalWeightStaging > Staged {
		return fmt.Errorf("plan has an invalid enumerated field")
	}
	if tiles := p.Tiles(); tiles > int64(t.Tiles) {
		return fmt.Errorf("plan needs %d tiles (batch %d × rows %d × columns %d × inner %d) but target %s has %d",
			tiles, p.BatchPartitions, p.RowPartitions, p.ColumnPartitions, p.InnerPartitions, t.Name, t.Tiles)
	} else if p.StartTile > int64(t.Tiles)-tiles {
		return fmt.Errorf("plan's %d tiles from start_tile %d run past target %s's %d", tiles, p.StartTile, t.Name, t.Tiles)
	}
	if pieces := satMul(p.ResultRowPartitions, p.ResultColumnPartitions); pieces > p.InnerPartitions {
		return fmt.Errorf("result_row_partitions × result_column_partitions = %d exceeds inner_partitions %d: each piece of a reduced result needs its own inner tile",
			pieces, p.InnerPartitions)
	}
	if !s.Batched && p.BatchPartitions != 1 {
		return fmt.Errorf("batch_partitions is %d but the matmul has no batch axis", p.BatchPartitions)
	}
	rows, cols, inner := s.AMP(p.Orientation)
	colBlocks := numeric.CeilDiv(cols, p.OutputColumnBlock)
	for _, c := range []struct {
		what         string
		parts, limit int64
		unit         string
		unitSize     int64
	}{
		{"batch_partitions", p.BatchPartitions, s.Batch, "batch entries", 0},
		{"row_partitions", p.RowPartitions, numeric.CeilDiv(rows, g.Inner), "row blocks of", g.Inner},
		{"row_partitions × result_row_partitions", satMul(p.RowPartitions, p.ResultRowPartitions), rows, "AMP rows", 0},
		{"column_partitions × result_column_partitions", satMul(p.ColumnPartitions, p.ResultColumnPartitions), colBlocks,
			"column blocks of", p.OutputColumnBlock},
		{"inner_partitions", p.InnerPartitions, numeric.CeilDiv(inner, g.Inner), "inner groups of", g.Inner},
		{"inner_partitions × inner_steps", satMul(p.InnerPartitions, p.Steps()), numeric.CeilDiv(inner, g.Inner), "inner groups of", g.Inner},
	} {
		if c.parts > c.limit {
			unit := c.unit
			if c.unitSize > 0 {
				unit += " " + strconv.FormatInt(c.unitSize, 10)
			}
			return fmt.Errorf("%s = %d exceeds the %d %s", c.what, c.parts, c.limit, unit)
		}
	}
	known := false
	for _, c := range t.MemoryClasses {
		known = known || c.Name == p.WeightMemoryClass
	}
	if !known {
		_, err := t.ClassByName(p.WeightMemoryClass)
		return fmt.Errorf("weight_memory_class: %v", err)
	}
	return nil
}

// LayoutsForPlan derives the layouts a plan gives A, B and C. The rules,
// in AMP terms (rows, columns, inner; see GemmPlan):
//
//   - rows: blocks of one inner group (16 f16), so that a result's rows can
//     be a later matmul's inner axis where they already are, each shard
//     padded to the AMP row group (6) so that whole row groups are read and
//     written inside it;
//   - inner: blocks of one inner group (16 f16), zero padded, so that partial
//     groups add nothing;
//   - columns: blocks of output_column_block;
//   - batch: block 1.
//
// The AMP's left operand (A when Normal, B when Swapped) is in amp<left>
// order in the target's standard class, replicated over column partitions;
// the right operand (the "weights") in amp<right> order in
// weight_memory_class, replicated over row partitions. The result is cut
// into rows × result_row_partitions by columns × result_column_partitions
// (rows in single-row blocks when result_row_partitions > 1), row major
// when Normal and in transposed-matrix blocks when Swapped, in the
// standard class. Every layout spans the plan's whole grid (from
// start_tile, tile_count = start_tile + Tiles()) with explicit strides.
func LayoutsForPlan(p *GemmPlan, s MatmulShape, t *target.Target) (*PlanLayouts, error) {
	g, err := AMPGroups(t, s.Elem)
	if err != nil {
		return nil, err
	}
	if err := p.check(s, t, g); err != nil {
		return nil, err
	}
	if p.Steps() > 1 {
		step := p.StepPlan()
		ls, err := LayoutsForPlan(&step, s.StepShape(p, g), t)
		if err != nil {
			return nil, err
		}
		out := &PlanLayouts{Result: ls.Result, Step: ls}
		out.LHSShape, out.RHSShape, out.ResultShape = s.Shapes()
		if out.LHS, err = DefaultLayout(out.LHSShape, t); err != nil {
			return nil, err
		}
		if out.RHS, err = DefaultLayout(out.RHSShape, t); err != nil {
			return nil, err
		}
		return out, nil
	}
	standard, err := t.Class(target.Standard)
	if err != nil {
		return nil, err
	}
	// Every layout below gets its own axes slice: callers keep them.
	st := p.strides()
	tiles := p.Tiles()

	// Axis positions (from the end) of each AMP dimension in each tensor.
	// A is [.., m, k], B [.., k, n], C [.., m, n].
	aRows, aInner, bInner, bCols := 2, 1, 2, 1 // Normal: A rows = m, B cols = n
	cRows, cCols := 2, 1
	if p.Orientation == Swapped {
		// AMP rows are n (B's axis -1, C's axis -1); AMP columns are m.
		cRows, cCols = 1, 2
	}
	ax := planAxes{p, g}
	rowAxis, colAxis, resultRows := ax.rows, ax.cols, ax.resultRows
	innerAxis := func(fromEnd int) AxisTiling {
		a := NewAxis(fromEnd, p.InnerPartitions)
		a.BlockSize, a.PaddingMultiple = g.Inner, g.Inner
		a.TileStride = st.inner
		return a
	}
	batchAxis := func(stride int64) []AxisTiling {
		if !s.Batched {
			return nil
		}
		a := NewAxis(3, p.BatchPartitions)
		a.TileStride = stride
		return []AxisTiling{a}
	}

	// The AMP's left operand: rows × inner, replicated over columns.
	leftRows := rowAxis(aRows, p.RowPartitions)
	leftRows.TileStride = st.row
	left := Layout{
		Order: Order{Kind: AmpLeft},
		Tiling: Tiling{TileCount: p.StartTile + tiles, TileOffset: p.StartTile, Replicas: p.ColumnPartitions, ReplicaStride: st.col,
			Axes: append([]AxisTiling{leftRows, innerAxis(aInner)}, batchAxis(st.batch)...)},
		MemoryClass: standard.Name,
	}
	// The right operand: inner × columns, replicated over rows.
	rightCols := colAxis(bCols, p.ColumnPartitions)
	rightCols.TileStride = st.col
	right := Layout{
		Order: Order{Kind: AmpRight},
		Tiling: Tiling{TileCount: p.StartTile + tiles, TileOffset: p.StartTile, Replicas: p.RowPartitions, ReplicaStride: st.row,
			Axes: append([]AxisTiling{innerAxis(bInner), rightCols}, batchAxis(st.batch)...)},
		MemoryClass: p.WeightMemoryClass,
	}
	if p.Orientation == Swapped {
		// Bᵀ is streamed: B's n axis (-1) carries the AMP rows and its k
		// axis (-2) the inner dimension; Aᵀ is the right operand: A's m axis
		// (-2) carries the columns and its k axis (-1) the inner dimension.
		left.Tiling.Axes[0].FromEnd, left.Tiling.Axes[1].FromEnd = 1, 2
		right.Tiling.Axes[0].FromEnd, right.Tiling.Axes[1].FromEnd = 1, 2
	}

	// The result: each cell's block cut into result pieces, densely mapped.
	resCols := colAxis(cCols, satMul(p.ColumnPartitions, p.ResultColumnPartitions))
	resCols.TileStride = 1
	resRows := resultRows(cRows)
	resRows.TileStride = resCols.Partitions
	resBatchStride := satMul(resRows.TileStride, resRows.Partitions)
	result := Layout{
		Order:       Order{Kind: RowMajor},
		Tiling:      Tiling{TileCount: p.StartTile + tiles, TileOffset: p.StartTile, Replicas: 1, Axes: append([]AxisTiling{resRows, resCols}, batchAxis(resBatchStride)...)},
		MemoryClass: standard.Name,
	}
	if p.Orientation == Swapped {
		result.Order = Order{Kind: BlockMajor, RowBlock: g.Row, ColumnBlock: p.OutputColumnBlock}
	}

	out := &PlanLayouts{Result: result}
	out.LHSShape, out.RHSShape, out.ResultShape = s.Shapes()
	if p.Orientation == Swapped {
		out.LHS, out.RHS = right, left
	} else {
		out.LHS, out.RHS = left, right
	}
	return out, nil
}

// planAxes builds the axis tilings LayoutsForPlan gives each AMP dimension
// (NAxes reads the n axis's from the same rules).
type planAxes struct {
	p *GemmPlan
	g Groups
}

// rows: blocks of one inner group, each shard padded to the row group.
func (x planAxes) rows(fromEnd int, parts int64) AxisTiling {
	a := NewAxis(fromEnd, parts)
	a.BlockSize, a.PaddingMultiple = x.g.Inner, x.g.Inner
	a.ShardPaddingMultiple = x.g.Row
	return a
}

// cols: blocks of output_column_block.
func (x planAxes) cols(fromEnd int, parts int64) AxisTiling {
	a := NewAxis(fromEnd, parts)
	a.BlockSize, a.PaddingMultiple = x.p.OutputColumnBlock, x.p.OutputColumnBlock
	return a
}

// resultRows: the result's AMP rows, cut into rows × result_row_partitions;
// pieces finer than a cell's rows are cut row by row, so that the
// reduction's pieces stay even.
func (x planAxes) resultRows(fromEnd int) AxisTiling {
	a := x.rows(fromEnd, satMul(x.p.RowPartitions, x.p.ResultRowPartitions))
	if x.p.ResultRowPartitions > 1 {
		a.BlockSize, a.PaddingMultiple = 1, 1
	}
	return a
}

// NCutsAlign reports whether plan p puts a partition boundary at each of
// cuts along the n axis (B's and C's last) of both B and the result: then
// the parts of a matmul planned jointly as one wider one (n the
// concatenated columns) are whole shards of B and C (SliceLayout).
func NCutsAlign(p *GemmPlan, s MatmulShape, g Groups, cuts []int64) bool {
	if len(cuts) == 0 {
		return true
	}
	x := planAxes{p, g}
	b, c := x.cols(1, p.ColumnPartitions), x.cols(1, satMul(p.ColumnPartitions, p.ResultColumnPartitions))
	if p.Orientation == Swapped {
		b, c = x.rows(1, p.RowPartitions), x.resultRows(1)
	}
	for _, a := range []AxisTiling{b, c} {
		split, err := newAxisSplit([]int64{s.N}, a)
		if err != nil {
			return false
		}
		for _, cut := range cuts {
			first, _ := split.partitionsOverlapping(Span{cut, cut + 1})
			if first >= a.Partitions || split.span(first).Lo != cut {
				return false
			}
		}
	}
	return true
}

// PartialsLayout is the layout of the partial sums of a plan with inner
// partitions, as each tile of its grid computes them: a tensor of shape
// PartialsShape (the inner partitions first, then C's axes) in f32, whose
// shard on each tile is its AMP block of C for its inner partition. A
// tiled.combine summing axis 0 into the plan's result layout is the plan's
// complete reduction. Spatial plans only.
func PartialsLayout(p *GemmPlan, s MatmulShape, t *target.Target) (Layout, error) {
	g, err := AMPGroups(t, s.Elem)
	if err != nil {
		return Layout{}, err
	}
	if err := p.check(s, t, g); err != nil {
		return Layout{}, err
	}
	standard, err := t.Class(target.Standard)
	if err != nil {
		return Layout{}, err
	}
	st := p.strides()
	ax := planAxes{p, g}
	rank := 3
	if s.Batched {
		rank = 4
	}
	cRows, cCols := 2, 1
	if p.Orientation == Swapped {
		cRows, cCols = 1, 2
	}
	rows := ax.rows(cRows, p.RowPartitions)
	rows.TileStride = st.row
	cols := ax.cols(cCols, p.ColumnPartitions)
	cols.TileStride = st.col
	inner := NewAxis(rank, p.InnerPartitions)
	inner.TileStride = st.inner
	axes := []AxisTiling{cols, inner, rows}
	if s.Batched {
		b := NewAxis(3, p.BatchPartitions)
		b.TileStride = st.batch
		axes = append(axes, b)
	}
	return Layout{Order: Order{Kind: RowMajor}, MemoryClass: standard.Name,
		Tiling: Tiling{TileCount: p.StartTile + p.Tiles(), TileOffset: p.StartTile, Replicas: 1, Axes: axes}}, nil
}

// PartialsShape is the shape of a plan's partial sums: [inner partitions,
// C's shape...].
func PartialsShape(p *GemmPlan, s MatmulShape) []int64 {
	_, _, c := s.Shapes()
	return append([]int64{p.InnerPartitions}, c...)
}
