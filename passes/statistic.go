package passes

import "sync/atomic"

// Statistic is a counter a pass declares as a tagged field:
//
//	NumErased Statistic `statistic:"num-erased" help:"Number of ops erased"`
//
// It is atomic because one pass value runs on many ops in parallel; the
// counts of all those runs add up, as MLIR merges per-thread statistics.
// --mlir-pass-statistics reports them.
type Statistic struct{ n atomic.Uint64 }

// Add adds d to the counter.
func (s *Statistic) Add(d uint64) { s.n.Add(d) }

// Inc adds one.
func (s *Statistic) Inc() { s.n.Add(1) }

// Value is the current count.
func (s *Statistic) Value() uint64 { return s.n.Load() }

// StatisticInfo describes one statistic of a pass.
type StatisticInfo struct {
	Name, Help string
	field      int
}
