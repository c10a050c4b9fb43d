package filecheck

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
)

// checkString is one positive directive with the CHECK-DAG and CHECK-NOT
// directives that precede it (FileCheckString).
type checkString struct {
	pat    *pattern
	prefix string
	loc    location
	dagNot []dagNotEntry
}

type dagNotEntry struct {
	pat    *pattern
	prefix string
}

var defaultCheckPrefixes = []string{"CHECK"}
var defaultCommentPrefixes = []string{"COM", "RUN"}

var validPrefix = regexp.MustCompile(`^[a-zA-Z0-9_-]*$`)

// validatePrefixes checks user-supplied prefixes, printing FileCheck's
// error and returning false when one is empty, malformed or duplicated.
func validatePrefixes(w io.Writer, opts *Options) bool {
	unique := map[string]bool{}
	if len(opts.CheckPrefixes) == 0 {
		for _, p := range defaultCheckPrefixes {
			unique[p] = true
		}
	}
	if len(opts.CommentPrefixes) == 0 {
		for _, p := range defaultCommentPrefixes {
			unique[p] = true
		}
	}
	check := func(kind string, prefixes []string) bool {
		for _, p := range prefixes {
			if p == "" {
				fmt.Fprintf(w, "error: supplied %s prefix must not be the empty string\n", kind)
				return false
			}
			if !validPrefix.MatchString(p) {
				fmt.Fprintf(w, "error: supplied %s prefix must start with a letter and contain only "+
					"alphanumeric characters, hyphens, and underscores: '%s'\n", kind, p)
				return false
			}
			if unique[p] {
				fmt.Fprintf(w, "error: supplied %s prefix must be unique among check and comment prefixes: '%s'\n", kind, p)
				return false
			}
			unique[p] = true
		}
		return true
	}
	return check("check", opts.CheckPrefixes) && check("comment", opts.CommentPrefixes)
}

// checkFile is a parsed check file.
type checkFile struct {
	ctx      *context
	strings  []*checkString
	implicit []*sourceBuffer // buffers of --implicit-check-not patterns
}

// prefixMatcher finds the next occurrence of any prefix, preferring the
// longest at equal positions.
type prefixMatcher struct {
	text     []byte
	prefixes []string
	next     []int
}

func newPrefixMatcher(text []byte, prefixes []string) *prefixMatcher {
	sorted := append([]string{}, prefixes...)
	sort.SliceStable(sorted, func(i, j int) bool { return len(sorted[i]) > len(sorted[j]) })
	m := &prefixMatcher{text: text, prefixes: sorted, next: make([]int, len(sorted))}
	for i, p := range sorted {
		m.next[i] = bytes.Index(text, []byte(p))
	}
	return m
}

// match returns the offset and prefix of the first occurrence at or after
// from, or -1.
func (m *prefixMatcher) match(from int) (int, string) {
	best, bestPrefix := -1, ""
	for i, p := range m.prefixes {
		if m.next[i] >= 0 && m.next[i] < from {
			if j := bytes.Index(m.text[from:], []byte(p)); j >= 0 {
				m.next[i] = from + j
			} else {
				m.next[i] = -1
			}
		}
		if m.next[i] >= 0 && (best < 0 || m.next[i] < best) {
			best, bestPrefix = m.next[i], p
		}
	}
	return best, bestPrefix
}

