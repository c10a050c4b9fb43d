package ere

// The parser follows Spencer's p_ere/p_ere_exp/p_bracket closely, because
// FileCheck users see its verdicts: which expressions are valid, and the
// message of the first error found. Spencer keeps the earliest error and stops
// consuming input, so every function here returns as soon as p.err is set.

// Flags select the regcomp options FileCheck passes.
type Flags uint8

const (
	// Newline is REG_NEWLINE: `.` and negated brackets exclude '\n', and `^`
	// and `$` also match after and before a newline.
	Newline Flags = 1 << iota
	// IgnoreCase is REG_ICASE, folding ASCII letters only.
	IgnoreCase
)

// ErrorCode is one of Spencer's REG_* error codes.
type ErrorCode int

// The error codes a pattern can produce, in regerror's order.
const (
	ErrCollate ErrorCode = iota + 1
	ErrCType
	ErrEscape
	ErrSubReg
	ErrBrack
	ErrParen
	ErrBrace
	ErrBadBr
	ErrRange
	ErrSpace
	ErrBadRpt
	ErrEmpty
)

var errorText = map[ErrorCode]string{
	ErrCollate: "invalid collating element",
	ErrCType:   "invalid character class",
	ErrEscape:  `trailing backslash (\)`,
	ErrSubReg:  "invalid backreference number",
	ErrBrack:   "brackets ([ ]) not balanced",
	ErrParen:   "parentheses not balanced",
	ErrBrace:   "braces not balanced",
	ErrBadBr:   "invalid repetition count(s)",
	ErrRange:   "invalid character range",
	ErrSpace:   "out of memory",
	ErrBadRpt:  "repetition-operator operand invalid",
	ErrEmpty:   "empty (sub)expression",
}

// Error is a compile error, printed with regerror's message.
type Error struct{ Code ErrorCode }

func (e *Error) Error() string { return errorText[e.Code] }

// dupMax is RE_DUP_MAX, the largest count allowed in a {m,n} bound.
const dupMax = 255

type nodeKind uint8

const (
	kindSet     nodeKind = iota // one byte out of set
	kindEmpty                   // the empty string, e.g. the inside of "()"
	kindBOL                     // ^
	kindEOL                     // $
	kindBOW                     // [[:<:]]
	kindEOW                     // [[:>:]]
	kindCapture                 // (sub), group number in index
	kindConcat
	kindAlternate
	kindRepeat  // sub{min,max}; max < 0 means unbounded
	kindBackref // \index
)

type node struct {
	kind     nodeKind
	set      *byteSet
	index    int
	min, max int
	subs     []*node
	// star marks a repetition written `*`, which Spencer compiles
	// differently from {0,} (see stripSize).
	star bool
}

// byteSet is a set of byte values.
type byteSet [4]uint64

func (s *byteSet) add(b byte)      { s[b>>6] |= 1 << (b & 63) }
func (s *byteSet) remove(b byte)   { s[b>>6] &^= 1 << (b & 63) }
func (s *byteSet) has(b byte) bool { return s[b>>6]&(1<<(b&63)) != 0 }
func (s *byteSet) addString(str string) {
	for i := 0; i < len(str); i++ {
		s.add(str[i])
	}
}

func (s *byteSet) count() int {
	n := 0
	for _, w := range s {
		for ; w != 0; w &= w - 1 {
			n++
		}
	}
	return n
}

type parser struct {
	src    string
	pos    int
	flags  Flags
	err    ErrorCode
	nsub   int
	closed [10]bool // groups 1-9 whose ')' has been seen: back-references need it
	// nbol and neol count the ^ and $ written in the pattern; Spencer's
	// automaton crosses at most that many of them at one position.
	nbol, neol int
}

func (p *parser) setErr(code ErrorCode) {
	if p.err == 0 {
		p.err = code
	}
}

func (p *parser) require(ok bool, code ErrorCode) bool {
	if !ok {
		p.setErr(code)
	}
	return p.err == 0
}

func (p *parser) more() bool  { return p.err == 0 && p.pos < len(p.src) }
func (p *parser) more2() bool { return p.err == 0 && p.pos+1 < len(p.src) }
func (p *parser) peek() byte  { return p.src[p.pos] }
func (p *parser) peek2() byte { return p.src[p.pos+1] }
func (p *parser) see(c byte) bool {
	return p.more() && p.peek() == c
}
func (p *parser) seeTwo(a, b byte) bool {
	return p.more2() && p.peek() == a && p.peek2() == b
}
func (p *parser) eat(c byte) bool {
	if p.see(c) {
		p.pos++
		return true
	}
	return false
}
func (p *parser) eatTwo(a, b byte) bool {
	if p.seeTwo(a, b) {
		p.pos += 2
		return true
	}
	return false
}

// peekIsDigit reports whether the next byte is a digit; past the end it is not.
func (p *parser) peekIsDigit() bool { return p.more() && isDigit(p.peek()) }

func parse(src string, flags Flags) (*node, *parser, error) {
	p := &parser{src: src, flags: flags}
	n := p.ere(-1)
	if p.err != 0 {
		return nil, nil, &Error{p.err}
	}
	return n, p, nil
}

