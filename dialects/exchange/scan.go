package exchange

import (
	"fmt"
	"strconv"

	"github.com/ipuir/ipuir/ir"
)

// scanner reads the bodies of the dialect's attributes: words, integers,
// `=`, `,`, brackets and braces. It is hand-written rather than a
// participle grammar because a phase of the attention block holds tens of
// thousands of transfers: a body of a million integers must read in
// milliseconds. Errors are *ir.BodyError at the offending byte, so the
// parser reports them at their place in the file.
type scanner struct {
	s   string
	pos int
}

func (sc *scanner) errorf(format string, args ...any) error {
	return &ir.BodyError{Offset: sc.pos, Message: fmt.Sprintf(format, args...)}
}

func (sc *scanner) skip() {
	for sc.pos < len(sc.s) && (sc.s[sc.pos] == ' ' || sc.s[sc.pos] == '\n' || sc.s[sc.pos] == '\t' || sc.s[sc.pos] == '\r') {
		sc.pos++
	}
}

// peek returns the next non-space byte, or 0 at the end.
func (sc *scanner) peek() byte {
	sc.skip()
	if sc.pos < len(sc.s) {
		return sc.s[sc.pos]
	}
	return 0
}

func (sc *scanner) expect(c byte) error {
	if sc.peek() != c {
		if sc.pos >= len(sc.s) {
			return sc.errorf("expected '%c' but the body ended", c)
		}
		return sc.errorf("expected '%c', got '%c'", c, sc.s[sc.pos])
	}
	sc.pos++
	return nil
}

func (sc *scanner) accept(c byte) bool {
	if sc.peek() == c {
		sc.pos++
		return true
	}
	return false
}

func (sc *scanner) word() (string, error) {
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
		return "", sc.errorf("expected a name")
	}
	return sc.s[start:sc.pos], nil
}

func (sc *scanner) int() (int64, error) {
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
		return 0, sc.errorf("expected an integer")
	}
	return v, nil
}

// field reads `name =` and checks the name.
func (sc *scanner) field(name string) error {
	at := sc.pos
	w, err := sc.word()
	if err != nil {
		return err
	}
	if w != name {
		sc.pos = at
		sc.skip()
		return sc.errorf("expected field '%s', got '%s'", name, w)
	}
	return sc.expect('=')
}

// ints reads `[i, j, ...]`, calling each for every integer (in order), at
// most limit of them.
func (sc *scanner) ints(limit int, each func(int64) error) error {
	if err := sc.expect('['); err != nil {
		return err
	}
	if sc.accept(']') {
		return nil
	}
	for n := 0; ; n++ {
		if n >= limit {
			return sc.errorf("more than %d integers", limit)
		}
		v, err := sc.int()
		if err != nil {
			return err
		}
		if err := each(v); err != nil {
			return err
		}
		if sc.accept(']') {
			return nil
		}
		if err := sc.expect(','); err != nil {
			return err
		}
	}
}

func (sc *scanner) end() error {
	if sc.peek() != 0 {
		return sc.errorf("unexpected '%c' after the attribute", sc.s[sc.pos])
	}
	return nil
}

// body strips the `<` and `>` around an attribute body.
func body(text string) (*scanner, error) {
	if len(text) < 2 || text[0] != '<' || text[len(text)-1] != '>' {
		return nil, &ir.BodyError{Offset: 0, Message: "expected '<...>'"}
	}
	return &scanner{s: text[:len(text)-1], pos: 1}, nil
}
