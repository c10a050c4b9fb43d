package passes

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ipuir/ipuir/ir"
)

// GreedyConfig configures ApplyPatternsGreedily. Start from
// DefaultGreedyConfig: the zero value allows no iteration at all.
type GreedyConfig struct {
	// MaxIterations bounds the sweeps over the IR; -1 for no limit.
	MaxIterations int
	// MaxNumRewrites bounds the pattern applications within one sweep; -1
	// for no limit.
	MaxNumRewrites int
	// TopDown visits ops parents first and in order; otherwise children
	// first (post-order), from the end of the list.
	TopDown bool
	// RegionSimplify cleans up the regions after each sweep.
	RegionSimplify RegionSimplifyLevel
	// Listener, when set, also hears of every change.
	Listener ir.Listener
}

// DefaultGreedyConfig is canonicalize's default configuration.
func DefaultGreedyConfig() GreedyConfig {
	return GreedyConfig{MaxIterations: 10, MaxNumRewrites: -1, TopDown: true, RegionSimplify: RegionSimplifyNormal}
}

// GreedyResult says what ApplyPatternsGreedily did.
type GreedyResult struct {
	// Changed is true when the IR changed.
	Changed bool
	// Converged is true when the last sweep changed nothing.
	Converged bool
	// Iterations is the number of sweeps made.
	Iterations int
	// Rewrites counts pattern applications, folds and erasures of dead ops.
	Rewrites int
}

// ApplyPatternsGreedily rewrites the ops inside op's regions (not op
// itself) until nothing changes, in the manner of MLIR's greedy driver:
// each sweep puts every op on a worklist (constants are merged and hoisted
// first, see operationFolder) and takes ops off it one at a time; an op
// that is pure and unused is erased, else the op's folder is tried with
// the constant values of its operands (constant results are materialized
// through the dialect's MaterializeConstant; commutative ops get their
// constant operands moved last), else its patterns by decreasing benefit.
// Ops a change touches go back on the worklist. A sweep is followed by
// region simplification. When MaxIterations sweeps still change the IR the
// result is not converged and the error, an *ir.Diagnostic at op, names
// the patterns and folders that kept firing in the last sweep.
func ApplyPatternsGreedily(op *ir.Operation, patterns *PatternSet, cfg GreedyConfig) (GreedyResult, error) {
	ctx := op.Context()
	d := &greedyDriver{ctx: ctx, root: op, patterns: patterns, cfg: cfg}
	d.rw = ir.NewRewriter(ctx, d)
	var res GreedyResult
	changed := true
	for changed {
		if cfg.MaxIterations != -1 && res.Iterations >= cfg.MaxIterations {
			break
		}
		res.Iterations++
		d.fired = map[string]int{}
		d.folded = map[string]int{}
		d.changed = false
		d.folder = newOperationFolder(ctx, d.rw)
		d.populate()
		d.processWorklist()
		if cfg.RegionSimplify != RegionSimplifyDisabled && SimplifyRegions(d.rw, op.Regions(), cfg.RegionSimplify) {
			d.changed = true
			d.fired["(region simplification)"]++
		}
		changed = d.changed
		res.Changed = res.Changed || changed || d.folder.moved
		res.Rewrites += d.rewrites
		d.rewrites = 0
	}
	res.Converged = !changed
	if !res.Converged {
		for name, n := range d.folded {
			d.fired["(fold) "+name] += n
		}
		return res, op.EmitError("greedy pattern rewrite did not converge after %d iterations; still firing: %s",
			res.Iterations, describeFired(d.fired))
	}
	return res, nil
}

// describeFired lists what fired, most often first.
func describeFired(fired map[string]int) string {
	names := make([]string, 0, len(fired))
	for n := range fired {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if fired[names[i]] != fired[names[j]] {
			return fired[names[i]] > fired[names[j]]
		}
		return names[i] < names[j]
	})
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s (%d)", n, fired[n])
	}
	return strings.Join(parts, ", ")
}

