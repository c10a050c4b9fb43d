package filecheck

import (
	"bytes"
	"sort"
	"strings"
)

// matchType classifies a diagnostic for the input dump (FileCheckDiag's
// MatchType).
type matchType int

const (
	matchFoundAndExpected matchType = iota
	matchFoundButExcluded
	matchFoundButWrongLine
	matchFoundButDiscarded
	matchFoundErrorNote
	matchNoneAndExcluded
	matchNoneButExpected
	matchNoneForInvalidPattern
	matchFuzzy
)

// diag is one input annotation: which directive, what happened, and the
// input range it concerns.
type diag struct {
	checkType checkType
	checkLoc  location
	matchType matchType
	startLine int
	startCol  int
	endLine   int
	endCol    int
	note      string
}

// checker runs a parsed check file over the input, printing diagnostics and
// collecting annotations for the input dump.
type checker struct {
	w     *strings.Builder
	opts  *Options
	input *sourceBuffer
	diags *[]diag // nil when no input dump was requested
	cache regexCache
	// fatal is set when a pattern could not be matched at all (too large
	// to compile, or over the matcher's budget): the run then ends with
	// status 2, since neither a match nor its absence is known.
	fatal bool
}

func (c *checker) addDiag(typ checkType, checkLoc location, mt matchType, start, end int, note string) {
	if c.diags == nil {
		return
	}
	sl, sc := c.input.lineCol(start)
	el, ec := c.input.lineCol(end)
	*c.diags = append(*c.diags, diag{checkType: typ, checkLoc: checkLoc, matchType: mt,
		startLine: sl, startCol: sc, endLine: el, endCol: ec, note: note})
}

// processMatchResult records a match or search range; with adjustPrev it
// re-labels the diagnostics already recorded for the same directive
// instead.
func (c *checker) processMatchResult(mt matchType, loc location, typ checkType, start, end int, adjustPrev bool) {
	if c.diags == nil {
		return
	}
	if adjustPrev {
		d := *c.diags
		if len(d) == 0 {
			return
		}
		last := d[len(d)-1].checkLoc
		for i := len(d) - 1; i >= 0 && d[i].checkLoc == last; i-- {
			d[i].matchType = mt
		}
		return
	}
	c.addDiag(typ, loc, mt, start, end, "")
}

// printSubstitutions reports the value of each substitution at the start of
// a match or search range.
func (c *checker) printSubstitutions(p *pattern, at int, mt matchType, toDiags bool) {
	for _, s := range p.subs {
		value, ok := p.diagnosticValue(s)
		if !ok {
			continue
		}
		msg := string(writeEscaped([]byte(`with "`), s.from.bytes())) + `" equal to "` +
			string(writeEscaped(nil, value)) + `"`
		if toDiags {
			c.addDiag(p.typ, p.loc, mt, at, at, msg)
		} else {
			printMessage(c.w, location{c.input, at}, kindNote, msg)
		}
	}
}

// printVariableDefs reports the captures of the variables a match defined,
// in input order.
func (c *checker) printVariableDefs(p *pattern, mt matchType, toDiags bool) {
	type capture struct {
		name string
		sp   span
	}
	var caps []capture
	for name := range p.varDefs {
		if v, ok := p.ctx.globalVars[name]; ok && v.captured != nil {
			caps = append(caps, capture{name, *v.captured})
		}
	}
	for name, d := range p.numDefs {
		if d.v.captured != nil {
			caps = append(caps, capture{name, *d.v.captured})
		}
	}
	sort.SliceStable(caps, func(i, j int) bool {
		if caps[i].sp.start != caps[j].sp.start {
			return caps[i].sp.start < caps[j].sp.start
		}
		return caps[i].name < caps[j].name
	})
	for _, vc := range caps {
		msg := `captured var "` + vc.name + `"`
		if toDiags {
			c.addDiag(p.typ, p.loc, mt, vc.sp.start, vc.sp.end, msg)
		} else {
			printMessage(c.w, location{c.input, vc.sp.start}, kindNote, msg, [2]int{vc.sp.start, vc.sp.end})
		}
	}
}

// printFuzzyMatch points at the input most similar to a pattern that was
// not found, within the first 4 KiB of the search range.
func (c *checker) printFuzzyMatch(p *pattern, start, end int) {
	buf := c.input.text[start:end]
	example := p.fixed
	if example == nil {
		example = []byte(p.regex)
	}
	limit := min(4096, len(buf))
	if 4096*2048 < limit*max(len(p.fixed), len(p.regex)) {
		return
	}
	best, bestQuality, linesForward := -1, 0.0, 0
	for i := 0; i < limit; i++ {
		if buf[i] == '\n' {
			linesForward++
		}
		if buf[i] == ' ' || buf[i] == '\t' {
			continue
		}
		prefix := buf[i:min(len(buf), i+len(example))]
		if nl := bytes.IndexByte(prefix, '\n'); nl >= 0 {
			prefix = prefix[:nl]
		}
		quality := float64(editDistance(prefix, example)) + float64(linesForward)/100
		if best < 0 || quality < bestQuality {
			best, bestQuality = i, quality
		}
	}
	if best > 0 && bestQuality < 50 {
		c.processMatchResult(matchFuzzy, p.loc, p.typ, start+best, start+best, false)
		printMessage(c.w, location{c.input, start + best}, kindNote, "possible intended match here")
	}
}
