package ere

import "unsafe"

type opcode uint8

const (
	opByte   opcode = iota // consume one byte in set
	opSplit                // continue at x, then (lower priority) at y
	opJump                 // continue at x
	opSave                 // record the position in capture slot x
	opAssert               // zero-width test of kind x
	opMatch
)

type inst struct {
	op   opcode
	x, y int
	set  *byteSet
}

// maxProgram bounds the size of an expanded program. Spencer would expand
// nested counted repetitions without limit; no real pattern comes close, and
// the bound keeps hostile patterns from exhausting memory.
const maxProgram = 200000

type program struct {
	insts []inst
	// nullable is true when the program can match the empty string, so a
	// search cannot skip ahead to a byte of firstBytes.
	nullable   bool
	firstBytes byteSet
	// nbol and neol are the numbers of ^ and $ in the pattern.
	nbol, neol int
	// large is set when Spencer's engine would use its large-state
	// automaton, which crosses any number of assertions at a position.
	large bool
	// closures lists, for programs without assertions, the consuming
	// states reachable from each state through jumps, splits and saves,
	// in priority order: the Pike VM's closure without a stack.
	closures [][]int32
}

type compiler struct {
	insts []inst
	// expandBackrefs replaces each back-reference by a copy of its group,
	// which yields the superset program Spencer's engine also uses to find
	// candidate matches.
	groups   map[int]*node
	overflow bool
}

func compile(n *node, groups map[int]*node) (*program, bool) {
	c := &compiler{groups: groups}
	c.emit(n)
	c.add(inst{op: opMatch})
	if c.overflow {
		return nil, false
	}
	p := &program{insts: c.insts}
	p.closures = closures(p.insts)
	p.nullable = nullable(n, groups, 0)
	if !p.nullable {
		firstBytes(n, groups, &p.firstBytes, 0)
	}
	return p, true
}

func (c *compiler) add(i inst) int {
	if len(c.insts) >= maxProgram {
		c.overflow = true
		return len(c.insts)
	}
	c.insts = append(c.insts, i)
	return len(c.insts) - 1
}

func (c *compiler) emit(n *node) {
	if c.overflow {
		return
	}
	switch n.kind {
	case kindSet:
		c.add(inst{op: opByte, set: n.set})
	case kindEmpty:
	case kindBOL, kindEOL, kindBOW, kindEOW:
		c.add(inst{op: opAssert, x: int(n.kind)})
	case kindCapture:
		c.add(inst{op: opSave, x: 2 * n.index})
		c.emit(n.subs[0])
		c.add(inst{op: opSave, x: 2*n.index + 1})
	case kindConcat:
		for _, s := range n.subs {
			c.emit(s)
		}
	case kindAlternate:
		var jumps []int
		for i, s := range n.subs {
			if i == len(n.subs)-1 {
				c.emit(s)
				break
			}
			split := c.add(inst{op: opSplit})
			c.setX(split, len(c.insts))
			c.emit(s)
			jumps = append(jumps, c.add(inst{op: opJump}))
			c.setY(split, len(c.insts))
		}
		for _, j := range jumps {
			c.setX(j, len(c.insts))
		}
	case kindRepeat:
		c.emitRepeat(n)
	case kindBackref:
		// Only the superset program contains back-references; the
		// backtracking matcher checks the real constraint.
		c.emitUncaptured(c.groups[n.index].subs[0])
	}
}

func (c *compiler) setX(at, x int) {
	if at < len(c.insts) {
		c.insts[at].x = x
	}
}

func (c *compiler) setY(at, y int) {
	if at < len(c.insts) {
		c.insts[at].y = y
	}
}

// emitUncaptured emits a copy of n whose groups do not record positions, so
// the copy cannot disturb the captures of the original.
func (c *compiler) emitUncaptured(n *node) {
	c.emit(stripCaptures(n))
}

func stripCaptures(n *node) *node {
	switch n.kind {
	case kindCapture:
		return stripCaptures(n.subs[0])
	case kindConcat, kindAlternate, kindRepeat:
		m := *n
		m.subs = make([]*node, len(n.subs))
		for i, s := range n.subs {
			m.subs[i] = stripCaptures(s)
		}
		return &m
	}
	return n
}

