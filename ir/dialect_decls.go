package ir

import (
	"fmt"
	"strings"
)

// AttrDecl declares one attribute of a dialect, written
// `#dialect.mnemonic<...>` (or `#dialect<mnemonic<...>>`): its mnemonic,
// its documentation and how it is read and checked. The core parser
// dispatches on the mnemonic; printing is the attribute's own Print method;
// the generated dialect reference reads Summary, Syntax and Description.
// Declaring an attribute is this one value, listed in Dialect.Attrs.
type AttrDecl struct {
	Mnemonic    string
	Summary     string
	Syntax      string // the written form, for the reference: "#tiled.extents<[start, logical_end, physical_end], ...>"
	Description string
	// Parse builds the attribute from body, the text after the mnemonic
	// (`<...>` as written, or "" when there is none); typ is the type given
	// after `:`, or nil. An error that is a *BodyError points into body,
	// and the parser reports it at that place of the file.
	Parse func(ctx *Context, body string, typ Type) (Attribute, error)
	// Verify, when set, checks an attribute that Parse built.
	Verify func(a Attribute) error
}

// TypeDecl declares one type of a dialect, written `!dialect.mnemonic<...>`;
// see AttrDecl.
type TypeDecl struct {
	Mnemonic    string
	Summary     string
	Syntax      string
	Description string
	Parse       func(ctx *Context, body string) (Type, error)
	Verify      func(t Type) error
}

// BodyError is an error at a byte offset of a dialect attribute or type
// body (the text a declaration's Parse receives). The parser turns it into
// a diagnostic at the matching file position.
type BodyError struct {
	Offset  int
	Message string
}

func (e *BodyError) Error() string { return fmt.Sprintf("offset %d: %s", e.Offset, e.Message) }

// CustomDirective implements `custom<Name>(args)` in the assembly formats
// of a dialect's ops: hand-written syntax for part of an op inside a
// declarative format, as MLIR's custom directives are. A dialect lists its
// directives in Dialect.Directives; only its own ops' formats see them.
type CustomDirective struct {
	// Print prints the part; args hold the op's values for each argument.
	Print func(p OpAsmPrinter, op *Operation, args []*DirectiveArg)
	// Parse parses the part and stores what it read in args (Operands,
	// Types, Attr, Region, Successors), except for ref(...) arguments,
	// which are inputs holding what the format parsed before.
	Parse func(p OpAsmParser, st *OperationState, args []*DirectiveArg) error
}

// DirectiveArgKind says what a custom directive argument binds.
type DirectiveArgKind uint8

const (
	ArgOperands   DirectiveArgKind = iota // `$operand` or `operands`
	ArgTypes                              // `type(...)`
	ArgAttr                               // `$attr`
	ArgRegion                             // `$region`
	ArgSuccessors                         // `successors`
)

// DirectiveArg is one argument of a custom directive.
type DirectiveArg struct {
	Kind DirectiveArgKind
	Name string // the variable's name, or the directive's
	// Ref marks `ref(...)`: the element was bound earlier in the format
	// and is passed for reading only.
	Ref bool

	Values     []*Value            // printing: the operands
	Operands   []UnresolvedOperand // parsing: the operands read
	Types      []Type              // types of operands or results
	Attr       Attribute           // nil when absent
	Region     *Region             // printing: the region; parsing: fill it
	Successors []*Block
}

// checkAttrsAndTypes checks the dialect's attribute and type declarations.
func (d *Dialect) checkAttrsAndTypes() error {
	seen := map[string]bool{}
	for _, a := range d.Attrs {
		if a == nil || !validMnemonic(a.Mnemonic) || a.Parse == nil || a.Summary == "" {
			return fmt.Errorf("dialect %q: attribute declaration needs a mnemonic, a summary and Parse", d.Name)
		}
		if seen[a.Mnemonic] {
			return fmt.Errorf("dialect %q declares attribute '%s' twice", d.Name, a.Mnemonic)
		}
		seen[a.Mnemonic] = true
	}
	seen = map[string]bool{}
	for _, t := range d.Types {
		if t == nil || !validMnemonic(t.Mnemonic) || t.Parse == nil || t.Summary == "" {
			return fmt.Errorf("dialect %q: type declaration needs a mnemonic, a summary and Parse", d.Name)
		}
		if seen[t.Mnemonic] {
			return fmt.Errorf("dialect %q declares type '%s' twice", d.Name, t.Mnemonic)
		}
		seen[t.Mnemonic] = true
	}
	for name, c := range d.Directives {
		if name == "" || c == nil || c.Print == nil || c.Parse == nil {
			return fmt.Errorf("dialect %q: custom directive %q needs Print and Parse", d.Name, name)
		}
	}
	return nil
}

