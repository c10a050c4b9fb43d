package ere

import "fmt"

// Back-references cannot be matched by an automaton. As in Spencer's engine,
// the superset program (each \n replaced by a copy of group n) proposes a
// start and its possible ends, longest first, and a backtracking matcher over
// the syntax tree decides whether the real expression matches exactly that
// span. The first start with a confirmed end wins: leftmost, then longest.

// backtrackBudget bounds the backtracking work of one search; a
// pathological expression then fails with ErrTooComplex rather than run
// for ever (or, worse, report no match where there may be one).
const backtrackBudget = 1 << 22

// ErrTooComplex is the error of a search that ran out of its budget.
var ErrTooComplex = fmt.Errorf("the expression needs more than %d backtracking steps to match; simplify it", backtrackBudget)

type backtracker struct {
	text    []byte
	newline bool
	caps    []int
	steps   *int
}

func (re *Regexp) findWithBackrefs(text []byte) ([]int, error) {
	m := re.machine(false)
	defer re.release(m)
	steps := 0
	for from := 0; from <= len(text); {
		if steps > backtrackBudget {
			return nil, ErrTooComplex
		}
		start, _, _ := m.search(text, from, false, -1)
		if start < 0 {
			return nil, nil
		}
		ends := m.matchEnds(text, start)
		for i := len(ends) - 1; i >= 0; i-- {
			b := &backtracker{text: text, newline: re.flags&Newline != 0, caps: make([]int, 2*(re.nsub+1)), steps: &steps}
			for j := range b.caps {
				b.caps[j] = -1
			}
			end := ends[i]
			if b.match(re.ast, start, func(pos int) bool { return pos == end }) {
				b.caps[0], b.caps[1] = start, end
				return b.caps, nil
			}
			if steps > backtrackBudget {
				return nil, ErrTooComplex
			}
		}
		from = start + 1
	}
	return nil, nil
}

// match tries n at pos and calls k with each end position, in priority
// order, until k accepts one.
func (b *backtracker) match(n *node, pos int, k func(int) bool) bool {
	*b.steps++
	if *b.steps > backtrackBudget {
		return false
	}
	switch n.kind {
	case kindSet:
		if pos < len(b.text) && n.set.has(b.text[pos]) {
			return k(pos + 1)
		}
		return false
	case kindEmpty:
		return k(pos)
	case kindBOL, kindEOL, kindBOW, kindEOW:
		if assertionHolds(n.kind, b.text, pos, b.newline) {
			return k(pos)
		}
		return false
	case kindCapture:
		i := 2 * n.index
		oldStart, oldEnd := b.caps[i], b.caps[i+1]
		b.caps[i] = pos
		ok := b.match(n.subs[0], pos, func(end int) bool {
			saved := b.caps[i+1]
			b.caps[i+1] = end
			if k(end) {
				return true
			}
			b.caps[i+1] = saved
			return false
		})
		if !ok {
			b.caps[i], b.caps[i+1] = oldStart, oldEnd
		}
		return ok
	case kindConcat:
		return b.matchSeq(n.subs, pos, k)
	case kindAlternate:
		for _, s := range n.subs {
			if b.match(s, pos, k) {
				return true
			}
		}
		return false
	case kindRepeat:
		return b.matchRepeat(n, 0, pos, k)
	case kindBackref:
		i := 2 * n.index
		s, e := b.caps[i], b.caps[i+1]
		if s < 0 || e < 0 {
			return false
		}
		// Spencer compares the bytes exactly, even under REG_ICASE.
		l := e - s
		if pos+l > len(b.text) || string(b.text[pos:pos+l]) != string(b.text[s:e]) {
			return false
		}
		return k(pos + l)
	}
	return false
}

func (b *backtracker) matchSeq(subs []*node, pos int, k func(int) bool) bool {
	if len(subs) == 0 {
		return k(pos)
	}
	return b.match(subs[0], pos, func(next int) bool {
		return b.matchSeq(subs[1:], next, k)
	})
}

// matchRepeat matches further iterations greedily. Once the minimum is met,
// an iteration must consume input, which keeps empty loops finite.
func (b *backtracker) matchRepeat(n *node, count, pos int, k func(int) bool) bool {
	if n.max < 0 || count < n.max {
		if b.match(n.subs[0], pos, func(next int) bool {
			if next == pos && count >= n.min {
				return false
			}
			return b.matchRepeat(n, count+1, next, k)
		}) {
			return true
		}
	}
	return count >= n.min && k(pos)
}
