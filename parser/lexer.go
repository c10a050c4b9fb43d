package parser

import "bytes"

// Lexer splits MLIR source text into tokens, one at a time, with exactly
// the rules of MLIR 19's lexer (mlir/lib/AsmParser/Lexer.cpp): the same token
// boundaries, the same error messages at the same positions. It keeps only
// the current token, never a token list, so lexing a 30 MB file costs no
// memory beyond the source itself. Dialects use it (through BodyParser) to
// read their attribute and type bodies.
//
// The parser backtracks by copying the Lexer value (it is a few words), and
// splits tokens (`4xf32` into `4`, `x`, `f32`) with ResetTo, as MLIR does.
type Lexer struct {
	src       []byte
	pos       int // next byte to lex
	line      int // 1-based line of pos
	lineStart int // offset of the first byte of line
	tok       Token
	prevEnd   int // end offset of the token before tok

	errMsg string
	errTok Token // position of the lexer error
}

// NewLexer returns a lexer positioned at the first token of src.
func NewLexer(src []byte) *Lexer {
	l := &Lexer{}
	l.init(src)
	return l
}

func (l *Lexer) init(src []byte) {
	*l = Lexer{src: src, line: 1}
	l.tok = l.lex()
}

// Token is the current token.
func (l *Lexer) Token() Token { return l.tok }

// Next advances to the next token. After an Error token it stays there.
func (l *Lexer) Next() {
	if l.tok.Kind == Error {
		return
	}
	l.prevEnd = l.tok.End
	l.tok = l.lex()
}

// NextSplittingX advances like Next, but when an `x` follows the current
// token directly, the next token is that `x` alone: a dimension list
// (`4x4xf32`) splits there anyway, and lexing the rest as one identifier
// each time made a tensor of rank n take n² steps.
func (l *Lexer) NextSplittingX() {
	if l.tok.Kind == Error || l.pos >= len(l.src) || l.src[l.pos] != 'x' || l.pos != l.tok.End {
		l.Next()
		return
	}
	l.prevEnd = l.tok.End
	start := l.pos
	l.pos++
	l.tok = l.form(BareIdent, start)
}

// Text is the spelling of t.
func (l *Lexer) Text(t Token) string { return string(l.src[t.Start:t.End]) }

// Source is the text being lexed.
func (l *Lexer) Source() []byte { return l.src }

// Err returns the message and position of the lexer error that produced the
// current Error token.
func (l *Lexer) Err() (string, Token) { return l.errMsg, l.errTok }

// ResetTo restarts lexing at offset, which must not lie before the current
// token, and makes the token found there current. What lies before offset
// counts as consumed.
func (l *Lexer) ResetTo(offset int) {
	if offset < l.tok.Start {
		panic("BUG: lexer reset backwards")
	}
	l.prevEnd = offset
	if l.tok.Kind == Error {
		// The error position need not lie on the current line; recount.
		l.line, l.lineStart = 1, 0
		l.advanceLines(0, offset)
	} else {
		l.line, l.lineStart = l.tok.Line, l.tok.Start-l.tok.Col+1
		l.advanceLines(l.tok.Start, offset)
	}
	l.pos = offset
	l.tok = l.lex()
}

// advanceLines accounts for the newlines in src[from:to].
func (l *Lexer) advanceLines(from, to int) {
	for {
		i := bytes.IndexByte(l.src[from:to], '\n')
		if i < 0 {
			return
		}
		from += i + 1
		l.line++
		l.lineStart = from
	}
}

// Character classes, as MLIR's lexer tests them with the C locale.
const (
	clsAlpha uint8 = 1 << iota
	clsDigit
	clsIdent  // continues a bare identifier: [A-Za-z0-9_$.]
	clsSuffix // continues a prefixed identifier: [A-Za-z0-9$._-]
	clsHex
)

