package optmain

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/tools/toolkit"
)

// expectation is one `// expected-<severity>[-re][@loc] {{message}}` comment.
type expectation struct {
	severity ir.Severity
	line     int    // line the diagnostic must be on; 0 with unknown for @unknown
	unknown  bool   // @unknown: the diagnostic has no file location
	text     string // the message substring (or the regex source with -re)
	re       *regexp.Regexp
	// where the comment is, for "was not produced" reports
	commentLine, commentCol int
	matched                 bool
}

// expectedRE is MLIR's spelling of a directive: spaces may stand before
// the `@` and before the `{{`, and the message runs to the last `}}` of the
// line (mlir/lib/IR/Diagnostics.cpp).
var expectedRE = regexp.MustCompile(`expected-(error|warning|remark|note)(-re)? *(@[^ \t{]*)? *\{\{`)

// directiveRE finds what is meant as a directive: the keyword followed by
// a location or a brace. Text that says "expected-error" in prose is left
// alone; a directive that expectedRE does not read is an error, where
// mlir-opt skips it silently and a test that expects an error would pass
// without it.
var directiveRE = regexp.MustCompile(`expected-(error|warning|remark|note)(-re)?[ \t]*[@{]`)

// parseExpectations scans src (whose first line is line firstLine) for
// expected-* comments. Malformed ones are reported as diagnostics.
func parseExpectations(file string, src string, firstLine int, ctx *ir.Context) ([]*expectation, []*ir.Diagnostic) {
	var exps []*expectation
	var errs []*ir.Diagnostic
	lines := strings.Split(src, "\n")
	// @above/@below attach to the previous/next line that is not itself
	// only an expected-* comment.
	for i, l := range lines {
		found := expectedRE.FindAllStringSubmatchIndex(l, -1)
		for _, d := range directiveRE.FindAllStringIndex(l, -1) {
			if !slices.ContainsFunc(found, func(m []int) bool { return m[0] == d[0] }) {
				loc := ctx.FileLineCol(file, firstLine+i, d[0]+1)
				errs = append(errs, ir.Errorf(loc, "malformed expected-* directive: write `expected-<severity>[-re] [@+N|@-N|@above|@below|@unknown] {{message}}`"))
			}
		}
		for _, m := range found {
			lineNo := firstLine + i
			col := m[0] + 1
			loc := ctx.FileLineCol(file, lineNo, col)
			bodyStart := m[1]
			end := strings.LastIndex(l, "}}")
			if end < bodyStart {
				errs = append(errs, ir.Errorf(loc, "found start of regex with no end '}}'"))
				continue
			}
			e := &expectation{text: l[bodyStart:end], commentLine: lineNo, commentCol: col}
			e.severity = map[string]ir.Severity{"error": ir.SeverityError, "warning": ir.SeverityWarning,
				"remark": ir.SeverityRemark, "note": ir.SeverityNote}[l[m[2]:m[3]]]
			if m[4] >= 0 {
				re, err := compileExpectedRegex(e.text)
				if err != nil {
					errs = append(errs, ir.Errorf(loc, "invalid regex: %v", err))
					continue
				}
				e.re = re
			}
			e.line = lineNo
			if m[6] >= 0 {
				spec := l[m[6]+1 : m[7]]
				switch {
				case spec == "unknown":
					e.unknown, e.line = true, 0
				case spec == "above":
					e.line = neighbourLine(lines, i, -1) + firstLine
				case spec == "below":
					e.line = neighbourLine(lines, i, +1) + firstLine
				case strings.HasPrefix(spec, "+") || strings.HasPrefix(spec, "-"):
					n, err := strconv.Atoi(spec)
					if err != nil || len(spec) < 2 || spec[1] < '0' || spec[1] > '9' {
						errs = append(errs, ir.Errorf(loc, "expected valid line offset in '@%s'", spec))
						continue
					}
					e.line = lineNo + n
				default:
					errs = append(errs, ir.Errorf(loc, "expected '@above', '@below', '@unknown' or '@+N'/'@-N' line offset, found '@%s'", spec))
					continue
				}
			}
			exps = append(exps, e)
		}
	}
	return exps, errs
}

