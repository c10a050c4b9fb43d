package main

import (
	"fmt"
	"regexp"
	"strings"
)

// The generator follows MLIR's generate-test-checks.py: one CHECK line per
// output line, CHECK-LABEL (with a CHECK-SAME per argument) for each
// top-level operation, SSA names replaced by FileCheck variables scoped by
// the regions they are defined in, and attribute aliases captured as
// global variables. Captures match exactly one SSA name, so that several
// on a line cannot swallow each other.

// ssaName matches an SSA value name after its '%'.
var ssaName = regexp.MustCompile(`^([0-9]+|[a-zA-Z$._-][a-zA-Z0-9$._-]*)`)

// ssaResults matches the results of an operation, "%a, %b:2 =".
var ssaResults = regexp.MustCompile(`^\s*(%([0-9]+|[a-zA-Z$._-][a-zA-Z0-9$._-]*)(:[0-9]+)?)(\s*,\s*%([0-9]+|[a-zA-Z$._-][a-zA-Z0-9$._-]*)(:[0-9]+)?)*\s*=`)

var attrAlias = regexp.MustCompile(`#[a-zA-Z._-][a-zA-Z0-9._-]*`)
var attrDefinition = regexp.MustCompile(`^\s*(#[a-zA-Z._-][a-zA-Z0-9._-]*)\s*=`)

// captureRegex is what a variable definition matches: one SSA name, with
// its '%'.
const captureRegex = `%[-a-zA-Z0-9$._]+`

type options struct {
	prefix          string
	startsFromScope int
	variableNames   []string // chosen names for the first variables, "" for default
	attributeNames  []string
}

type generator struct {
	opts       options
	scopes     []map[string]string // SSA name -> variable, innermost last
	counter    int
	used       map[string]bool
	inParent   int // results of the current op, named in the enclosing scope
	attrs      map[string]string
	attrCount  int
	segments   [][]string
	attrChecks []string
}

func newGenerator(opts options) *generator {
	return &generator{opts: opts, used: map[string]bool{}, attrs: map[string]string{}, segments: [][]string{nil}}
}

// generate turns tool output into CHECK segments: segment 0 holds what
// comes before the first top-level operation, then one per operation.
func (g *generator) generate(output string) ([][]string, error) {
	for _, line := range strings.Split(output, "\n") {
		line = strings.TrimRight(line, " \t\r")
		if line == "" || strings.HasPrefix(line, "// -----") {
			continue
		}
		if err := g.line(line); err != nil {
			return nil, err
		}
	}
	return g.segments, nil
}

func (g *generator) line(line string) error {
	if m := attrDefinition.FindStringSubmatch(line); m != nil {
		name, err := g.attributeName(m[1])
		if err != nil {
			return err
		}
		g.emit(fmt.Sprintf("// %s: #[[%s:.+]] =%s", g.opts.prefix, name, line[len(m[0]):]))
		return nil
	}
	trimmed := strings.TrimLeft(line, " \t")
	if trimmed[0] == '^' {
		// Block labels carry a "// pred: ..." comment.
		if i := strings.LastIndex(line, "//"); i >= 0 {
			line = strings.TrimRight(line[:i], " \t")
		}
	}
	level := len(g.scopes)
	if trimmed[0] == '}' && len(g.scopes) > 0 {
		g.scopes = g.scopes[:len(g.scopes)-1]
		level = len(g.scopes)
	}
	if strings.HasSuffix(line, "{") {
		g.scopes = append(g.scopes, map[string]string{})
		if level == g.opts.startsFromScope {
			g.segments = append(g.segments, nil)
		}
		if m := ssaResults.FindString(line); m != "" {
			g.inParent = strings.Count(m, "%")
		}
	}
	if level < g.opts.startsFromScope {
		return nil
	}
	if len(g.segments[len(g.segments)-1]) == 0 {
		g.counter = 0
		g.used = map[string]bool{}
	}
	line = g.attributeUses(escapeForFileCheck(line))
	chunks := strings.Split(line, "%")
	seg := &g.segments[len(g.segments)-1]
	if len(*seg) != 0 || chunks[0] == "" {
		rest, err := g.replaceNames(chunks[1:], false)
		if err != nil {
			return err
		}
		*seg = append(*seg, strings.TrimRight(fmt.Sprintf("// %s:       %s%s", g.opts.prefix, chunks[0], rest), " "))
		return nil
	}
	// A top-level operation: label its head, then one CHECK-SAME per
	// argument, named after the arguments.
	*seg = append(*seg, fmt.Sprintf("// %s-LABEL: %s", g.opts.prefix, strings.TrimRight(chunks[0], " ")))
	pad := len(chunks[0])
	if pad > 20 {
		pad = 4
	}
	for _, arg := range chunks[1:] {
		rest, err := g.replaceNames([]string{arg}, true)
		if err != nil {
			return err
		}
		*seg = append(*seg, strings.TrimRight(fmt.Sprintf("// %s-SAME:  %s%s", g.opts.prefix, strings.Repeat(" ", pad), rest), " "))
	}
	return nil
}

