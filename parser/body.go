package parser

import (
	"errors"
	"fmt"
	"math/big"
	"sync"

	"github.com/ipuir/ipuir/ir"
)

// BodyParser reads the body of a dialect attribute or type, the text the
// core parser hands to an ir.Dialect's ParseAttr or ParseType hook, with
// the builtin parsers: a dialect body may hold builtin types, attributes,
// integers, strings, keywords and punctuation, tokenised exactly as MLIR
// does. While a file is being parsed, its type and attribute aliases are
// visible to body parsers created for the same context, as they are to
// MLIR's dialect parsers.
//
// Errors are *BodyError values carrying the offset in the body; returned
// from a hook, the core parser reports them at the right place of the file.
type BodyParser struct {
	p    *parser
	body string
}

// NewBodyParser starts reading body.
func NewBodyParser(ctx *ir.Context, body string) *BodyParser {
	st := newState()
	if types, attrs, ok := activeAliases(ctx); ok {
		st.typeAliases, st.attrAliases = types, attrs
	}
	return &BodyParser{p: newParser(ctx, []byte(body), "<body>", 0, st), body: body}
}

// bodyError converts a diagnostic of the inner parser to a BodyError.
func (b *BodyParser) bodyError(err error) error {
	if err == nil {
		return nil
	}
	var d *ir.Diagnostic
	if errors.As(err, &d) {
		off := 0
		if f, ok := ir.FileLineColOf(d.Loc); ok {
			off = b.p.tokOffset(Token{Start: -1, Line: f.Line, Col: f.Col})
		}
		return &BodyError{Offset: off, Message: d.Message}
	}
	return &BodyError{Offset: b.p.tok.Start, Message: err.Error()}
}

// Offset is the byte offset of the current token in the body.
func (b *BodyParser) Offset() int { return b.p.tok.Start }

// Token is the current token; Text its spelling.
func (b *BodyParser) Token() Token        { return b.p.tok }
func (b *BodyParser) Text(t Token) string { return string(b.p.text(t)) }

// Errorf makes an error located at the current token.
func (b *BodyParser) Errorf(format string, args ...any) error {
	return &BodyError{Offset: b.p.tok.Start, Message: fmt.Sprintf(format, args...)}
}

// AtEnd reports whether the whole body has been read.
func (b *BodyParser) AtEnd() bool { return b.p.tok.Kind == EOF }

// ExpectEnd fails unless the whole body has been read.
func (b *BodyParser) ExpectEnd() error {
	if b.p.tok.Kind == Error {
		return b.bodyError(b.p.lexError())
	}
	if b.p.tok.Kind != EOF {
		return b.Errorf("unexpected '%s' after the end of the body", b.p.text(b.p.tok))
	}
	return nil
}

// ParseType parses a type.
func (b *BodyParser) ParseType() (ir.Type, error) {
	t, err := b.p.parseType()
	return t, b.bodyError(err)
}

// ParseAttribute parses an attribute; t is the type the context implies, or nil.
func (b *BodyParser) ParseAttribute(t ir.Type) (ir.Attribute, error) {
	a, err := b.p.parseAttribute(t)
	return a, b.bodyError(err)
}

// ParseInteger parses an optionally negative integer that fits an int64.
func (b *BodyParser) ParseInteger() (int64, error) {
	p := b.p
	neg := p.tok.Kind == Minus
	at := p.tok
	if neg {
		p.Next()
	}
	if p.tok.Kind != Integer {
		return 0, b.Errorf("expected integer value")
	}
	v := intLiteralValue(p.text(p.tok))
	if v == nil {
		return 0, &BodyError{Offset: at.Start, Message: "integer value too large"}
	}
	if neg {
		v.Neg(v)
	}
	if !v.IsInt64() {
		return 0, &BodyError{Offset: at.Start, Message: "integer value too large"}
	}
	p.Next()
	return v.Int64(), nil
}

// ParseFloat parses an optionally negative float or integer literal.
func (b *BodyParser) ParseFloat() (float64, error) {
	p := b.p
	neg := p.consumeIf(Minus)
	var v float64
	switch p.tok.Kind {
	case Float:
		v = floatLiteral(p.text(p.tok))
	case Integer:
		i := intLiteralValue(p.text(p.tok))
		if i == nil {
			return 0, b.Errorf("expected floating point literal")
		}
		v, _ = new(big.Float).SetInt(i).Float64()
	default:
		return 0, b.Errorf("expected floating point literal")
	}
	p.Next()
	if neg {
		v = -v
	}
	return v, nil
}

// ParseString parses a string literal and returns its value.
func (b *BodyParser) ParseString() (string, error) {
	if b.p.tok.Kind != String {
		return "", b.Errorf("expected string")
	}
	s := decodeString(b.p.text(b.p.tok))
	b.p.Next()
	return s, nil
}

// ParseKeyword expects the bare identifier kw.
func (b *BodyParser) ParseKeyword(kw string) error {
	if !b.ParseOptionalKeyword(kw) {
		return b.Errorf("expected '%s'", kw)
	}
	return nil
}

// ParseOptionalKeyword consumes kw if it is next.
func (b *BodyParser) ParseOptionalKeyword(kw string) bool {
	if !b.p.is(kw) {
		return false
	}
	b.p.Next()
	return true
}

// ParseKeywordAny parses any bare identifier.
func (b *BodyParser) ParseKeywordAny() (string, error) {
	if b.p.tok.Kind != BareIdent {
		return "", b.Errorf("expected valid keyword")
	}
	s := string(b.p.text(b.p.tok))
	b.p.Next()
	return s, nil
}

// ParsePunct expects punctuation spelled s ("<", "->", ",", ...).
func (b *BodyParser) ParsePunct(s string) error {
	if !b.ParseOptionalPunct(s) {
		return b.Errorf("expected '%s'", s)
	}
	return nil
}

// ParseOptionalPunct consumes punctuation spelled s if it is next.
func (b *BodyParser) ParseOptionalPunct(s string) bool {
	k, ok := punctKinds[s]
	return ok && b.p.consumeIf(k)
}

// The aliases of the files being parsed, per context, so that dialect
// hooks (which receive only the context and the body) can resolve them.
var (
	activeMu     sync.Mutex
	activeParses = map[*ir.Context][]*state{}
)

// activate makes st's aliases visible to body parsers of ctx until the
// returned function is called.
func activate(ctx *ir.Context, st *state) func() {
	activeMu.Lock()
	activeParses[ctx] = append(activeParses[ctx], st)
	activeMu.Unlock()
	return func() {
		activeMu.Lock()
		defer activeMu.Unlock()
		states := activeParses[ctx]
		for i := len(states) - 1; i >= 0; i-- {
			if states[i] == st {
				states = append(states[:i], states[i+1:]...)
				break
			}
		}
		if len(states) == 0 {
			delete(activeParses, ctx)
		} else {
			activeParses[ctx] = states
		}
	}
}

func activeAliases(ctx *ir.Context) (map[string]ir.Type, map[string]ir.Attribute, bool) {
	activeMu.Lock()
	defer activeMu.Unlock()
	states := activeParses[ctx]
	if len(states) == 0 {
		return nil, nil, false
	}
	top := states[len(states)-1]
	return top.typeAliases, top.attrAliases, true
}
