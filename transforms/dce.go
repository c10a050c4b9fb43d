package transforms

import (
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/passes"
)

// DCE is the `dce` pass: it erases blocks that no path from their
// region's entry reaches, then ops that are pure and unused (last first,
// so that chains go in one sweep), then unused block arguments with the
// operands branches pass for them, in every region nested in the op it
// runs on. It does not look at symbols; symbol-dce does.
type DCE struct {
	NumOps    passes.Statistic `statistic:"num-erased-ops" help:"Number of dead operations erased"`
	NumBlocks passes.Statistic `statistic:"num-erased-blocks" help:"Number of unreachable blocks erased"`
}

func (*DCE) Name() string    { return "dce" }
func (*DCE) Summary() string { return "Erase unreachable blocks and unused pure operations" }
func (*DCE) Anchor() string  { return "" }

func (d *DCE) Run(op *ir.Operation, pc *passes.PassContext) error {
	count := &eraseCounter{}
	rw := ir.NewRewriter(pc.Context(), count)
	blocks := 0
	op.Walk(func(o *ir.Operation) ir.WalkResult {
		for _, r := range o.Regions() {
			blocks += r.NumBlocks()
		}
		return ir.WalkAdvance
	})
	if !passes.SimplifyRegions(rw, op.Regions(), passes.RegionSimplifyNormal) {
		pc.Analyses().PreserveAll()
		return nil
	}
	after := 0
	op.Walk(func(o *ir.Operation) ir.WalkResult {
		for _, r := range o.Regions() {
			after += r.NumBlocks()
		}
		return ir.WalkAdvance
	})
	d.NumBlocks.Add(uint64(blocks - after))
	d.NumOps.Add(uint64(count.erased))
	return nil
}

// eraseCounter is a listener counting erased ops.
type eraseCounter struct{ erased int }

func (c *eraseCounter) OpInserted(*ir.Operation)              {}
func (c *eraseCounter) OpErased(*ir.Operation)                { c.erased++ }
func (c *eraseCounter) OpModified(*ir.Operation)              {}
func (c *eraseCounter) OpReplaced(*ir.Operation, []*ir.Value) {}
