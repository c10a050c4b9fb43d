package ir

import (
	"math/big"
	"slices"
	"sort"
	"strings"
)

// Attribute is a compile-time constant: a value, a type, a symbol
// reference, a location, or a dialect's own constant. Attributes are
// immutable and uniqued by their Context (== is equality).
type Attribute interface {
	Print(p *AsmPrinter)
}

// TypedAttr is an attribute with a type (integers, floats, elements).
type TypedAttr interface {
	Attribute
	Type() Type
}

// AttrString prints a on its own.
func AttrString(a Attribute) string {
	var p AsmPrinter
	p.PrintAttr(a)
	return p.String()
}

// UnitAttr is the attribute whose presence is its meaning.
type UnitAttr struct{}

func (*UnitAttr) Print(p *AsmPrinter) { p.WriteString("unit") }

// Unit returns the unit attribute.
func (c *Context) Unit() *UnitAttr { return c.unit }

// IntegerAttr is an integer (or index) constant. Values are held
// normalised to the type's width: sign-extended for signless and signed
// types, zero-extended for unsigned ones. Values of up to 64 bits live in
// Int; wider ones in Big.
type IntegerAttr struct {
	Typ Type
	Int int64
	Big *big.Int
}

func (a *IntegerAttr) Type() Type { return a.Typ }

// IsBool reports whether a is `true` or `false` (an i1 attribute).
func (a *IntegerAttr) IsBool() bool {
	it, ok := a.Typ.(*IntegerType)
	return ok && it.Width == 1 && it.Signedness == Signless
}

// BigValue returns the value as a big integer in the type's signedness.
func (a *IntegerAttr) BigValue() *big.Int {
	if a.Big != nil {
		return new(big.Int).Set(a.Big)
	}
	if it, ok := a.Typ.(*IntegerType); ok && it.Signedness == Unsigned {
		return new(big.Int).SetUint64(uint64(a.Int))
	}
	return big.NewInt(a.Int)
}

func (a *IntegerAttr) UniqueKey() string {
	return TypeString(a.Typ) + ":" + a.valueText()
}

func (a *IntegerAttr) valueText() string {
	var p AsmPrinter
	a.printWithoutType(&p)
	return p.String()
}

func (a *IntegerAttr) printWithoutType(p *AsmPrinter) {
	if a.IsBool() {
		if a.Int != 0 {
			p.WriteString("true")
		} else {
			p.WriteString("false")
		}
		return
	}
	if a.Big != nil {
		p.WriteString(a.Big.String())
		return
	}
	if it, ok := a.Typ.(*IntegerType); ok && it.Signedness == Unsigned {
		p.WriteUint(uint64(a.Int))
		return
	}
	p.WriteInt(a.Int)
}

func (a *IntegerAttr) Print(p *AsmPrinter) {
	a.printWithoutType(p)
	if a.IsBool() {
		return
	}
	p.WriteString(" : ")
	p.PrintType(a.Typ)
}

// NormalizeInt truncates v to t's width and extends it per t's signedness.
// index is treated as a 64-bit signed integer.
func NormalizeInt(t Type, v *big.Int) (int64, *big.Int) {
	width, signedness := 64, Signless
	if it, ok := t.(*IntegerType); ok {
		width, signedness = it.Width, it.Signedness
	}
	if width == 0 {
		return 0, nil
	}
	mod := new(big.Int).Lsh(big.NewInt(1), uint(width))
	r := new(big.Int).Mod(v, mod) // in [0, 2^w)
	if signedness != Unsigned && r.Bit(width-1) == 1 {
		r.Sub(r, mod)
	}
	if width <= 64 {
		if signedness == Unsigned {
			return int64(r.Uint64()), nil
		}
		return r.Int64(), nil
	}
	return 0, r
}

// IntegerAttr returns v as an attribute of integer or index type t, wrapped
// to the type's width.
func (c *Context) IntegerAttr(t Type, v int64) *IntegerAttr {
	if intInTable(t) {
		return c.uniqueInt(t, normalizeInt64(t, v))
	}
	return c.IntegerAttrBig(t, big.NewInt(v))
}

