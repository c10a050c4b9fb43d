package parser

import (
	"fmt"
	"io"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// participle drives the grammars of our own syntax that are not on the hot
// path (affine maps and sets, the {-# ... #-} resource section, dialect
// body grammars). It reads tokens from the hand-written Lexer through this
// adapter, so every grammar sees exactly MLIR's token boundaries
// (`x4xf32`, `->`, `%x#1`), and token positions are absolute positions in
// the file being parsed, ready for diagnostics.

// Token types participle grammars can match with @Name (see Symbols).
const (
	ptIdent lexer.TokenType = -2 - iota
	ptInt
	ptFloat
	ptString
	ptPunct
	ptAtIdent
	ptHashIdent
	ptPercentIdent
	ptCaretIdent
	ptBangIdent
)

func participleType(k TokenKind) lexer.TokenType {
	switch k {
	case EOF:
		return lexer.EOF
	case BareIdent:
		return ptIdent
	case Integer:
		return ptInt
	case Float:
		return ptFloat
	case String:
		return ptString
	case AtIdent:
		return ptAtIdent
	case HashIdent:
		return ptHashIdent
	case PercentIdent:
		return ptPercentIdent
	case CaretIdent:
		return ptCaretIdent
	case BangIdent:
		return ptBangIdent
	}
	return ptPunct
}

// tokenDefinition is a participle lexer.Definition backed by Lexer.
type tokenDefinition struct{}

// Symbols is built on each call: grammars are package variables whose
// initialisation may run before any other package variable's.
func (tokenDefinition) Symbols() map[string]lexer.TokenType {
	return map[string]lexer.TokenType{
		"EOF": lexer.EOF, "Ident": ptIdent, "Int": ptInt, "Float": ptFloat, "String": ptString,
		"Punct": ptPunct, "AtIdent": ptAtIdent, "HashIdent": ptHashIdent, "PercentIdent": ptPercentIdent,
		"CaretIdent": ptCaretIdent, "BangIdent": ptBangIdent,
	}
}

func (d tokenDefinition) Lex(filename string, r io.Reader) (lexer.Lexer, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return d.LexBytes(filename, b)
}

func (d tokenDefinition) LexString(filename string, s string) (lexer.Lexer, error) {
	return d.LexBytes(filename, []byte(s))
}

func (tokenDefinition) LexBytes(filename string, b []byte) (lexer.Lexer, error) {
	l := NewLexer(b)
	var toks []lexer.Token
	var nest nesting
	for {
		t := l.Token()
		if t.Kind == Error {
			msg, et := l.Err()
			return nil, participle.Errorf(lexer.Position{Filename: filename, Offset: et.Start, Line: et.Line, Column: et.Col}, "%s", msg)
		}
		if nest.deeper(t.Kind) {
			return nil, participle.Errorf(toParticiple(l.src, t, filename).Pos, "%s", nestingMessage)
		}
		toks = append(toks, toParticiple(l.src, t, filename))
		if t.Kind == EOF {
			return &sliceLexer{toks: toks}, nil
		}
		l.Next()
	}
}

func toParticiple(src []byte, t Token, filename string) lexer.Token {
	return lexer.Token{
		Type:  participleType(t.Kind),
		Value: string(src[t.Start:t.End]),
		Pos:   lexer.Position{Filename: filename, Offset: t.Start, Line: t.Line, Column: t.Col},
	}
}

// nesting bounds the bracket nesting of token streams handed to
// participle, whose recursive descent would otherwise recurse once per
// level of the input (a million nested parentheses overflow the stack): it
// is the same bound as the hand-written parser's.
type nesting struct{ depth int }

// deeper counts an opening or closing bracket and reports whether the
// nesting now exceeds the bound.
func (n *nesting) deeper(k TokenKind) bool {
	switch k {
	case LParen, LSquare, LBrace, Less:
		n.depth++
	case RParen, RSquare, RBrace, Greater:
		n.depth--
	}
	return n.depth > maxNestingDepth
}

var nestingMessage = fmt.Sprintf("nesting of regions, attributes or types is deeper than %d levels", maxNestingDepth)

// sliceLexer replays collected tokens; the last one is EOF.
type sliceLexer struct {
	toks []lexer.Token
	i    int
}

func (s *sliceLexer) Next() (lexer.Token, error) {
	t := s.toks[s.i]
	if s.i < len(s.toks)-1 {
		s.i++
	}
	return t, nil
}

// collectUntil gathers the tokens from the current one up to (not
// including) the first `closing` outside parentheses and square brackets,
// leaving it current. It returns them as a participle token stream ending
// in EOF at the closing token. A body of more than maxTokens tokens (when
// maxTokens > 0) is an error naming what (e.g. "affine map").
func (p *parser) collectUntil(closing TokenKind, maxTokens int, what string) (*lexer.PeekingLexer, error) {
	var toks []lexer.Token
	depth := 0
	var nest nesting
	for {
		if maxTokens > 0 && len(toks) > maxTokens {
			return nil, p.errorf("%s is longer than %d tokens", what, maxTokens)
		}
		if nest.deeper(p.tok.Kind) {
			return nil, p.errorf("%s", nestingMessage)
		}
		switch p.tok.Kind {
		case Error:
			return nil, p.lexError()
		case EOF:
			return nil, p.wrongToken("expected '%s'", closing)
		case LParen, LSquare:
			depth++
		case RParen, RSquare:
			depth--
		case closing:
			if depth <= 0 {
				eof := toParticiple(p.src, p.tok, p.file)
				eof.Type, eof.Value = lexer.EOF, ""
				toks = append(toks, eof)
				return lexer.Upgrade(&sliceLexer{toks: toks})
			}
		}
		toks = append(toks, toParticiple(p.src, p.tok, p.file))
		p.Next()
	}
}

// participleError locates a participle error in the file.
func (p *parser) participleError(err error) error {
	if pe, ok := err.(participle.Error); ok {
		pos := pe.Position()
		return p.locErr(pos.Line, pos.Column, pe.Message())
	}
	return p.errorf("%s", err.Error())
}

func (p *parser) locErr(line, col int, msg string) error {
	if p.tok.Kind == Error {
		return p.lexError()
	}
	return p.errorAt(Token{Line: line, Col: col, Start: -1}, "%s", msg)
}
