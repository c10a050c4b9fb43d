package parser

import (
	"fmt"
	"strconv"

	"github.com/ipuir/ipuir/ir"
)

// BodyScanner reads attribute bodies made of words, integers, `=`, `,`,
// brackets and braces, for dialects whose attributes hold long integer
// lists (an exchange phase's transfers, a buffer's placement on every
// tile). It is hand-written rather than a participle grammar because such
// a body may hold a million integers and must read in milliseconds; small
// structured bodies use Grammar. Errors are *ir.BodyError at the offending
// byte, so the parser reports them at their place in the file.
type BodyScanner struct {
	s   string
	pos int
}

func (sc *BodyScanner) Errorf(format string, args ...any) error {
	return &ir.BodyError{Offset: sc.pos, Message: fmt.Sprintf(format, args...)}
}

func (sc *BodyScanner) skip() {
	for sc.pos < len(sc.s) && (sc.s[sc.pos] == ' ' || sc.s[sc.pos] == '\n' || sc.s[sc.pos] == '\t' || sc.s[sc.pos] == '\r') {
		sc.pos++
	}
}

// Peek returns the next non-space byte, or 0 at the end.
func (sc *BodyScanner) Peek() byte {
	sc.skip()
	if sc.pos < len(sc.s) {
		return sc.s[sc.pos]
	}
	return 0
}

func (sc *BodyScanner) Expect(c byte) error {
	if sc.Peek() != c {
		if sc.pos >= len(sc.s) {
			return sc.Errorf("expected '%c' but the body ended", c)
		}
		return sc.Errorf("expected '%c', got '%c'", c, sc.s[sc.pos])
	}
	sc.pos++
	return nil
}

func (sc *BodyScanner) Accept(c byte) bool {
	if sc.Peek() == c {
		sc.pos++
		return true
	}
	return false
}

func (sc *BodyScanner) Word() (string, error) {
	sc.skip()
	start := sc.pos
	for sc.pos < len(sc.s) {
		c := sc.s[sc.pos]
		if c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || sc.pos > start && c >= '0' && c <= '9' {
			sc.pos++
			continue
		}
		break
	}
	if sc.pos == start {
		return "", sc.Errorf("expected a name")
	}
	return sc.s[start:sc.pos], nil
}

func (sc *BodyScanner) Int() (int64, error) {
	sc.skip()
	start := sc.pos
	if sc.pos < len(sc.s) && sc.s[sc.pos] == '-' {
		sc.pos++
	}
	for sc.pos < len(sc.s) && sc.s[sc.pos] >= '0' && sc.s[sc.pos] <= '9' {
		sc.pos++
	}
	v, err := strconv.ParseInt(sc.s[start:sc.pos], 10, 64)
	if err != nil {
		sc.pos = start
		return 0, sc.Errorf("expected an integer")
	}
	return v, nil
}

// Field reads `name =` and checks the name.
func (sc *BodyScanner) Field(name string) error {
	at := sc.pos
	w, err := sc.Word()
	if err != nil {
		return err
	}
	if w != name {
		sc.pos = at
		sc.skip()
		return sc.Errorf("expected field '%s', got '%s'", name, w)
	}
	return sc.Expect('=')
}

// Ints reads `[i, j, ...]`, calling each for every integer (in order), at
// most limit of them.
func (sc *BodyScanner) Ints(limit int, each func(int64) error) error {
	if err := sc.Expect('['); err != nil {
		return err
	}
	if sc.Accept(']') {
		return nil
	}
	for n := 0; ; n++ {
		if n >= limit {
			return sc.Errorf("more than %d integers", limit)
		}
		v, err := sc.Int()
		if err != nil {
			return err
		}
		if err := each(v); err != nil {
			return err
		}
		if sc.Accept(']') {
			return nil
		}
		if err := sc.Expect(','); err != nil {
			return err
		}
	}
}

// Tuples reads a bracketed list of bracketed n-integer lists, "[[a, b],
// [c, d]]", calling each with every tuple's index and integers (the slice
// is reused between calls); a tuple of another length is an error saying
// shape ("a segment is [transfer, start, words]").
func (sc *BodyScanner) Tuples(n int, shape string, each func(i int, v []int64) error) error {
	if err := sc.Expect('['); err != nil {
		return err
	}
	v := make([]int64, 0, n)
	for i := 0; !sc.Accept(']'); i++ {
		if i > 0 {
			if err := sc.Expect(','); err != nil {
				return err
			}
		}
		v = v[:0]
		if err := sc.Ints(n, func(x int64) error { v = append(v, x); return nil }); err != nil {
			return err
		}
		if len(v) != n {
			return sc.Errorf("%s", shape)
		}
		if err := each(i, v); err != nil {
			return err
		}
	}
	return nil
}

func (sc *BodyScanner) End() error {
	if sc.Peek() != 0 {
		return sc.Errorf("unexpected '%c' after the attribute", sc.s[sc.pos])
	}
	return nil
}

// NewBodyScanner scans an attribute body as AttrDecl.Parse receives it,
// `<...>` included.
func NewBodyScanner(text string) (*BodyScanner, error) {
	if len(text) < 2 || text[0] != '<' || text[len(text)-1] != '>' {
		return nil, &ir.BodyError{Offset: 0, Message: "expected '<...>'"}
	}
	return &BodyScanner{s: text[:len(text)-1], pos: 1}, nil
}

// Mark is the scanner's position, for Reset.
func (sc *BodyScanner) Mark() int { return sc.pos }

// Reset returns to a Mark (past any space there), to look ahead and back.
func (sc *BodyScanner) Reset(mark int) {
	sc.pos = mark
	sc.skip()
}