// readCheckFile parses the directives of buf, printing errors to w. It
// returns nil when the check file is unusable; exitOne then reports the
// error FileCheck signals with status 1.
func readCheckFile(w io.Writer, buf *sourceBuffer, opts *Options) (cf *checkFile, exitOne bool) {
	ctx := newContext()
	if !defineCmdlineVariables(w, ctx, opts.Defines) {
		return nil, false
	}
	ctx.createLineVariable()
	cf = &checkFile{ctx: ctx}

	var implicitNots []dagNotEntry
	for _, text := range opts.ImplicitCheckNot {
		const before = "-implicit-check-not='"
		b := newSourceBuffer("command line", []byte(before+text+"'"))
		cf.implicit = append(cf.implicit, b)
		p := newPattern(ctx, checkType{kind: checkNot, count: 1}, 0, false)
		// FileCheck ignores a failure here after printing it; the broken
		// pattern then never matches.
		if f := p.parse(w, ref{b, len(before), len(before) + len(text)}, "IMPLICIT-CHECK", opts); f != nil {
			p.broken = true
		}
		implicitNots = append(implicitNots, dagNotEntry{pat: p, prefix: "IMPLICIT-CHECK"})
	}
	dagNots := append([]dagNotEntry{}, implicitNots...)

	checkPrefixes := opts.CheckPrefixes
	isDefaultPrefix := false
	if len(checkPrefixes) == 0 {
		checkPrefixes = defaultCheckPrefixes
		isDefaultPrefix = true
	}
	commentPrefixes := opts.CommentPrefixes
	if len(commentPrefixes) == 0 {
		commentPrefixes = defaultCommentPrefixes
	}
	isComment := map[string]bool{}
	for _, p := range commentPrefixes {
		isComment[p] = true
	}
	notFound := map[string]bool{}
	for _, p := range checkPrefixes {
		notFound[p] = true
	}
	distinct := len(notFound)

	text := buf.text
	matcher := newPrefixMatcher(text, append(append([]string{}, checkPrefixes...), commentPrefixes...))
	lineNumber := 1
	pos := 0
	for {
		prefixAt, prefix, typ, after := findFirstMatchingPrefix(text, matcher, &pos, &lineNumber, isComment)
		if prefixAt < 0 {
			break
		}
		if typ.kind != checkComment {
			delete(notFound, prefix)
		}
		// FileCheck treats an empty rest after the suffix (the directive
		// ends the file) as if there were no suffix at all.
		if after < 0 || after >= len(text) {
			pos = prefixAt + len(prefix)
		} else {
			pos = after
		}
		switch typ.kind {
		case checkMisspelled:
			printMessage(w, location{buf, prefixAt}, kindError,
				"misspelled directive '"+string(text[prefixAt:after])+"'")
			return nil, false
		case checkBadNot:
			printMessage(w, location{buf, pos}, kindError, "unsupported -NOT combo on prefix '"+prefix+"'")
			return nil, false
		case checkBadCount:
			printMessage(w, location{buf, pos}, kindError, "invalid count in -COUNT specification on prefix '"+prefix+"'")
			return nil, false
		}
		if !(opts.StrictWhitespace && opts.MatchFullLines) {
			for pos < len(text) && (text[pos] == ' ' || text[pos] == '\t') {
				pos++
			}
		}
		eol := pos
		for eol < len(text) && text[eol] != '\n' && text[eol] != '\r' {
			eol++
		}
		patternLoc := location{buf, pos}
		patternText := ref{buf, pos, eol}
		pos = eol
		if typ.kind == checkComment {
			continue
		}
		p := newPattern(ctx, typ, lineNumber, true)
		if f := p.parse(w, patternText, prefix, opts); f != nil {
			return nil, f.exitOne
		}
		if typ.kind == checkLabel && p.hasVariable() {
			printMessage(w, location{buf, prefixAt}, kindError,
				"found '"+prefix+"-LABEL:' with variable definition or use")
			return nil, false
		}
		if (typ.kind == checkNext || typ.kind == checkSame || typ.kind == checkEmpty) && len(cf.strings) == 0 {
			name := map[checkKind]string{checkNext: "NEXT", checkSame: "SAME", checkEmpty: "EMPTY"}[typ.kind]
			printMessage(w, location{buf, prefixAt}, kindError,
				"found '"+prefix+"-"+name+"' without previous '"+prefix+": line")
			return nil, false
		}
		if typ.kind == checkDAG || typ.kind == checkNot {
			dagNots = append(dagNots, dagNotEntry{pat: p, prefix: prefix})
			continue
		}
		cf.strings = append(cf.strings, &checkString{pat: p, prefix: prefix, loc: patternLoc, dagNot: dagNots})
		dagNots = append([]dagNotEntry{}, implicitNots...)
	}

	noPrefixFound := len(notFound) == distinct
	unused := !opts.AllowUnusedPrefixes && len(notFound) > 0
	if (noPrefixFound || unused) && (len(implicitNots) == 0 || !isDefaultPrefix) {
		var names []string
		for p := range notFound {
			names = append(names, p)
		}
		sort.Strings(names)
		var missing []string
		for _, p := range names {
			missing = append(missing, "'"+p+":'")
		}
		plural := " "
		if len(notFound) > 1 {
			plural = "es "
		}
		fmt.Fprintf(w, "error: no check strings found with prefix%s%s\n", plural, strings.Join(missing, ", "))
		return nil, false
	}
	if len(dagNots) > 0 {
		eof := newPattern(ctx, checkType{kind: checkEOF, count: 1}, lineNumber+1, true)
		cf.strings = append(cf.strings, &checkString{pat: eof, prefix: checkPrefixes[0],
			loc: location{buf, pos}, dagNot: dagNots})
	}
	return cf, false
}

// findFirstMatchingPrefix finds the next directive at or after *pos. A
// prefix inside a longer word (XCHECK:) or without a valid suffix is
// skipped. It returns the prefix offset (-1 when none), the prefix, the
// directive type and the offset after its suffix.
func findFirstMatchingPrefix(text []byte, m *prefixMatcher, pos, lineNumber *int, isComment map[string]bool) (int, string, checkType, int) {
	for *pos < len(text) {
		at, prefix := m.match(*pos)
		if at < 0 {
			return -1, "", checkType{}, -1
		}
		skipped := text[*pos:at]
		*lineNumber += bytes.Count(skipped, []byte{'\n'})
		*pos = at
		if len(skipped) == 0 || !isPartOfWord(skipped[len(skipped)-1]) {
			typ, after := findCheckType(text, at, prefix, isComment[prefix])
			if typ.kind != checkNone {
				return at, prefix, typ, after
			}
		}
		end := at + len(prefix)
		for end < len(text) && isPartOfWord(text[end]) {
			end++
		}
		*pos = end
	}
	return -1, "", checkType{}, -1
}