// IntegerAttrBig is IntegerAttr for values of any size.
func (c *Context) IntegerAttrBig(t Type, v *big.Int) *IntegerAttr {
	if intInTable(t) && v.IsInt64() {
		return c.uniqueInt(t, normalizeInt64(t, v.Int64()))
	}
	i, b := NormalizeInt(t, v)
	return UniqueAttr(c, &IntegerAttr{Typ: t, Int: i, Big: b})
}

// Bool returns `true` or `false`.
func (c *Context) Bool(v bool) *IntegerAttr {
	if v {
		return c.boolean[1]
	}
	return c.boolean[0]
}

// FloatAttr is a floating-point constant, held as the nearest float64 to a
// value of its type (f80 and f128 lose their extra precision).
type FloatAttr struct {
	Typ *FloatType
	Val float64
}

func (a *FloatAttr) Type() Type { return a.Typ }

func (a *FloatAttr) UniqueKey() string {
	var p AsmPrinter
	p.buf = AppendFloatBits(p.buf, a.Val, F64)
	return a.Typ.Kind.String() + ":" + p.String()
}

func (a *FloatAttr) printWithoutType(p *AsmPrinter) {
	p.buf = AppendFloat(p.buf, a.Val, a.Typ.Kind)
}

func (a *FloatAttr) Print(p *AsmPrinter) {
	a.printWithoutType(p)
	p.WriteString(" : ")
	p.PrintType(a.Typ)
}

// FloatAttr returns v rounded to t.
func (c *Context) FloatAttr(t *FloatType, v float64) *FloatAttr {
	return c.uniqueFloat(t, RoundFloat(v, t.Kind))
}

// StringAttr is a string constant, optionally typed (`"s" : i32`).
type StringAttr struct {
	Val string
	Typ Type // nil when untyped, which is MLIR's default type none
}

func (a *StringAttr) Type() Type {
	if a.Typ == nil {
		return nil
	}
	return a.Typ
}

func (a *StringAttr) printWithoutType(p *AsmPrinter) { p.PrintString(a.Val) }

func (a *StringAttr) Print(p *AsmPrinter) {
	p.PrintString(a.Val)
	// MLIR never prints a `none` type after an attribute.
	if _, none := a.Typ.(*NoneType); a.Typ != nil && !none {
		p.WriteString(" : ")
		p.PrintType(a.Typ)
	}
}

// String returns an untyped string attribute.
func (c *Context) String(s string) *StringAttr { return UniqueAttr(c, &StringAttr{Val: s}) }

// TypedString returns a string attribute with a type. A string's type is
// none by default in MLIR, so `"s" : none` is the untyped `"s"`.
func (c *Context) TypedString(s string, t Type) *StringAttr {
	if _, none := t.(*NoneType); none || t == nil {
		return c.String(s)
	}
	return UniqueAttr(c, &StringAttr{Val: s, Typ: t})
}

// ArrayAttr is `[a, b, ...]`.
type ArrayAttr struct{ Elems []Attribute }

func (a *ArrayAttr) Print(p *AsmPrinter) {
	p.WriteByte('[')
	for i, e := range a.Elems {
		if i > 0 {
			p.WriteString(", ")
		}
		p.printAttrMayElideType(e)
	}
	p.WriteByte(']')
}

func (c *Context) Array(elems ...Attribute) *ArrayAttr {
	return UniqueAttr(c, &ArrayAttr{Elems: elems})
}

// NamedAttr is one entry of an attribute dictionary.
type NamedAttr struct {
	Name  string
	Value Attribute
}

// DictAttr is `{a = 1, b}`: entries sorted by name (bytewise), unique.
type DictAttr struct{ Entries []NamedAttr }

