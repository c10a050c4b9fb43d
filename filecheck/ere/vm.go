package ere

// The Pike VM below gives leftmost-longest matches: threads are kept in the
// order of their start positions, a thread reaching a state first keeps it
// (it started earlier, or started together and has priority), and once a
// match is found no thread starting later survives.

// assertionHolds evaluates a zero-width assertion at pos in text. The text
// is the whole subject: its start is a line start, as for regexec without
// REG_NOTBOL.
func assertionHolds(kind nodeKind, text []byte, pos int, newline bool) bool {
	atStart := pos == 0
	atEnd := pos == len(text)
	bol := atStart || newline && text[pos-1] == '\n'
	eol := atEnd || newline && text[pos] == '\n'
	switch kind {
	case kindBOL:
		return bol
	case kindEOL:
		return eol
	case kindBOW:
		return (bol || !isWord(text[pos-1])) && !atEnd && isWord(text[pos])
	case kindEOW:
		return !atStart && isWord(text[pos-1]) && (eol && !bol || !atEnd && !isWord(text[pos]))
	}
	return false
}

type thread struct {
	pc    int
	start int
	caps  []int
	// crossed and phase order zero-width assertions at one position the
	// way Spencer's automaton steps through them: first ^ and $, at most
	// as many as the pattern contains of those that hold here (crossed
	// counts them), then at most one word boundary (phase 1).
	crossed int
	phase   int
}

// threadList is a sparse set of program counters, ordered by insertion.
// seen records the zero-width states visited, per phase, while the list
// is built for one position.
type threadList struct {
	sparse []uint32
	dense  []thread
	seen   sparseSet
}

// reset makes the list empty and able to hold n states with the given
// number of anchors, reusing its memory when it is large enough. Sparse
// arrays need no clearing: membership is checked against the dense part.
func (l *threadList) reset(n, anchors int) {
	if cap(l.sparse) < n {
		l.sparse = make([]uint32, n)
		l.dense = make([]thread, 0, n)
	}
	l.sparse = l.sparse[:n]
	l.dense = l.dense[:0]
	l.seen.reset(2 * n * (anchors + 1))
}

func (l *threadList) contains(pc int) bool {
	i := l.sparse[pc]
	return int(i) < len(l.dense) && l.dense[i].pc == pc
}

func (l *threadList) insert(t thread) {
	l.sparse[t.pc] = uint32(len(l.dense))
	l.dense = append(l.dense, t)
}

func (l *threadList) clear() {
	l.dense = l.dense[:0]
	l.seen.clear()
}

type sparseSet struct {
	sparse []uint32
	dense  []uint32
}

func (s *sparseSet) reset(n int) {
	if cap(s.sparse) < n {
		s.sparse = make([]uint32, n)
		s.dense = make([]uint32, 0, n)
	}
	s.sparse = s.sparse[:n]
	s.dense = s.dense[:0]
}

// add inserts x and reports whether it was new.
func (s *sparseSet) add(x int) bool {
	i := s.sparse[x]
	if int(i) < len(s.dense) && s.dense[i] == uint32(x) {
		return false
	}
	s.sparse[x] = uint32(len(s.dense))
	s.dense = append(s.dense, uint32(x))
	return true
}

func (s *sparseSet) clear() { s.dense = s.dense[:0] }

type machine struct {
	prog    *program
	newline bool
	text    []byte
	clist   *threadList
	nlist   *threadList
	stack   []thread
	// withCaps makes threads carry capture slots (ncap of them).
	withCaps bool
	ncap     int
	fast     [2]fastList
}

func (m *machine) reset(p *program, newline bool, ncap int, withCaps bool) {
	m.prog, m.newline, m.ncap, m.withCaps = p, newline, ncap, withCaps
	n, anchors := len(p.insts), p.nbol+p.neol
	m.clist.reset(n, anchors)
	m.nlist.reset(n, anchors)
}