// neighbourLine finds the nearest line in direction dir that is not only an
// expected-* comment; it returns an index into lines.
func neighbourLine(lines []string, i, dir int) int {
	for j := i + dir; j >= 0 && j < len(lines); j += dir {
		t := strings.TrimSpace(lines[j])
		if !(strings.HasPrefix(t, "//") && expectedRE.MatchString(t)) {
			return j
		}
	}
	return i + dir
}

// compileExpectedRegex turns an -re body into a regexp: text outside
// `{{...}}` is literal, text inside is a regex, as in MLIR.
func compileExpectedRegex(body string) (*regexp.Regexp, error) {
	var b strings.Builder
	for body != "" {
		i := strings.Index(body, "{{")
		if i < 0 {
			b.WriteString(regexp.QuoteMeta(body))
			break
		}
		b.WriteString(regexp.QuoteMeta(body[:i]))
		body = body[i+2:]
		j := strings.Index(body, "}}")
		if j < 0 {
			return nil, fmt.Errorf("found start of regex with no end '}}'")
		}
		b.WriteString("(?:" + body[:j] + ")")
		body = body[j+2:]
	}
	return regexp.Compile(b.String())
}

func (e *expectation) matches(d *ir.Diagnostic) bool {
	if d.Severity != e.severity {
		return false
	}
	if e.unknown {
		if _, ok := ir.FileLineColOf(d.Loc); ok {
			return false
		}
	} else {
		f, ok := ir.FileLineColOf(d.Loc)
		if !ok || f.Line != e.line {
			return false
		}
	}
	if e.re != nil {
		return e.re.MatchString(d.Message)
	}
	return strings.Contains(d.Message, e.text)
}

// checkExpectations matches diagnostics (notes flattened after their
// parents) against expectations and returns the failures to report.
func checkExpectations(ctx *ir.Context, file string, exps []*expectation, got []*ir.Diagnostic) []*ir.Diagnostic {
	var all []*ir.Diagnostic
	for _, d := range got {
		all = append(all, d)
		all = append(all, d.Notes...)
	}
	var failures []*ir.Diagnostic
	for _, d := range all {
		found := false
		for _, e := range exps {
			if !e.matched && e.matches(d) {
				e.matched, found = true, true
				break
			}
		}
		if !found {
			failures = append(failures, &ir.Diagnostic{Severity: ir.SeverityError, Loc: d.Loc,
				Message: fmt.Sprintf("unexpected %s: %s", d.Severity, d.Message)})
		}
	}
	for _, e := range exps {
		if !e.matched {
			failures = append(failures, ir.Errorf(ctx.FileLineCol(file, e.commentLine, e.commentCol),
				"expected %s \"%s\" was not produced", e.severity, e.text))
		}
	}
	sort.SliceStable(failures, func(i, j int) bool {
		a, _ := ir.FileLineColOf(failures[i].Loc)
		b, _ := ir.FileLineColOf(failures[j].Loc)
		if a == nil || b == nil {
			return a == nil && b != nil
		}
		return a.Line < b.Line || (a.Line == b.Line && a.Col < b.Col)
	})
	return failures
}

// CheckDiagnostics parses and verifies src, the text of file, as the opt
// driver does with --verify-diagnostics and no pipeline (split at marker,
// when not empty): each chunk's diagnostics against its expected-* lines.
// It returns the failures, unexpected diagnostics and expectations not
// met, as the driver reports them (for a language server).
func CheckDiagnostics(loader *toolkit.Loader, file string, src []byte, marker string) []*ir.Diagnostic {
	var failures []*ir.Diagnostic
	for _, c := range splitInput(src, marker) {
		ctx, err := loader.NewContext()
		if err != nil {
			return []*ir.Diagnostic{ir.AsDiagnostic(err, nil)}
		}
		var diags []*ir.Diagnostic
		ctx.SetDiagnosticHandler(func(d *ir.Diagnostic) { diags = append(diags, d) })
		if _, _, err := loader.Parse(ctx, toolkit.Chunk{File: file, Source: c.text, FirstLine: c.firstLine, FirstColumn: c.firstCol}); err != nil {
			emitError(ctx, err)
		}
		exps, bad := parseExpectations(file, string(c.text), c.firstLine, ctx)
		failures = append(failures, bad...)
		failures = append(failures, checkExpectations(ctx, file, exps, diags)...)
	}
	return failures
}
