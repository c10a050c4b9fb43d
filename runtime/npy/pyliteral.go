package npy

import (
	"fmt"
	"strconv"
	"strings"
)

// The header is a Python literal that NumPy reads with ast.literal_eval.
// This is a parser for the part of Python's literal syntax a header can
// meaningfully use: dicts, tuples, lists, strings (with adjacent-literal
// concatenation and the common escapes), decimal integers, True, False and
// None. Anything else is a syntax error naming the byte offset, so a broken
// header is reported where it breaks rather than as a wrong value later.

type pyKind uint8

const (
	pyStr pyKind = iota + 1
	pyInt
	pyBool
	pyNone
	pyTuple
	pyList
	pyDict
)

func (k pyKind) String() string {
	return [...]string{pyStr: "str", pyInt: "int", pyBool: "bool", pyNone: "None", pyTuple: "tuple", pyList: "list", pyDict: "dict"}[k]
}

type pyValue struct {
	kind  pyKind
	str   string    // pyStr: the value; pyInt: the literal's digits, sign included
	int   int64     // pyInt, when it fits
	big   bool      // pyInt: the literal does not fit in int64
	bool  bool      // pyBool
	items []pyValue // pyTuple, pyList; pyDict: key, value, key, value, ...
}

// maxLiteralDepth bounds nesting so that a header of a million '(' fails
// quickly instead of recursing a million frames; a real header nests two
// deep.
const maxLiteralDepth = 32

type pyParser struct {
	src       string
	pos       int
	longInts  bool // accept Python 2 long suffixes (3L), as NumPy does for 1.0 and 2.0 headers
	depthLeft int
}

// parsePyLiteral parses src as one Python literal surrounded by optional
// whitespace (the header's padding included).
func parsePyLiteral(src string, longInts bool) (pyValue, error) {
	p := &pyParser{src: src, longInts: longInts, depthLeft: maxLiteralDepth}
	p.skipSpace()
	v, err := p.value()
	if err != nil {
		return pyValue{}, err
	}
	p.skipSpace()
	if p.pos != len(p.src) {
		return pyValue{}, p.errorf("unexpected %s after the header dict", p.describeNext())
	}
	return v, nil
}

func (p *pyParser) errorf(format string, args ...any) error {
	return formatErrorf("header syntax error at byte %d of the header: %s", p.pos, fmt.Sprintf(format, args...))
}

// describeNext names the next character for an error message.
func (p *pyParser) describeNext() string {
	if p.pos >= len(p.src) {
		return "end of header"
	}
	return fmt.Sprintf("%q", p.src[p.pos])
}

// skipSpace skips what Python's tokenizer treats as whitespace inside
// brackets: spaces, tabs, form feeds and line breaks.
func (p *pyParser) skipSpace() {
	for p.pos < len(p.src) && strings.IndexByte(" \t\f\r\n", p.src[p.pos]) >= 0 {
		p.pos++
	}
}

func (p *pyParser) value() (pyValue, error) {
	if p.pos >= len(p.src) {
		return pyValue{}, p.errorf("expected a value, found the end of the header")
	}
	switch c := p.src[p.pos]; {
	case c == '{':
		return p.container('{', '}', pyDict)
	case c == '(':
		return p.container('(', ')', pyTuple)
	case c == '[':
		return p.container('[', ']', pyList)
	case c == '\'' || c == '"' || ((c == 'u' || c == 'U') && p.pos+1 < len(p.src) && (p.src[p.pos+1] == '\'' || p.src[p.pos+1] == '"')):
		return p.strings()
	case c == '-' || c == '+' || (c >= '0' && c <= '9'):
		return p.integer()
	case isNameStart(c):
		return p.name()
	default:
		return pyValue{}, p.errorf("unexpected %s", p.describeNext())
	}
}

