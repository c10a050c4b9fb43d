package parser

import (
	"unsafe"

	"github.com/ipuir/ipuir/ir"
)

// A per-parse cache from the exact source text of a type, an attribute or
// an attribute dictionary to the uniqued object it parsed to. Large files
// repeat the same spellings (`(tensor<4x8xf16>) -> tensor<4x8xf16>`,
// `{axis = 1 : i64}`) on every line, and uniquing through the context
// (printing a key, locking, hashing) costs more than reading them. A byte
// scanner predicts where the item at the current token ends; only when
// that exact text was parsed before is the cached object reused and the
// lexer moved past it.
//
// This is sound because a cached key is text the real parser consumed
// entirely as one item, and parsing depends only on the text and on alias
// definitions, which are never redefined. The scanner stops where the
// lexer would (identifier and number characters are taken greedily), so
// the real parser, given the same text, would stop at the same place;
// the one construct that extends past a complete item, `!d.x` followed by
// an adjacent `<`, is scanned as part of the item.

// maxCachedSpan bounds the text kept as a key; longer items (large dense
// literals) are rarely repeated and would double the memory they take.
const maxCachedSpan = 1024

// Each kind of item has its own map and a gate that closes it while it
// rarely hits: in a file where nearly every function type or dense
// literal is spelled once (an importer's output), looking each one up
// and keeping its text would cost more than parsing it and would hold
// memory until the parse ends. Function types are apart from other
// types because they repeat far less than the types inside them.
type textCache struct {
	types map[string]ir.Type
	funcs map[string]ir.Type
	attrs map[string]ir.Attribute
	dicts map[string]*ir.DictAttr

	typeGate, funcGate, attrGate, dictGate cacheGate
}

func newTextCache() textCache {
	return textCache{types: map[string]ir.Type{}, funcs: map[string]ir.Type{}, attrs: map[string]ir.Attribute{}, dicts: map[string]*ir.DictAttr{}}
}

// reserve sizes the maps for a file of lines lines, below what large
// files keep, so that they skip their first growth steps without holding
// room a file does not use: on ipu-parse-bench's two 30 MB files (296,000
// and 122,000 lines) the caches end with 12,852 and 87,055 types, 33,043
// and 7,740 function types, 77,565 and 16,784 attributes, 7,599 and 7,748
// dictionaries.
func (c *textCache) reserve(lines int) {
	n := min(lines/16, 1<<18)
	c.types = make(map[string]ir.Type, n)
	c.funcs = make(map[string]ir.Type, n/2)
	c.attrs = make(map[string]ir.Attribute, n)
	c.dicts = make(map[string]*ir.DictAttr, n/4)
}

// cacheGate closes a cache whose lookups hit less than once in
// gateMinHits of a window of gateWindow, for gatePause lookups, then
// tries it again.
type cacheGate struct {
	lookups, hits, paused int
}

const (
	gateWindow  = 4096
	gateMinHits = 4
	gatePause   = 16 * gateWindow
)

// open reports whether the cache is to be used for this item; while
// closed it counts down.
func (g *cacheGate) open() bool {
	if g.paused > 0 {
		g.paused--
		return false
	}
	return true
}

func (g *cacheGate) record(hit bool) {
	g.lookups++
	if hit {
		g.hits++
	}
	if g.lookups == gateWindow {
		if g.hits*gateMinHits < gateWindow {
			g.paused = gatePause
		}
		g.lookups, g.hits = 0, 0
	}
}

func (c *textCache) typeKind(text []byte) (map[string]ir.Type, *cacheGate) {
	if len(text) > 0 && text[0] == '(' {
		return c.funcs, &c.funcGate
	}
	return c.types, &c.typeGate
}

// sourceKey is text, a piece of the source being parsed, as a string
// without a copy: the source does not change during the parse and the
// cache does not outlive it. (Copying the keys was a fifth of what
// parsing a large file allocated.)
func sourceKey(text []byte) string { return unsafe.String(unsafe.SliceData(text), len(text)) }

// The put methods store an item whose lookup missed; one that was not
// looked up (its gate closed) is not stored either.

func (c *textCache) putType(text []byte, t ir.Type) {
	if m, g := c.typeKind(text); len(text) <= maxCachedSpan && g.paused == 0 {
		m[sourceKey(text)] = t
	}
}

