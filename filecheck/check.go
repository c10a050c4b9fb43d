package filecheck

import (
	"fmt"
)

// printMatch reports a match: an error for an excluded pattern, a remark
// when verbose. It returns true when it reported an error.
func (c *checker) printMatch(expected bool, prefix string, loc location, p *pattern, matched int, start int, r matchResult) bool {
	hasError := !expected
	printDiag := true
	if !hasError {
		if !c.opts.Verbose {
			return false
		}
		if !c.opts.VerboseVerbose && p.typ.kind == checkEOF {
			return false
		}
		printDiag = c.diags == nil
	}
	mt := matchFoundAndExpected
	if !expected {
		mt = matchFoundButExcluded
	}
	mStart, mEnd := start+r.pos, start+r.pos+r.length
	c.processMatchResult(mt, loc, p.typ, mStart, mEnd, false)
	if c.diags != nil {
		c.printSubstitutions(p, mStart, mt, true)
		c.printVariableDefs(p, mt, true)
	}
	if !printDiag {
		return hasError
	}
	verdict := "expected"
	if !expected {
		verdict = "excluded"
	}
	msg := fmt.Sprintf("%s: %s string found in input", p.typ.description(prefix), verdict)
	if p.typ.count > 1 {
		msg += fmt.Sprintf(" (%d out of %d)", matched, p.typ.count)
	}
	kind := kindRemark
	if !expected {
		kind = kindError
	}
	printMessage(c.w, loc, kind, msg)
	printMessage(c.w, location{c.input, mStart}, kindNote, "found here", [2]int{mStart, mEnd})
	c.printSubstitutions(p, mStart, mt, false)
	c.printVariableDefs(p, mt, false)
	return hasError
}

// printNoMatch reports a failed search: an error when a match was
// expected, the pattern's own errors (undefined variables) in any case.
func (c *checker) printNoMatch(expected bool, prefix string, loc location, p *pattern, matched int, start, end int, errs []*diagError) bool {
	hasError := expected
	hasPatternError := len(errs) > 0
	mt := matchNoneButExpected
	if !expected {
		mt = matchNoneAndExcluded
	}
	var errMsgs []string
	for _, e := range errs {
		hasError = true
		mt = matchNoneForInvalidPattern
		printMessage(c.w, e.loc, kindError, e.msg)
		errMsgs = append(errMsgs, e.msg)
	}
	printDiag := true
	if !hasError {
		if !c.opts.VerboseVerbose {
			return false
		}
		printDiag = c.diags == nil
	}
	c.processMatchResult(mt, loc, p.typ, start, end, false)
	if c.diags != nil {
		for _, m := range errMsgs {
			c.addDiag(p.typ, loc, mt, start, start, m)
		}
		c.printSubstitutions(p, start, mt, true)
	}
	if !printDiag {
		return hasError
	}
	if !hasPatternError {
		verdict := "expected"
		kind := kindError
		if !expected {
			verdict = "excluded"
			kind = kindRemark
		}
		msg := fmt.Sprintf("%s: %s string not found in input", p.typ.description(prefix), verdict)
		if p.typ.count > 1 {
			msg += fmt.Sprintf(" (%d out of %d)", matched, p.typ.count)
		}
		printMessage(c.w, loc, kind, msg)
		printMessage(c.w, location{c.input, start}, kindNote, "scanning from here")
	}
	c.printSubstitutions(p, start, mt, false)
	if expected {
		c.printFuzzyMatch(p, start, end)
	}
	return hasError
}

func (c *checker) reportMatchResult(expected bool, prefix string, loc location, p *pattern, matched int, start, end int, r matchResult) bool {
	if r.fatal != nil {
		printMessage(c.w, loc, kindError, fmt.Sprintf("%s: cannot search for the pattern: %v", p.typ.description(prefix), r.fatal))
		c.fatal = true
		return true
	}
	if r.found {
		return c.printMatch(expected, prefix, loc, p, matched, start, r)
	}
	return c.printNoMatch(expected, prefix, loc, p, matched, start, end, r.errs)
}

