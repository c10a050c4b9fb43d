package main

import (
	"regexp"
	"strings"
)

// An index is what the server knows of a document's text without
// parsing it: every name token (SSA values, block labels, symbols,
// attribute and type aliases), where each is defined, which function each
// stands in (SSA values and blocks are scoped by function, as regions
// isolated from above scope them), and the functions' spans. It is built
// by one scan of the text, so it serves requests on text that does not
// parse.
type index struct {
	lines     []string
	tokens    []token
	functions []span
}

// A token is one name at a place.
type token struct {
	name      string // with its sigil: %x, ^bb1, @f, #alias, !alias
	line, col int    // 0-based; col in bytes
	def       bool
	scope     int // the function it stands in, -1 for the module
}

// A span is a function: its name and its lines.
type span struct {
	name              string
	first, last       int
	nameLine, nameCol int
}

var (
	nameToken = regexp.MustCompile(`[%^@#!][A-Za-z_0-9$.\-]+`)
	// A definition: results before " = ", a block label, an alias.
	resultsDef = regexp.MustCompile(`^\s*((?:%[A-Za-z_0-9$.\-]+(?::\d+)?\s*,\s*)*%[A-Za-z_0-9$.\-]+(?::\d+)?)\s*=`)
	blockDef   = regexp.MustCompile(`^\s*(\^[A-Za-z_0-9$.\-]+)`)
	aliasDef   = regexp.MustCompile(`^([#!][A-Za-z_0-9$.\-]+)\s*=`)
	funcDef    = regexp.MustCompile(`func\.func\s+(?:(?:private|public|nested)\s+)?(@[A-Za-z_0-9$.\-]+)`)
)

// code is the line without its comment and with its strings blanked, so
// that names inside them are not names.
func code(line string) string {
	b := []byte(line)
	in := false
	for i := 0; i < len(b); i++ {
		switch {
		case in && b[i] == '\\' && i+1 < len(b):
			b[i], b[i+1] = ' ', ' '
			i++
		case b[i] == '"':
			in = !in
		case in:
			b[i] = ' '
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '/':
			return string(b[:i])
		}
	}
	return string(b)
}

func newIndex(text string) *index {
	ix := &index{lines: strings.Split(text, "\n")}
	depth, current := 0, -1
	for ln, raw := range ix.lines {
		line := code(raw)
		if m := funcDef.FindStringSubmatchIndex(line); m != nil && current < 0 {
			ix.functions = append(ix.functions, span{name: line[m[2]:m[3]], first: ln, last: ln, nameLine: ln, nameCol: m[2]})
			current = len(ix.functions) - 1
			depth = 0
		}
		defs := map[int]bool{}
		if m := resultsDef.FindStringSubmatchIndex(line); m != nil {
			for _, t := range nameToken.FindAllStringIndex(line[m[2]:m[3]], -1) {
				defs[m[2]+t[0]] = true
			}
		}
		if m := blockDef.FindStringSubmatchIndex(line); m != nil {
			defs[m[2]] = true
			// Block arguments are defined in the label's parentheses.
			if rest := line[m[3]:]; strings.HasPrefix(rest, "(") {
				for _, t := range nameToken.FindAllStringIndex(rest, -1) {
					if rest[t[0]] == '%' {
						defs[m[3]+t[0]] = true
					}
				}
			}
		}
		if m := aliasDef.FindStringSubmatchIndex(line); m != nil {
			defs[m[2]] = true
		}
		if m := funcDef.FindStringSubmatchIndex(line); m != nil {
			defs[m[2]] = true
			// The arguments in the signature are defined there.
			rest := line[m[3]:]
			if end := strings.Index(rest, ")"); end > 0 {
				for _, t := range nameToken.FindAllStringIndex(rest[:end], -1) {
					if rest[t[0]] == '%' {
						defs[m[3]+t[0]] = true
					}
				}
			}
		}
		for _, t := range nameToken.FindAllStringIndex(line, -1) {
			name := line[t[0]:t[1]]
			// %x#1 names result 1 of %x; the name is %x.
			if i := strings.IndexByte(name[1:], '#'); i >= 0 {
				name = name[:i+1]
			}
			name = strings.TrimRight(name, ".")
			scope := -1
			if name[0] == '%' || name[0] == '^' {
				scope = current
			}
			ix.tokens = append(ix.tokens, token{name: name, line: ln, col: t[0], def: defs[t[0]], scope: scope})
		}
		if current >= 0 {
			depth += strings.Count(line, "{") - strings.Count(line, "}")
			ix.functions[current].last = ln
			if depth <= 0 && strings.Contains(line, "}") {
				current = -1
			}
		}
	}
	return ix
}

// at is the token at (line, col), or nil.
func (ix *index) at(line, col int) *token {
	for i := range ix.tokens {
		t := &ix.tokens[i]
		if t.line == line && col >= t.col && col <= t.col+len(t.name) {
			return t
		}
	}
	return nil
}

// same reports whether two tokens name the same thing.
func same(a, b *token) bool { return a.name == b.name && a.scope == b.scope }

// definition is where t's name is defined, or nil.
func (ix *index) definition(t *token) *token {
	for i := range ix.tokens {
		if d := &ix.tokens[i]; d.def && same(d, t) {
			return d
		}
	}
	return nil
}

// references are every token naming what t names.
func (ix *index) references(t *token, withDefinition bool) []*token {
	var out []*token
	for i := range ix.tokens {
		if r := &ix.tokens[i]; same(r, t) && (withDefinition || !r.def) {
			out = append(out, r)
		}
	}
	return out
}

// blocks are the block labels defined in function f.
func (ix *index) blocks(f int) []*token {
	var out []*token
	for i := range ix.tokens {
		if t := &ix.tokens[i]; t.def && t.scope == f && t.name[0] == '^' {
			out = append(out, t)
		}
	}
	return out
}

// wordAt is the identifier-like run at byte col of line: an op name such
// as tensor.matmul.
func wordAt(s string, col int) string {
	is := func(c byte) bool {
		return c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	lo, hi := min(col, len(s)), min(col, len(s))
	for lo > 0 && is(s[lo-1]) {
		lo--
	}
	for hi < len(s) && is(s[hi]) {
		hi++
	}
	return s[lo:hi]
}