// Get returns the value for name, or nil.
func (d *DictAttr) Get(name string) Attribute {
	if d == nil {
		return nil
	}
	i := sort.Search(len(d.Entries), func(i int) bool { return d.Entries[i].Name >= name })
	if i < len(d.Entries) && d.Entries[i].Name == name {
		return d.Entries[i].Value
	}
	return nil
}

// Len is the number of entries; a nil dictionary is empty.
func (d *DictAttr) Len() int {
	if d == nil {
		return 0
	}
	return len(d.Entries)
}

func (d *DictAttr) Print(p *AsmPrinter) {
	p.WriteByte('{')
	PrintNamedAttrs(p, d.Entries)
	p.WriteByte('}')
}

// PrintNamedAttrs prints `a = 1, b` (unit values print as the bare name).
func PrintNamedAttrs(p *AsmPrinter, entries []NamedAttr) {
	for i, e := range entries {
		if i > 0 {
			p.WriteString(", ")
		}
		p.PrintKeywordOrString(e.Name)
		if _, unit := e.Value.(*UnitAttr); unit {
			continue
		}
		p.WriteString(" = ")
		p.PrintAttr(e.Value)
	}
}

// Dict returns the dictionary of entries, sorted. Duplicate names keep the
// last value; callers that must reject duplicates check first with
// FindDuplicateName.
func (c *Context) Dict(entries []NamedAttr) *DictAttr {
	if sortedUnique(entries) {
		// The common case (a parser's dictionary, a builder's): entries
		// are copied only when the dictionary is new.
		return internByPartsCopy(c, &DictAttr{Entries: entries}, func() IdentityKeyed {
			return &DictAttr{Entries: slices.Clone(entries)}
		}).(*DictAttr)
	}
	sorted := make([]NamedAttr, len(entries))
	copy(sorted, entries)
	slices.SortStableFunc(sorted, func(a, b NamedAttr) int { return strings.Compare(a.Name, b.Name) })
	out := sorted[:0]
	for _, e := range sorted {
		if len(out) > 0 && out[len(out)-1].Name == e.Name {
			out[len(out)-1] = e
			continue
		}
		out = append(out, e)
	}
	return UniqueAttr(c, &DictAttr{Entries: out})
}

// sortedUnique reports whether entries are sorted by name without repeats.
func sortedUnique(entries []NamedAttr) bool {
	for i := 1; i < len(entries); i++ {
		if entries[i-1].Name >= entries[i].Name {
			return false
		}
	}
	return true
}

// EmptyDict is the dictionary with no entries.
func (c *Context) EmptyDict() *DictAttr { return c.Dict(nil) }

// FindDuplicateName returns a name that occurs twice in entries, if any.
func FindDuplicateName(entries []NamedAttr) (string, bool) {
	seen := make(map[string]bool, len(entries))
	for _, e := range entries {
		if seen[e.Name] {
			return e.Name, true
		}
		seen[e.Name] = true
	}
	return "", false
}

// TypeAttr wraps a type as an attribute.
type TypeAttr struct{ T Type }

func (a *TypeAttr) Print(p *AsmPrinter) { p.PrintType(a.T) }

func (c *Context) TypeAttr(t Type) *TypeAttr { return UniqueAttr(c, &TypeAttr{T: t}) }

// SymbolRefAttr is `@root::@nested::@leaf`.
type SymbolRefAttr struct {
	Root   string
	Nested []string
}

// Leaf is the last name of the reference.
func (a *SymbolRefAttr) Leaf() string {
	if len(a.Nested) > 0 {
		return a.Nested[len(a.Nested)-1]
	}
	return a.Root
}

func (a *SymbolRefAttr) Print(p *AsmPrinter) {
	p.PrintSymbolName(a.Root)
	for _, n := range a.Nested {
		p.WriteString("::")
		p.PrintSymbolName(n)
	}
}

func (c *Context) SymbolRef(root string, nested ...string) *SymbolRefAttr {
	return UniqueAttr(c, &SymbolRefAttr{Root: root, Nested: nested})
}