// addThread follows the zero-width instructions from t at pos, adding the
// reachable byte-consuming and match states to l in priority order.
func (m *machine) addThread(l *threadList, t thread, pos int) {
	if m.prog.closures != nil && !m.withCaps {
		for _, pc := range m.prog.closures[t.pc] {
			if !l.contains(int(pc)) {
				l.insert(thread{pc: int(pc), start: t.start})
			}
		}
		return
	}
	anchors := m.prog.nbol + m.prog.neol
	limit := 0
	text := m.text
	if pos == 0 || m.newline && text[pos-1] == '\n' {
		limit += m.prog.nbol
	}
	if pos == len(text) || m.newline && text[pos] == '\n' {
		limit += m.prog.neol
	}
	t.crossed, t.phase = 0, 0
	m.stack = append(m.stack[:0], t)
	for len(m.stack) > 0 {
		t := m.stack[len(m.stack)-1]
		m.stack = m.stack[:len(m.stack)-1]
		for {
			in := &m.prog.insts[t.pc]
			if in.op == opByte || in.op == opMatch {
				if !l.contains(t.pc) {
					l.insert(t)
				}
				break
			}
			// Zero-width states are visited once per phase, which also
			// ends loops over empty bodies.
			if !l.seen.add((t.pc*(anchors+1)+t.crossed)*2 + t.phase) {
				break
			}
			switch in.op {
			case opJump:
				t.pc = in.x
				continue
			case opSplit:
				m.stack = append(m.stack, thread{pc: in.y, start: t.start, caps: t.caps, crossed: t.crossed, phase: t.phase})
				t.pc = in.x
				continue
			case opSave:
				if m.withCaps && in.x < m.ncap {
					caps := make([]int, len(t.caps))
					copy(caps, t.caps)
					caps[in.x] = pos
					t.caps = caps
				}
				t.pc++
				continue
			case opAssert:
				kind := nodeKind(in.x)
				if t.phase == 1 && !(m.prog.large && (kind == kindBOW || kind == kindEOW)) ||
					!assertionHolds(kind, m.text, pos, m.newline) {
					break
				}
				if kind == kindBOW || kind == kindEOW {
					t.phase = 1
				} else if m.prog.large {
					// The large automaton steps with its state set
					// aliased, so one step crosses any number.
					if limit == 0 {
						break
					}
				} else {
					if t.crossed >= limit {
						break
					}
					t.crossed++
				}
				t.pc++
				continue
			}
			break
		}
	}
}

// fastList is a thread list for searchFast: program counters and start
// positions in parallel arrays.
type fastList struct {
	sparse []uint32
	pcs    []int32
	starts []int
}

func (l *fastList) reset(n int) {
	if cap(l.sparse) < n {
		l.sparse = make([]uint32, n)
		l.pcs = make([]int32, 0, n)
		l.starts = make([]int, 0, n)
	}
	l.sparse = l.sparse[:n]
	l.pcs = l.pcs[:0]
	l.starts = l.starts[:0]
}

// add inserts the closure of pc for a thread started at start.
func (l *fastList) add(closure []int32, start int) {
	for _, pc := range closure {
		i := l.sparse[pc]
		if int(i) < len(l.pcs) && l.pcs[i] == pc {
			continue
		}
		l.sparse[pc] = uint32(len(l.pcs))
		l.pcs = append(l.pcs, pc)
		l.starts = append(l.starts, start)
	}
}

