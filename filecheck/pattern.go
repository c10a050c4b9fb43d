package filecheck

import (
	"fmt"
	"io"
	"sync"

	"github.com/ipuir/ipuir/filecheck/ere"
)

// pattern is one directive's pattern: a fixed string, or a regular
// expression in Spencer's syntax with holes where variable values are
// substituted at match time.
type pattern struct {
	ctx        *context
	typ        checkType
	loc        location // start of the pattern text
	lineNumber int
	hasLine    bool
	fixed      []byte // non-nil for fixed-string patterns
	regex      string
	ignoreCase bool
	subs       []*substitution
	// varDefs maps string variables defined here to their capture group.
	varDefs map[string]int
	// numDefs maps numeric variables defined here to their capture group.
	numDefs map[string]numericDef
	// compiled caches the expression of a pattern without substitutions.
	compiled *ere.Regexp
	// broken marks an --implicit-check-not pattern that failed to parse;
	// FileCheck keeps it, and it never matches.
	broken bool
}

type numericDef struct {
	v     *numericVariable
	group int
}

// substitution is a [[VAR]] use or a [[#EXPR]] block whose value is inserted
// into the regular expression at offset index.
type substitution struct {
	from    ref // the variable name or expression text
	index   int
	numeric bool
	expr    *expression
}

func newPattern(ctx *context, typ checkType, line int, hasLine bool) *pattern {
	return &pattern{ctx: ctx, typ: typ, lineNumber: line, hasLine: hasLine}
}

type groupCount struct {
	n   int
	err error
}

// groupCounts remembers the validity and group count of regex pieces: check
// files repeat the same few ({{[0-9]+}}, {{.*}}) thousands of times.
var groupCounts sync.Map

func countGroups(src string) (int, error) {
	if v, ok := groupCounts.Load(src); ok {
		g := v.(groupCount)
		return g.n, g.err
	}
	n, err := ere.CountGroups(src)
	if len(src) < 256 {
		groupCounts.Store(src, groupCount{n, err})
	}
	return n, err
}

// hasVariable reports what FileCheck forbids on CHECK-LABEL lines: string
// variable definitions and substitutions of any kind.
func (p *pattern) hasVariable() bool { return len(p.subs) > 0 || len(p.varDefs) > 0 }

// errParse is returned by parse after printing the diagnostic.
type parseFailure struct {
	// exitOne marks the one error FileCheck reports by exiting with
	// status 1 instead of 2 (an unbalanced "]" in a variable definition).
	exitOne bool
}

// parse compiles the pattern text, printing any error to w like
// Pattern::parsePattern.
func (p *pattern) parse(w io.Writer, text ref, prefix string, opts *Options) *parseFailure {
	fullLines := opts.MatchFullLines && p.typ.kind != checkNot
	p.ignoreCase = opts.IgnoreCase
	p.loc = text.loc()
	if !(opts.StrictWhitespace && opts.MatchFullLines) {
		text = text.trimRight(" \t")
	}
	if text.empty() && p.typ.kind != checkEmpty {
		printMessage(w, p.loc, kindError, "found empty check string with prefix '"+prefix+":'")
		return &parseFailure{}
	}
	if !text.empty() && p.typ.kind == checkEmpty {
		printMessage(w, p.loc, kindError, "found non-empty check string for empty check with prefix '"+prefix+":'")
		return &parseFailure{}
	}
	if p.typ.kind == checkEmpty {
		p.regex = "(\n$)"
		return nil
	}
	if p.typ.literal {
		p.fixed = append([]byte{}, text.bytes()...)
		return nil
	}
	if !fullLines && (text.len() < 2 || text.index("{{") < 0 && text.index("[[") < 0) {
		p.fixed = append([]byte{}, text.bytes()...)
		return nil
	}

	var re []byte
	if fullLines {
		re = append(re, '^')
		if !opts.StrictWhitespace {
			re = append(re, " *"...)
		}
	}
	curParen := 1
	addRegex := func(rs ref) bool {
		n, err := countGroups(rs.str())
		if err != nil {
			printMessage(w, rs.loc(), kindError, "invalid regex: "+err.Error())
			return false
		}
		re = append(re, rs.bytes()...)
		curParen += n
		return true
	}
	for !text.empty() {
		if text.hasPrefix("{{") {
			end := text.index("}}")
			if end < 0 {
				printMessage(w, text.loc(), kindError, "found start of regex string with no end '}}'")
				return &parseFailure{}
			}
			// A block with alternatives is parenthesized so that "|"
			// stays inside it. FileCheck 19 looks for "|" in the whole
			// rest of the line.
			alternation := text.indexByte('|') >= 0
			if alternation {
				re = append(re, '(')
				curParen++
			}
			if !addRegex(text.sub(2, end)) {
				return &parseFailure{}
			}
			if alternation {
				re = append(re, ')')
			}
			text = text.from(end + 2)
			continue
		}
		if text.hasPrefix("[[") && !text.hasPrefix("[[[") {
			if f := p.parseSubstitutionBlock(w, &text, &re, &curParen, addRegex); f != nil {
				return f
			}
			continue
		}
		end := text.len()
		if i := text.from(1).index("{{"); i >= 0 && i+1 < end {
			end = i + 1
		}
		if i := text.from(1).index("[["); i >= 0 && i+1 < end {
			end = i + 1
		}
		re = append(re, escapeRegex(text.take(end).bytes())...)
		text = text.from(end)
	}
	if fullLines {
		if !opts.StrictWhitespace {
			re = append(re, " *"...)
		}
		re = append(re, '$')
	}
	p.regex = string(re)
	return nil
}