// OpaqueAttr is `#dialect.body` or `#dialect<body>` of a dialect that is
// not registered (or that keeps an attribute opaque). Body is MLIR's
// attribute data, kept verbatim: `foo<1>` for `#d.foo<1>`, `"?"` for
// `#d<"?">`; it prints in the short form when MLIR would (see
// PrintDialectSymbol).
type OpaqueAttr struct {
	Dialect string
	Body    string
}

func (a *OpaqueAttr) Print(p *AsmPrinter) { p.PrintDialectSymbol('#', a.Dialect, a.Body) }

func (c *Context) OpaqueAttr(dialect, body string) *OpaqueAttr {
	return UniqueAttr(c, &OpaqueAttr{Dialect: dialect, Body: body})
}

// StridedLayoutAttr is `strided<[s0, s1], offset: o>`; Dynamic marks `?`.
type StridedLayoutAttr struct {
	Offset  int64
	Strides []int64
}

func (a *StridedLayoutAttr) Print(p *AsmPrinter) {
	p.WriteString("strided<[")
	for i, s := range a.Strides {
		if i > 0 {
			p.WriteString(", ")
		}
		printDynamic(p, s)
	}
	p.WriteByte(']')
	if a.Offset != 0 {
		p.WriteString(", offset: ")
		printDynamic(p, a.Offset)
	}
	p.WriteByte('>')
}

func printDynamic(p *AsmPrinter, v int64) {
	if v == Dynamic {
		p.WriteByte('?')
	} else {
		p.WriteInt(v)
	}
}

func (c *Context) StridedLayout(offset int64, strides []int64) *StridedLayoutAttr {
	return UniqueAttr(c, &StridedLayoutAttr{Offset: offset, Strides: strides})
}

// DenseResourceElementsAttr is `dense_resource<name> : type`; the blob
// lives in the context's resource table under the same name.
type DenseResourceElementsAttr struct {
	Typ    ShapedType
	Handle string
}

func (a *DenseResourceElementsAttr) Type() Type { return a.Typ }
func (a *DenseResourceElementsAttr) printWithoutType(p *AsmPrinter) {
	p.WriteString("dense_resource<")
	p.PrintKeywordOrString(a.Handle)
	p.WriteByte('>')
}
func (a *DenseResourceElementsAttr) Print(p *AsmPrinter) {
	a.printWithoutType(p)
	p.WriteString(" : ")
	p.PrintType(a.Typ)
}

func (c *Context) DenseResource(t ShapedType, handle string) *DenseResourceElementsAttr {
	return UniqueAttr(c, &DenseResourceElementsAttr{Typ: t, Handle: handle})
}

// Resource is an entry of a `{-# dialect_resources: ... #-}` block.
type Resource struct {
	Dialect, Key string
	// Value is the entry as written: a hex blob string `"0x..."`, a string,
	// or a bool. Blobs are kept as text so they print back unchanged.
	Value string
}

// SetResource records a resource entry (last one wins).
func (c *Context) SetResource(r Resource) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.resources == nil {
		c.resources = map[string]Resource{}
	}
	c.resources[r.Dialect+"\x00"+r.Key] = r
}

// LookupResource finds a resource entry.
func (c *Context) LookupResource(dialect, key string) (Resource, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	r, ok := c.resources[dialect+"\x00"+key]
	return r, ok
}

// Resources lists resource entries sorted by dialect and key.
func (c *Context) Resources() []Resource {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]Resource, 0, len(c.resources))
	for _, r := range c.resources {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Dialect != out[j].Dialect {
			return out[i].Dialect < out[j].Dialect
		}
		return out[i].Key < out[j].Key
	})
	return out
}

// IsValidDialectAttrName reports whether name has a dialect prefix, as the
// discardable attributes of builtin.module need.
func IsValidDialectAttrName(name string) bool {
	d, rest, ok := strings.Cut(name, ".")
	return ok && d != "" && rest != ""
}
