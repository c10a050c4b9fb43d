package filecheck

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/ipuir/ipuir/filecheck/ere"
)

// matchResult is the outcome of matching a pattern in a window of the
// input: a match (offsets relative to the window) or pattern errors such as
// undefined variables. Neither means "not found".
type matchResult struct {
	found  bool
	pos    int
	length int
	errs   []*diagError
	// fatal is set when the search could not be done: the pattern is too
	// large to compile or needs more than the matcher's budget.
	fatal error
}

// regexCache keeps the expressions built from substituted patterns; the
// same values recur, e.g. for CHECK-COUNT and CHECK-DAG retries.
type regexCache struct {
	entries map[cacheKey]*ere.Regexp
}

type cacheKey struct {
	src   string
	flags ere.Flags
}

const regexCacheLimit = 4096

func (c *regexCache) compile(src string, flags ere.Flags) (*ere.Regexp, error) {
	key := cacheKey{src, flags}
	if re, ok := c.entries[key]; ok {
		return re, nil
	}
	re, err := ere.Compile(src, flags)
	if err != nil {
		return nil, err
	}
	if c.entries == nil || len(c.entries) >= regexCacheLimit {
		c.entries = map[cacheKey]*ere.Regexp{}
	}
	c.entries[key] = re
	return re, nil
}

// match finds the pattern in input[start:end], as Pattern::match does, and
// records the values of the variables it defines.
func (p *pattern) match(input *sourceBuffer, start, end int, cache *regexCache) matchResult {
	window := input.text[start:end]
	if p.typ.kind == checkEOF {
		return matchResult{found: true, pos: len(window)}
	}
	if p.fixed != nil {
		var i int
		if p.ignoreCase {
			i = ere.IndexFold(window, p.fixed)
		} else {
			i = bytes.Index(window, p.fixed)
		}
		if i < 0 {
			return matchResult{}
		}
		return matchResult{found: true, pos: i, length: len(p.fixed)}
	}
	if p.broken {
		// An implicit pattern that failed to parse never matches.
		return matchResult{}
	}

	flags := ere.Newline
	if p.ignoreCase {
		flags |= ere.IgnoreCase
	}
	re := p.compiled
	if re == nil || len(p.subs) > 0 {
		src := p.regex
		if len(p.subs) > 0 {
			if p.hasLine {
				p.ctx.lineVar.value = bigInt(p.lineNumber)
			}
			var errs []*diagError
			var out []byte
			last := 0
			for _, s := range p.subs {
				value, err := p.substitutionValue(s)
				if err != nil {
					errs = append(errs, err...)
					continue
				}
				out = append(out, p.regex[last:s.index]...)
				out = append(out, value...)
				last = s.index
			}
			if errs != nil {
				return matchResult{errs: errs}
			}
			out = append(out, p.regex[last:]...)
			src = string(out)
		}
		// The same expressions recur across directives (one per
		// function of a test, say), so they share one cache.
		var err error
		re, err = cache.compile(src, flags)
		if err != nil {
			// A substitution that makes the expression invalid (an empty
			// one, say) is no match, as in FileCheck-19, whose regex
			// engine matches nothing then; one too large for the engine
			// is not known to match or not, so it is an error.
			var ee *ere.Error
			if errors.As(err, &ee) && ee.Code == ere.ErrSpace {
				return matchResult{fatal: fmt.Errorf("the regular expression is too large for the matcher (%v)", err)}
			}
			return matchResult{}
		}
		if len(p.subs) == 0 {
			p.compiled = re
		}
	}

	var loc []int
	var err error
	if len(p.varDefs) > 0 || len(p.numDefs) > 0 {
		loc, err = re.FindSubmatchIndex(window)
	} else {
		loc, err = re.FindIndex(window)
	}
	if err != nil {
		return matchResult{fatal: err}
	}
	if loc == nil {
		return matchResult{}
	}
	group := func(n int) (span, []byte) {
		if 2*n+1 >= len(loc) || loc[2*n] < 0 {
			return span{start + loc[0], start + loc[0]}, []byte{}
		}
		return span{start + loc[2*n], start + loc[2*n+1]}, window[loc[2*n]:loc[2*n+1]]
	}
	for name, g := range p.varDefs {
		sp, text := group(g)
		p.ctx.globalVars[name] = stringValue{text: text, captured: &sp}
	}
	skip := 0
	if p.typ.kind == checkEmpty {
		// CHECK-EMPTY's match starts after the newline it consumes.
		skip = 1
	}
	for _, d := range p.numDefs {
		sp, text := group(d.group)
		d.v.value = d.v.format.valueFromString(string(text))
		d.v.captured = &sp
		// FileCheck 19 does not put the variable back into the table
		// that --enable-var-scope clears, so once cleared it keeps later
		// values across CHECK-LABEL boundaries.
	}
	return matchResult{found: true, pos: loc[0] + skip, length: loc[1] - loc[0] - skip}
}

// substitutionValue is the text a substitution inserts into the regular
// expression: an escaped string value or a formatted number.
func (p *pattern) substitutionValue(s *substitution) ([]byte, []*diagError) {
	if !s.numeric {
		v, ok := p.ctx.globalVars[s.from.str()]
		if !ok {
			return nil, []*diagError{errorAt(s.from.loc(), "undefined variable: "+s.from.str())}
		}
		return escapeRegex(v.text), nil
	}
	v, errs := s.expr.ast.eval()
	if errs != nil {
		var out []*diagError
		for _, e := range errs {
			if e.undefined {
				out = append(out, errorAt(e.name.loc(), e.message()))
			} else {
				out = append(out, errorAt(s.from.loc(), "unable to substitute variable or numeric expression: overflow error"))
			}
		}
		return nil, out
	}
	str, ok := s.expr.format.matchingString(v)
	if !ok {
		return nil, []*diagError{errorAt(s.from.loc(), "unable to substitute variable or numeric expression: overflow error")}
	}
	return []byte(str), nil
}

// diagnosticValue is the value shown in a "with X equal to" note; FileCheck
// 19 shows what it put into the regular expression, escapes included.
func (p *pattern) diagnosticValue(s *substitution) ([]byte, bool) {
	v, errs := p.substitutionValue(s)
	return v, errs == nil
}
