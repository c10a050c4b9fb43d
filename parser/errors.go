package parser

import (
	"bytes"

	"github.com/ipuir/ipuir/ir"
)

// Diagnostics are placed exactly where mlir-opt places them: at a token, at
// a byte offset, or (for "wrong token" errors) at the end of the previous
// non-blank line when the offending token starts a line. A lexer error wins
// over any parser error reported while the lexer sits on its Error token,
// because MLIR reports the lexer's error first and abandons the parser's.

// locAt is the file location of a 1-based line and byte column of the
// source being parsed.
func (p *parser) locAt(line, col int) *ir.FileLineColLoc {
	if line == 1 {
		col += p.colOffset
	}
	return p.ctx.FileLineCol(p.file, line+p.lineOffset, col)
}

// tokLoc is the file location of t's first byte.
func (p *parser) tokLoc(t Token) *ir.FileLineColLoc { return p.locAt(t.Line, t.Col) }

// column is t's column in the file (see Config.ColumnOffset).
func (p *parser) column(t Token) int {
	if t.Line == 1 {
		return t.Col + p.colOffset
	}
	return t.Col
}

// lineColOf computes the line and column of a byte offset (error paths only).
func (p *parser) lineColOf(off int) (int, int) {
	if off > len(p.src) {
		off = len(p.src)
	}
	if off < 0 {
		off = 0
	}
	line := 1 + bytes.Count(p.src[:off], []byte{'\n'})
	lineStart := bytes.LastIndexByte(p.src[:off], '\n') + 1
	return line, off - lineStart + 1
}

// offsetLoc is the file location of a byte offset.
func (p *parser) offsetLoc(off int) *ir.FileLineColLoc {
	line, col := p.lineColOf(off)
	return p.locAt(line, col)
}

// lexError turns the lexer's pending error into a diagnostic.
func (p *parser) lexError() *ir.Diagnostic {
	msg, t := p.Err()
	return ir.Errorf(p.tokLoc(t), "%s", msg)
}

// errorAt reports an error located at token t.
func (p *parser) errorAt(t Token, format string, args ...any) *ir.Diagnostic {
	if p.tok.Kind == Error {
		return p.lexError()
	}
	return ir.Errorf(p.tokLoc(t), format, args...)
}

// errorAtOffset reports an error located at a byte offset.
func (p *parser) errorAtOffset(off int, format string, args ...any) *ir.Diagnostic {
	if p.tok.Kind == Error {
		return p.lexError()
	}
	return ir.Errorf(p.offsetLoc(off), format, args...)
}

// errorf reports an error at the current token (one byte back at EOF).
func (p *parser) errorf(format string, args ...any) *ir.Diagnostic {
	if p.tok.Kind == EOF && p.tok.Start > 0 {
		return p.errorAtOffset(p.tok.Start-1, format, args...)
	}
	return p.errorAt(p.tok, format, args...)
}

// wrongToken reports that the current token is not what the grammar
// expects. When the token starts a line, the error moves back to the end of
// the previous non-blank line (before any `//` comment), where the missing
// token belongs.
func (p *parser) wrongToken(format string, args ...any) *ir.Diagnostic {
	if p.tok.Kind == Error {
		return p.lexError()
	}
	loc := p.tok.Start
	if p.tok.Kind == EOF && loc > 0 {
		loc--
	}
	buf := p.src[:loc]
	for {
		buf = bytes.TrimRight(buf, " \t")
		if len(buf) == 0 {
			return p.errorAtOffset(loc, format, args...)
		}
		if last := buf[len(buf)-1]; last != '\n' && last != '\r' {
			return p.errorAtOffset(len(buf), format, args...)
		}
		buf = buf[:len(buf)-1]
		prevLine := buf
		if i := bytes.LastIndexAny(prevLine, "\n\r"); i >= 0 {
			prevLine = prevLine[i:]
		}
		if i := bytes.Index(prevLine, []byte("//")); i >= 0 {
			buf = buf[:len(buf)-(len(prevLine)-i)]
		}
	}
}

// expect consumes a token of kind k or reports msg as a wrong-token error.
func (p *parser) expect(k TokenKind, msg string) error {
	if p.tok.Kind != k {
		return p.wrongToken("%s", msg)
	}
	p.Next()
	return nil
}

// consumeIf consumes a token of kind k if it is current.
func (p *parser) consumeIf(k TokenKind) bool {
	if p.tok.Kind != k {
		return false
	}
	p.Next()
	return true
}

// BodyError is an error found in a dialect attribute or type body (by a
// Grammar, a BodyParser or a declaration's own code); Offset is its byte
// offset in the body. The core parser turns it into a diagnostic at the
// matching place of the source file.
type BodyError = ir.BodyError