func (c *textCache) putAttr(text []byte, a ir.Attribute) {
	if len(text) <= maxCachedSpan && c.attrGate.paused == 0 {
		c.attrs[sourceKey(text)] = a
	}
}

func (c *textCache) putDict(text []byte, d *ir.DictAttr) {
	if len(text) <= maxCachedSpan && c.dictGate.paused == 0 {
		c.dicts[sourceKey(text)] = d
	}
}

// canUseCache: the scanners work on raw bytes from the current token, which
// must be a real token.
func (p *parser) canUseCache() bool {
	return !p.st.noCache && p.tok.Kind != Error && p.tok.Kind != EOF
}

func (p *parser) cachedType() (ir.Type, bool) {
	if !p.canUseCache() {
		return nil, false
	}
	start := p.tok.Start
	m, g := p.st.cache.typeKind(p.src[start:])
	if !g.open() {
		return nil, false
	}
	end := p.scanType(start)
	if end <= start || end-start > maxCachedSpan {
		return nil, false
	}
	t, ok := m[string(p.src[start:end])]
	g.record(ok)
	if ok {
		p.skipTo(end)
	}
	return t, ok
}

func (p *parser) cachedAttr() (ir.Attribute, bool) {
	if !p.canUseCache() {
		return nil, false
	}
	start := p.tok.Start
	if !p.st.cache.attrGate.open() {
		return nil, false
	}
	end := p.scanAttr(start)
	if end <= start || end-start > maxCachedSpan {
		return nil, false
	}
	a, ok := p.st.cache.attrs[string(p.src[start:end])]
	p.st.cache.attrGate.record(ok)
	if ok {
		p.skipTo(end)
	}
	return a, ok
}

func (p *parser) cachedDict() (*ir.DictAttr, bool) {
	if !p.canUseCache() || p.tok.Kind != LBrace {
		return nil, false
	}
	start := p.tok.Start
	if !p.st.cache.dictGate.open() {
		return nil, false
	}
	end := p.scanBalanced(start)
	if end <= start || end-start > maxCachedSpan {
		return nil, false
	}
	d, ok := p.st.cache.dicts[string(p.src[start:end])]
	p.st.cache.dictGate.record(ok)
	if ok {
		p.skipTo(end)
	}
	return d, ok
}

// skipTo moves the lexer past a cached item ending at end.
func (p *parser) skipTo(end int) { p.ResetTo(end) }

func (p *parser) byteAt(i int) byte {
	if i < len(p.src) {
		return p.src[i]
	}
	return 0
}

