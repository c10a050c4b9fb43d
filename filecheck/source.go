package filecheck

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"
)

// sourceBuffer is one named text that diagnostics can point into: the check
// file, the input, or a synthetic buffer for command-line patterns, exactly
// the buffers FileCheck registers with its SourceMgr.
type sourceBuffer struct {
	name string
	text []byte
	// lineStarts holds the offset of every line start; built on first use
	// because a passing run never needs it.
	lineStarts []int
}

func newSourceBuffer(name string, text []byte) *sourceBuffer {
	return &sourceBuffer{name: name, text: text}
}

// location is a position in a buffer, the counterpart of an SMLoc.
type location struct {
	buf *sourceBuffer
	off int
}

func (l location) valid() bool { return l.buf != nil }

// lineCol returns the 1-based line and column of off. Columns count bytes.
func (b *sourceBuffer) lineCol(off int) (line, col int) {
	if b.lineStarts == nil {
		starts := make([]int, 1, 1+bytes.Count(b.text, []byte{'\n'}))
		for i, c := range b.text {
			if c == '\n' {
				starts = append(starts, i+1)
			}
		}
		b.lineStarts = starts
	}
	line = sort.Search(len(b.lineStarts), func(i int) bool { return b.lineStarts[i] > off })
	return line, off - b.lineStarts[line-1] + 1
}

type diagKind int

const (
	kindError diagKind = iota
	kindRemark
	kindNote
)

func (k diagKind) label() string {
	switch k {
	case kindError:
		return "error: "
	case kindRemark:
		return "remark: "
	}
	return "note: "
}

// tabStop is the tab width SourceMgr uses when echoing source lines.
const tabStop = 8

// printMessage writes a diagnostic the way llvm::SourceMgr::PrintMessage does:
// "file:line:col: kind: message", the source line, and a caret line with
// tildes under the ranges.
func printMessage(w io.Writer, loc location, kind diagKind, msg string, ranges ...[2]int) {
	var sb strings.Builder
	if !loc.valid() {
		sb.WriteString(kind.label())
		sb.WriteString(msg)
		sb.WriteByte('\n')
		io.WriteString(w, sb.String())
		return
	}
	b := loc.buf
	line, col := b.lineCol(loc.off)
	name := b.name
	if name == "-" {
		name = "<stdin>"
	}
	fmt.Fprintf(&sb, "%s:%d:%d: %s%s\n", name, line, col, kind.label(), msg)

	lineStart := loc.off - (col - 1)
	lineEnd := lineStart
	for lineEnd < len(b.text) && b.text[lineEnd] != '\n' && b.text[lineEnd] != '\r' {
		lineEnd++
	}
	contents := b.text[lineStart:lineEnd]
	for _, c := range contents {
		if c >= 0x80 {
			// SourceMgr cannot align carets under multibyte text, so it
			// shows the line alone.
			writeSourceLine(&sb, contents)
			io.WriteString(w, sb.String())
			return
		}
	}
	caret := bytes.Repeat([]byte{' '}, len(contents)+1)
	for _, r := range ranges {
		start, end := r[0], r[1]
		if start > lineEnd || end < lineStart {
			continue
		}
		start = max(start, lineStart)
		end = min(end, lineEnd)
		for i := start - lineStart; i < end-lineStart && i < len(caret); i++ {
			caret[i] = '~'
		}
	}
	if col-1 <= len(contents) {
		caret[col-1] = '^'
	} else {
		caret[len(contents)] = '^'
	}
	caret = bytes.TrimRight(caret, " ")
	writeSourceLine(&sb, contents)
	outCol := 0
	for i, c := range caret {
		if i >= len(contents) || contents[i] != '\t' {
			sb.WriteByte(c)
			outCol++
			continue
		}
		for {
			sb.WriteByte(c)
			outCol++
			if outCol%tabStop == 0 {
				break
			}
		}
	}
	sb.WriteByte('\n')
	io.WriteString(w, sb.String())
}

// writeSourceLine echoes a source line, expanding tabs to the next tab stop.
func writeSourceLine(sb *strings.Builder, line []byte) {
	outCol := 0
	for i := 0; i < len(line); {
		tab := bytes.IndexByte(line[i:], '\t')
		if tab < 0 {
			sb.Write(line[i:])
			break
		}
		sb.Write(line[i : i+tab])
		outCol += tab
		i += tab + 1
		for {
			sb.WriteByte(' ')
			outCol++
			if outCol%tabStop == 0 {
				break
			}
		}
	}
	sb.WriteByte('\n')
}

// canonicalize applies FileCheck's input normalisation: "\r\n" becomes "\n"
// and, unless strict, every run of spaces and tabs becomes one space.
func canonicalize(text []byte, strict bool) []byte {
	needed := false
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c == '\r' && i+1 < len(text) && text[i+1] == '\n' {
			needed = true
			break
		}
		if !strict && (c == '\t' || c == ' ' && i+1 < len(text) && (text[i+1] == ' ' || text[i+1] == '\t')) {
			needed = true
			break
		}
	}
	if !needed {
		return text
	}
	out := make([]byte, 0, len(text))
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c == '\r' && i+1 < len(text) && text[i+1] == '\n' {
			continue
		}
		if strict || (c != ' ' && c != '\t') {
			out = append(out, c)
			continue
		}
		out = append(out, ' ')
		for i+1 < len(text) && (text[i+1] == ' ' || text[i+1] == '\t') {
			i++
		}
	}
	return out
}
