package filecheck

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// This file renders --dump-input: the input with each line numbered and the
// diagnostics drawn under the lines they concern, as FileCheck 19 prints it.

type marker struct {
	lead           byte
	note           string
	filtersAsError bool
}

func markerFor(mt matchType) marker {
	switch mt {
	case matchFoundAndExpected:
		return marker{lead: '^'}
	case matchFoundButExcluded:
		return marker{'!', "error: no match expected", true}
	case matchFoundButWrongLine:
		return marker{'!', "error: match on wrong line", true}
	case matchFoundButDiscarded:
		return marker{'!', "discard: overlaps earlier match", false}
	case matchFoundErrorNote:
		return marker{'!', "error: unknown error after match", true}
	case matchNoneAndExcluded:
		return marker{lead: 'X'}
	case matchNoneButExpected:
		return marker{'X', "error: no match found", true}
	case matchNoneForInvalidPattern:
		return marker{'X', "error: match failed for invalid pattern", true}
	case matchFuzzy:
		return marker{'?', "possible intended match", true}
	}
	return marker{}
}

type annotation struct {
	diagIndex      int
	label          string
	firstLine      bool
	inputLine      int
	startCol       int
	endCol         int // math.MaxInt: to the end of the line
	marker         marker
	foundAndExpect bool
}

// buildAnnotations turns diagnostics into per-line annotations labelled
// "check:12", or "check:12'0" when a directive has several.
func buildAnnotations(diags []diag, checkBuf *sourceBuffer, implicit []*sourceBuffer) ([]annotation, int) {
	countPer := map[location]int{}
	for _, d := range diags {
		countPer[d.checkLoc]++
	}
	indexPer := map[location]int{}
	var out []annotation
	labelWidth := 0
	for i, d := range diags {
		a := annotation{diagIndex: i}
		label := d.checkType.abbreviation() + ":"
		if d.checkLoc.buf == checkBuf {
			line, _ := checkBuf.lineCol(d.checkLoc.off)
			label += itoa(line)
		} else {
			for k, b := range implicit {
				if d.checkLoc.buf == b {
					label += "imp" + itoa(k+1)
				}
			}
		}
		if countPer[d.checkLoc] > 1 {
			label += "'" + itoa(indexPer[d.checkLoc])
			indexPer[d.checkLoc]++
		}
		a.label = label
		labelWidth = max(labelWidth, len(label))
		a.marker = markerFor(d.matchType)
		if d.note != "" {
			a.marker.note = d.note
			// A note without a range gets no marker: it would seem to
			// point at something it does not.
			if d.startLine == d.endLine && d.startCol == d.endCol {
				a.marker.lead = ' '
			}
		}
		if d.matchType == matchFoundErrorNote {
			a.marker.note = "error: " + a.marker.note
		}
		a.foundAndExpect = d.matchType == matchFoundAndExpected
		a.firstLine = true
		a.inputLine = d.startLine
		a.startCol = d.startCol
		if d.startLine == d.endLine {
			a.endCol = max(d.startCol+1, d.endCol)
			out = append(out, a)
			continue
		}
		a.endCol = math.MaxInt
		out = append(out, a)
		for l := d.startLine + 1; l <= d.endLine; l++ {
			if d.endCol == 1 && l == d.endLine {
				break
			}
			b := a
			b.firstLine = false
			b.inputLine = l
			b.marker.lead = '~'
			b.marker.note = ""
			b.startCol = 1
			if l != d.endLine {
				b.endCol = math.MaxInt
			} else {
				b.endCol = d.endCol
			}
			out = append(out, b)
		}
	}
	return out, labelWidth
}

func findLineInFilter(filter DumpFilter, line int, anns []annotation) int {
	if filter == FilterAll {
		return line
	}
	for _, a := range anns {
		switch filter {
		case FilterAnnotationFull:
			return a.inputLine
		case FilterAnnotation:
			if a.firstLine {
				return a.inputLine
			}
		case FilterError:
			if a.firstLine && a.marker.filtersAsError {
				return a.inputLine
			}
		}
	}
	return math.MaxInt
}