var charClass = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		var k uint8
		alpha := (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		digit := c >= '0' && c <= '9'
		if alpha {
			k |= clsAlpha
		}
		if digit {
			k |= clsDigit
		}
		if alpha || digit || c == '_' || c == '$' || c == '.' {
			k |= clsIdent
		}
		if alpha || digit || c == '$' || c == '.' || c == '_' || c == '-' {
			k |= clsSuffix
		}
		if digit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') {
			k |= clsHex
		}
		t[c] = k
	}
	return
}()

func isHexDigit(c byte) bool { return charClass[c]&clsHex != 0 }
func isDigit(c byte) bool    { return c >= '0' && c <= '9' }

// at returns the byte at i, or 0 past the end (MLIR's buffers end in NUL).
func (l *Lexer) at(i int) byte {
	if i < len(l.src) {
		return l.src[i]
	}
	return 0
}

func (l *Lexer) form(kind TokenKind, start int) Token {
	return Token{Kind: kind, Start: start, End: l.pos, Line: l.line, Col: start - l.lineStart + 1}
}

func (l *Lexer) fail(pos int, msg string) Token {
	l.errMsg = msg
	l.errTok = Token{Kind: Error, Start: pos, End: pos, Line: l.line, Col: pos - l.lineStart + 1}
	l.pos = pos
	return l.errTok
}

func (l *Lexer) lex() Token {
	src := l.src
	for l.pos < len(src) {
		start := l.pos
		c := src[start]
		l.pos++
		switch c {
		case ' ', '\t', '\r', 0:
			continue
		case '\n':
			l.line++
			l.lineStart = l.pos
			continue
		case ':':
			return l.form(Colon, start)
		case ',':
			return l.form(Comma, start)
		case '(':
			return l.form(LParen, start)
		case ')':
			return l.form(RParen, start)
		case '[':
			return l.form(LSquare, start)
		case ']':
			return l.form(RSquare, start)
		case '<':
			return l.form(Less, start)
		case '>':
			return l.form(Greater, start)
		case '=':
			return l.form(Equal, start)
		case '+':
			return l.form(Plus, start)
		case '*':
			return l.form(Star, start)
		case '?':
			return l.form(Question, start)
		case '|':
			return l.form(VerticalBar, start)
		case '}':
			return l.form(RBrace, start)
		case '{':
			if l.at(l.pos) == '-' && l.at(l.pos+1) == '#' {
				l.pos += 2
				return l.form(FileMetadataBegin, start)
			}
			return l.form(LBrace, start)
		case '-':
			if l.at(l.pos) == '>' {
				l.pos++
				return l.form(Arrow, start)
			}
			return l.form(Minus, start)
		case '.':
			if l.at(l.pos) != '.' || l.at(l.pos+1) != '.' {
				return l.fail(l.pos, "expected three consecutive dots for an ellipsis")
			}
			l.pos += 2
			return l.form(Ellipsis, start)
		case '/':
			if l.at(l.pos) == '/' {
				l.skipComment()
				continue
			}
			return l.fail(start, "unexpected character")
		case '@':
			return l.lexAtIdent(start)
		case '#':
			if l.at(l.pos) == '-' && l.at(l.pos+1) == '}' {
				l.pos += 2
				return l.form(FileMetadataEnd, start)
			}
			return l.lexPrefixed(start, HashIdent, "invalid attribute name")
		case '!':
			return l.lexPrefixed(start, BangIdent, "invalid type identifier")
		case '^':
			return l.lexPrefixed(start, CaretIdent, "invalid block name")
		case '%':
			return l.lexPrefixed(start, PercentIdent, "invalid SSA name")
		case '"':
			return l.lexString(start)
		case '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			return l.lexNumber(start)
		case '_':
			return l.lexBareIdent(start)
		default:
			if charClass[c]&clsAlpha != 0 {
				return l.lexBareIdent(start)
			}
			return l.fail(start, "unexpected character")
		}
	}
	return Token{Kind: EOF, Start: len(src), End: len(src), Line: l.line, Col: len(src) - l.lineStart + 1}
}

