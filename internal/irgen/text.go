package irgen

import (
	"fmt"
	"strings"
)

var words = []string{"a", "b", "foo", "bar", "x1", "tile", "shard", "k_2", "v", "op"}

// word is a short identifier.
func (g *gen) word() string { return pick(g, words) }

// utf8Pieces are multi-byte characters, which count one column per byte.
var utf8Pieces = []string{"é", "→", "日本", "ß", "😀"}

// stringLiteral is a quoted string; its features decide which escapes and
// raw characters appear.
func (g *gen) stringLiteral() string {
	var b strings.Builder
	b.WriteByte('"')
	n := g.between(0, 6)
	for range n {
		b.WriteString(g.choose(
			alt{"", 8, func() string { return pick(g, words) }},
			alt{"", 2, func() string { return pick(g, []string{" ", "-", ".", ":", "#", "<", "}", "@", "%"}) }},
			alt{AttrStringEscapes, 2, func() string {
				return pick(g, []string{`\n`, `\t`, `\"`, `\\`, `\00`, `\7F`, `\ff`, `\FF`, `\1b`, `\0A`, `\22`})
			}},
			alt{AttrStringRawTab, 1, func() string { return "\t" }},
			alt{AttrStringUTF8, 1, func() string { return pick(g, utf8Pieces) }},
		))
	}
	b.WriteByte('"')
	return b.String()
}

// plainString is a quoted string of identifier characters.
func (g *gen) plainString() string { return `"` + g.word() + `"` }

// opaqueBody is the verbatim body of a dialect type or attribute: a
// balanced token sequence with odd spacing, strings, raw UTF-8, `->` and
// nested brackets.
func (g *gen) opaqueBody() string {
	var b strings.Builder
	g.bodyTokens(&b, 2)
	s := b.String()
	if strings.TrimSpace(s) == "" {
		return g.word()
	}
	return s
}

func (g *gen) bodyTokens(b *strings.Builder, depth int) {
	n := g.between(1, 4)
	for i := range n {
		if i > 0 {
			b.WriteString(pick(g, []string{" ", ", ", ",", "  ", " : ", " = ", " -> ", "x"}))
		}
		switch k := g.r.IntN(10); {
		case k < 3:
			b.WriteString(g.word())
		case k < 5:
			fmt.Fprintf(b, "%d", g.between(-3, 300))
		case k < 6:
			b.WriteString(g.stringLiteral())
		case k < 7:
			b.WriteString(pick(g, utf8Pieces))
		case k < 8:
			b.WriteString(pick(g, []string{"?", "*", "f32", "i8", "1.5", "%x", "^b"}))
		default:
			if depth <= 0 {
				b.WriteString(g.word())
				continue
			}
			open := pick(g, []string{"<", "(", "[", "{"})
			closing := map[string]string{"<": ">", "(": ")", "[": "]", "{": "}"}[open]
			b.WriteString(open)
			g.bodyTokens(b, depth-1)
			b.WriteString(closing)
		}
	}
}

// symbolName is a symbol name as written after @: bare, or quoted when
// quoted is set and the feature allows (never @"").
func (g *gen) symbolName(quoted bool) string {
	if quoted && g.maybe(AttrSymbolQuoted, 0.3) {
		return `"` + g.word() + " " + pick(g, []string{"x", "é", `\"q`, "1"}) + `"`
	}
	return g.word() + pick(g, []string{"", "_1", ".inner", "$"})
}

// attrName is a key of an attribute dictionary.
func (g *gen) attrName() string {
	return g.choose(
		alt{"", 10, func() string { return g.word() + pick(g, []string{"", "_x", ".y", "$z", "2"}) }},
		alt{QuotedAttrName, 1, func() string {
			return pick(g, []string{`"a b"`, `"x-y"`, `"é"`, `"1x"`, `"plain"`, `"q\"t"`, `"tab\09"`})
		}},
		alt{KeywordAttrName, 1, func() string {
			return pick(g, []string{"true", "loc", "dense", "i32", "f16", "index", "unit", "affine_map", "func"})
		}},
	)
}

// valueName is a fresh SSA value name, %-prefixed, or now and then the
// name of a value of a closed region.
func (g *gen) valueName() string {
	if len(g.closed) > 0 && g.maybe(SiblingNameReuse, 0.15) {
		i := g.r.IntN(len(g.closed))
		name := g.closed[i]
		g.closed = append(g.closed[:i:i], g.closed[i+1:]...)
		g.live = append(g.live, name)
		return name
	}
	name := g.freshValueName()
	g.live = append(g.live, name)
	return name
}

// openScope starts a region; closeScope(mark) ends it, so that its names
// may be defined again.
func (g *gen) openScope() int { return len(g.live) }

func (g *gen) closeScope(mark int) {
	g.closed = append(g.closed, g.live[mark:]...)
	g.live = g.live[:mark]
}

func (g *gen) freshValueName() string {
	n := g.next()
	return g.choose(
		alt{NumericValueName, 4, func() string { return fmt.Sprintf("%%%d", n) }},
		alt{IdentValueName, 4, func() string { return fmt.Sprintf("%%%s%d", pick(g, []string{"v", "x.", "arg_", "a$"}), n) }},
		alt{PunctValueName, 1, func() string { return fmt.Sprintf("%%%s%d", pick(g, []string{"-", "$y.", "_", "."}), n) }},
	)
}

// regionLabel is the label of block i of a region: a fresh one, or now
// and then ^blkI, which other regions, nested or not, use too.
func (g *gen) regionLabel(i int) string {
	if g.maybe(BlockLabelReuse, 0.3) {
		return fmt.Sprintf("^blk%d", i)
	}
	return g.blockLabel()
}

// blockLabel is a fresh block label, ^-prefixed.
func (g *gen) blockLabel() string {
	n := g.next()
	return g.choose(
		alt{"", 6, func() string { return fmt.Sprintf("^bb%d", n) }},
		alt{OddBlockLabel, 1, func() string { return fmt.Sprintf("^%s%d", pick(g, []string{"bb-", "", "x.", "$", "_"}), n) }},
	)
}
