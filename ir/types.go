package ir

import "math"

// Type is an IR type. Types are immutable and uniqued by their Context, so
// two types are equal exactly when they are the same value (==).
type Type interface {
	// Print writes the type in MLIR syntax.
	Print(p *AsmPrinter)
}

// Dynamic marks a dynamic dimension (`?`) in a shape, as MLIR's kDynamic.
const Dynamic int64 = math.MinInt64

// TypeString prints t on its own.
func TypeString(t Type) string {
	var p AsmPrinter
	p.PrintType(t)
	return p.String()
}

// Signedness of an integer type.
type Signedness uint8

const (
	Signless Signedness = iota
	Signed
	Unsigned
)

// IntegerType is iN, siN or uiN.
type IntegerType struct {
	Width      int
	Signedness Signedness
}

// MaxIntegerWidth is the widest integer type MLIR accepts.
const MaxIntegerWidth = 1<<24 - 1

func (t *IntegerType) Print(p *AsmPrinter) {
	switch t.Signedness {
	case Signed:
		p.WriteString("si")
	case Unsigned:
		p.WriteString("ui")
	default:
		p.WriteByte('i')
	}
	p.WriteInt(int64(t.Width))
}

// IndexType is `index`.
type IndexType struct{}

func (*IndexType) Print(p *AsmPrinter) { p.WriteString("index") }

// FloatType is one of the builtin float types.
type FloatType struct{ Kind FloatKind }

func (t *FloatType) Print(p *AsmPrinter) { p.WriteString(t.Kind.String()) }

// NoneType is `none`.
type NoneType struct{}

func (*NoneType) Print(p *AsmPrinter) { p.WriteString("none") }

// ComplexType is complex<T>.
type ComplexType struct{ Elem Type }

func (t *ComplexType) Print(p *AsmPrinter) {
	p.WriteString("complex<")
	p.PrintType(t.Elem)
	p.WriteByte('>')
}

// TupleType is tuple<T...>.
type TupleType struct{ Types []Type }

func (t *TupleType) Print(p *AsmPrinter) {
	p.WriteString("tuple<")
	p.PrintTypes(t.Types)
	p.WriteByte('>')
}

// FunctionType is (inputs) -> results.
type FunctionType struct{ Inputs, Results []Type }

func (t *FunctionType) Print(p *AsmPrinter) {
	p.WriteByte('(')
	p.PrintTypes(t.Inputs)
	p.WriteString(") -> ")
	PrintResultTypes(p, t.Results)
}

// PrintResultTypes prints a function result list: a single non-function
// type bare, otherwise parenthesised.
func PrintResultTypes(p *AsmPrinter, rs []Type) {
	if len(rs) == 1 {
		if _, isFn := rs[0].(*FunctionType); !isFn {
			p.PrintType(rs[0])
			return
		}
	}
	p.WriteByte('(')
	p.PrintTypes(rs)
	p.WriteByte(')')
}

// ShapedType is implemented by tensors, memrefs and vectors.
type ShapedType interface {
	Type
	ElementType() Type
	// Shape is nil for unranked types.
	Shape() []int64
	HasRank() bool
}

// RankedTensorType is tensor<4x?xf32, encoding>.
type RankedTensorType struct {
	Dims     []int64
	Elem     Type
	Encoding Attribute // nil when absent
}

func (t *RankedTensorType) ElementType() Type { return t.Elem }
func (t *RankedTensorType) Shape() []int64    { return t.Dims }
func (t *RankedTensorType) HasRank() bool     { return true }
func (t *RankedTensorType) Print(p *AsmPrinter) {
	p.WriteString("tensor<")
	p.PrintShape(t.Dims)
	p.PrintType(t.Elem)
	if t.Encoding != nil {
		p.WriteString(", ")
		p.PrintAttr(t.Encoding)
	}
	p.WriteByte('>')
}

// UnrankedTensorType is tensor<*xf32>.
type UnrankedTensorType struct{ Elem Type }

func (t *UnrankedTensorType) ElementType() Type { return t.Elem }
func (t *UnrankedTensorType) Shape() []int64    { return nil }
func (t *UnrankedTensorType) HasRank() bool     { return false }
func (t *UnrankedTensorType) Print(p *AsmPrinter) {
	p.WriteString("tensor<*x")
	p.PrintType(t.Elem)
	p.WriteByte('>')
}

