package lit

import (
	"fmt"
	"strings"
)

// evalFeatures evaluates a lit boolean expression over feature names:
// identifiers (made of letters, digits and -+=._), true, false, !, &&, ||
// and parentheses. With features nil it only checks the syntax.
func evalFeatures(expr string, features map[string]bool) (bool, error) {
	p := &exprParser{tokens: tokenize(expr), features: features, expr: expr}
	v, err := p.or()
	if err != nil {
		return false, err
	}
	if p.pos != len(p.tokens) {
		return false, fmt.Errorf("unexpected %q in feature expression %q", p.tokens[p.pos], expr)
	}
	return v, nil
}

func tokenize(s string) []string {
	var toks []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			i++
		case strings.HasPrefix(s[i:], "&&") || strings.HasPrefix(s[i:], "||"):
			toks = append(toks, s[i:i+2])
			i += 2
		case c == '!' || c == '(' || c == ')':
			toks = append(toks, string(c))
			i++
		default:
			j := i
			for j < len(s) && isIdentChar(s[j]) {
				j++
			}
			if j == i {
				toks = append(toks, string(c))
				i++
				continue
			}
			toks = append(toks, s[i:j])
			i = j
		}
	}
	return toks
}

func isIdentChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-+=._", c) >= 0
}

type exprParser struct {
	tokens   []string
	pos      int
	features map[string]bool
	expr     string
}

func (p *exprParser) peek() string {
	if p.pos < len(p.tokens) {
		return p.tokens[p.pos]
	}
	return ""
}

func (p *exprParser) or() (bool, error) {
	v, err := p.and()
	for err == nil && p.peek() == "||" {
		p.pos++
		var r bool
		r, err = p.and()
		v = v || r
	}
	return v, err
}

func (p *exprParser) and() (bool, error) {
	v, err := p.not()
	for err == nil && p.peek() == "&&" {
		p.pos++
		var r bool
		r, err = p.not()
		v = v && r
	}
	return v, err
}

func (p *exprParser) not() (bool, error) {
	if p.peek() == "!" {
		p.pos++
		v, err := p.not()
		return !v, err
	}
	return p.atom()
}

func (p *exprParser) atom() (bool, error) {
	tok := p.peek()
	switch {
	case tok == "(":
		p.pos++
		v, err := p.or()
		if err != nil {
			return false, err
		}
		if p.peek() != ")" {
			return false, fmt.Errorf("missing ')' in feature expression %q", p.expr)
		}
		p.pos++
		return v, nil
	case tok == "true":
		p.pos++
		return true, nil
	case tok == "false":
		p.pos++
		return false, nil
	case tok != "" && isIdentChar(tok[0]):
		p.pos++
		return p.features[tok], nil
	}
	return false, fmt.Errorf("expected a feature name in feature expression %q", p.expr)
}