func (g *generator) emit(s string) {
	seg := &g.segments[len(g.segments)-1]
	*seg = append(*seg, s)
}

// replaceNames rebuilds chunks that each followed a '%', replacing SSA
// names by variable uses or definitions.
func (g *generator) replaceNames(chunks []string, useSSANames bool) (string, error) {
	var sb strings.Builder
	for _, chunk := range chunks {
		name := ssaName.FindString(chunk)
		if name == "" {
			// A '%' that starts no SSA name, e.g. inside a string.
			sb.WriteString("%" + chunk)
			continue
		}
		if v := g.lookup(name); v != "" {
			fmt.Fprintf(&sb, "[[%s]]", v)
		} else {
			v, err := g.newVariable(name, useSSANames)
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&sb, "[[%s:%s]]", v, captureRegex)
		}
		sb.WriteString(chunk[len(name):])
	}
	return sb.String(), nil
}

func (g *generator) lookup(name string) string {
	for i := len(g.scopes) - 1; i >= 0; i-- {
		if v, ok := g.scopes[i][name]; ok {
			return v
		}
	}
	return ""
}

func (g *generator) newVariable(name string, useSSAName bool) (string, error) {
	v := ""
	if len(g.opts.variableNames) > 0 {
		v = strings.ToUpper(g.opts.variableNames[0])
		g.opts.variableNames = g.opts.variableNames[1:]
	}
	if v == "" {
		if useSSAName && isLetter(name[0]) {
			v = strings.ToUpper(strings.NewReplacer(".", "_", "-", "_", "$", "_").Replace(name))
		} else {
			v = fmt.Sprintf("VAL%d", g.counter)
			g.counter++
		}
	}
	if g.used[v] {
		return "", fmt.Errorf("%s: duplicate variable name", v)
	}
	g.used[v] = true
	scope := len(g.scopes) - 1
	if g.inParent > 0 {
		g.inParent--
		scope--
	}
	if scope < 0 {
		g.scopes = append([]map[string]string{{}}, g.scopes...)
		scope = 0
	}
	g.scopes[scope][name] = v
	return v, nil
}

func (g *generator) attributeName(alias string) (string, error) {
	v := ""
	if len(g.opts.attributeNames) > 0 {
		v = strings.ToUpper(g.opts.attributeNames[0])
		g.opts.attributeNames = g.opts.attributeNames[1:]
	}
	if v == "" {
		v = fmt.Sprintf("ATTR%d", g.attrCount)
		g.attrCount++
	}
	v = "$" + v
	for _, existing := range g.attrs {
		if existing == v {
			return "", fmt.Errorf("%s: duplicate attribute name", v)
		}
	}
	g.attrs[alias] = v
	return v, nil
}

// attributeUses replaces references to captured attribute aliases.
func (g *generator) attributeUses(line string) string {
	return attrAlias.ReplaceAllStringFunc(line, func(a string) string {
		if v, ok := g.attrs[a]; ok {
			return "#[[" + v + "]]"
		}
		return a
	})
}

// escapeForFileCheck hides the text FileCheck would read as regex or
// variable blocks.
func escapeForFileCheck(line string) string {
	line = strings.ReplaceAll(line, "{{", `{{\{\{}}`)
	line = strings.ReplaceAll(line, "[[", `{{\[\[}}`)
	return strings.ReplaceAll(line, "[%", `{{\[}}%`)
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
