package ir

import (
	"io"
	"reflect"
	"strconv"
	"strings"
)

// AsmPrinter accumulates textual IR. Types and attributes print themselves
// through it; the printer package wraps it with op-level printing and fills
// in the alias tables so that nested references print as `#map` or `!t`.
//
// With an output set (SetOutput) it streams: buffered text goes to the
// writer between ops and before each nested type or attribute
// (FlushIfLarge), so that printing a large module, or one huge attribute,
// needs memory for one chunk of text, not the whole output.
type AsmPrinter struct {
	buf []byte

	out     io.Writer
	err     error // the first error of out
	flushed int   // bytes handed to out so far

	// AttrAliases and TypeAliases name attributes and types that should
	// print by alias (without the leading '#' or '!').
	AttrAliases map[Attribute]string
	TypeAliases map[Type]string

	// Hook, when set, sees every type and attribute before it prints,
	// nested ones included; see AsmHook.
	Hook AsmHook

	// HexThreshold: elements attributes with more elements than this print
	// as a hex string; 0 means DenseHexThreshold (mlir-opt's default), a
	// negative value never.
	HexThreshold int

	// distinctIDs numbers the DistinctAttrs printed so far (distinct.go).
	distinctIDs map[*DistinctAttr]uint64
	// identityKeys is set in printers that make uniquing keys: a
	// DistinctAttr then spells its identity, not its print order, and
	// every type or attribute inside the one being keyed spells its
	// identity instead of its text (they are uniqued already, so equal
	// ones are one pointer), so that a key is as long as one level of the
	// value, not as its whole tree: a type of 40 nested doubling aliases
	// keys in microseconds, not in 2^40 characters.
	identityKeys bool
}

// writeIdentity spells a uniqued component's identity in a key: its Go
// type and its address (interned values live as long as their context,
// so no address is reused). It reports false for a value that is no
// pointer, which prints as text.
func (p *AsmPrinter) writeIdentity(v any) bool {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer {
		return false
	}
	p.WriteByte('\x00')
	p.WriteString(rv.Type().String())
	p.WriteByte('@')
	p.WriteUint(uint64(rv.Pointer()))
	return true
}

// AsmHook lets the printer package watch or take over the printing of
// types and attributes wherever they occur: it finds aliases by a dry run
// of the real printer (as mlir-opt does), and elides large elements
// attributes. A method returns true when it has handled the value (printed
// it, or decided it needs no printing); false lets it print as usual.
type AsmHook interface {
	HookType(p *AsmPrinter, t Type) bool
	HookAttr(p *AsmPrinter, a Attribute, elideType bool) bool
}

// String returns what has been printed (since the last flush, when
// streaming).
func (p *AsmPrinter) String() string { return string(p.buf) }

// Bytes returns what has been printed (since the last flush, when
// streaming); the slice is the printer's own.
func (p *AsmPrinter) Bytes() []byte { return p.buf }

// Reset empties the buffer and keeps the alias tables.
func (p *AsmPrinter) Reset() { p.buf = p.buf[:0] }

// Len is the number of bytes printed so far, flushed ones included.
func (p *AsmPrinter) Len() int { return p.flushed + len(p.buf) }

// flushThreshold is the buffered size at which FlushIfLarge writes: large
// enough that writes are few, small enough to stay in cache.
const flushThreshold = 64 << 10

// SetOutput makes p stream to w: Flush and FlushIfLarge hand w what has
// been printed. Text already handed over can no longer be read back
// (Bytes, String): code that reads back what it printed uses a printer
// without an output.
func (p *AsmPrinter) SetOutput(w io.Writer) {
	p.out = w
	if cap(p.buf) < flushThreshold+flushThreshold/4 {
		p.buf = append(make([]byte, 0, flushThreshold+flushThreshold/4), p.buf...)
	}
}

// FlushIfLarge writes the buffer to the output once it holds at least
// flushThreshold bytes; it does nothing without an output.
func (p *AsmPrinter) FlushIfLarge() {
	if p.out != nil && len(p.buf) >= flushThreshold {
		p.Flush()
	}
}