type greedyDriver struct {
	ctx      *ir.Context
	root     *ir.Operation
	patterns *PatternSet
	cfg      GreedyConfig
	rw       *ir.Rewriter
	folder   *operationFolder

	// worklist is a stack of ops to visit. An op may be listed more than
	// once (visiting it again finds nothing to do), and an erased op is
	// recognised by being no longer inside root and skipped: this spares
	// the map from op to slot that deduplication would need, the main cost
	// of a sweep over a million ops.
	worklist []*ir.Operation

	changed  bool
	rewrites int
	// fired counts what changed the IR in the current sweep, for the
	// non-convergence report: patterns by name, folds by op name.
	fired  map[string]int
	folded map[string]int
	// scratch holds the constant operands handed to a folder.
	scratch []ir.Attribute
}

func (d *greedyDriver) push(op *ir.Operation) {
	if op == nil || op == d.root {
		return
	}
	// Skip an op listed last already: a pattern that touches an op
	// several times lists it once.
	if n := len(d.worklist); n > 0 && d.worklist[n-1] == op {
		return
	}
	d.worklist = append(d.worklist, op)
}

func (d *greedyDriver) pop() *ir.Operation {
	for len(d.worklist) > 0 {
		op := d.worklist[len(d.worklist)-1]
		d.worklist = d.worklist[:len(d.worklist)-1]
		if op.Block() != nil && d.root.IsAncestor(op) {
			return op
		}
	}
	return nil
}

// populate fills the worklist for a sweep.
func (d *greedyDriver) populate() {
	clear(d.worklist)
	d.worklist = d.worklist[:0]
	visit := func(o *ir.Operation) ir.WalkResult {
		if constantValue(o) != nil && !d.folder.insertKnownConstant(o) {
			d.changed = true
			return ir.WalkSkip
		}
		d.push(o)
		return ir.WalkAdvance
	}
	for _, r := range d.root.Regions() {
		for _, b := range r.Blocks() {
			for o := b.First(); o != nil; {
				next := o.Next()
				if d.cfg.TopDown {
					o.Walk(visit)
				} else {
					o.WalkPost(func(x *ir.Operation) ir.WalkResult { visit(x); return ir.WalkAdvance })
				}
				o = next
			}
		}
	}
	if d.cfg.TopDown {
		slices.Reverse(d.worklist)
	}
}

// sweepBudget bounds the work of one sweep when MaxNumRewrites does not:
// patterns that undo each other, or one that keeps changing an op in
// place, would otherwise cycle within a sweep forever. Ending the sweep
// early leaves the decision to MaxIterations and its report.
func sweepBudget(ops int) int { return max(16*ops, 1<<14) }

func (d *greedyDriver) processWorklist() {
	rewrites := 0
	budget := sweepBudget(len(d.worklist))
	for d.cfg.MaxNumRewrites < 0 || rewrites < d.cfg.MaxNumRewrites {
		if d.rewrites >= budget {
			d.changed = true
			return
		}
		op := d.pop()
		if op == nil {
			return
		}
		if ir.IsTriviallyDead(op) {
			d.rw.EraseOp(op)
			d.note("(erase dead op)")
			continue
		}
		if d.tryFold(op) {
			continue
		}
		for _, p := range d.patterns.forOp(op.Name()) {
			// As in MLIR, ops a pattern creates go right before the op
			// it matched unless the pattern says otherwise.
			d.rw.SetInsertionPoint(op)
			if p.MatchAndRewrite(op, d.rw) {
				rewrites++
				d.note(p.Name())
				break
			}
		}
	}
}

func (d *greedyDriver) note(what string) {
	d.changed = true
	d.rewrites++
	d.fired[what]++
}

func (d *greedyDriver) noteFold(op *ir.Operation) {
	d.changed = true
	d.rewrites++
	d.folded[op.Name()]++
}