// countNewlines counts line breaks in input[start:end] ("\r\n" and "\n\r"
// count once) and returns where the text after the first one begins.
func countNewlines(text []byte, start, end int) (n int, firstAfter int) {
	firstAfter = -1
	for i := start; i < end; i++ {
		c := text[i]
		if c != '\n' && c != '\r' {
			continue
		}
		n++
		if i+1 < end && (text[i+1] == '\n' || text[i+1] == '\r') && text[i+1] != c {
			i++
		}
		if n == 1 {
			firstAfter = i + 1
		}
	}
	return n, firstAfter
}

// check matches one checkString in input[start:end]. It returns the match
// position (absolute) and length, or ok == false after reporting why.
func (c *checker) check(cs *checkString, start, end int, labelScan bool) (pos, length int, ok bool) {
	lastPos := start
	var notStrings []*dagNotEntry
	if !labelScan {
		lastPos, ok = c.checkDag(cs, start, end, &notStrings)
		if !ok {
			return 0, 0, false
		}
	}
	lastMatchEnd := lastPos
	firstMatch := 0
	for i := 1; i <= cs.pat.typ.count; i++ {
		r := cs.pat.match(c.input, lastMatchEnd, end, &c.cache)
		if c.reportMatchResult(true, cs.prefix, cs.loc, cs.pat, i, lastMatchEnd, end, r) || !r.found {
			return 0, 0, false
		}
		if i == 1 {
			firstMatch = lastMatchEnd + r.pos
		}
		lastMatchEnd += r.pos + r.length
	}
	length = lastMatchEnd - firstMatch
	if !labelScan {
		if c.checkNext(cs, lastPos, firstMatch) || c.checkSame(cs, lastPos, firstMatch) {
			c.processMatchResult(matchFoundButWrongLine, cs.loc, cs.pat.typ, firstMatch, firstMatch+length, c.opts.Verbose)
			return 0, 0, false
		}
		if c.checkNot(notStrings, lastPos, firstMatch) {
			return 0, 0, false
		}
	}
	return firstMatch, length, true
}

func (c *checker) checkNext(cs *checkString, start, end int) bool {
	kind := cs.pat.typ.kind
	if kind != checkNext && kind != checkEmpty {
		return false
	}
	name := cs.prefix + "-NEXT"
	if kind == checkEmpty {
		name = cs.prefix + "-EMPTY"
	}
	n, firstAfter := countNewlines(c.input.text, start, end)
	if n == 0 {
		printMessage(c.w, cs.loc, kindError, name+": is on the same line as previous match")
		printMessage(c.w, location{c.input, end}, kindNote, "'next' match was here")
		printMessage(c.w, location{c.input, start}, kindNote, "previous match ended here")
		return true
	}
	if n != 1 {
		printMessage(c.w, cs.loc, kindError, name+": is not on the line after the previous match")
		printMessage(c.w, location{c.input, end}, kindNote, "'next' match was here")
		printMessage(c.w, location{c.input, start}, kindNote, "previous match ended here")
		printMessage(c.w, location{c.input, firstAfter}, kindNote, "non-matching line after previous match is here")
		return true
	}
	return false
}

func (c *checker) checkSame(cs *checkString, start, end int) bool {
	if cs.pat.typ.kind != checkSame {
		return false
	}
	if n, _ := countNewlines(c.input.text, start, end); n != 0 {
		printMessage(c.w, cs.loc, kindError, cs.prefix+"-SAME: is not on the same line as the previous match")
		printMessage(c.w, location{c.input, end}, kindNote, "'next' match was here")
		printMessage(c.w, location{c.input, start}, kindNote, "previous match ended here")
		return true
	}
	return false
}

// checkNot reports every CHECK-NOT pattern found in input[start:end].
func (c *checker) checkNot(nots []*dagNotEntry, start, end int) bool {
	failed := false
	for _, n := range nots {
		r := n.pat.match(c.input, start, end, &c.cache)
		if c.reportMatchResult(false, n.prefix, n.pat.loc, n.pat, 1, start, end, r) {
			failed = true
		}
	}
	return failed
}