// parseSubstitutionBlock handles one [[...]] block at the front of text.
func (p *pattern) parseSubstitutionBlock(w io.Writer, text *ref, re *[]byte, curParen *int, addRegex func(ref) bool) *parseFailure {
	unparsed := text.from(2)
	end, bad := findRegexVarEnd(unparsed)
	if bad >= 0 {
		printMessage(w, location{unparsed.buf, bad}, kindError, `missing closing "]" for regex variable`)
		return &parseFailure{exitOne: true}
	}
	if end < 0 {
		printMessage(w, text.loc(), kindError, "Invalid substitution block, no ]] found")
		return &parseFailure{}
	}
	matchStr := unparsed.take(end)
	isNumBlock := matchStr.consume("#")
	*text = unparsed.from(end + 2)

	isDefinition, substNeeded, legacyLine := false, false, false
	var defName string
	var substStr ref
	var matchRegex ref
	hasMatchRegex := false
	wildcard := ""
	substIndex := len(*re)

	if !isNumBlock {
		varEnd := matchStr.indexByte(':')
		head := matchStr
		if varEnd >= 0 {
			head = matchStr.take(varEnd)
		}
		for i := 0; i < head.len(); i++ {
			if c := head.at(i); c == ' ' || c == '\t' {
				printMessage(w, head.from(i).loc(), kindError, "unexpected whitespace")
				return &parseFailure{}
			}
		}
		orig := matchStr
		props, err := parseVariable(&matchStr)
		if err != nil {
			logError(w, err)
			return &parseFailure{}
		}
		isDefinition = varEnd >= 0
		substNeeded = !isDefinition
		if isDefinition {
			if props.isPseudo || !matchStr.consume(":") {
				printMessage(w, props.name.loc(), kindError, "invalid name in string variable definition")
				return &parseFailure{}
			}
			name := props.name.str()
			if _, ok := p.ctx.numericVars[name]; ok {
				printMessage(w, props.name.loc(), kindError, "numeric variable with name '"+name+"' already exists")
				return &parseFailure{}
			}
			defName = name
			matchRegex, hasMatchRegex = matchStr, true
		} else if props.isPseudo {
			matchStr = orig
			legacyLine, isNumBlock = true, true
		} else {
			if !matchStr.empty() {
				printMessage(w, props.name.loc(), kindError, "invalid name in string variable use")
				return &parseFailure{}
			}
			substStr = props.name
		}
	}

	var expr *expression
	var defined *numericVariable
	if isNumBlock {
		np := &numericParser{ctx: p.ctx, lineNumber: p.lineNumber, hasLine: p.hasLine}
		e, v, err := np.parseSubstitutionBlock(matchStr, legacyLine)
		if err != nil {
			logError(w, err)
			return &parseFailure{}
		}
		expr = e
		substNeeded = e.ast != nil
		if v != nil {
			defined = v
			isDefinition = true
			defName = v.name
		}
		if substNeeded {
			substStr = matchStr
		} else {
			wildcard = e.format.wildcardRegex()
		}
	}

	if isDefinition {
		*re = append(*re, '(')
		substIndex++
		if isNumBlock {
			if p.numDefs == nil {
				p.numDefs = map[string]numericDef{}
			}
			p.numDefs[defName] = numericDef{v: defined, group: *curParen}
			p.ctx.numericVars[defName] = defined
		} else {
			if p.varDefs == nil {
				p.varDefs = map[string]int{}
			}
			p.varDefs[defName] = *curParen
			p.ctx.definedVars[defName] = true
		}
		*curParen++
	}
	if wildcard != "" {
		n, _ := countGroups(wildcard)
		*re = append(*re, wildcard...)
		*curParen += n
	} else if hasMatchRegex && !matchRegex.empty() {
		if !addRegex(matchRegex) {
			return &parseFailure{}
		}
	}
	if isDefinition {
		*re = append(*re, ')')
	}

	if substNeeded {
		if group, ok := p.varDefs[substStr.str()]; ok && !isNumBlock {
			if group < 1 || group > 9 {
				printMessage(w, substStr.loc(), kindError, "Can't back-reference more than 9 variables")
				return &parseFailure{}
			}
			*re = append(*re, '\\', byte('0'+group))
		} else {
			p.subs = append(p.subs, &substitution{from: substStr, index: substIndex, numeric: isNumBlock, expr: expr})
		}
	}
	return nil
}

// findRegexVarEnd finds the "]]" closing a substitution block, counting
// nested brackets and skipping escaped characters. It returns the offset of
// an unbalanced "]" in bad (>= 0) when there is one.
func findRegexVarEnd(s ref) (end int, bad int) {
	offset, depth := 0, 0
	for offset < s.len() {
		rest := s.from(offset)
		if rest.hasPrefix("]]") && depth == 0 {
			return offset, -1
		}
		switch rest.at(0) {
		case '\\':
			offset += 2
			continue
		case '[':
			depth++
		case ']':
			if depth == 0 {
				return -1, rest.start
			}
			depth--
		}
		offset++
	}
	return -1, -1
}

// escapeRegex quotes the bytes llvm::Regex::escape quotes. Like strchr in
// the original, it also quotes NUL.
func escapeRegex(s []byte) []byte {
	out := make([]byte, 0, len(s)+8)
	for _, c := range s {
		switch c {
		case '(', ')', '^', '$', '|', '*', '+', '?', '.', '[', ']', '\\', '{', '}', 0:
			out = append(out, '\\')
		}
		out = append(out, c)
	}
	return out
}

// logError prints err the way logAllUnhandledErrors does: a located
// diagnostic (which ends in a newline) or a bare message, then a newline.
func logError(w io.Writer, err *diagError) {
	if err.loc.valid() {
		printMessage(w, err.loc, kindError, err.msg)
	} else {
		fmt.Fprint(w, err.msg)
	}
	io.WriteString(w, "\n")
}
