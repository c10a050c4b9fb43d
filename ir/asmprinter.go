package ir

import (
	"math"
	"strconv"
	"strings"
)

// AsmPrinter accumulates textual IR. Types and attributes print themselves
// through it; the printer package wraps it with op-level printing and fills
// in the alias tables so that nested references print as `#map` or `!t`.
type AsmPrinter struct {
	buf []byte

	// AttrAliases and TypeAliases name attributes and types that should
	// print by alias (without the leading '#' or '!').
	AttrAliases map[Attribute]string
	TypeAliases map[Type]string
}

// String returns what has been printed so far.
func (p *AsmPrinter) String() string { return string(p.buf) }

// Bytes returns what has been printed so far; the slice is the printer's own.
func (p *AsmPrinter) Bytes() []byte { return p.buf }

// Reset empties the buffer and keeps the alias tables.
func (p *AsmPrinter) Reset() { p.buf = p.buf[:0] }

// Len is the number of bytes printed so far.
func (p *AsmPrinter) Len() int { return len(p.buf) }

func (p *AsmPrinter) WriteString(s string) { p.buf = append(p.buf, s...) }

// WriteByte appends c; it never fails (the error is for io.ByteWriter).
func (p *AsmPrinter) WriteByte(c byte) error { p.buf = append(p.buf, c); return nil }
func (p *AsmPrinter) WriteInt(v int64)       { p.buf = strconv.AppendInt(p.buf, v, 10) }
func (p *AsmPrinter) WriteUint(v uint64)     { p.buf = strconv.AppendUint(p.buf, v, 10) }

// PrintType prints t, or its alias when it has one.
func (p *AsmPrinter) PrintType(t Type) {
	if t == nil {
		p.WriteString("<<NULL TYPE>>")
		return
	}
	if name, ok := p.TypeAliases[t]; ok {
		p.WriteByte('!')
		p.WriteString(name)
		return
	}
	t.Print(p)
}

// PrintAttr prints a, or its alias when it has one.
func (p *AsmPrinter) PrintAttr(a Attribute) {
	if a == nil {
		p.WriteString("<<NULL ATTRIBUTE>>")
		return
	}
	if name, ok := p.AttrAliases[a]; ok {
		p.WriteByte('#')
		p.WriteString(name)
		return
	}
	a.Print(p)
}

// PrintAttrWithoutType prints a without a trailing `: type` where the
// attribute kind normally has one (integers, floats, dense elements), for
// contexts where the type is implied.
func (p *AsmPrinter) PrintAttrWithoutType(a Attribute) {
	if tp, ok := a.(interface{ printWithoutType(*AsmPrinter) }); ok {
		tp.printWithoutType(p)
		return
	}
	p.PrintAttr(a)
}

// PrintTypes prints a comma-separated type list.
func (p *AsmPrinter) PrintTypes(ts []Type) {
	for i, t := range ts {
		if i > 0 {
			p.WriteString(", ")
		}
		p.PrintType(t)
	}
}

// PrintString prints s as an MLIR string literal: printable ASCII as is,
// `"` and `\` escaped, everything else (newline and tab too) as `\XX`.
func (p *AsmPrinter) PrintString(s string) { p.buf = AppendQuoted(p.buf, s) }

// AppendQuoted appends the MLIR string literal for s.
func AppendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c >= 0x20 && c < 0x7f:
			b = append(b, c)
		default:
			const hex = "0123456789ABCDEF"
			b = append(b, '\\', hex[c>>4], hex[c&15])
		}
	}
	return append(b, '"')
}

// IsBareIdentifier reports whether s can be printed without quotes as a
// dictionary key or symbol name: [A-Za-z_][A-Za-z0-9_$.]*.
func IsBareIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'):
		case i > 0 && ((c >= '0' && c <= '9') || c == '$' || c == '.'):
		default:
			return false
		}
	}
	return true
}

// PrintKeywordOrString prints s bare if it is an identifier, else quoted.
func (p *AsmPrinter) PrintKeywordOrString(s string) {
	if IsBareIdentifier(s) {
		p.WriteString(s)
	} else {
		p.PrintString(s)
	}
}

// PrintSymbolName prints @s, quoting when needed.
func (p *AsmPrinter) PrintSymbolName(s string) {
	p.WriteByte('@')
	p.PrintKeywordOrString(s)
}

// PrintShape prints dims separated by 'x' with '?' for dynamic ones,
// followed by a trailing 'x' when any dims were printed.
func (p *AsmPrinter) PrintShape(shape []int64) {
	for _, d := range shape {
		if d == Dynamic {
			p.WriteByte('?')
		} else {
			p.WriteInt(d)
		}
		p.WriteByte('x')
	}
}

// AppendFloat appends v in MLIR's float literal syntax: six significant
// decimals in exponent form (`1.500000e+00`) when that reads back to the
// same value of the type, else the shortest decimal that does. Non-finite
// values have no decimal spelling and print as the hex bit pattern of
// their type, as MLIR does.
func AppendFloat(b []byte, v float64, kind FloatKind) []byte {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return AppendFloatBits(b, v, kind)
	}
	short := strconv.AppendFloat(b, v, 'e', 6, 64)
	if back, err := strconv.ParseFloat(string(short[len(b):]), 64); err == nil && RoundFloat(back, kind) == v {
		return short
	}
	bits := 64
	if kind == F32 {
		bits = 32
	}
	s := strconv.FormatFloat(v, 'e', -1, bits)
	mant, exp, _ := strings.Cut(s, "e")
	b = append(b, mant...)
	if !strings.Contains(mant, ".") {
		b = append(b, ".0"...)
	}
	b = append(b, 'e')
	return append(b, exp...)
}

// AppendFloatBits appends the hex bit pattern of v in kind's encoding.
func AppendFloatBits(b []byte, v float64, kind FloatKind) []byte {
	bits, width := FloatBits(v, kind)
	b = append(b, "0x"...)
	s := strings.ToUpper(strconv.FormatUint(bits, 16))
	for n := len(s); n < (width+3)/4; n++ {
		b = append(b, '0')
	}
	return append(b, s...)
}
