package plan

import (
	"slices"

	"github.com/ipuir/ipuir/layout"
	"github.com/ipuir/ipuir/numeric"
	"github.com/ipuir/ipuir/target"
)

// The candidate space. Partition counts are enumerated per axis as one
// representative per distinct per-tile size: for an axis of n blocks, the
// smallest count p giving each value of ⌈n/p⌉. A larger count with the same
// per-tile size does the same work on each tile and only occupies more tiles,
// so it is never cheaper — except that its layout might match an operand's
// existing one, which is why the counts of available layouts are added.
// Output column blocks are the AMP column group and its doubles (16, 32,
// 64 for f16). Weight placement is interleaved and direct, standard and
// direct, or standard and staged into interleaved memory. Pinned fields
// replace their sets by the pinned value, whatever it is, so that a pinned
// plan is always costed and verified, and reported infeasible if it is.

// representatives returns, for an axis of n blocks and at most limit
// partitions, the smallest partition count of each distinct ⌈n/p⌉.
func representatives(n, limit int64) []int64 {
	var out []int64
	for p := int64(1); p <= min(n, limit); {
		out = append(out, p)
		v := numeric.CeilDiv(n, p)
		if v == 1 {
			break
		}
		p = numeric.CeilDiv(n, v-1)
	}
	return out
}

// withExtra adds the values of extra that are in [1, limit] to a sorted set.
func withExtra(set []int64, extra []int64, limit int64) []int64 {
	for _, v := range extra {
		if v >= 1 && v <= limit && !slices.Contains(set, v) {
			set = append(set, v)
		}
	}
	slices.Sort(set)
	return set
}

// pinnedOr returns {pinned value} when the constraint pins the field, else
// the given set.
func pinnedOr(c *layout.GemmConstraint, field string, set []int64) []int64 {
	if c != nil {
		if v, ok := c.PinnedInt(field); ok {
			return []int64{v}
		}
	}
	return set
}

// weightChoice is one placement of the AMP's right operand.
type weightChoice struct {
	class   string
	staging layout.WeightStaging
}

func weightChoices(t *target.Target, c *layout.GemmConstraint) []weightChoice {
	var out []weightChoice
	interleaved, errI := t.Class(target.Interleaved)
	standard, errS := t.Class(target.Standard)
	if errI == nil {
		out = append(out, weightChoice{interleaved.Name, layout.Direct})
	}
	if errS == nil {
		out = append(out, weightChoice{standard.Name, layout.Direct}, weightChoice{standard.Name, layout.Staged})
	}
	if c == nil {
		return out
	}
	var kept []weightChoice
	for _, w := range out {
		if (!c.IsPinned("weight_memory_class") || c.Values.WeightMemoryClass == w.class) &&
			(!c.IsPinned("local_weight_staging") || c.Values.LocalWeightStaging == w.staging) {
			kept = append(kept, w)
		}
	}
	if len(kept) == 0 {
		// A pinned combination outside the usual three (say interleaved and
		// staged): cost it as pinned.
		w := weightChoice{class: standard.Name, staging: layout.Direct}
		if c.IsPinned("weight_memory_class") {
			w.class = c.Values.WeightMemoryClass
		}
		if c.IsPinned("local_weight_staging") {
			w.staging = c.Values.LocalWeightStaging
		}
		kept = append(kept, w)
	}
	return kept
}

// resultPieces lists (result_row_partitions, result_column_partitions)
// pairs for a cell with kp inner partitions: one owner (1, 1), and for each
// distinct ⌊kp/rr⌋ the split rr × ⌊kp/rr⌋, clamped to what the rows and
// column blocks of a cell allow.
func resultPieces(kp, cellRows, cellColBlocks int64, c *layout.GemmConstraint) [][2]int64 {
	if kp == 1 {
		return [][2]int64{{pinnedOr(c, "result_row_partitions", []int64{1})[0], pinnedOr(c, "result_column_partitions", []int64{1})[0]}}
	}
	seen := map[[2]int64]bool{}
	var out [][2]int64
	add := func(rr, rc int64) {
		if !seen[[2]int64{rr, rc}] {
			seen[[2]int64{rr, rc}] = true
			out = append(out, [2]int64{rr, rc})
		}
	}
	add(1, 1)
	for _, rr := range representatives(kp, min(kp, cellRows)) {
		rc := max(1, min(kp/rr, cellColBlocks))
		add(rr, rc)
		add(min(rr*rc, cellRows), 1)
	}
	if c == nil || (!c.IsPinned("result_row_partitions") && !c.IsPinned("result_column_partitions")) {
		return out
	}
	var kept [][2]int64
	for _, pc := range out {
		if (!c.IsPinned("result_row_partitions") || c.Values.ResultRowPartitions == pc[0]) &&
			(!c.IsPinned("result_column_partitions") || c.Values.ResultColumnPartitions == pc[1]) {
			kept = append(kept, pc)
		}
	}
	if len(kept) == 0 {
		rr, rc := int64(1), int64(1)
		if v, ok := c.PinnedInt("result_row_partitions"); ok {
			rr = v
		}
		if v, ok := c.PinnedInt("result_column_partitions"); ok {
			rc = v
		}
		kept = append(kept, [2]int64{rr, rc})
	}
	return kept
}

// partitionsOf collects the partition counts of available layouts, which
// candidate sets include so that a plan can match an operand's layout.
func partitionsOf(layouts ...[]*layout.Layout) []int64 {
	var out []int64
	for _, ls := range layouts {
		for _, l := range ls {
			for _, a := range l.Tiling.Axes {
				out = append(out, a.Partitions)
			}
			out = append(out, l.Tiling.Replicas)
		}
	}
	return out
}
