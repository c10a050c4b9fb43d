package layout

import (
	"fmt"

	"github.com/ipuir/ipuir/numeric"
	"github.com/ipuir/ipuir/target"
)

// Buffer is one allocation a plan makes on every tile of its grid.
type Buffer struct {
	Name  string
	Kind  target.MemoryKind
	Bytes int64
}

// TileDims are the per-tile sizes a plan works on, in AMP terms: the largest
// shard's rows, inner and columns as stored, its batch entries, and the
// result piece each reducing tile owns.
type TileDims struct {
	Batch, Rows, Inner, Cols int64
	PieceRows, PieceCols     int64
	ResultRows, ResultCols   int64
	// HomeLHS and HomeRHS are, for a temporal plan, the elements of the
	// largest shard of each operand's default layout, where it lives
	// between steps; Inner is then one step's slice.
	HomeLHS, HomeRHS int64
}

// partialBytes is the size of one accumulator element: the AMP accumulates
// in f32 whatever its operands, so partial sums travel as f32.
const partialBytes = 4

// PlanBuffers appends to bufs what every tile of a plan's grid holds while
// the matmul runs: both operands' shards, the result (or, with inner
// partitions, the f32 partial block, the reduction's receive buffer and the
// reduced piece), and the interleaved staging buffer when weights are
// staged. The planner calls it with analytic sizes (reusing bufs across
// candidates); VerifyPlan with the shard maps' exact ones.
func PlanBuffers(bufs []Buffer, p *GemmPlan, d TileDims, s MatmulShape, g Groups, weightKind target.MemoryKind) []Buffer {
	bpe, rbpe := int64(s.Elem.Bytes()), int64(s.ResultElem.Bytes())
	left, right := "left operand shard", "right operand shard"
	if p.Steps() > 1 {
		left, right = "left operand step slice", "right operand step slice"
		bufs = append(bufs,
			Buffer{"lhs home shard", target.Standard, d.HomeLHS * bpe},
			Buffer{"rhs home shard", target.Standard, d.HomeRHS * bpe})
		if p.InnerPartitions == 1 {
			bufs = append(bufs, Buffer{"accumulator", target.Standard, d.Batch * d.Rows * d.Cols * partialBytes})
		}
	}
	bufs = append(bufs,
		Buffer{left, target.Standard, d.Batch * d.Rows * d.Inner * bpe},
		Buffer{right, weightKind, d.Batch * d.Inner * d.Cols * bpe})
	if p.InnerPartitions == 1 {
		bufs = append(bufs, Buffer{"result shard", target.Standard, d.Batch * d.ResultRows * d.ResultCols * rbpe})
	} else {
		block := d.Batch * d.Rows * d.Cols
		piece := d.Batch * d.PieceRows * d.PieceCols
		// Pairwise is lowered as Complete: every partial of the piece at
		// once.
		recv := p.InnerPartitions * piece
		bufs = append(bufs,
			Buffer{"partial sums", target.Standard, block * partialBytes},
			Buffer{"reduction receive buffer", target.Standard, recv * partialBytes},
			Buffer{"reduced result piece", target.Standard, d.Batch * d.ResultRows * d.ResultCols * rbpe})
	}
	if p.LocalWeightStaging == Staged {
		// Two column panels (inner × one column group), double buffered.
		bufs = append(bufs, Buffer{"weight staging buffer", target.Interleaved, 2 * d.Inner * g.Column * bpe})
	}
	return bufs
}

// PlanCheck is a verified plan: its layouts, their shard maps, its buffers
// and the bytes per memory kind on each tile.
type PlanCheck struct {
	Layouts          *PlanLayouts
	LHS, RHS, Result *ShardMap
	Dims             TileDims
	Buffers          []Buffer
	BytesPerKind     map[target.MemoryKind]int64
	WeightKind       target.MemoryKind
	// LeftMap and RightMap are LHS and RHS in AMP terms (swapped when the
	// plan is).
	LeftMap, RightMap *ShardMap
}

// VerifyPlan checks that a plan is feasible for a matmul on a target: its
// fields make sense for the problem, its layouts are well formed, every
// tile's AMP reads and writes stay inside its shards (the shard-view
// containment rule), both operands' shards on a tile agree on the inner
// positions, and each tile's buffers fit its memory classes. The error is
// the first rule broken, with the verifier's own message.
//
// A temporal plan is checked as the spatial plan of one step (its views and
// buffers), with the operands' home shards and the accumulator added to
// each tile's memory; its Layouts are the whole plan's.
func VerifyPlan(p *GemmPlan, s MatmulShape, t *target.Target) (*PlanCheck, error) {
	full, err := LayoutsForPlan(p, s, t)
	if err != nil {
		return nil, err
	}
	g, _ := AMPGroups(t, s.Elem)
	plan, ls := p, full
	if p.Steps() > 1 {
		step := p.StepPlan()
		plan, ls = &step, full.Step
	}
	c, err := verifySpatial(plan, ls, t, g)
	if err != nil {
		return nil, err
	}
	c.Layouts = full
	weight, err := t.ClassByName(p.WeightMemoryClass)
	if err != nil {
		return nil, err
	}
	c.WeightKind = weight.Kind
	c.Dims = c.tileDims(plan)
	if p.Steps() > 1 {
		c.Dims.HomeLHS = DefaultShardElements(full.LHSShape, int64(t.Tiles))
		c.Dims.HomeRHS = DefaultShardElements(full.RHSShape, int64(t.Tiles))
	}
	c.Buffers = PlanBuffers(nil, p, c.Dims, s, g, weight.Kind)
	c.BytesPerKind = map[target.MemoryKind]int64{}
	for _, b := range c.Buffers {
		class, err := t.Class(b.Kind)
		if err != nil {
			return nil, err
		}
		c.BytesPerKind[b.Kind] += numeric.CeilDiv(b.Bytes, class.Alignment) * class.Alignment
	}
	if err := t.Fits(c.BytesPerKind); err != nil {
		return nil, fmt.Errorf("plan does not fit tile memory: %v", err)
	}
	return c, nil
}