// skipComment skips a `//` comment up to and including its line end.
func (l *Lexer) skipComment() {
	rest := l.src[l.pos:]
	i := bytes.IndexAny(rest, "\n\r")
	if i < 0 {
		l.pos = len(l.src)
		return
	}
	l.pos += i + 1
	if rest[i] == '\n' {
		l.line++
		l.lineStart = l.pos
	}
}

func (l *Lexer) lexBareIdent(start int) Token {
	src := l.src
	p := l.pos
	for p < len(src) && charClass[src[p]]&clsIdent != 0 {
		p++
	}
	l.pos = p
	return l.form(BareIdent, start)
}

func (l *Lexer) lexAtIdent(start int) Token {
	c := l.at(l.pos)
	l.pos++
	if c == '"' {
		if t := l.lexString(l.pos - 1); t.Kind == Error {
			return t
		}
		return l.form(AtIdent, start)
	}
	if charClass[c]&clsAlpha == 0 && c != '_' {
		return l.fail(l.pos-1, "@ identifier expected to start with letter or '_'")
	}
	for l.pos < len(l.src) && charClass[l.src[l.pos]]&clsIdent != 0 {
		l.pos++
	}
	return l.form(AtIdent, start)
}

func (l *Lexer) lexPrefixed(start int, kind TokenKind, errMsg string) Token {
	src := l.src
	p := l.pos
	switch c := l.at(p); {
	case isDigit(c):
		for p < len(src) && isDigit(src[p]) {
			p++
		}
	case charClass[c]&clsSuffix != 0:
		for p < len(src) && charClass[src[p]]&clsSuffix != 0 {
			p++
		}
	default:
		return l.fail(start, errMsg)
	}
	l.pos = p
	return l.form(kind, start)
}

// lexString lexes a string literal whose opening quote is at start.
func (l *Lexer) lexString(start int) Token {
	src := l.src
	p := start + 1
	for {
		if p >= len(src) {
			return l.fail(len(src), `expected '"' in string literal`)
		}
		c := src[p]
		p++
		switch c {
		case '"':
			l.pos = p
			return l.form(String, start)
		case '\n', '\v', '\f':
			return l.fail(p-1, `expected '"' in string literal`)
		case '\\':
			n := l.at(p)
			switch {
			case n == '"' || n == '\\' || n == 'n' || n == 't':
				p++
			case isHexDigit(n) && isHexDigit(l.at(p+1)) && p+1 < len(src):
				p += 2
			default:
				return l.fail(p-1, "unknown escape in string literal")
			}
		}
	}
}

func (l *Lexer) lexNumber(start int) Token {
	src := l.src
	p := l.pos
	if src[start] == '0' && l.at(p) == 'x' {
		// `0xi32` is `0` followed by `xi32`.
		if !isHexDigit(l.at(p + 1)) {
			return l.form(Integer, start)
		}
		p += 2
		for p < len(src) && isHexDigit(src[p]) {
			p++
		}
		l.pos = p
		return l.form(Integer, start)
	}
	for p < len(src) && isDigit(src[p]) {
		p++
	}
	if l.at(p) != '.' {
		l.pos = p
		return l.form(Integer, start)
	}
	p++
	for p < len(src) && isDigit(src[p]) {
		p++
	}
	if c := l.at(p); c == 'e' || c == 'E' {
		n := l.at(p + 1)
		if isDigit(n) || ((n == '-' || n == '+') && isDigit(l.at(p+2))) {
			p += 2
			for p < len(src) && isDigit(src[p]) {
				p++
			}
		}
	}
	l.pos = p
	return l.form(Float, start)
}

// decodeString returns the value of a string literal token's text (with
// its quotes): `\n`, `\t`, `\"`, `\\` and `\XX` escapes resolved.
func decodeString(text []byte) string {
	body := text[1 : len(text)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return string(body)
	}
	out := make([]byte, 0, len(body))
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' || i+1 >= len(body) {
			out = append(out, c)
			continue
		}
		i++
		switch body[i] {
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case '"', '\\':
			out = append(out, body[i])
		default:
			out = append(out, hexVal(body[i])<<4|hexVal(body[i+1]))
			i++
		}
	}
	return string(out)
}

func hexVal(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}
