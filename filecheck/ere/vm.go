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
}

// threadList is a sparse set of program counters, ordered by insertion.
type threadList struct {
	sparse []uint32
	dense  []thread
}

func newThreadList(n int) *threadList {
	return &threadList{sparse: make([]uint32, n), dense: make([]thread, 0, n)}
}

func (l *threadList) contains(pc int) bool {
	i := l.sparse[pc]
	return int(i) < len(l.dense) && l.dense[i].pc == pc
}

func (l *threadList) insert(t thread) {
	l.sparse[t.pc] = uint32(len(l.dense))
	l.dense = append(l.dense, t)
}

func (l *threadList) clear() { l.dense = l.dense[:0] }

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
}

func newMachine(p *program, newline bool, ncap int, withCaps bool) *machine {
	n := len(p.insts)
	return &machine{prog: p, newline: newline, clist: newThreadList(n), nlist: newThreadList(n),
		withCaps: withCaps, ncap: ncap}
}

// addThread follows the zero-width instructions from t at pos, adding the
// reachable byte-consuming and match states to l in priority order.
func (m *machine) addThread(l *threadList, t thread, pos int) {
	m.stack = append(m.stack[:0], t)
	for len(m.stack) > 0 {
		t := m.stack[len(m.stack)-1]
		m.stack = m.stack[:len(m.stack)-1]
		for {
			if l.contains(t.pc) {
				break
			}
			in := &m.prog.insts[t.pc]
			// Mark every visited state, including zero-width ones, so
			// loops over empty bodies terminate.
			l.insert(thread{pc: t.pc, start: -1})
			switch in.op {
			case opJump:
				t.pc = in.x
				continue
			case opSplit:
				m.stack = append(m.stack, thread{pc: in.y, start: t.start, caps: t.caps})
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
				if !assertionHolds(nodeKind(in.x), m.text, pos, m.newline) {
					break
				}
				t.pc++
				continue
			default:
				// A consuming or match state: replace the marker with
				// the live thread.
				l.dense[len(l.dense)-1] = t
			}
			break
		}
	}
}

// search returns the leftmost-longest match starting at or after from.
// With anchored set, only a match starting at from is considered. With
// endAt >= 0 the caller knows the match ends there and wants the captures of
// the highest-priority thread that ends exactly there.
func (m *machine) search(text []byte, from int, anchored bool, endAt int) (start, end int, caps []int) {
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
			continue
		}
		for _, t := range m.clist.dense {
			if t.start < 0 {
				continue // marker of a zero-width state
			}
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
			if t.start < 0 {
				continue
			}
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