func (p *parser) skipSpace(i int) int {
	for i < len(p.src) {
		switch p.src[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// scanIdent skips characters that continue a bare identifier.
func (p *parser) scanIdent(i int) int {
	for i < len(p.src) && charClass[p.src[i]]&clsIdent != 0 {
		i++
	}
	return i
}

// scanSuffix skips characters that continue a prefixed identifier.
func (p *parser) scanSuffix(i int) int {
	for i < len(p.src) && charClass[p.src[i]]&clsSuffix != 0 {
		i++
	}
	return i
}

// scanString skips a string literal starting at i; -1 if malformed.
func (p *parser) scanString(i int) int {
	src := p.src
	for i++; i < len(src); i++ {
		switch src[i] {
		case '"':
			return i + 1
		case '\\':
			i++
		case '\n':
			return -1
		}
	}
	return -1
}

// scanBalanced skips a bracketed group starting at i (one of `(<[{`),
// respecting strings and `->`; -1 if it does not close.
func (p *parser) scanBalanced(i int) int {
	src := p.src
	depth := 0
	for i < len(src) {
		switch c := src[i]; c {
		case '(', '<', '[', '{':
			depth++
		case ')', '>', ']', '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		case '-':
			if p.byteAt(i+1) == '>' {
				i++
			}
		case '"':
			j := p.scanString(i)
			if j < 0 {
				return -1
			}
			i = j
			continue
		case '/':
			return -1 // a comment inside: leave it to the parser
		}
		i++
	}
	return -1
}

// scanType predicts the end of the type starting at i; -1 if unsure.
func (p *parser) scanType(i int) int {
	switch c := p.byteAt(i); {
	case c == '(':
		j := p.scanBalanced(i)
		if j < 0 {
			return -1
		}
		j = p.skipSpace(j)
		if p.byteAt(j) != '-' || p.byteAt(j+1) != '>' {
			return -1
		}
		j = p.skipSpace(j + 2)
		if p.byteAt(j) == '(' {
			return p.scanBalanced(j)
		}
		return p.scanType(j)
	case c == '!':
		j := p.scanSuffix(i + 1)
		if p.byteAt(j) == '<' {
			return p.scanBalanced(j)
		}
		return j
	case charClass[c]&clsAlpha != 0:
		j := p.scanIdent(i)
		switch string(p.src[i:j]) {
		case "tensor", "memref", "vector", "complex", "tuple":
			k := p.skipSpace(j)
			if p.byteAt(k) != '<' {
				return -1
			}
			return p.scanBalanced(k)
		}
		return j
	}
	return -1
}

// scanAttr predicts the end of the attribute starting at i, with its
// `: type` suffix when one follows; -1 if unsure.
func (p *parser) scanAttr(i int) int {
	j := p.scanAttrPrimary(i)
	if j < 0 {
		return -1
	}
	if p.byteAt(i) == '@' {
		return j // symbol references take no type
	}
	k := p.skipSpace(j)
	if p.byteAt(k) == ':' && p.byteAt(k+1) != ':' {
		return p.scanType(p.skipSpace(k + 1))
	}
	return j
}

func (p *parser) scanNumber(i int) int {
	src := p.src
	if p.byteAt(i) == '0' && p.byteAt(i+1) == 'x' && isHexDigit(p.byteAt(i+2)) {
		i += 2
		for i < len(src) && isHexDigit(src[i]) {
			i++
		}
		return i
	}
	for i < len(src) && (isDigit(src[i]) || src[i] == '.') {
		i++
	}
	if c := p.byteAt(i); c == 'e' || c == 'E' {
		i++
		if c := p.byteAt(i); c == '+' || c == '-' {
			i++
		}
		for i < len(src) && isDigit(src[i]) {
			i++
		}
	}
	if charClass[p.byteAt(i)]&clsIdent != 0 {
		return -1 // `0xi32`-like splits: leave them to the lexer
	}
	return i
}

func (p *parser) scanAttrPrimary(i int) int {
	switch c := p.byteAt(i); {
	case c == '"':
		return p.scanString(i)
	case c == '[' || c == '{':
		return p.scanBalanced(i)
	case c == '-':
		j := p.skipSpace(i + 1)
		if !isDigit(p.byteAt(j)) {
			return -1
		}
		return p.scanNumber(j)
	case isDigit(c):
		return p.scanNumber(i)
	case c == '#':
		j := p.scanSuffix(i + 1)
		if p.byteAt(j) == '<' {
			return p.scanBalanced(j)
		}
		return j
	case c == '@':
		j := p.scanSymbol(i)
		for j >= 0 {
			k := p.skipSpace(j)
			if p.byteAt(k) != ':' {
				break
			}
			k = p.skipSpace(k + 1)
			if p.byteAt(k) != ':' {
				break
			}
			j = p.scanSymbol(p.skipSpace(k + 1))
		}
		return j
	case charClass[c]&clsAlpha != 0:
		j := p.scanIdent(i)
		switch string(p.src[i:j]) {
		case "dense", "sparse", "array", "affine_map", "affine_set", "strided", "dense_resource":
			k := p.skipSpace(j)
			if p.byteAt(k) != '<' {
				return -1
			}
			return p.scanBalanced(k)
		case "loc":
			k := p.skipSpace(j)
			if p.byteAt(k) != '(' {
				return -1
			}
			return p.scanBalanced(k)
		case "true", "false", "unit":
			return j
		case "distinct":
			return -1
		}
		return p.scanType(i)
	case c == '(' || c == '!':
		return p.scanType(i)
	}
	return -1
}

// scanSymbol skips an @-identifier; -1 if malformed.
func (p *parser) scanSymbol(i int) int {
	if p.byteAt(i) != '@' {
		return -1
	}
	if p.byteAt(i+1) == '"' {
		return p.scanString(i + 1)
	}
	return p.scanIdent(i + 1)
}
