package ere

import (
	"bytes"
	"sync"
)

// Regexp is a compiled expression. It is safe for concurrent use.
type Regexp struct {
	flags    Flags
	ast      *node
	nsub     int
	groups   map[int]*node
	prog     *program // the expression itself, or its superset with back-references
	backrefs bool
	// literal is a byte string every match contains (lower-cased when
	// literalFold), used to skip text that cannot match.
	literal     []byte
	literalFold bool
	// singleLine is set when no match can contain a newline, so candidate
	// literals need only the line around them searched.
	singleLine bool
}

// Compile parses pattern in Spencer's ERE dialect.
func Compile(pattern string, flags Flags) (*Regexp, error) {
	ast, p, err := parse(pattern, flags)
	if err != nil {
		return nil, err
	}
	re := &Regexp{flags: flags, ast: ast, nsub: p.nsub, groups: map[int]*node{}}
	collectGroups(ast, re.groups)
	re.backrefs = hasBackref(ast)
	prog, ok := compile(ast, re.groups)
	if !ok {
		return nil, &Error{ErrSpace}
	}
	prog.nbol, prog.neol = p.nbol, p.neol
	prog.large = 2+stripSize(ast, re.groups) > 64
	re.prog = prog
	fold := flags&IgnoreCase != 0
	if !re.backrefs {
		// Back-references make the superset's literals uncertain to
		// occur; they are rare enough to go without the shortcut.
		re.literal = requiredLiteral(ast, fold)
		re.literalFold = fold
	}
	// Cutting the text at a line end keeps `$` true there only when `$`
	// matches before newlines anyway.
	re.singleLine = flags&Newline != 0 && !canMatchNewline(expandForAnalysis(ast, re.groups, 0))
	return re, nil
}

// Validate reports whether pattern compiles, as llvm::Regex::isValid does.
func Validate(pattern string) error {
	_, _, err := parse(pattern, 0)
	return err
}

// NumSubexp returns the number of parenthesized groups.
func (re *Regexp) NumSubexp() int { return re.nsub }

func collectGroups(n *node, groups map[int]*node) {
	if n.kind == kindCapture {
		groups[n.index] = n
	}
	for _, s := range n.subs {
		collectGroups(s, groups)
	}
}

func hasBackref(n *node) bool {
	if n.kind == kindBackref {
		return true
	}
	for _, s := range n.subs {
		if hasBackref(s) {
			return true
		}
	}
	return false
}

// expandForAnalysis replaces back-references by their groups (to a bounded
// depth) so that set-based analyses see every byte a match may contain.
func expandForAnalysis(n *node, groups map[int]*node, depth int) *node {
	if n.kind == kindBackref {
		if depth > 10 {
			all := &byteSet{}
			for i := range all {
				all[i] = ^uint64(0)
			}
			return &node{kind: kindSet, set: all}
		}
		return expandForAnalysis(groups[n.index], groups, depth+1)
	}
	if len(n.subs) == 0 {
		return n
	}
	m := *n
	m.subs = make([]*node, len(n.subs))
	for i, s := range n.subs {
		m.subs[i] = expandForAnalysis(s, groups, depth)
	}
	return &m
}

// machines holds matching workspaces. They are shared by all expressions:
// FileCheck builds a new expression for each substituted pattern, and
// allocating fresh thread lists each time would dominate the run time.
var machines sync.Pool

func (re *Regexp) machine(withCaps bool) *machine {
	var m *machine
	if v := machines.Get(); v != nil {
		m = v.(*machine)
	} else {
		m = &machine{clist: &threadList{}, nlist: &threadList{}}
	}
	m.reset(re.prog, re.flags&Newline != 0, 2*(re.nsub+1), withCaps)
	return m
}

func (re *Regexp) release(m *machine) {
	m.text = nil
	machines.Put(m)
}

// FindIndex returns the leftmost-longest match in text as {start, end}, or
// nil. The error is ErrTooComplex when an expression with back-references
// needs more work than the budget: then it is not known whether there is
// a match.
func (re *Regexp) FindIndex(text []byte) ([]int, error) {
	loc, err := re.find(text, false)
	if loc == nil {
		return nil, err
	}
	return loc[:2], nil
}