// ere parses alternatives up to stop (-1 for the end of the pattern).
func (p *parser) ere(stop int) *node {
	var alts []*node
	for {
		var items []*node
		emitted := false
		for p.more() && p.peek() != '|' && int(p.peek()) != stop {
			n, emit := p.ereExp()
			if p.err != 0 {
				return nil
			}
			emitted = emitted || emit
			if n != nil {
				items = append(items, n)
			}
		}
		if !p.require(emitted, ErrEmpty) {
			return nil
		}
		alts = append(alts, concat(items))
		if !p.eat('|') {
			break
		}
	}
	if len(alts) == 1 {
		return alts[0]
	}
	return &node{kind: kindAlternate, subs: alts}
}

func concat(items []*node) *node {
	switch len(items) {
	case 0:
		return &node{kind: kindEmpty}
	case 1:
		return items[0]
	}
	return &node{kind: kindConcat, subs: items}
}

// ereExp parses one atom and its optional repetition. emitted is false when a
// {0} bound dropped the atom, which Spencer counts as an empty expression.
func (p *parser) ereExp() (n *node, emitted bool) {
	c := p.src[p.pos]
	p.pos++
	wasCaret := false
	switch c {
	case '(':
		if !p.require(p.more(), ErrParen) {
			return nil, false
		}
		p.nsub++
		sub := p.nsub
		inner := &node{kind: kindEmpty}
		if !p.see(')') {
			inner = p.ere(')')
			if p.err != 0 {
				return nil, false
			}
		}
		if sub < len(p.closed) {
			p.closed[sub] = true
		}
		if !p.require(p.more() && p.src[p.pos] == ')', ErrParen) {
			return nil, false
		}
		p.pos++
		n = &node{kind: kindCapture, index: sub, subs: []*node{inner}}
	case ')':
		p.setErr(ErrParen)
		return nil, false
	case '^':
		n = &node{kind: kindBOL}
		wasCaret = true
		p.nbol++
	case '$':
		n = &node{kind: kindEOL}
		p.neol++
	case '|':
		p.setErr(ErrEmpty)
		return nil, false
	case '*', '+', '?':
		p.setErr(ErrBadRpt)
		return nil, false
	case '.':
		set := &byteSet{}
		for i := 0; i < 256; i++ {
			set.add(byte(i))
		}
		if p.flags&Newline != 0 {
			set.remove('\n')
		}
		n = &node{kind: kindSet, set: set}
	case '[':
		n = p.bracket()
		if p.err != 0 {
			return nil, false
		}
	case '\\':
		if !p.require(p.more(), ErrEscape) {
			return nil, false
		}
		c = p.src[p.pos]
		p.pos++
		if c >= '1' && c <= '9' {
			num := int(c - '0')
			if !p.require(p.closed[num], ErrSubReg) {
				return nil, false
			}
			n = &node{kind: kindBackref, index: num}
		} else {
			n = p.ordinary(c)
		}
	case '{':
		if !p.require(!p.more() || !isDigit(p.peek()), ErrBadRpt) {
			return nil, false
		}
		n = p.ordinary(c)
	default:
		n = p.ordinary(c)
	}

	if !p.more() || !p.seeRepetition() {
		return n, true
	}
	c = p.src[p.pos]
	p.pos++
	if !p.require(!wasCaret, ErrBadRpt) {
		return nil, false
	}
	min, max := 0, -1
	switch c {
	case '*':
	case '+':
		min = 1
	case '?':
		max = 1
	case '{':
		min = p.count()
		if p.err != 0 {
			return nil, false
		}
		if p.eat(',') {
			if p.peekIsDigit() {
				max = p.count()
				if !p.require(min <= max, ErrBadBr) {
					return nil, false
				}
			}
		} else {
			max = min
		}
		if !p.eat('}') {
			for p.more() && p.peek() != '}' {
				p.pos++
			}
			p.require(p.more(), ErrBrace)
			p.setErr(ErrBadBr)
			return nil, false
		}
	}
	if p.more() && p.seeRepetition() {
		p.setErr(ErrBadRpt)
		return nil, false
	}
	if max == 0 {
		return nil, false
	}
	if min == 1 && max == 1 {
		return n, true
	}
	return &node{kind: kindRepeat, min: min, max: max, subs: []*node{n}, star: c == '*'}, true
}

// seeRepetition reports whether a repetition operator follows; `{` counts
// only when a digit comes after it.
func (p *parser) seeRepetition() bool {
	switch p.peek() {
	case '*', '+', '?':
		return true
	case '{':
		return p.more2() && isDigit(p.peek2())
	}
	return false
}

func (p *parser) count() int {
	count, digits := 0, 0
	for p.more() && isDigit(p.peek()) && count <= dupMax {
		count = count*10 + int(p.peek()-'0')
		p.pos++
		digits++
	}
	p.require(digits > 0 && count <= dupMax, ErrBadBr)
	return count
}

