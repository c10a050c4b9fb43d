package ir

import (
	"fmt"
	"sort"
	"strings"
)

// Trait is a set of op properties that the verifier, printer and passes rely on.
type Trait uint64

const (
	// TraitTerminator: the op ends a block.
	TraitTerminator Trait = 1 << iota
	// TraitIsolatedFromAbove: regions use no values defined outside the op,
	// so passes may run on such ops in parallel.
	TraitIsolatedFromAbove
	// TraitSymbolTable: the op's single region holds symbols with unique names.
	TraitSymbolTable
	// TraitSymbol: the op defines a symbol through its `sym_name` attribute.
	TraitSymbol
	// TraitPure: no side effects; unused results make the op dead, and equal
	// pure ops may be merged.
	TraitPure
	// TraitSameOperandsAndResultType: all operands and results have one type.
	TraitSameOperandsAndResultType
	// TraitSameOperandsAndResultElementType: they share an element type.
	TraitSameOperandsAndResultElementType
	// TraitCommutative: operand order does not matter.
	TraitCommutative
	// TraitNoTerminator: blocks of the op's regions need no terminator.
	TraitNoTerminator
	// TraitSingleBlock: each region has at most one block.
	TraitSingleBlock
	// TraitGraphRegion: the op's regions are graph regions (no dominance).
	TraitGraphRegion
	// TraitReturnLike: the op returns control to its parent.
	TraitReturnLike
	// TraitConstantLike: the op materialises its `value` attribute.
	TraitConstantLike
	// TraitAffineScope (kept for MLIR parity of builtin.module and func.func).
	TraitAffineScope
)

var traitNames = []string{"Terminator", "IsolatedFromAbove", "SymbolTable", "Symbol", "Pure",
	"SameOperandsAndResultType", "SameOperandsAndResultElementType", "Commutative", "NoTerminator",
	"SingleBlock", "GraphRegion", "ReturnLike", "ConstantLike", "AffineScope"}