// Flush writes the buffer to the output and empties it; it returns the
// first error the output reported (later output is dropped). Without an
// output it does nothing.
func (p *AsmPrinter) Flush() error {
	if p.out == nil {
		return nil
	}
	if p.err == nil && len(p.buf) > 0 {
		_, p.err = p.out.Write(p.buf)
	}
	p.flushed += len(p.buf)
	p.buf = p.buf[:0]
	return p.err
}

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
	p.FlushIfLarge()
	if p.Hook != nil && p.Hook.HookType(p, t) {
		return
	}
	if name, ok := p.TypeAliases[t]; ok {
		p.WriteByte('!')
		p.WriteString(name)
		return
	}
	if p.identityKeys && p.writeIdentity(t) {
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
	p.FlushIfLarge()
	if p.Hook != nil && p.Hook.HookAttr(p, a, false) {
		return
	}
	if name, ok := p.AttrAliases[a]; ok {
		p.WriteByte('#')
		p.WriteString(name)
		return
	}
	if p.identityKeys && p.writeIdentity(a) {
		return
	}
	a.Print(p)
}

// PrintAttrWithoutType prints a without a trailing `: type` where the
// attribute kind normally has one (integers, floats, dense elements), for
// contexts where the type is implied.
func (p *AsmPrinter) PrintAttrWithoutType(a Attribute) {
	if a == nil {
		p.WriteString("<<NULL ATTRIBUTE>>")
		return
	}
	p.FlushIfLarge()
	if p.Hook != nil && p.Hook.HookAttr(p, a, true) {
		return
	}
	if name, ok := p.AttrAliases[a]; ok {
		p.WriteByte('#')
		p.WriteString(name)
		return
	}
	p.PrintAttrDirect(a, true)
}

// PrintAttrDirect prints a itself, bypassing the hook and a's own alias
// (nested values still go through both); elideType drops the `: type` of
// typed attributes. Hooks and alias definitions use it.
func (p *AsmPrinter) PrintAttrDirect(a Attribute, elideType bool) {
	if tp, ok := a.(interface{ printWithoutType(*AsmPrinter) }); ok && elideType {
		tp.printWithoutType(p)
		return
	}
	a.Print(p)
}

// printAttrMayElideType prints a where MLIR's parser assumes i64 for an
// integer and f64 for a float without a type (array elements, memref memory
// spaces), so those types are left out.
func (p *AsmPrinter) printAttrMayElideType(a Attribute) {
	switch a := a.(type) {
	case *IntegerAttr:
		if it, ok := a.Typ.(*IntegerType); ok && it.Width == 64 && it.Signedness == Signless {
			p.PrintAttrWithoutType(a)
			return
		}
	case *FloatAttr:
		// A bit pattern reads back as an integer without its type, so it
		// keeps the type (as in MLIR).
		if a.Typ.Kind == F64 && !strings.HasPrefix(string(AppendFloat(nil, a.Val, F64)), "0x") {
			p.PrintAttrWithoutType(a)
			return
		}
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
// `\` doubled, everything else (`"`, newline and tab too) as `\XX`, as
// llvm::printEscapedString does.
func (p *AsmPrinter) PrintString(s string) { p.buf = AppendQuoted(p.buf, s) }

// AppendQuoted appends the MLIR string literal for s.
func AppendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			b = append(b, '\\', c)
		case c >= 0x20 && c < 0x7f && c != '"':
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

// PrintDialectSymbol prints a dialect type or attribute (`prefix` is '!' or
// '#') as MLIR does: `!d.foo<...>` when the body starts with an identifier
// and anything after it is one `<...>`, else `!d<body>`.
func (p *AsmPrinter) PrintDialectSymbol(prefix byte, dialect, body string) {
	p.WriteByte(prefix)
	p.WriteString(dialect)
	if isPrettyDialectSymbol(body) {
		p.WriteByte('.')
		p.WriteString(body)
		return
	}
	p.WriteByte('<')
	p.WriteString(body)
	p.WriteByte('>')
}

func isPrettyDialectSymbol(s string) bool {
	if s == "" || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
		return false
	}
	i := 0
	for i < len(s) && (isAlnum(s[i]) || s[i] == '.' || s[i] == '_') {
		i++
	}
	rest := s[i:]
	return rest == "" || rest[0] == '<' && rest[len(rest)-1] == '>'
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// hexWhenLarger reports whether an elements attribute of n elements prints
// as a hex string.
func (p *AsmPrinter) hexWhenLarger(n int64) bool {
	switch {
	case p.HexThreshold < 0:
		return false
	case p.HexThreshold == 0:
		return n > DenseHexThreshold
	}
	return n > int64(p.HexThreshold)
}