// singleSets and foldedSets are shared read-only sets for ordinary
// characters, which are most of any pattern.
var singleSets, foldedSets [256]byteSet

func init() {
	for i := 0; i < 256; i++ {
		c := byte(i)
		singleSets[i].add(c)
		foldedSets[i].add(c)
		if isAlpha(c) {
			foldedSets[i].add(otherCase(c))
		}
	}
}

func (p *parser) ordinary(c byte) *node {
	if p.flags&IgnoreCase != 0 {
		return &node{kind: kindSet, set: &foldedSets[c]}
	}
	return &node{kind: kindSet, set: &singleSets[c]}
}

func (p *parser) bracket() *node {
	if len(p.src)-p.pos > 5 {
		switch p.src[p.pos : p.pos+6] {
		case "[:<:]]":
			p.pos += 6
			return &node{kind: kindBOW}
		case "[:>:]]":
			p.pos += 6
			return &node{kind: kindEOW}
		}
	}
	set := &byteSet{}
	invert := p.eat('^')
	if p.eat(']') {
		set.add(']')
	} else if p.eat('-') {
		set.add('-')
	}
	for p.more() && p.peek() != ']' && !p.seeTwo('-', ']') {
		p.bracketTerm(set)
		if p.err != 0 {
			return nil
		}
	}
	if p.eat('-') {
		set.add('-')
	}
	if !p.require(p.more() && p.src[p.pos] == ']', ErrBrack) {
		return nil
	}
	p.pos++
	if p.flags&IgnoreCase != 0 {
		for c := 0; c < 256; c++ {
			if set.has(byte(c)) && isAlpha(byte(c)) {
				set.add(otherCase(byte(c)))
			}
		}
	}
	if invert {
		for i := range set {
			set[i] = ^set[i]
		}
		if p.flags&Newline != 0 {
			set.remove('\n')
		}
	}
	return &node{kind: kindSet, set: set}
}

func (p *parser) bracketTerm(set *byteSet) {
	var c byte
	if p.more() {
		switch p.peek() {
		case '[':
			if p.more2() {
				c = p.peek2()
			}
		case '-':
			p.setErr(ErrRange)
			return
		}
	}
	switch c {
	case ':':
		p.pos += 2
		if !p.require(p.more(), ErrBrack) {
			return
		}
		c = p.peek()
		if !p.require(c != '-' && c != ']', ErrCType) {
			return
		}
		p.charClass(set)
		if !p.require(p.more(), ErrBrack) {
			return
		}
		p.require(p.eatTwo(':', ']'), ErrCType)
	case '=':
		p.pos += 2
		if !p.require(p.more(), ErrBrack) {
			return
		}
		c = p.peek()
		if !p.require(c != '-' && c != ']', ErrCollate) {
			return
		}
		elem := p.collatingElement('=')
		if p.err != 0 {
			return
		}
		set.add(elem)
		if !p.require(p.more(), ErrBrack) {
			return
		}
		p.require(p.eatTwo('=', ']'), ErrCollate)
	default:
		start := p.symbol()
		if p.err != 0 {
			return
		}
		finish := start
		if p.see('-') && p.more2() && p.peek2() != ']' {
			p.pos++
			if p.eat('-') {
				finish = '-'
			} else {
				finish = p.symbol()
				if p.err != 0 {
					return
				}
			}
		}
		// Spencer compares plain (signed) chars, so bytes >= 0x80 sort
		// before ASCII; ranges between them behave as in the C library.
		lo, hi := int(int8(start)), int(int8(finish))
		if !p.require(lo <= hi, ErrRange) {
			return
		}
		for i := lo; i <= hi; i++ {
			set.add(byte(int8(i)))
		}
	}
}

func (p *parser) charClass(set *byteSet) {
	start := p.pos
	for p.more() && isAlpha(p.peek()) {
		p.pos++
	}
	chars, ok := charClasses[p.src[start:p.pos]]
	if !p.require(ok, ErrCType) {
		return
	}
	set.addString(chars)
}

func (p *parser) symbol() byte {
	if !p.require(p.more(), ErrBrack) {
		return 0
	}
	if !p.eatTwo('[', '.') {
		c := p.src[p.pos]
		p.pos++
		return c
	}
	value := p.collatingElement('.')
	if p.err != 0 {
		return 0
	}
	p.require(p.eatTwo('.', ']'), ErrCollate)
	return value
}

func (p *parser) collatingElement(end byte) byte {
	start := p.pos
	for p.more() && !p.seeTwo(end, ']') {
		p.pos++
	}
	if !p.require(p.more(), ErrBrack) {
		return 0
	}
	name := p.src[start:p.pos]
	if code, ok := collatingNames[name]; ok {
		return code
	}
	if len(name) == 1 {
		return name[0]
	}
	p.setErr(ErrCollate)
	return 0
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isWord(c byte) bool  { return isAlpha(c) || isDigit(c) || c == '_' }

func otherCase(c byte) byte {
	switch {
	case c >= 'a' && c <= 'z':
		return c - 'a' + 'A'
	case c >= 'A' && c <= 'Z':
		return c - 'A' + 'a'
	}
	return c
}