// dumpAnnotatedInput writes the annotated input between "<<<<<<" and
// ">>>>>>", eliding lines outside the filter's context.
func dumpAnnotatedInput(sb *strings.Builder, filter DumpFilter, context int, input []byte, anns []annotation, labelWidth int) {
	sb.WriteString("Input was:\n<<<<<<\n")
	sort.SliceStable(anns, func(i, j int) bool {
		if anns[i].inputLine != anns[j].inputLine {
			return anns[i].inputLine < anns[j].inputLine
		}
		return anns[i].diagIndex < anns[j].diagIndex
	})
	lineCount := strings.Count(string(input), "\n")
	if len(input) == 0 || input[len(input)-1] != '\n' {
		lineCount++
	}
	lineNoWidth := int(math.Log10(float64(lineCount))) + 1
	labelWidth = max(labelWidth, lineNoWidth) + 3

	prevInFilter, nextInFilter := 0, 0
	var elided strings.Builder
	flushElided := func() {
		if elided.Len() == 0 {
			return
		}
		if strings.Count(elided.String(), "\n") > 3 {
			for i := 0; i < 3; i++ {
				fmt.Fprintf(sb, "%*s\n", labelWidth, ".")
			}
		} else {
			sb.WriteString(elided.String())
		}
		elided.Reset()
	}
	pos := 0
	ai := 0
	for line := 1; pos < len(input) || ai < len(anns); line++ {
		lineStart := pos
		if nextInFilter < line {
			nextInFilter = findLineInFilter(filter, line, anns[ai:])
		}
		if nextInFilter == line {
			prevInFilter = line
		}
		out := sb
		if (prevInFilter == 0 || prevInFilter+context < line) &&
			(nextInFilter == math.MaxInt || line+context < nextInFilter) {
			out = &elided
		} else {
			flushElided()
		}
		fmt.Fprintf(out, "%*d: ", labelWidth, line)
		for pos < len(input) {
			c := input[pos]
			pos++
			if c == '\n' {
				out.WriteByte(' ')
				break
			}
			out.WriteByte(c)
		}
		out.WriteByte('\n')
		width := pos - lineStart
		for ai < len(anns) && anns[ai].inputLine == line {
			a := anns[ai]
			fmt.Fprintf(out, "%-*s  ", labelWidth, a.label)
			col := 1
			for ; col < a.startCol; col++ {
				out.WriteByte(' ')
			}
			out.WriteByte(a.marker.lead)
			for col++; col < a.endCol && col <= width; col++ {
				out.WriteByte('~')
			}
			if a.marker.note != "" {
				for ; col <= width; col++ {
					out.WriteByte(' ')
				}
				out.WriteString(" " + a.marker.note)
			}
			out.WriteByte('\n')
			ai++
		}
	}
	flushElided()
	sb.WriteString(">>>>>>\n")
}

// dumpHelp is the text of --dump-input=help.
const dumpHelp = `The following description was requested by -dump-input=help to
explain the input dump printed by FileCheck.

Related command-line options:

  - -dump-input=<value> enables or disables the input dump
  - -dump-input-filter=<value> filters the input lines
  - -dump-input-context=<N> adjusts the context of filtered lines
  - -v and -vv add more annotations
  - -color forces colors to be enabled both in the dump and below
  - -help documents the above options in more detail

These options can also be set via FILECHECK_OPTS.  For example, for
maximum debugging output on failures:

  $ FILECHECK_OPTS='-dump-input-filter=all -vv -color' ninja check

Input dump annotation format:

  - L:     labels line number L of the input file
           An extra space is added after each input line to represent the
           newline character
  - T:L    labels the only match result for either (1) a pattern of type T from
           line L of the check file if L is an integer or (2) the I-th implicit
           pattern if L is "imp" followed by an integer I (index origin one)
  - T:L'N  labels the Nth match result for such a pattern
  - ^~~    marks good match (reported if -v)
  - !~~    marks bad match, such as:
           - CHECK-NEXT on same line as previous match (error)
           - CHECK-NOT found (error)
           - CHECK-DAG overlapping match (discarded, reported if -vv)
  - X~~    marks search range when no match is found, such as:
           - CHECK-NEXT not found (error)
           - CHECK-NOT not found (success, reported if -vv)
           - CHECK-DAG not found after discarded matches (error)
  - ?      marks fuzzy match when no match is found
  - ...    indicates elided input lines and annotations, as specified by
           -dump-input-filter and -dump-input-context
  - colors success, error, fuzzy match, discarded match, unmatched input
`