func (c *compiler) emitRepeat(n *node) {
	sub := n.subs[0]
	for i := 0; i < n.min; i++ {
		if i == n.min-1 && n.max < 0 {
			// The last mandatory copy loops: sub+.
			start := len(c.insts)
			c.emit(sub)
			c.add(inst{op: opSplit, x: start, y: len(c.insts) + 1})
			return
		}
		c.emit(sub)
	}
	if n.max < 0 {
		// sub*
		split := c.add(inst{op: opSplit})
		c.setX(split, len(c.insts))
		c.emit(sub)
		c.add(inst{op: opJump, x: split})
		c.setY(split, len(c.insts))
		return
	}
	// (sub(sub(...)?)?)? for the optional copies.
	var splits []int
	for i := n.min; i < n.max; i++ {
		split := c.add(inst{op: opSplit})
		c.setX(split, len(c.insts))
		splits = append(splits, split)
		c.emit(sub)
	}
	for _, s := range splits {
		c.setY(s, len(c.insts))
	}
}

// nullable reports whether n can match the empty string. depth guards
// against back-references to groups that contain them.
func nullable(n *node, groups map[int]*node, depth int) bool {
	switch n.kind {
	case kindSet:
		return false
	case kindCapture:
		return nullable(n.subs[0], groups, depth)
	case kindConcat:
		for _, s := range n.subs {
			if !nullable(s, groups, depth) {
				return false
			}
		}
		return true
	case kindAlternate:
		for _, s := range n.subs {
			if nullable(s, groups, depth) {
				return true
			}
		}
		return false
	case kindRepeat:
		return n.min == 0 || nullable(n.subs[0], groups, depth)
	case kindBackref:
		if depth > 10 {
			return true
		}
		return nullable(groups[n.index], groups, depth+1)
	}
	return true
}

// firstBytes adds to set every byte a non-empty match of n can start with.
func firstBytes(n *node, groups map[int]*node, set *byteSet, depth int) {
	switch n.kind {
	case kindSet:
		for i := range set {
			set[i] |= n.set[i]
		}
	case kindCapture:
		firstBytes(n.subs[0], groups, set, depth)
	case kindConcat:
		for _, s := range n.subs {
			firstBytes(s, groups, set, depth)
			if !nullable(s, groups, depth) {
				return
			}
		}
	case kindAlternate:
		for _, s := range n.subs {
			firstBytes(s, groups, set, depth)
		}
	case kindRepeat:
		firstBytes(n.subs[0], groups, set, depth)
	case kindBackref:
		if depth > 10 {
			for i := range set {
				set[i] = ^uint64(0)
			}
			return
		}
		firstBytes(groups[n.index], groups, set, depth+1)
	}
}

// canMatchNewline reports whether some byte set in n contains '\n'; if not,
// every match lies within one line.
func canMatchNewline(n *node) bool {
	if n.kind == kindSet {
		return n.set.has('\n')
	}
	for _, s := range n.subs {
		if canMatchNewline(s) {
			return true
		}
	}
	return false
}

// requiredLiteral returns the longest byte string that every match of n
// contains: the longest run of single bytes in its top-level sequence,
// looking through groups and fixed repetitions. With fold, letters that
// match either case count, in lower case.
func requiredLiteral(n *node, fold bool) []byte {
	var best, run []byte
	flush := func() {
		if len(run) > len(best) {
			best = append(best[:0], run...)
		}
		run = run[:0]
	}
	var walk func(n *node)
	walk = func(n *node) {
		switch n.kind {
		case kindSet:
			if b, ok := literalByte(n.set, fold); ok {
				run = append(run, b)
				return
			}
			flush()
		case kindEmpty, kindBOL, kindEOL, kindBOW, kindEOW:
			// Zero-width: the bytes on either side stay adjacent.
		case kindCapture:
			walk(n.subs[0])
		case kindConcat:
			for _, s := range n.subs {
				walk(s)
			}
		case kindRepeat:
			if n.min == n.max && n.min <= 16 && isLiteral(n.subs[0], fold) {
				for i := 0; i < n.min; i++ {
					walk(n.subs[0])
				}
				return
			}
			flush()
			if n.min > 0 {
				// The body occurs at least once, on its own.
				if inner := requiredLiteral(n.subs[0], fold); len(inner) > len(best) {
					best = inner
				}
			}
		default:
			flush()
		}
	}
	walk(n)
	flush()
	return best
}