// FindSubmatchIndex returns the leftmost-longest match and its groups as
// start/end pairs (-1 for groups that did not participate), or nil; errors
// as FindIndex.
func (re *Regexp) FindSubmatchIndex(text []byte) ([]int, error) {
	return re.find(text, true)
}

func (re *Regexp) find(text []byte, wantCaps bool) ([]int, error) {
	if re.backrefs {
		return re.findWithBackrefs(text)
	}
	if len(re.literal) == 0 {
		return re.findIn(text, 0, wantCaps), nil
	}
	if !re.singleLine {
		if indexLiteral(text, re.literal, re.literalFold) < 0 {
			return nil, nil
		}
		return re.findIn(text, 0, wantCaps), nil
	}
	// Search only lines containing the literal. Lines before the first
	// occurrence cannot hold a match, and the line around it is searched
	// as a whole, so the leftmost match is found.
	for pos := 0; pos <= len(text); {
		i := indexLiteral(text[pos:], re.literal, re.literalFold)
		if i < 0 {
			return nil, nil
		}
		i += pos
		lineStart := pos
		if j := bytes.LastIndexByte(text[pos:i], '\n'); j >= 0 {
			lineStart = pos + j + 1
		}
		lineEnd := len(text)
		if j := bytes.IndexByte(text[i:], '\n'); j >= 0 {
			lineEnd = i + j
		}
		if loc := re.findIn(text[:lineEnd], lineStart, wantCaps); loc != nil {
			return loc, nil
		}
		pos = lineEnd + 1
	}
	return nil, nil
}

// findIn searches text for a match starting at or after from; text[:from]
// provides context for assertions only.
func (re *Regexp) findIn(text []byte, from int, wantCaps bool) []int {
	m := re.machine(false)
	defer re.release(m)
	start, end, _ := m.search(text, from, false, -1)
	if start < 0 {
		return nil
	}
	loc := make([]int, 2*(re.nsub+1))
	for i := range loc {
		loc[i] = -1
	}
	loc[0], loc[1] = start, end
	if wantCaps && re.nsub > 0 {
		m.withCaps = true
		_, _, caps := m.search(text, start, true, end)
		m.withCaps = false
		if len(caps) == len(loc) {
			copy(loc[2:], caps[2:])
		}
	}
	return loc
}

// indexLiteral finds lit in text; with fold, letters match either case (lit
// is lower case).
func indexLiteral(text, lit []byte, fold bool) int {
	if !fold {
		return bytes.Index(text, lit)
	}
	return IndexFold(text, lit)
}

// IndexFold returns the first index of sub in s comparing ASCII letters
// without regard to case, like llvm::StringRef::find_insensitive.
func IndexFold(s, sub []byte) int {
	if len(sub) == 0 {
		return 0
	}
	first := lower(sub[0])
	upperFirst := otherCase(first)
	for i := 0; i+len(sub) <= len(s); i++ {
		c := s[i]
		if c != first && c != upperFirst {
			// Skip quickly to the next candidate first byte.
			j := indexEither(s[i:len(s)-len(sub)+1], first, upperFirst)
			if j < 0 {
				return -1
			}
			i += j
		}
		if equalFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

func indexEither(s []byte, a, b byte) int {
	if a == b {
		return bytes.IndexByte(s, a)
	}
	i := bytes.IndexByte(s, a)
	limit := s
	if i >= 0 {
		limit = s[:i]
	}
	if j := bytes.IndexByte(limit, b); j >= 0 {
		return j
	}
	return i
}

func equalFold(a, b []byte) bool {
	for i := range a {
		if lower(a[i]) != lower(b[i]) {
			return false
		}
	}
	return true
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c - 'A' + 'a'
	}
	return c
}

// CountGroups validates pattern with default flags, as FileCheck does for
// each {{regex}} piece, and returns its number of parenthesized groups.
func CountGroups(pattern string) (int, error) {
	_, p, err := parse(pattern, 0)
	if err != nil {
		return 0, err
	}
	return p.nsub, nil
}