// searchFast is search for the common case: no assertions (so closures
// are precomputed), no captures, unanchored.
func (m *machine) searchFast(text []byte, from int) (start, end int) {
	p := m.prog
	clist, nlist := &m.fast[0], &m.fast[1]
	clist.reset(len(p.insts))
	nlist.reset(len(p.insts))
	start, end = -1, -1
	for pos := from; pos <= len(text); pos++ {
		if start < 0 {
			if len(clist.pcs) == 0 && !p.nullable {
				for pos < len(text) && !p.firstBytes.has(text[pos]) {
					pos++
				}
				if pos == len(text) {
					break
				}
			}
			clist.add(p.closures[0], pos)
		} else if len(clist.pcs) == 0 {
			break
		}
		for i, pc := range clist.pcs {
			ts := clist.starts[i]
			if start >= 0 && ts > start {
				continue
			}
			in := &p.insts[pc]
			if in.op == opMatch {
				if start < 0 || ts < start || ts == start && pos > end {
					start, end = ts, pos
				}
				continue
			}
			if pos < len(text) && in.set.has(text[pos]) {
				nlist.add(p.closures[pc+1], ts)
			}
		}
		clist, nlist = nlist, clist
		nlist.pcs = nlist.pcs[:0]
		nlist.starts = nlist.starts[:0]
	}
	return start, end
}

// search returns the leftmost-longest match starting at or after from.
// With anchored set, only a match starting at from is considered. With
// endAt >= 0 the caller knows the match ends there and wants the captures of
// the highest-priority thread that ends exactly there.
func (m *machine) search(text []byte, from int, anchored bool, endAt int) (start, end int, caps []int) {
	if m.prog.closures != nil && !m.withCaps && !anchored && endAt < 0 {
		start, end = m.searchFast(text, from)
		return start, end, nil
	}
	m.text = text
	m.clist.clear()
	m.nlist.clear()
	start, end = -1, -1
	var seedCaps []int
	if m.withCaps {
		seedCaps = make([]int, m.ncap)
		for i := range seedCaps {
			seedCaps[i] = -1
		}
	}
	p := m.prog
	for pos := from; pos <= len(text); pos++ {
		if start < 0 && (!anchored || pos == from) {
			if len(m.clist.dense) == 0 && !anchored && !p.nullable {
				// Nothing is running: jump to the next byte that can
				// begin a match.
				for pos < len(text) && !p.firstBytes.has(text[pos]) {
					pos++
				}
				if pos == len(text) {
					break
				}
			}
			m.addThread(m.clist, thread{pc: 0, start: pos, caps: seedCaps}, pos)
		}
		if len(m.clist.dense) == 0 {
			if start >= 0 || anchored {
				break
			}
			m.clist.clear()
			continue
		}
		for _, t := range m.clist.dense {
			if start >= 0 && t.start > start {
				continue
			}
			in := &p.insts[t.pc]
			switch in.op {
			case opMatch:
				if endAt >= 0 {
					if pos == endAt && caps == nil {
						start, end, caps = t.start, pos, t.caps
					}
					continue
				}
				if start < 0 || t.start < start || (t.start == start && pos > end) {
					start, end, caps = t.start, pos, t.caps
				}
			case opByte:
				if pos < len(text) && in.set.has(text[pos]) {
					m.addThread(m.nlist, thread{pc: t.pc + 1, start: t.start, caps: t.caps}, pos+1)
				}
			}
		}
		m.clist, m.nlist = m.nlist, m.clist
		m.nlist.clear()
		if endAt >= 0 && pos >= endAt {
			break
		}
	}
	return start, end, caps
}

// matchEnds returns every end position of a match starting exactly at from,
// in increasing order.
func (m *machine) matchEnds(text []byte, from int) []int {
	m.text = text
	m.clist.clear()
	m.nlist.clear()
	var ends []int
	m.addThread(m.clist, thread{pc: 0, start: from}, from)
	for pos := from; pos <= len(text) && len(m.clist.dense) > 0; pos++ {
		for _, t := range m.clist.dense {
			in := &m.prog.insts[t.pc]
			switch in.op {
			case opMatch:
				if len(ends) == 0 || ends[len(ends)-1] != pos {
					ends = append(ends, pos)
				}
			case opByte:
				if pos < len(text) && in.set.has(text[pos]) {
					m.addThread(m.nlist, thread{pc: t.pc + 1, start: t.start}, pos+1)
				}
			}
		}
		m.clist, m.nlist = m.nlist, m.clist
		m.nlist.clear()
	}
	return ends
}