// verifySpatial checks a spatial plan's layouts and every tile's views.
func verifySpatial(p *GemmPlan, ls *PlanLayouts, t *target.Target, g Groups) (*PlanCheck, error) {
	var err error
	c := &PlanCheck{Layouts: ls}
	maxTiles := int64(t.Tiles)
	if c.LHS, err = NewShardMap(&ls.LHS, ls.LHSShape, maxTiles); err != nil {
		return nil, fmt.Errorf("left operand layout: %v", err)
	}
	if c.RHS, err = NewShardMap(&ls.RHS, ls.RHSShape, maxTiles); err != nil {
		return nil, fmt.Errorf("right operand layout: %v", err)
	}
	if c.Result, err = NewShardMap(&ls.Result, ls.ResultShape, maxTiles); err != nil {
		return nil, fmt.Errorf("result layout: %v", err)
	}
	c.LeftMap, c.RightMap = c.LHS, c.RHS
	if p.Orientation == Swapped {
		c.LeftMap, c.RightMap = c.RHS, c.LHS
	}
	if err := c.checkTiles(p, g); err != nil {
		return nil, err
	}
	return c, nil
}

// checkTiles checks the AMP's views of every shard (replicas are alike, so
// one of each), then walks every tile of the grid: it must hold a shard of
// both operands, meeting on the same inner and batch positions, and, when
// the AMP writes the result in place, a shard of the result.
func (c *PlanCheck) checkTiles(p *GemmPlan, g Groups) error {
	// Axis positions of the AMP dimensions in the left, right and result
	// tensors (see LayoutsForPlan).
	leftGroups := map[int]int64{2: g.Row, 1: g.Inner}
	rightGroups := map[int]int64{2: g.Inner, 1: g.Column}
	resultGroups := map[int]int64{2: g.Row, 1: g.Column}
	leftInner, rightInner := 1, 2
	if p.Orientation == Swapped {
		leftGroups = map[int]int64{1: g.Row, 2: g.Inner}
		rightGroups = map[int]int64{1: g.Inner, 2: g.Column}
		resultGroups = map[int]int64{1: g.Row, 2: g.Column}
		leftInner, rightInner = 2, 1
	}
	maps := []struct {
		what   string
		m      *ShardMap
		groups map[int]int64
	}{{"AMP left operand", c.LeftMap, leftGroups}, {"AMP right operand", c.RightMap, rightGroups}}
	if p.InnerPartitions == 1 {
		maps = append(maps, struct {
			what   string
			m      *ShardMap
			groups map[int]int64
		}{"AMP result", c.Result, resultGroups})
	}
	for _, x := range maps {
		coords := make([]int64, len(x.m.splits))
		for shard := int64(0); shard < x.m.NumShards(); shard++ {
			x.m.coordsOf(shard, coords)
			tile := x.m.Tile(coords, 0)
			if err := x.m.CheckView(tile, x.m.AccessView(coords, x.groups)); err != nil {
				return fmt.Errorf("%s on tile %d: %v", x.what, tile, err)
			}
		}
	}
	batched := len(c.LeftMap.Shape) == 3
	for tile := p.StartTile; tile < p.StartTile+p.Tiles(); tile++ {
		ls, okL := c.LeftMap.shardOnTile(tile)
		rs, okR := c.RightMap.shardOnTile(tile)
		if !okL || !okR {
			return fmt.Errorf("tile %d of the plan's grid holds no shard of an operand", tile)
		}
		li, ri := c.LeftMap.axisExtent(ls, leftInner), c.RightMap.axisExtent(rs, rightInner)
		if li != ri || (batched && c.LeftMap.axisExtent(ls, 3) != c.RightMap.axisExtent(rs, 3)) {
			return fmt.Errorf("tile %d: the operands' shards disagree on the inner or batch positions (%v and %v)", tile, li, ri)
		}
		if p.InnerPartitions == 1 {
			if _, ok := c.Result.shardOnTile(tile); !ok {
				return fmt.Errorf("tile %d computes a result block but holds no result shard", tile)
			}
		}
	}
	return nil
}

// tileDims reads the largest stored shard sizes from the shard maps.
func (c *PlanCheck) tileDims(p *GemmPlan) TileDims {
	left := c.LeftMap.MaxShardShape()
	right := c.RightMap.MaxShardShape()
	res := c.Result.MaxShardShape()
	n := len(left)
	d := TileDims{Batch: 1}
	if n == 3 {
		d.Batch = left[0]
	}
	if p.Orientation == Swapped {
		// Left is Bᵀ stored as B [.., k, n]; right is Aᵀ stored as A [.., m, k];
		// the result is C [.., m, n] with AMP rows along n.
		d.Rows, d.Inner, d.Cols = left[n-1], left[n-2], right[n-2]
		d.ResultRows, d.ResultCols = res[n-1], res[n-2]
	} else {
		d.Rows, d.Inner, d.Cols = left[n-2], left[n-1], right[n-1]
		d.ResultRows, d.ResultCols = res[n-2], res[n-1]
	}
	d.PieceRows, d.PieceCols = d.ResultRows, d.ResultCols
	return d
}