// isLiteral reports whether n always matches the same byte string.
func isLiteral(n *node, fold bool) bool {
	switch n.kind {
	case kindSet:
		_, ok := literalByte(n.set, fold)
		return ok
	case kindEmpty, kindBOL, kindEOL, kindBOW, kindEOW:
		return true
	case kindCapture, kindConcat:
		for _, s := range n.subs {
			if !isLiteral(s, fold) {
				return false
			}
		}
		return true
	case kindRepeat:
		return n.min == n.max && isLiteral(n.subs[0], fold)
	}
	return false
}

// literalByte reports whether set matches exactly one byte, or with fold one
// ASCII letter in both cases (returned in lower case).
func literalByte(set *byteSet, fold bool) (byte, bool) {
	if !fold {
		// Ordinary characters use the shared singleton sets.
		if i := (uintptr(unsafe.Pointer(set)) - uintptr(unsafe.Pointer(&singleSets[0]))) / unsafe.Sizeof(byteSet{}); i < 256 && set == &singleSets[i] {
			return byte(i), true
		}
	}
	switch set.count() {
	case 1:
		for i := 0; i < 256; i++ {
			if set.has(byte(i)) {
				return byte(i), !fold || !isAlpha(byte(i))
			}
		}
	case 2:
		if !fold {
			return 0, false
		}
		for c := byte('a'); c <= 'z'; c++ {
			if set.has(c) && set.has(c-'a'+'A') {
				return c, true
			}
		}
	}
	return 0, false
}

// stripSize is the number of operations Spencer's regcomp emits for n. His
// engine switches to another automaton above 64 states (including the two
// end markers), and the two differ in how many zero-width assertions they
// cross at one position; see machine.addThread.
func stripSize(n *node, groups map[int]*node) int {
	switch n.kind {
	case kindEmpty:
		return 0
	case kindSet, kindBOL, kindEOL, kindBOW, kindEOW:
		return 1
	case kindCapture:
		return 2 + stripSize(n.subs[0], groups)
	case kindConcat:
		total := 0
		for _, s := range n.subs {
			total += stripSize(s, groups)
		}
		return total
	case kindAlternate:
		total := 2 * len(n.subs)
		for _, s := range n.subs {
			total += stripSize(s, groups)
		}
		return total
	case kindRepeat:
		x := stripSize(n.subs[0], groups)
		if n.star {
			return x + 4
		}
		return repeatSize(x, n.min, n.max)
	case kindBackref:
		return 2 + stripSize(groups[n.index].subs[0], groups)
	}
	return 0
}

// repeatSize follows regcomp's repeat(), which expands x{from,to}
// recursively; to < 0 means unbounded.
func repeatSize(x, from, to int) int {
	class := func(n int) int {
		switch {
		case n < 0:
			return 3
		case n <= 1:
			return n
		}
		return 2
	}
	switch f, t := class(from), class(to); {
	case f == 0 && t == 0:
		return 0
	case f == 0:
		return 4 + repeatSize(x, 1, to)
	case f == 1 && t == 1:
		return x
	case f == 1 && t == 2:
		return x + 4 + repeatSize(x, 1, to-1)
	case f == 1 && t == 3:
		return x + 2
	case t == 3:
		return x + repeatSize(x, from-1, to)
	}
	return x + repeatSize(x, from-1, to-1)
}

// closures precomputes the epsilon closures of a program without
// assertions; with assertions they depend on the position, and it returns
// nil.
func closures(insts []inst) [][]int32 {
	for _, in := range insts {
		if in.op == opAssert {
			return nil
		}
	}
	out := make([][]int32, len(insts))
	seen := make([]int, len(insts))
	for i := range seen {
		seen[i] = -1
	}
	var stack []int
	var backing []int32
	for start := range insts {
		// Threads only ever start at 0 and after a consumed byte.
		if start != 0 && insts[start-1].op != opByte {
			continue
		}
		first := len(backing)
		stack = append(stack[:0], start)
		for len(stack) > 0 {
			pc := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for seen[pc] != start {
				seen[pc] = start
				in := &insts[pc]
				switch in.op {
				case opJump:
					pc = in.x
					continue
				case opSplit:
					stack = append(stack, in.y)
					pc = in.x
					continue
				case opSave:
					pc++
					continue
				}
				backing = append(backing, int32(pc))
				break
			}
		}
		out[start] = backing[first:len(backing):len(backing)]
	}
	return out
}