// checkDag matches the CHECK-DAG groups before cs, each group's matches in
// any order but without overlap, and the CHECK-NOTs between groups. It
// returns where the directive itself must be searched from.
func (c *checker) checkDag(cs *checkString, start, end int, notStrings *[]*dagNotEntry) (int, bool) {
	if len(cs.dagNot) == 0 {
		return start, true
	}
	startPos := start
	type matchRange struct{ pos, end int }
	var ranges []matchRange // sorted, non-overlapping matches of the current group
	for idx := range cs.dagNot {
		entry := &cs.dagNot[idx]
		p := entry.pat
		if p.typ.kind == checkNot {
			*notStrings = append(*notStrings, entry)
			continue
		}
		matchPos, matchLen := startPos, 0
		mi := 0
		for {
			r := p.match(c.input, matchPos, end, &c.cache)
			if !r.found || c.opts.VerboseVerbose {
				if c.reportMatchResult(true, entry.prefix, p.loc, p, 1, matchPos, end, r) || !r.found {
					return 0, false
				}
			}
			matchLen = r.length
			matchPos += r.pos
			m := matchRange{matchPos, matchPos + matchLen}
			if c.opts.AllowDeprecatedDagOverlap {
				if len(ranges) == 0 {
					ranges = append(ranges, m)
				} else {
					ranges[0].pos = min(ranges[0].pos, m.pos)
					ranges[0].end = max(ranges[0].end, m.end)
				}
				break
			}
			overlap := false
			for ; mi < len(ranges); mi++ {
				if m.pos < ranges[mi].end {
					overlap = ranges[mi].pos < m.end
					break
				}
			}
			if !overlap {
				ranges = append(ranges, matchRange{})
				copy(ranges[mi+1:], ranges[mi:])
				ranges[mi] = m
				break
			}
			if c.opts.VerboseVerbose {
				if c.diags == nil {
					printMessage(c.w, location{c.input, ranges[mi].pos}, kindNote,
						"match discarded, overlaps earlier DAG match here", [2]int{ranges[mi].pos, ranges[mi].end})
				} else {
					c.processMatchResult(matchFoundButDiscarded, p.loc, p.typ, 0, 0, true)
				}
			}
			matchPos = ranges[mi].end
			mi++
		}
		if !c.opts.VerboseVerbose {
			c.printMatch(true, entry.prefix, p.loc, p, 1, startPos,
				matchResult{found: true, pos: matchPos - startPos, length: matchLen})
		}
		last := idx+1 == len(cs.dagNot) || cs.dagNot[idx+1].pat.typ.kind == checkNot
		if last {
			if len(*notStrings) > 0 {
				if c.checkNot(*notStrings, startPos, ranges[0].pos) {
					return 0, false
				}
				*notStrings = (*notStrings)[:0]
			}
			startPos = ranges[len(ranges)-1].end
			ranges = ranges[:0]
		}
	}
	return startPos, true
}

// checkInput runs all directives over the input, region by region between
// CHECK-LABEL matches. It returns false if any directive failed.
func (c *checker) checkInput(cf *checkFile) bool {
	failed := false
	strs := cf.strings
	bufStart, bufEnd := 0, len(c.input.text)
	i, j := 0, 0
	for {
		var regionStart, regionEnd int
		if j == len(strs) {
			regionStart, regionEnd = bufStart, bufEnd
		} else {
			label := strs[j]
			if label.pat.typ.kind != checkLabel {
				j++
				continue
			}
			pos, length, ok := c.check(label, bufStart, bufEnd, true)
			if !ok || c.fatal {
				return false
			}
			regionStart, regionEnd = bufStart, pos+length
			bufStart = pos + length
			j++
		}
		if i != 0 && c.opts.EnableVarScope {
			cf.ctx.clearLocalVars()
		}
		for ; i != j; i++ {
			pos, length, ok := c.check(strs[i], regionStart, regionEnd, false)
			if c.fatal {
				return false
			}
			if !ok {
				failed = true
				i = j
				break
			}
			regionStart = pos + length
		}
		if j == len(strs) {
			break
		}
	}
	return !failed
}