// MemRefType is memref<4x8xf32, layout, memory space>.
type MemRefType struct {
	Dims        []int64
	Elem        Type
	Layout      Attribute // nil for the identity layout
	MemorySpace Attribute // nil for the default space
}

func (t *MemRefType) ElementType() Type { return t.Elem }
func (t *MemRefType) Shape() []int64    { return t.Dims }
func (t *MemRefType) HasRank() bool     { return true }
func (t *MemRefType) Print(p *AsmPrinter) {
	p.WriteString("memref<")
	p.PrintShape(t.Dims)
	p.PrintType(t.Elem)
	if t.Layout != nil {
		p.WriteString(", ")
		p.printAttrMayElideType(t.Layout)
	}
	if t.MemorySpace != nil {
		p.WriteString(", ")
		p.printAttrMayElideType(t.MemorySpace)
	}
	p.WriteByte('>')
}

// UnrankedMemRefType is memref<*xf32, space>.
type UnrankedMemRefType struct {
	Elem        Type
	MemorySpace Attribute
}

func (t *UnrankedMemRefType) ElementType() Type { return t.Elem }
func (t *UnrankedMemRefType) Shape() []int64    { return nil }
func (t *UnrankedMemRefType) HasRank() bool     { return false }
func (t *UnrankedMemRefType) Print(p *AsmPrinter) {
	p.WriteString("memref<*x")
	p.PrintType(t.Elem)
	if t.MemorySpace != nil {
		p.WriteString(", ")
		p.printAttrMayElideType(t.MemorySpace)
	}
	p.WriteByte('>')
}

// VectorType is vector<4x[8]xf32>; Scalable marks `[n]` dims (nil when none).
type VectorType struct {
	Dims     []int64
	Scalable []bool
	Elem     Type
}

func (t *VectorType) ElementType() Type { return t.Elem }
func (t *VectorType) Shape() []int64    { return t.Dims }
func (t *VectorType) HasRank() bool     { return true }
func (t *VectorType) Print(p *AsmPrinter) {
	p.WriteString("vector<")
	for i, d := range t.Dims {
		if t.Scalable != nil && t.Scalable[i] {
			p.WriteByte('[')
			p.WriteInt(d)
			p.WriteString("]x")
		} else {
			p.WriteInt(d)
			p.WriteByte('x')
		}
	}
	p.PrintType(t.Elem)
	p.WriteByte('>')
}

// OpaqueType is !dialect.body or !dialect<body> of a dialect that is not
// registered (or that keeps a type opaque). Body is MLIR's type data, kept
// verbatim: `foo<"x">` for `!d.foo<"x">`, `"%"` for `!d<"%">`; it prints in
// the short form when MLIR would (see PrintDialectSymbol).
type OpaqueType struct {
	Dialect string
	Body    string
}

func (t *OpaqueType) Print(p *AsmPrinter) { p.PrintDialectSymbol('!', t.Dialect, t.Body) }

// NumElements returns the product of a static shape, or -1 when any
// dimension is dynamic or the product overflows int64.
func NumElements(shape []int64) int64 {
	n := int64(1)
	for _, d := range shape {
		if d < 0 {
			return -1
		}
		if d != 0 && n > math.MaxInt64/d {
			return -1
		}
		n *= d
	}
	return n
}

// IsIntOrIndex reports whether t is an integer or index type.
func IsIntOrIndex(t Type) bool {
	switch t.(type) {
	case *IntegerType, *IndexType:
		return true
	}
	return false
}

// IsFloat reports whether t is a builtin float type.
func IsFloat(t Type) bool { _, ok := t.(*FloatType); return ok }

// ElementTypeOrSelf returns a shaped type's element type, or t itself.
func ElementTypeOrSelf(t Type) Type {
	if s, ok := t.(ShapedType); ok {
		return s.ElementType()
	}
	return t
}

// BitWidth is the storage width of an integer or float type; index is 64.
func BitWidth(t Type) int {
	switch t := t.(type) {
	case *IntegerType:
		return t.Width
	case *FloatType:
		return t.Kind.Width()
	case *IndexType:
		return 64
	}
	return 0
}