// tryFold folds op: into existing values or constants that replace it, or
// in place.
func (d *greedyDriver) tryFold(op *ir.Operation) bool {
	def := op.Def()
	if def == nil || op.HasTrait(ir.TraitConstantLike) {
		return false
	}
	// Folders must not keep the operand slice: it is reused.
	operands := d.scratch[:0]
	for i := 0; i < op.NumOperands(); i++ {
		operands = append(operands, constantValue(op.Operand(i).DefiningOp()))
	}
	d.scratch = operands
	if def.Fold != nil {
		results, ok := def.Fold(op, operands)
		if ok && len(results) == 0 {
			d.rw.ModifyInPlace(op, func() {})
			d.noteFold(op)
			return true
		}
		if ok && len(results) == op.NumResults() && d.replaceWithFolded(op, results) {
			d.noteFold(op)
			return true
		}
	}
	if op.HasTrait(ir.TraitCommutative) && moveConstantsLast(op, operands) {
		d.rw.ModifyInPlace(op, func() {})
		d.noteFold(op)
		return true
	}
	return false
}

// replaceWithFolded replaces op by its fold results, materializing
// constants before op. It fails, leaving the IR as it was, when a
// constant cannot be materialized or the fold gave op's own results.
func (d *greedyDriver) replaceWithFolded(op *ir.Operation, results []ir.FoldResult) bool {
	self := true
	for i, r := range results {
		if r.Value != op.Result(i) {
			self = false
		}
	}
	if self {
		return false
	}
	var created []*ir.Operation
	vals := make([]*ir.Value, len(results))
	for i, r := range results {
		if r.Value != nil {
			vals[i] = r.Value
			continue
		}
		var c *ir.Operation
		if mat := op.Def().Dialect().MaterializeConstant; mat != nil && r.Attr != nil {
			d.rw.SetInsertionPoint(op)
			c = mat(&d.rw.Builder, r.Attr, op.Result(i).Type(), op.Loc())
		}
		if c == nil {
			for _, x := range created {
				d.rw.EraseOp(x)
			}
			return false
		}
		created = append(created, c)
		vals[i] = c.Result(0)
	}
	d.rw.ReplaceOp(op, vals)
	return true
}

// moveConstantsLast moves the constant operands of a commutative op after
// the others, keeping their relative order; it reports a change.
func moveConstantsLast(op *ir.Operation, consts []ir.Attribute) bool {
	if op.NumOperands() < 2 {
		return false
	}
	vals := op.Operands()
	var nonConst, isConst []*ir.Value
	for i, v := range vals {
		if consts[i] != nil {
			isConst = append(isConst, v)
		} else {
			nonConst = append(nonConst, v)
		}
	}
	reordered := append(nonConst, isConst...)
	for i := range vals {
		if vals[i] != reordered[i] {
			op.SetOperands(reordered)
			return true
		}
	}
	return false
}

// ---- ir.Listener: keep the worklist current ----

func (d *greedyDriver) OpInserted(op *ir.Operation) {
	d.push(op)
	if d.cfg.Listener != nil {
		d.cfg.Listener.OpInserted(op)
	}
}

func (d *greedyDriver) OpModified(op *ir.Operation) {
	d.push(op)
	if d.cfg.Listener != nil {
		d.cfg.Listener.OpModified(op)
	}
}

func (d *greedyDriver) OpReplaced(op *ir.Operation, with []*ir.Value) {
	if d.cfg.Listener != nil {
		d.cfg.Listener.OpReplaced(op, with)
	}
}

// OpErased queues the definers of op's operands that are left with at
// most one other user: they may now be dead or simpler. (op itself leaves
// the worklist when popped: it has no block.) An operand whose reference
// was dropped (as when a group of unreachable blocks is erased) is nil and
// has no definer to revisit.
func (d *greedyDriver) OpErased(op *ir.Operation) {
	if d.folder != nil {
		d.folder.notifyRemoval(op)
	}
	for i := 0; i < op.NumOperands(); i++ {
		v := op.Operand(i)
		if v == nil {
			continue
		}
		def := v.DefiningOp()
		if def == nil {
			continue
		}
		var other *ir.Operation
		many := false
		v.UsesWhile(func(u *ir.OpOperand) bool {
			user := u.Owner()
			if user == op || user == other {
				return true
			}
			if other == nil {
				other = user
				return true
			}
			many = true
			return false
		})
		if !many {
			d.push(def)
		}
	}
	if d.cfg.Listener != nil {
		d.cfg.Listener.OpErased(op)
	}
}