func validMnemonic(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && (r >= '0' && r <= '9' || r == '.' || r == '$')) {
			return false
		}
	}
	return true
}

// splitMnemonic splits a body as the core parser hands it over
// (`.mnemonic<...>` for the pretty form, `mnemonic<...>` inside
// `#dialect<...>`) into the mnemonic and what follows, with the offset of
// what follows in body.
func splitMnemonic(body string) (mnemonic, rest string, restOffset int) {
	start := 0
	if strings.HasPrefix(body, ".") {
		start = 1
	}
	for start < len(body) && (body[start] == ' ' || body[start] == '\t' || body[start] == '\n') {
		start++
	}
	end := start
	for end < len(body) {
		c := body[end]
		if c == '_' || c == '$' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			end++
			continue
		}
		break
	}
	return body[start:end], body[end:], end
}

// AttrDecl returns the declaration of the attribute with the mnemonic, or nil.
func (d *Dialect) AttrDecl(mnemonic string) *AttrDecl {
	for _, a := range d.Attrs {
		if a.Mnemonic == mnemonic {
			return a
		}
	}
	return nil
}

// TypeDecl returns the declaration of the type with the mnemonic, or nil.
func (d *Dialect) TypeDecl(mnemonic string) *TypeDecl {
	for _, t := range d.Types {
		if t.Mnemonic == mnemonic {
			return t
		}
	}
	return nil
}

// ParseAttrBody reads a dialect attribute: body is the text after the
// namespace (`.mnemonic<...>` or `mnemonic<...>`). It finds the
// declaration by mnemonic, runs its Parse and Verify, and returns errors
// located in body as *BodyError.
func (d *Dialect) ParseAttrBody(ctx *Context, body string, typ Type) (Attribute, error) {
	mnemonic, rest, off := splitMnemonic(body)
	decl := d.AttrDecl(mnemonic)
	if decl == nil {
		return nil, &BodyError{Message: fmt.Sprintf("unknown attribute #%s.%s%s", d.Name, mnemonic, knownList(d.attrMnemonics()))}
	}
	a, err := decl.Parse(ctx, rest, typ)
	if err != nil {
		return nil, shiftBodyError(err, off)
	}
	if a == nil {
		return nil, &BodyError{Message: fmt.Sprintf("dialect '%s' failed to parse attribute '%s'", d.Name, mnemonic)}
	}
	if decl.Verify != nil {
		if err := decl.Verify(a); err != nil {
			return nil, shiftBodyError(err, off)
		}
	}
	return a, nil
}

// ParseTypeBody is ParseAttrBody for types.
func (d *Dialect) ParseTypeBody(ctx *Context, body string) (Type, error) {
	mnemonic, rest, off := splitMnemonic(body)
	decl := d.TypeDecl(mnemonic)
	if decl == nil {
		return nil, &BodyError{Message: fmt.Sprintf("unknown type !%s.%s%s", d.Name, mnemonic, knownList(d.typeMnemonics()))}
	}
	t, err := decl.Parse(ctx, rest)
	if err != nil {
		return nil, shiftBodyError(err, off)
	}
	if t == nil {
		return nil, &BodyError{Message: fmt.Sprintf("dialect '%s' failed to parse type '%s'", d.Name, mnemonic)}
	}
	if decl.Verify != nil {
		if err := decl.Verify(t); err != nil {
			return nil, shiftBodyError(err, off)
		}
	}
	return t, nil
}

func shiftBodyError(err error, off int) error {
	if be, ok := err.(*BodyError); ok {
		return &BodyError{Offset: be.Offset + off, Message: be.Message}
	}
	if _, ok := err.(*Diagnostic); ok {
		return err
	}
	return &BodyError{Offset: off, Message: err.Error()}
}

func (d *Dialect) attrMnemonics() []string {
	var out []string
	for _, a := range d.Attrs {
		out = append(out, a.Mnemonic)
	}
	return out
}

func (d *Dialect) typeMnemonics() []string {
	var out []string
	for _, t := range d.Types {
		out = append(out, t.Mnemonic)
	}
	return out
}

func knownList(names []string) string {
	if len(names) == 0 {
		return " (the dialect declares none)"
	}
	return " (known: " + strings.Join(names, ", ") + ")"
}
