package asmformat

import (
	"sync"

	"github.com/ipuir/ipuir/ir"
)

// Custom implements a `custom<Name>(args)` directive: hand-written syntax
// for part of an op inside a declarative format, as MLIR's custom
// directives are.
type Custom struct {
	// Print prints the part; args hold the op's values for each argument.
	Print func(p ir.OpAsmPrinter, op *ir.Operation, args []*Arg)
	// Parse parses the part and stores what it read in args (Operands,
	// Types, Attr, Region, Successors), except for ref(...) arguments,
	// which are inputs holding what the format parsed before.
	Parse func(p ir.OpAsmParser, st *ir.OperationState, args []*Arg) error
}

// ArgKind says what a custom directive argument binds.
type ArgKind uint8

const (
	ArgOperands   ArgKind = iota // `$operand` or `operands`
	ArgTypes                     // `type(...)`
	ArgAttr                      // `$attr`
	ArgRegion                    // `$region`
	ArgSuccessors                // `successors`
)

// Arg is one argument of a custom directive.
type Arg struct {
	Kind ArgKind
	Name string // the variable's name, or the directive's
	// Ref marks `ref(...)`: the element was bound earlier in the format
	// and is passed for reading only.
	Ref bool

	Values     []*ir.Value            // printing: the operands
	Operands   []ir.UnresolvedOperand // parsing: the operands read
	Types      []ir.Type              // types of operands or results
	Attr       ir.Attribute           // nil when absent
	Region     *ir.Region             // printing: the region; parsing: fill it
	Successors []*ir.Block
}

var customs sync.Map // "dialect.Name" -> *Custom

// RegisterCustom makes custom<name> available to the formats of dialect's
// ops. Registering a name again replaces it.
func RegisterCustom(dialect, name string, c Custom) {
	customs.Store(dialect+"."+name, &c)
}

func lookupCustom(dialect, name string) *Custom {
	if c, ok := customs.Load(dialect + "." + name); ok {
		return c.(*Custom)
	}
	return nil
}
