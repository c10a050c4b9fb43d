package filecheck

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// This file generates the cases of the differential test: check files,
// inputs and options covering every directive, pattern construct and flag,
// passing and failing. Cases are built from MLIR-like input lines whose
// tokens are known, so that patterns can refer to them in every way a
// check file can: literally, through {{regex}}, by defining and using
// string and numeric variables, with whole-line matching and so on.

type diffCase struct {
	name  string
	check string
	input string
	args  []string
	stdin bool // feed the input on stdin instead of --input-file
}

type tokenKind int

const (
	tokWord tokenKind = iota
	tokSSA
	tokNumber
	tokHex
	tokPunct
)

type token struct {
	kind tokenKind
	text string
	num  int // value of numbers and hex numbers
}

type inputLine struct {
	tokens []token
	seps   []string // separator before each token after the first
	indent string
	text   string
}

type generator struct {
	r *rand.Rand
}

var opNames = []string{"arith.addi", "arith.muli", "arith.constant", "func.return", "tensor.empty", "scf.yield", "test.op", "memref.load"}
var typeNames = []string{"i32", "i64", "f32", "index", "tensor<4x8xf32>", "memref<?xi8>"}
var funcNames = []string{"@main", "@foo", "@bar_1", "@baz.qux", "@Kernel"}

func (g *generator) pick(list []string) string { return list[g.r.IntN(len(list))] }

func (g *generator) sep() string {
	switch g.r.IntN(12) {
	case 0:
		return "  "
	case 1:
		return "\t"
	case 2:
		return " \t "
	}
	return " "
}

func (g *generator) lineOf(indent string, toks ...token) inputLine {
	l := inputLine{tokens: toks, indent: indent}
	var sb strings.Builder
	sb.WriteString(indent)
	for i, t := range toks {
		if i > 0 {
			s := g.sep()
			if t.kind == tokPunct && (t.text == "," || t.text == ")" || t.text == ":") && g.r.IntN(2) == 0 {
				s = ""
			}
			l.seps = append(l.seps, s)
			sb.WriteString(s)
		}
		sb.WriteString(t.text)
	}
	l.text = sb.String()
	return l
}

func word(s string) token  { return token{kind: tokWord, text: s} }
func punct(s string) token { return token{kind: tokPunct, text: s} }
func ssa(n int) token      { return token{kind: tokSSA, text: fmt.Sprintf("%%%d", n), num: n} }
func number(n int) token   { return token{kind: tokNumber, text: fmt.Sprint(n), num: n} }
func hexnum(n int, upper bool) token {
	if upper {
		return token{kind: tokHex, text: fmt.Sprintf("0x%X", n), num: n}
	}
	return token{kind: tokHex, text: fmt.Sprintf("0x%x", n), num: n}
}

// program generates a small function-structured input.
func (g *generator) program() []inputLine {
	var lines []inputLine
	nfuncs := 1 + g.r.IntN(3)
	next := 0
	first := g.r.IntN(len(funcNames))
	for f := 0; f < nfuncs; f++ {
		fn := funcNames[(first+f)%len(funcNames)]
		lines = append(lines, g.lineOf("", word("func.func"), word(fn), punct("("), word("%arg0"), punct(":"), word(g.pick(typeNames)), punct(")"), punct("{")))
		nops := 1 + g.r.IntN(5)
		for i := 0; i < nops; i++ {
			switch g.r.IntN(7) {
			case 0:
				lines = append(lines, g.lineOf("  ", ssa(next), punct("="), word("arith.constant"), number(g.r.IntN(300)), punct(":"), word(g.pick(typeNames))))
			case 1:
				lines = append(lines, g.lineOf("  ", ssa(next), punct("="), word(g.pick(opNames)), ssa(max(0, next-1)), punct(","), ssa(max(0, next-2)), punct(":"), word(g.pick(typeNames))))
			case 2:
				lines = append(lines, g.lineOf("  ", ssa(next), punct("="), word(`"test.op"`), punct("("), ssa(max(0, next-1)), punct(")"), word("{value"), punct("="), hexnum(g.r.IntN(4096), g.r.IntN(2) == 0), punct("}")))
			case 3:
				lines = append(lines, inputLine{})
				continue
			case 4:
				lines = append(lines, g.lineOf("  ", word("//"), word("count"), number(next), word("then"), number(next+1)))
				continue
			default:
				lines = append(lines, g.lineOf("  ", ssa(next), punct("="), word(g.pick(opNames)), word("%arg0"), punct(":"), word(g.pick(typeNames))))
			}
			next++
		}
		lines = append(lines, g.lineOf("  ", word("func.return"), ssa(max(0, next-1)), punct(":"), word(g.pick(typeNames))))
		lines = append(lines, g.lineOf("", punct("}")))
	}
	return lines
}

