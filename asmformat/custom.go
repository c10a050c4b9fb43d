package asmformat

import "github.com/ipuir/ipuir/ir"

// Custom directives (`custom<Name>(args)`) are declared by the dialect
// whose ops' formats use them, in ir.Dialect.Directives; these names are
// the shorter spellings formats code uses.
type (
	// Custom implements one custom directive.
	Custom = ir.CustomDirective
	// Arg is one argument of a custom directive.
	Arg = ir.DirectiveArg
	// ArgKind says what a custom directive argument binds.
	ArgKind = ir.DirectiveArgKind
)

// What a custom directive argument binds.
const (
	ArgOperands   = ir.ArgOperands
	ArgTypes      = ir.ArgTypes
	ArgAttr       = ir.ArgAttr
	ArgRegion     = ir.ArgRegion
	ArgSuccessors = ir.ArgSuccessors
)
