package plan

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/ipuir/ipuir/dialects/tiled"
	"github.com/ipuir/ipuir/target"
)

// Memo remembers what searching one matmul's plans found, keyed by
// everything the search reads: the target, the shape, the constraint and
// cuts, the tile memory left to it, where each operand is available and
// how many siblings share one. A stack of identical layers asks the same
// questions layer after layer (and plan-gemms asks them again in each of
// its plannings), so each is answered once. A hit gives exactly what the
// search would: the same finalists in the same order, with the same counts.
// A Memo is safe for concurrent use; its size is bounded by the distinct
// questions, a few per distinct matmul.
type Memo struct {
	mu         sync.Mutex
	searches   map[string]*search
	bestCosts  map[string]bestCostResult
	hits, runs int
	// off makes every search run (the tests' baseline).
	off bool
}

// NewMemo returns an empty memo.
func NewMemo() *Memo {
	return &Memo{searches: map[string]*search{}, bestCosts: map[string]bestCostResult{}}
}

// Stats returns how many searches were answered from the memo and how many
// were run.
func (m *Memo) Stats() (hits, runs int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.hits, m.runs
}

// search is the state a selector's enumeration and rescoring leave.
type search struct {
	best                  []finalist
	costed, pruned, unfit int
	firstReject           string
	smallestUnfit         *tiled.Estimate
}

type bestCostResult struct {
	cycles int64
	ok     bool
}

// searchKey is the text of everything enumerate and rescore read of s.
func (s *selector) searchKey() string {
	var b strings.Builder
	pr := s.pr
	fmt.Fprintf(&b, "%p|%v|%d|%d|", pr.t, pr.s, s.opts.Finalists, pr.reserved)
	kinds := make([]target.MemoryKind, 0, len(pr.capacity))
	for k := range pr.capacity {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		fmt.Fprintf(&b, "%v=%d,", k, pr.capacity[k])
	}
	writeOperandKey(&b, &pr.lhs)
	writeOperandKey(&b, &pr.rhs)
	if c := s.m.Constraint; c != nil {
		b.WriteString(c.String())
	}
	fmt.Fprintf(&b, "|%v|%d|%d|", s.m.NCuts, s.siblings, pr.inputWords)
	switch s.shared {
	case nil:
		b.WriteString("-")
	case &pr.lhs:
		b.WriteString("L")
	default:
		b.WriteString("R")
	}
	return b.String()
}

func writeOperandKey(b *strings.Builder, o *operandState) {
	fmt.Fprintf(b, "|%t,%t,%t,", o.resident, o.streamed, o.free)
	for _, l := range o.available {
		fmt.Fprintf(b, "%v;", *l)
	}
}

// recall restores s from the memo; false when it has no answer.
func (s *selector) recall(key string) bool {
	m := s.opts.Memo
	if m == nil {
		return false
	}
	m.mu.Lock()
	if m.off {
		m.runs++
		m.mu.Unlock()
		return false
	}
	defer m.mu.Unlock()
	r, ok := m.searches[key]
	if !ok {
		m.runs++
		return false
	}
	m.hits++
	s.best = slices.Clone(r.best)
	s.costed, s.pruned, s.unfit, s.firstReject = r.costed, r.pruned, r.unfit, r.firstReject
	if r.smallestUnfit != nil {
		u := *r.smallestUnfit
		s.smallestUnfit = &u
	}
	return true
}

// remember stores what s's search found.
func (s *selector) remember(key string) {
	m := s.opts.Memo
	if m == nil {
		return
	}
	r := &search{best: slices.Clone(s.best), costed: s.costed, pruned: s.pruned, unfit: s.unfit, firstReject: s.firstReject}
	if s.smallestUnfit != nil {
		u := *s.smallestUnfit
		r.smallestUnfit = &u
	}
	m.mu.Lock()
	m.searches[key] = r
	m.mu.Unlock()
}
