package transforms

import (
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/passes"
)

// Canonicalizer is the `canonicalize` pass: the greedy driver
// (passes.ApplyPatternsGreedily) with every registered op's folder and
// canonicalization patterns. Its options are MLIR's. `region-simplify`
// chooses what region simplification does at the end of each sweep:
// `disabled` nothing; `normal` erases unreachable blocks, dead ops, and
// unused block arguments with the operands branches pass for them;
// `aggressive` also merges identical blocks (same arguments and
// equivalent ops) into the first. `test-convergence` fails the pass,
// instead of warning, when the IR still changes after the last sweep.
type Canonicalizer struct {
	TopDown         bool                       `pass:"top-down" help:"Seed the worklist in general top-down order" default:"true"`
	RegionSimplify  passes.RegionSimplifyLevel `pass:"region-simplify" help:"Perform control flow optimizations to the region tree" default:"normal"`
	MaxIterations   int64                      `pass:"max-iterations" help:"Max. iterations between applying patterns / simplifying regions" default:"10"`
	MaxNumRewrites  int64                      `pass:"max-num-rewrites" help:"Max. number of pattern rewrites within an iteration" default:"-1"`
	TestConvergence bool                       `pass:"test-convergence" help:"Test only: Fail pass on non-convergence to detect cyclic pattern" default:"false"`
	DisablePatterns []string                   `pass:"disable-patterns" help:"Labels of patterns that should be filtered out during application"`
	EnablePatterns  []string                   `pass:"enable-patterns" help:"Labels of patterns that should be used during application, all other patterns are filtered out"`

	NumRewrites passes.Statistic `statistic:"num-rewrites" help:"Number of folds, pattern applications and dead ops erased"`
}

func (*Canonicalizer) Name() string    { return "canonicalize" }
func (*Canonicalizer) Summary() string { return "Canonicalize operations" }
func (*Canonicalizer) Anchor() string  { return "" }

// Run canonicalizes the ops nested in op. Not converging within
// max-iterations is a warning, or a failure with test-convergence.
func (c *Canonicalizer) Run(op *ir.Operation, pc *passes.PassContext) error {
	set := passes.CanonicalizationPatterns(pc.Context())
	if len(c.EnablePatterns) > 0 || len(c.DisablePatterns) > 0 {
		set = set.Filter(c.EnablePatterns, c.DisablePatterns)
	}
	cfg := passes.GreedyConfig{MaxIterations: int(c.MaxIterations), MaxNumRewrites: int(c.MaxNumRewrites),
		TopDown: c.TopDown, RegionSimplify: c.RegionSimplify}
	res, err := passes.ApplyPatternsGreedily(op, set, cfg)
	c.NumRewrites.Add(uint64(res.Rewrites))
	if err != nil {
		if c.TestConvergence {
			return err
		}
		d := ir.AsDiagnostic(err, op)
		d.Severity = ir.SeverityWarning
		pc.Emit(d)
	}
	return nil
}