// varState tracks the variables a check file has defined so far.
type varState struct {
	strVars map[string]string // name -> value
	numVars map[string]int
	n       int
}

func (g *generator) regexFor(t token) string {
	switch t.kind {
	case tokSSA:
		return g.pick([]string{"%[0-9]+", "%[[:digit:]]+", "%[^ ,]*", ".[0-9]*"})
	case tokNumber:
		return g.pick([]string{"[0-9]+", "[[:digit:]]+", "-?[0-9]*", "[1-9][0-9]*|0"})
	case tokHex:
		return g.pick([]string{"0x[0-9a-fA-F]+", "0x[[:xdigit:]]+", "0[xX][^ ]*"})
	case tokWord:
		return g.pick([]string{"[a-z.]+", "[^ ]+", `[[:alpha:]._"@]+`, ".*"})
	}
	return "[^ ]"
}

// render turns tokens[from:to] of a line into pattern text.
func (g *generator) render(l inputLine, from, to int, vs *varState, allowVars bool) string {
	var sb strings.Builder
	for i := from; i < to; i++ {
		if i > from {
			s := l.seps[i-1]
			if s != "" {
				// Any run of blanks; canonicalization makes them
				// equal unless --strict-whitespace.
				if g.r.IntN(4) == 0 {
					sb.WriteString(" ")
				} else {
					sb.WriteString(s)
				}
			}
		}
		t := l.tokens[i]
		choice := g.r.IntN(10)
		switch {
		case allowVars && choice == 0:
			name := fmt.Sprintf("V%d", vs.n)
			vs.n++
			if g.r.IntN(5) == 0 {
				name = "$" + name
			}
			fmt.Fprintf(&sb, "[[%s:%s]]", name, g.exactRegex(t))
			vs.strVars[name] = t.text
		case allowVars && choice == 1:
			used := false
			for name, v := range vs.strVars {
				if v == t.text {
					fmt.Fprintf(&sb, "[[%s]]", name)
					used = true
					break
				}
			}
			if !used {
				sb.WriteString(t.text)
			}
		case allowVars && choice == 2 && (t.kind == tokNumber || t.kind == tokSSA):
			prefix := ""
			if t.kind == tokSSA {
				prefix = "%"
			}
			name := fmt.Sprintf("N%d", vs.n)
			vs.n++
			fmt.Fprintf(&sb, "%s[[#%s:]]", prefix, name)
			vs.numVars[name] = t.num
		case allowVars && choice == 2 && t.kind == tokHex:
			name := fmt.Sprintf("H%d", vs.n)
			vs.n++
			if strings.ToLower(t.text) == t.text {
				fmt.Fprintf(&sb, "0x[[#%%x,%s:]]", name)
			} else {
				fmt.Fprintf(&sb, "[[#%%#X,%s:]]", name)
			}
			vs.numVars[name] = t.num
		case allowVars && choice == 3 && (t.kind == tokNumber || t.kind == tokSSA):
			prefix := ""
			if t.kind == tokSSA {
				prefix = "%"
			}
			done := false
			for name, v := range vs.numVars {
				if strings.HasPrefix(name, "H") {
					continue
				}
				switch d := t.num - v; {
				case d == 0:
					fmt.Fprintf(&sb, "%s[[#%s]]", prefix, name)
				case d > 0 && d < 5:
					fmt.Fprintf(&sb, "%s[[#%s+%d]]", prefix, name, d)
				case d < 0 && d > -5:
					fmt.Fprintf(&sb, "%s[[#%s-%d]]", prefix, name, -d)
				default:
					continue
				}
				done = true
				break
			}
			if !done {
				sb.WriteString(t.text)
			}
		case choice == 4:
			fmt.Fprintf(&sb, "{{%s}}", g.regexFor(t))
		case choice == 5 && i == to-1:
			sb.WriteString("{{.*}}")
		default:
			sb.WriteString(t.text)
		}
	}
	return sb.String()
}

