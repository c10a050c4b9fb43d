package passes

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"
)

// Timing collects the execution time report of --mlir-timing: a tree of
// named timers with wall time and user time (the sum over the goroutines
// that ran a timer, which exceeds wall time when passes ran in parallel).
// The tool times its own phases with Start ("Parser", "Output"); the pass
// manager adds one timer per pass and per nested pipeline.
type Timing struct {
	mu       sync.Mutex
	root     *timerNode
	start    time.Time
	threaded bool
}

type timerNode struct {
	name     string
	children []*timerNode
	index    map[string]*timerNode
	span
}

type span struct{ wall, user time.Duration }

// NewTiming starts the total time.
func NewTiming() *Timing {
	return &Timing{root: &timerNode{index: map[string]*timerNode{}}, start: time.Now()}
}

// child returns n's child timer called name, creating it in order of first use.
func (t *Timing) child(n *timerNode, name string) *timerNode {
	t.mu.Lock()
	defer t.mu.Unlock()
	if c, ok := n.index[name]; ok {
		return c
	}
	c := &timerNode{name: name, index: map[string]*timerNode{}}
	n.children = append(n.children, c)
	n.index[name] = c
	return c
}

// Timer measures one top-level phase of a tool.
type Timer struct {
	t     *Timing
	node  *timerNode
	start time.Time
}

// Start starts a top-level timer called name.
func (t *Timing) Start(name string) *Timer {
	return &Timer{t: t, node: t.child(t.root, name), start: time.Now()}
}

// Stop adds the time since Start.
func (tm *Timer) Stop() {
	d := time.Since(tm.start)
	tm.t.mu.Lock()
	tm.node.wall += d
	tm.node.user += d
	tm.t.mu.Unlock()
}

// timeAcc accumulates times of timer nodes within one task, without locks.
type timeAcc map[*timerNode]*span

func (a timeAcc) add(n *timerNode, d time.Duration) {
	s := a[n]
	if s == nil {
		s = &span{}
		a[n] = s
	}
	s.wall += d
	s.user += d
}

// addAll adds other into a: sequentially (wall times add) or as a
// parallel worker (wall time is the longest).
func (a timeAcc) addAll(other timeAcc, parallel bool) {
	for n, o := range other {
		s := a[n]
		if s == nil {
			s = &span{}
			a[n] = s
		}
		if parallel {
			s.wall = max(s.wall, o.wall)
		} else {
			s.wall += o.wall
		}
		s.user += o.user
	}
}

// commit adds accumulated times to the tree.
func (t *Timing) commit(a timeAcc) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for n, s := range a {
		n.wall += s.wall
		n.user += s.user
	}
}

// TimingDisplay selects the layout of the report.
type TimingDisplay int

const (
	// TimingTree nests timers as the pipeline nests (the default).
	TimingTree TimingDisplay = iota
	// TimingList merges timers of the same name and sorts them by time.
	TimingList
)

const reportRule = "===-------------------------------------------------------------------------==="

// writeReportHeader writes MLIR's three-line banner with a centred title.
func writeReportHeader(w io.Writer, title string) {
	fmt.Fprintf(w, "%s\n%s%s\n%s\n", reportRule, strings.Repeat(" ", (80-len(title))/2), title, reportRule)
}

// Report writes the execution time report as mlir-opt does. The user time
// column appears when passes could run in parallel.
func (t *Timing) Report(w io.Writer, display TimingDisplay) error {
	total := time.Since(t.start)
	t.mu.Lock()
	defer t.mu.Unlock()
	var rows []*timerNode
	switch display {
	case TimingList:
		merged := map[string]*timerNode{}
		var walk func(n *timerNode)
		walk = func(n *timerNode) {
			for _, c := range n.children {
				m := merged[c.name]
				if m == nil {
					m = &timerNode{name: c.name}
					merged[c.name] = m
					rows = append(rows, m)
				}
				m.wall += c.wall
				m.user += c.user
				walk(c)
			}
		}
		walk(t.root)
		sort.SliceStable(rows, func(i, j int) bool { return rows[i].wall > rows[j].wall })
	default:
		rows = t.root.children
	}
	var topWall, topUser time.Duration
	for _, c := range t.root.children {
		topWall += c.wall
		topUser += c.user
	}
	rest := span{wall: max(total-topWall, 0)}
	rest.user = rest.wall
	totalSpan := span{wall: total, user: topUser + rest.user}

	var b strings.Builder
	writeReportHeader(&b, "... Execution time report ...")
	fmt.Fprintf(&b, "  Total Execution Time: %.4f seconds\n\n", total.Seconds())
	if t.threaded {
		b.WriteString("  ----User Time----")
	}
	b.WriteString("  ----Wall Time----  ----Name----\n")
	line := func(s span, indent int, name string) {
		if t.threaded {
			fmt.Fprintf(&b, "  %8.4f (%5.1f%%)", s.user.Seconds(), percent(s.user, totalSpan.user))
		}
		fmt.Fprintf(&b, "  %8.4f (%5.1f%%)  %s%s\n", s.wall.Seconds(), percent(s.wall, totalSpan.wall), strings.Repeat("  ", indent), name)
	}
	var tree func(n *timerNode, indent int)
	tree = func(n *timerNode, indent int) {
		line(n.span, indent, n.name)
		if display == TimingTree {
			for _, c := range n.children {
				tree(c, indent+1)
			}
		}
	}
	for _, r := range rows {
		tree(r, 0)
	}
	line(rest, 0, "Rest")
	line(totalSpan, 0, "Total")
	_, err := io.WriteString(w, b.String())
	return err
}

func percent(part, whole time.Duration) float64 {
	if whole <= 0 {
		return 0
	}
	return 100 * float64(part) / float64(whole)
}