// Names lists the traits in t.
func (t Trait) Names() []string {
	var out []string
	for i, n := range traitNames {
		if t&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// TypeConstraint restricts the type of an operand or result.
type TypeConstraint struct {
	Desc string          // what the constraint accepts, for messages and docs
	Pred func(Type) bool // nil accepts any type
}

// Accepts reports whether t satisfies the constraint.
func (c TypeConstraint) Accepts(t Type) bool { return c.Pred == nil || c.Pred(t) }

// Common type constraints.
var (
	AnyType    = TypeConstraint{Desc: "any type"}
	AnyInteger = TypeConstraint{"integer", func(t Type) bool { _, ok := t.(*IntegerType); return ok }}
	AnyIndex   = TypeConstraint{"index", func(t Type) bool { _, ok := t.(*IndexType); return ok }}
	AnyFloat   = TypeConstraint{"floating-point", IsFloat}
	AnyTensor  = TypeConstraint{"tensor of any type values", func(t Type) bool {
		switch t.(type) {
		case *RankedTensorType, *UnrankedTensorType:
			return true
		}
		return false
	}}
	AnyRankedTensor = TypeConstraint{"ranked tensor of any type values", func(t Type) bool { _, ok := t.(*RankedTensorType); return ok }}
)

// ValueKind says how many values an operand or result group has.
type ValueKind uint8

const (
	Single ValueKind = iota
	Optional
	Variadic
)

// ValueDef declares an operand or result group.
type ValueDef struct {
	Name string
	Type TypeConstraint
	Kind ValueKind
}

// AttrKind constrains an attribute's kind.
type AttrKind struct {
	Desc string
	Pred func(Attribute) bool
}

// Common attribute kinds.
var (
	AnyAttr         = AttrKind{Desc: "any attribute"}
	StringAttrKind  = AttrKind{"string attribute", func(a Attribute) bool { _, ok := a.(*StringAttr); return ok }}
	IntegerAttrKind = AttrKind{"integer attribute", func(a Attribute) bool { _, ok := a.(*IntegerAttr); return ok }}
	// I64AttrKind is ODS's I64Attr.
	I64AttrKind = AttrKind{"64-bit signless integer attribute", func(a Attribute) bool {
		ia, ok := a.(*IntegerAttr)
		if !ok {
			return false
		}
		it, ok := ia.Typ.(*IntegerType)
		return ok && it.Width == 64 && it.Signedness == Signless
	}}
	FloatAttrKind     = AttrKind{"float attribute", func(a Attribute) bool { _, ok := a.(*FloatAttr); return ok }}
	TypeAttrKind      = AttrKind{"type attribute", func(a Attribute) bool { _, ok := a.(*TypeAttr); return ok }}
	ArrayAttrKind     = AttrKind{"array attribute", func(a Attribute) bool { _, ok := a.(*ArrayAttr); return ok }}
	DictAttrKind      = AttrKind{"dictionary attribute", func(a Attribute) bool { _, ok := a.(*DictAttr); return ok }}
	UnitAttrKind      = AttrKind{"unit attribute", func(a Attribute) bool { _, ok := a.(*UnitAttr); return ok }}
	SymbolRefKind     = AttrKind{"symbol reference attribute", func(a Attribute) bool { _, ok := a.(*SymbolRefAttr); return ok }}
	FlatSymbolRefKind = AttrKind{"flat symbol reference attribute", func(a Attribute) bool {
		s, ok := a.(*SymbolRefAttr)
		return ok && len(s.Nested) == 0
	}}
	DenseI64ArrayKind = AttrKind{"i64 dense array attribute", func(a Attribute) bool {
		d, ok := a.(*DenseArrayAttr)
		return ok && BitWidth(d.Elem) == 64 && !IsFloat(d.Elem)
	}}
	ElementsAttrKind = AttrKind{"constant vector/tensor attribute", func(a Attribute) bool {
		switch a.(type) {
		case *DenseElementsAttr, *DenseStringElementsAttr, *SparseElementsAttr, *DenseResourceElementsAttr:
			return true
		}
		return false
	}}
	TypedAttrKind        = AttrKind{"typed attribute", func(a Attribute) bool { _, ok := a.(TypedAttr); return ok }}
	FunctionTypeAttrKind = AttrKind{"type attribute of function type", func(a Attribute) bool {
		t, ok := a.(*TypeAttr)
		if !ok {
			return false
		}
		_, ok = t.T.(*FunctionType)
		return ok
	}}
)

// AttrDef declares an inherent attribute.
type AttrDef struct {
	Name     string
	Kind     AttrKind
	Optional bool
	// Default is used by accessors when the attribute is absent (optional only).
	Default Attribute
	Doc     string
}

// RegionDef declares a region.
type RegionDef struct {
	Name string
	// SingleBlock: at most one block.
	SingleBlock bool
	// Blocks, when positive, is the exact number of blocks the region
	// must have (ODS's SizedRegion<N>): a module's body has one.
	Blocks   int
	Variadic bool
}

// FoldResult is one folded result: a constant attribute or an existing value.
type FoldResult struct {
	Attr  Attribute
	Value *Value
}

// OpDef describes an op as data. Registering it with its dialect is all it
// takes to add an op: the verifier checks its declared shape and calls its
// hook, the printer and parser use its assembly format or custom hooks, the
// canonicalizer uses its folder and patterns, and the docs generator reads
// its summary and example.
type OpDef struct {
	Name        string // "dialect.op"
	Summary     string
	Description string
	Example     string

	Operands   []ValueDef
	Results    []ValueDef
	Attributes []AttrDef
	Regions    []RegionDef
	// Successors is the number of successor blocks; -1 for any number.
	Successors int
	// SuccessorOperands, for branch ops, tells which operands go to each
	// successor's block arguments (see SuccessorOperandsFunc); nil when
	// unknown, which keeps region simplification away from such branches.
	SuccessorOperands SuccessorOperandsFunc
	Traits            Trait
	// ParentOps, when set, lists the ops this op may be directly nested in.
	ParentOps []string
	// DefaultDialect is the dialect whose prefix may be omitted from op names
	// inside this op's regions (func.func sets "func", so `return` reads as
	// func.return). Empty keeps the enclosing default.
	DefaultDialect string

	// Verify checks what the declaration cannot say. Return an error
	// (its text follows "'name' op ") or a *Diagnostic for full control.
	Verify func(op *Operation) error
	// VerifyEnv checks what depends on facts outside the op that the
	// caller states explicitly (the target, see Env); env may be empty,
	// and the hook then says what it needs. It runs after Verify.
	VerifyEnv func(op *Operation, env *Env) error
	// VerifyRegions runs after the op's regions have been verified.
	VerifyRegions func(op *Operation) error
	// Fold tries to fold op given constant operands (nil where unknown). It
	// returns one FoldResult per result, or ok with no results when it
	// updated op in place; ok is false when nothing folded.
	Fold func(op *Operation, operands []Attribute) (results []FoldResult, ok bool)
	// Canonicalize lists the op's canonicalization patterns.
	Canonicalize []RewritePattern
	// InferResultTypes computes result types from operands and attributes,
	// letting custom syntax omit them.
	InferResultTypes func(ctx *Context, operands []*Value, attrs []NamedAttr) ([]Type, error)

	// AsmResultNames suggests names for the op's results in the custom form,
	// as MLIR's getAsmResultNames does (func.constant calls its result after
	// the function: `%f = constant @f`). Entry i, when not "", names result
	// i and starts a result group there; nil or "" keep the numbering.
	AsmResultNames func(op *Operation) []string

	// AssemblyFormat is a declarative custom syntax, e.g.
	// "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type(results)".
	AssemblyFormat string
	// Parse and Print implement custom syntax by hand instead.
	Parse func(p OpAsmParser, st *OperationState) error
	Print func(p OpAsmPrinter, op *Operation)

	// Interfaces lists the op interfaces the op implements (see
	// Interface): values of types that implement ir.FunctionLike,
	// ir.LayoutPreserving, ... and interfaces declared by other packages.
	Interfaces []any

	dialect *Dialect
}

// Dialect is the dialect the op was registered with.
func (d *OpDef) Dialect() *Dialect { return d.dialect }

// HasCustomSyntax reports whether the op prints and parses in a custom form.
func (d *OpDef) HasCustomSyntax() bool {
	return d.AssemblyFormat != "" || (d.Parse != nil && d.Print != nil)
}

func (d *OpDef) attrDef(name string) *AttrDef {
	for i := range d.Attributes {
		if d.Attributes[i].Name == name {
			return &d.Attributes[i]
		}
	}
	return nil
}

// AttrDef returns the declaration of an inherent attribute, or nil.
func (d *OpDef) AttrDef(name string) *AttrDef { return d.attrDef(name) }

func (d *OpDef) check(dialect string) error {
	if d.Name == "" {
		return fmt.Errorf("op with empty name in dialect %q", dialect)
	}
	if !strings.HasPrefix(d.Name, dialect+".") {
		return fmt.Errorf("op %q is not in the namespace of dialect %q", d.Name, dialect)
	}
	if (d.Parse == nil) != (d.Print == nil) {
		return fmt.Errorf("op %q declares only one of Parse and Print", d.Name)
	}
	if d.AssemblyFormat != "" && d.Parse != nil {
		return fmt.Errorf("op %q declares both an assembly format and custom Parse/Print", d.Name)
	}
	seen := map[string]bool{}
	for _, a := range d.Attributes {
		if a.Name == "" || seen[a.Name] {
			return fmt.Errorf("op %q declares attribute %q twice or unnamed", d.Name, a.Name)
		}
		seen[a.Name] = true
	}
	return nil
}

// Dialect groups ops, types and attributes under a namespace. A dialect
// is declared once, as a package variable of its package, and registered
// in each context that uses it (see Context.RegisterDialect).
type Dialect struct {
	Name        string
	Summary     string
	Description string
	Ops         []*OpDef
	// Attrs and Types declare the dialect's attributes and types; the core
	// parser hands `#name.mnemonic<...>` and `!name.mnemonic<...>` to the
	// declaration with that mnemonic.
	Attrs []*AttrDecl
	Types []*TypeDecl
	// Directives are the custom<Name> directives of the assembly formats
	// of the dialect's ops, by Name.
	Directives map[string]*CustomDirective
	// MaterializeConstant builds an op producing the constant a of type t,
	// used by folding. Nil when the dialect cannot.
	MaterializeConstant func(b *Builder, a Attribute, t Type, loc Location) *Operation
	// AllowUnknownOps lets ops with the dialect's prefix that it does not
	// declare through the verifier (MLIR's allowUnknownOperations), as
	// test dialects want; otherwise such an op is an error, with or
	// without --allow-unregistered-dialect, as in mlir-opt.
	AllowUnknownOps bool

	linked bool // set once its op definitions point at it
}

// SortedOps returns the dialect's ops by name.
func (d *Dialect) SortedOps() []*OpDef {
	out := append([]*OpDef(nil), d.Ops...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func sortNamed(s []NamedAttr) {
	sort.Slice(s, func(i, j int) bool { return s[i].Name < s[j].Name })
}

// UnresolvedOperand is an operand reference as written: `%name` or `%name#3`.
type UnresolvedOperand struct {
	Name   string
	Number int
	Loc    Location
}

// Argument is a region argument as written: `%x: type {attrs} loc(...)`.
type Argument struct {
	Name  UnresolvedOperand
	Type  Type
	Attrs *DictAttr // nil when none
	Loc   Location  // nil when none written
}

// OpAsmParser is what a custom op parser can ask of the textual parser. The
// parser package implements it; dialects use it from OpDef.Parse.
type OpAsmParser interface {
	Context() *Context
	// Errorf reports an error at the current token.
	Errorf(format string, args ...any) error
	// CurrentLoc is the location of the current token.
	CurrentLoc() Location

	ParseOperand() (UnresolvedOperand, error)
	ParseOptionalOperand() (UnresolvedOperand, bool, error)
	ParseOperandList() ([]UnresolvedOperand, error) // possibly empty, comma separated
	ResolveOperands(ops []UnresolvedOperand, types []Type, st *OperationState) error

	ParseType() (Type, error)
	ParseColonType() (Type, error)
	ParseColonTypeList() ([]Type, error)
	ParseTypeList() ([]Type, error)      // comma separated, at least one
	ParseArrowTypeList() ([]Type, error) // `-> type` or `-> (types)`
	ParseOptionalArrowTypeList() ([]Type, bool, error)
	ParseFunctionResultTypes() ([]Type, error) // `type` or `(types)` with attrs disallowed

	ParseAttribute(t Type) (Attribute, error) // t: the expected type, or nil
	ParseOptionalAttrDict(st *OperationState) error
	ParseOptionalAttrDictWithKeyword(st *OperationState) error

	ParseSymbolName() (string, error)
	ParseOptionalSymbolName() (string, bool, error)
	ParseKeyword(kw string) error
	ParseOptionalKeyword(kw string) bool
	ParseKeywordAny() (string, error)
	ParseOptionalKeywordAny() (string, bool)
	// ParsePunct expects punctuation: "(", ")", ",", ":", "->", "=", "<", ">", "[", "]", "{", "}", "*", "?", "+", "...".
	ParsePunct(p string) error
	ParseOptionalPunct(p string) bool
	ParseInteger() (int64, error)
	ParseString() (string, error)

	// ParseArgument parses `%name`, with `: type`, `{attrs}` and `loc(...)`
	// when allowed.
	ParseArgument(allowType, allowAttrs bool) (Argument, error)
	ParseOptionalArgument(allowType, allowAttrs bool) (Argument, bool, error)
	// ParseRegion parses `{...}` into r; args become the entry block's
	// arguments (when non-empty the region must not list its own).
	ParseRegion(r *Region, args []Argument) error
	ParseOptionalRegion(r *Region, args []Argument) (bool, error)
	ParseSuccessor() (*Block, error)
	ParseOptionalLocationSpecifier() (Location, bool, error)
}

// OpAsmPrinter is what a custom op printer can ask of the textual printer.
type OpAsmPrinter interface {
	Context() *Context
	// Asm is the underlying writer, for types, attributes and raw text.
	Asm() *AsmPrinter
	WriteString(s string)
	PrintType(t Type)
	PrintAttr(a Attribute)
	PrintAttrWithoutType(a Attribute)
	PrintOperand(v *Value)
	PrintOperands(vs []*Value)
	PrintSuccessor(b *Block)
	PrintSymbolName(name string)
	// PrintOptionalAttrDict prints `{...}` of attrs without the elided names.
	PrintOptionalAttrDict(attrs []NamedAttr, elided ...string)
	PrintOptionalAttrDictWithKeyword(attrs []NamedAttr, elided ...string)
	// PrintRegionArgument prints `%name: type {attrs}` (and loc with debuginfo).
	PrintRegionArgument(v *Value, attrs *DictAttr, omitType bool)
	PrintRegion(r *Region, printEntryBlockArgs, printBlockTerminators bool)
	PrintOptionalLocationSpecifier(l Location)
}