// exactRegex is a regex for a variable definition that captures the token
// exactly when it stands alone.
func (g *generator) exactRegex(t token) string {
	switch t.kind {
	case tokSSA:
		return "%[0-9]+"
	case tokNumber:
		return "[0-9]+"
	case tokHex:
		return "0x[0-9a-fA-F]+"
	case tokPunct:
		return `\` + t.text
	}
	return "[^ ,:()]+"
}

// endOf returns line when a match of tokens up to to reaches its end.
func endOf(line, to int, l inputLine) int {
	if to == len(l.tokens) {
		return line
	}
	return -2
}

// mutate breaks a pattern in one of several ways.
func (g *generator) mutate(p string) string {
	if p == "" {
		return "zz"
	}
	switch g.r.IntN(6) {
	case 0:
		i := g.r.IntN(len(p))
		return p[:i] + "q" + p[i:]
	case 1:
		return p + " extra"
	case 2:
		return strings.Replace(p, "%", "#", 1)
	case 3:
		return "[[UNDEFINED]] " + p
	case 4:
		return strings.ToUpper(p)
	}
	return p + "{{[0-9]}}"
}

var mutatePercent = 30

var prefixSets = [][]string{{"CHECK"}, {"CHECK"}, {"CHECK"}, {"FOO"}, {"A", "B"}}

// randomCase builds a case from a generated program.
func (g *generator) randomCase(i int) diffCase {
	lines := g.program()
	var input strings.Builder
	for _, l := range lines {
		input.WriteString(l.text)
		input.WriteByte('\n')
	}
	var args []string
	flag := func(p int, a ...string) bool {
		if g.r.IntN(100) < p {
			args = append(args, a...)
			return true
		}
		return false
	}
	strict := flag(10, "--strict-whitespace")
	fullLines := flag(12, "--match-full-lines")
	ignoreCase := flag(10, "--ignore-case")
	varScope := flag(20, "--enable-var-scope")
	flag(8, "--implicit-check-not=arith.muli")
	flag(5, "--implicit-check-not", "{{test.[a-z]+}}")
	flag(10, "--dump-input=always")
	flag(5, "--dump-input=never")
	flag(5, "-v")
	prefixes := prefixSets[g.r.IntN(len(prefixSets))]
	switch {
	case len(prefixes) == 2:
		args = append(args, "--check-prefixes="+strings.Join(prefixes, ","))
		flag(30, "--allow-unused-prefixes")
	case prefixes[0] != "CHECK":
		args = append(args, "--check-prefix", prefixes[0])
	}
	if g.r.IntN(10) == 0 {
		args = append(args, "--comment-prefixes=NOTE,RUN")
	}
	vs := &varState{strVars: map[string]string{}, numVars: map[string]int{}}
	if g.r.IntN(8) == 0 {
		args = append(args, "-DFUNC=func.func", "-D#BASE=0")
		vs.strVars["FUNC"] = "func.func"
		vs.numVars["BASE"] = 0
	}

	var check strings.Builder
	check.WriteString("// RUN: filecheck %s\n")
	emit := func(directive, pattern string) {
		prefix := prefixes[g.r.IntN(len(prefixes))]
		lead := "// "
		if g.r.IntN(6) == 0 {
			lead = "; "
		}
		fmt.Fprintf(&check, "%s%s%s: %s\n", lead, prefix, directive, pattern)
	}
	mutated := g.r.IntN(100) < mutatePercent
	mutateAt := g.r.IntN(max(1, len(lines)))
	// lastChecked is the line of the last positive match, when that match
	// ran to the end of its line so that CHECK-NEXT can follow it.
	lastChecked := -2
	var pendingDag []string
	for li, l := range lines {
		if len(l.tokens) == 0 {
			if lastChecked == li-1 && g.r.IntN(2) == 0 {
				emit("-EMPTY", "")
				lastChecked = li
			}
			continue
		}
		from := g.r.IntN(len(l.tokens))
		to := from + 1 + g.r.IntN(len(l.tokens)-from)
		if g.r.IntN(2) == 0 {
			to = len(l.tokens)
		}
		if fullLines && !strict {
			from, to = 0, len(l.tokens)
		}
		allowVars := l.tokens[0].text != "func.func"
		pat := g.render(l, from, to, vs, allowVars)
		if fullLines && strict {
			from, to = 0, len(l.tokens)
			pat = l.text
		}
		if ignoreCase && g.r.IntN(3) == 0 && !strings.Contains(pat, "{{") && !strings.Contains(pat, "[[") {
			pat = strings.ToUpper(pat)
		}
		if mutated && li == mutateAt {
			pat = g.mutate(pat)
		}
		switch k := g.r.IntN(20); {
		case l.tokens[0].text == "func.func" && k < 12:
			if !fullLines {
				// Labels must be unique in the input: use the name.
				pat = l.tokens[1].text
			}
			emit("-LABEL", pat)
			lastChecked = li
			if varScope {
				for n := range vs.strVars {
					if !strings.HasPrefix(n, "$") {
						delete(vs.strVars, n)
					}
				}
				for n := range vs.numVars {
					delete(vs.numVars, n)
				}
			}
		case k < 3:
			// skip this line
		case k < 5:
			pendingDag = append(pendingDag, pat)
			if len(pendingDag) > 1 || g.r.IntN(2) == 0 {
				g.r.Shuffle(len(pendingDag), func(i, j int) { pendingDag[i], pendingDag[j] = pendingDag[j], pendingDag[i] })
				for _, p := range pendingDag {
					emit("-DAG", p)
				}
				pendingDag = nil
			}
			lastChecked = -2
		case k < 6:
			not := g.pick([]string{"error", "arith.subi", "{{warn(ing)?}}", "scf.yield", "{{[0-9]+}}"})
			emit("-NOT", not)
		case k < 10 && lastChecked == li-1:
			emit("-NEXT", pat)
			lastChecked = endOf(li, to, l)
		case k < 12 && to < len(l.tokens) && lastChecked != li:
			emit("", pat)
			rest := g.render(l, to, len(l.tokens), vs, true)
			if rest != "" {
				emit("-SAME", rest)
			}
			lastChecked = li
		case k == 12:
			emit("{LITERAL}", strings.NewReplacer("{{", "{", "}}", "}").Replace(l.tokens[from].text))
			lastChecked = endOf(li, from+1, l)
		case k == 13 && li+1 < len(lines) && lines[li+1].text == l.text:
			emit("-COUNT-2", pat)
			lastChecked = li + 1
		default:
			emit("", pat)
			lastChecked = endOf(li, to, l)
		}
	}
	for _, p := range pendingDag {
		emit("-DAG", p)
	}
	if g.r.IntN(6) == 0 {
		check.WriteString("// COM: CHECK: not a directive\n")
	}
	c := diffCase{name: fmt.Sprintf("random%03d", i), check: check.String(), input: input.String(), args: args}
	c.stdin = g.r.IntN(4) == 0
	return c
}

// regexAtom returns a random piece of Spencer ERE over a small alphabet.
func (g *generator) regexAtom(depth int, groups *int) string {
	switch k := g.r.IntN(16); {
	case k < 5:
		return string("abc "[g.r.IntN(4)])
	case k == 5:
		return "."
	case k == 6:
		return g.pick([]string{"[ab]", "[^a]", "[a-c]", "[[:alpha:]]", "[[:space:]]", "[]a]", "[^]b]", "[a-]", `[\]`, "[[.a.]]", "[[=b=]]",
			"[^[:space:]]", "[[:upper:]]", "[[:word:]]", "[[.space.]]", "[a-[.c.]]", "[é]", "é", "[^ab]"})
	case k == 7:
		return g.pick([]string{"^", "$", `\d`, `\.`, "{", "[[:<:]]", "[[:>:]]"})
	case k == 8 && *groups > 0:
		return fmt.Sprintf(`\%d`, 1+g.r.IntN(*groups))
	case k < 12 && depth < 3:
		inner := g.regex(depth+1, groups)
		*groups++
		return "(" + inner + ")"
	case k < 14 && depth < 3:
		return g.regex(depth+1, groups) + "|" + g.regex(depth+1, groups)
	}
	return string("ab"[g.r.IntN(2)])
}

func (g *generator) regex(depth int, groups *int) string {
	var sb strings.Builder
	n := 1 + g.r.IntN(3)
	for i := 0; i < n; i++ {
		sb.WriteString(g.regexAtom(depth, groups))
		if g.r.IntN(3) == 0 {
			sb.WriteString(g.pick([]string{"*", "+", "?", "{2}", "{1,2}", "{0,}", "{,1}", "**"}))
		}
	}
	return sb.String()
}

// regexCase checks one random expression against a random text; -v and
// --dump-input=always make FileCheck show the exact span it matched.
func (g *generator) regexCase(i int) diffCase {
	groups := 0
	re := g.regex(0, &groups)
	var in strings.Builder
	for n := 3 + g.r.IntN(12); n > 0; n-- {
		if g.r.IntN(20) == 0 {
			in.WriteString(g.pick([]string{"é", "A", "B", "_", "\t"}))
			continue
		}
		in.WriteByte("aabbc \n"[g.r.IntN(7)])
	}
	in.WriteByte('\n')
	check := "CHECK: {{" + re + "}}\n"
	if g.r.IntN(3) == 0 {
		check = "CHECK: [[V:" + re + "]]\nCHECK: [[V]]\n"
	}
	args := []string{"-v", "--dump-input=always"}
	if g.r.IntN(5) == 0 {
		args = append(args, "--ignore-case")
	}
	return diffCase{name: fmt.Sprintf("regex%03d", i), check: check, input: in.String(), args: args}
}
