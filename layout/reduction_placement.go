package layout

import "github.com/ipuir/ipuir/target"

// Where a plan's reduced result lands relative to the partial blocks.
//
// With inner partitions, every tile of a reduction group (the inner tiles of
// one grid cell) computes an f32 partial of the cell's whole block, and the
// result layout names the tile that owns each reduced piece. When every tile
// of the grid owns a piece and that piece lies inside the block the tile
// computed, the tile's own share of its partial block never crosses the
// exchange: it sends the rest of its block and receives the other inner
// tiles' partials of its piece. The planner prices a Complete reduction that
// way (plan/cost.go), so the claim is settled here, by the shard maps the
// verifier uses, not by a formula of its own.

// ReductionInPlace reports whether every tile of p's grid owns a piece of
// the reduced result that lies inside the partial block it computes (same
// batch entries, AMP rows inside its left shard's rows, AMP columns inside
// its right shard's columns, logical extents). It is false for plans
// without inner partitions, which have no reduction.
func (c *PlanCheck) ReductionInPlace(p *GemmPlan) bool {
	if p.InnerPartitions <= 1 {
		return false
	}
	// Axis positions (from the end) of the AMP rows and columns in the left
	// operand, right operand and result (see LayoutsForPlan).
	leftRows, rightCols, resRows, resCols := 2, 1, 2, 1
	if p.Orientation == Swapped {
		leftRows, rightCols, resRows, resCols = 1, 2, 1, 2
	}
	batched := len(c.Result.Shape) == 3
	within := func(inner, outer Extent) bool {
		return inner.Start >= outer.Start && inner.LogicalEnd <= outer.LogicalEnd
	}
	for tile := p.StartTile; tile < p.StartTile+p.Tiles(); tile++ {
		ls, okL := c.LeftMap.shardOnTile(tile)
		rs, okR := c.RightMap.shardOnTile(tile)
		piece, okP := c.Result.shardOnTile(tile)
		if !okL || !okR || !okP {
			return false
		}
		if !within(c.Result.axisExtent(piece, resRows), c.LeftMap.axisExtent(ls, leftRows)) ||
			!within(c.Result.axisExtent(piece, resCols), c.RightMap.axisExtent(rs, rightCols)) {
			return false
		}
		if batched && !within(c.Result.axisExtent(piece, 3), c.LeftMap.axisExtent(ls, 3)) {
			return false
		}
	}
	return true
}

// ReductionInPlaceFor builds the shard maps of p's layouts ls (from
// LayoutsForPlan) and answers ReductionInPlace; layouts that are not well
// formed are not in place. It is the planner's entry point, which does not need the rest of
// VerifyPlan's checks to price a candidate.
func ReductionInPlaceFor(p *GemmPlan, ls *PlanLayouts, t *target.Target) bool {
	if ls.Step != nil {
		ls = ls.Step // a temporal plan reduces what its steps accumulated
	}
	maxTiles := int64(t.Tiles)
	lhs, err := NewShardMap(&ls.LHS, ls.LHSShape, maxTiles)
	if err != nil {
		return false
	}
	rhs, err := NewShardMap(&ls.RHS, ls.RHSShape, maxTiles)
	if err != nil {
		return false
	}
	res, err := NewShardMap(&ls.Result, ls.ResultShape, maxTiles)
	if err != nil {
		return false
	}
	c := &PlanCheck{Layouts: ls, LHS: lhs, RHS: rhs, Result: res, LeftMap: lhs, RightMap: rhs}
	if p.Orientation == Swapped {
		c.LeftMap, c.RightMap = rhs, lhs
	}
	return c.ReductionInPlace(p)
}