// container parses a dict, tuple or list. A parenthesised single value
// without a comma is that value, not a tuple, exactly as in Python: (5) is 5.
func (p *pyParser) container(open, close byte, kind pyKind) (pyValue, error) {
	if p.depthLeft == 0 {
		return pyValue{}, p.errorf("brackets nest more than %d deep", maxLiteralDepth)
	}
	p.depthLeft--
	defer func() { p.depthLeft++ }()
	p.pos++ // open
	var items []pyValue
	sawComma := false
	for {
		p.skipSpace()
		if p.pos < len(p.src) && p.src[p.pos] == close {
			p.pos++
			break
		}
		if len(items) > 0 && !sawComma {
			return pyValue{}, p.errorf("expected ',' or %q, found %s", close, p.describeNext())
		}
		v, err := p.value()
		if err != nil {
			return pyValue{}, err
		}
		items = append(items, v)
		if kind == pyDict {
			p.skipSpace()
			if p.pos >= len(p.src) || p.src[p.pos] != ':' {
				return pyValue{}, p.errorf("expected ':' after a dict key, found %s", p.describeNext())
			}
			p.pos++
			p.skipSpace()
			v, err := p.value()
			if err != nil {
				return pyValue{}, err
			}
			items = append(items, v)
		}
		p.skipSpace()
		sawComma = p.pos < len(p.src) && p.src[p.pos] == ','
		if sawComma {
			p.pos++
		}
	}
	if kind == pyTuple && len(items) == 1 && !sawComma {
		return items[0], nil
	}
	return pyValue{kind: kind, items: items}, nil
}

// strings parses one string literal and any literals adjacent to it, which
// Python concatenates: 'a' "b" is "ab".
func (p *pyParser) strings() (pyValue, error) {
	var b strings.Builder
	for {
		if err := p.oneString(&b); err != nil {
			return pyValue{}, err
		}
		save := p.pos
		p.skipSpace()
		if p.pos < len(p.src) && (p.src[p.pos] == '\'' || p.src[p.pos] == '"') {
			continue
		}
		p.pos = save
		return pyValue{kind: pyStr, str: b.String()}, nil
	}
}

func (p *pyParser) oneString(b *strings.Builder) error {
	if c := p.src[p.pos]; c == 'u' || c == 'U' {
		p.pos++ // u'' is an ordinary str in Python 3
	}
	quote := p.src[p.pos]
	start := p.pos
	p.pos++
	for {
		if p.pos >= len(p.src) || p.src[p.pos] == '\n' {
			p.pos = start
			return p.errorf("unterminated string")
		}
		c := p.src[p.pos]
		p.pos++
		switch c {
		case quote:
			return nil
		case '\\':
			if p.pos >= len(p.src) {
				p.pos = start
				return p.errorf("unterminated string")
			}
			e := p.src[p.pos]
			p.pos++
			switch e {
			case '\\', '\'', '"':
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			default:
				p.pos -= 2
				return p.errorf("unsupported string escape \\%c", e)
			}
		default:
			b.WriteByte(c)
		}
	}
}

// integer parses a decimal integer with optional sign (Python allows spaces
// between a unary sign and its operand) and, where allowed, an L suffix.
func (p *pyParser) integer() (pyValue, error) {
	start := p.pos
	sign := ""
	if c := p.src[p.pos]; c == '-' || c == '+' {
		if c == '-' {
			sign = "-"
		}
		p.pos++
		p.skipSpace()
	}
	digitsStart := p.pos
	for p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
		p.pos++
	}
	digits := p.src[digitsStart:p.pos]
	if digits == "" {
		return pyValue{}, p.errorf("expected digits after a sign, found %s", p.describeNext())
	}
	if len(digits) > 1 && digits[0] == '0' && strings.Trim(digits, "0") != "" {
		p.pos = start
		return pyValue{}, p.errorf("integer %s has a leading zero, which Python 3 does not allow", digits)
	}
	if p.pos < len(p.src) && (p.src[p.pos] == 'L' || p.src[p.pos] == 'l') && p.longInts {
		p.pos++
	}
	if p.pos < len(p.src) && (isNameStart(p.src[p.pos]) || p.src[p.pos] == '.') {
		return pyValue{}, p.errorf("only plain decimal integers are supported, found %s after %s", p.describeNext(), digits)
	}
	v := pyValue{kind: pyInt, str: sign + digits}
	n, err := strconv.ParseInt(sign+digits, 10, 64)
	if err != nil {
		v.big = true
	} else {
		v.int = n
	}
	return v, nil
}

func (p *pyParser) name() (pyValue, error) {
	start := p.pos
	for p.pos < len(p.src) && (isNameStart(p.src[p.pos]) || (p.src[p.pos] >= '0' && p.src[p.pos] <= '9')) {
		p.pos++
	}
	switch name := p.src[start:p.pos]; name {
	case "True":
		return pyValue{kind: pyBool, bool: true}, nil
	case "False":
		return pyValue{kind: pyBool}, nil
	case "None":
		return pyValue{kind: pyNone}, nil
	default:
		p.pos = start
		return pyValue{}, p.errorf("unexpected name %q (a header holds only literals)", name)
	}
}

func isNameStart(c byte) bool { return c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z') }
