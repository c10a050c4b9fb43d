// Package asmformat implements declarative assembly formats: the format
// string language of MLIR's ODS (`$lhs `,` $rhs attr-dict `:`
// type($lhs)`), compiled once per op definition and interpreted by one
// engine in both directions. The printer package calls Print for ops whose
// OpDef sets AssemblyFormat; the parser calls Parse.
//
// A format string is our own small syntax, so it is read with participle
// (grammar.go) into a syntax tree, then compiled against the OpDef
// (compile.go) into elements that say which operand, attribute, region or
// type each piece binds. Compilation checks what MLIR's ODS checks when
// generating C++: unknown `$names`, operands, regions and attributes left
// unbound, types that are neither printed nor inferable, ill-formed
// optional groups. Check reports those errors; dialects call CheckDialect
// when they register, and the tests run it over every registered op.
//
// Supported directives: `$operand`, `$attr`, `$region`, `operands`,
// `regions`, `successors`, `type(...)` of an operand, result, `operands` or
// `results`, `functional-type(inputs, results)`, `attr-dict`,
// `attr-dict-with-keyword`, literals in backticks (keywords and
// punctuation, “ ` ` “ and ``` “ ``` to adjust spacing), optional groups
// `( ... $x^ ... )?` with an else group `( ... ) : ( ... )?`,
// `custom<Name>(args)` dispatching to functions a dialect registers with
// RegisterCustom (arguments may be wrapped in `ref(...)`), and
// `qualified(...)`, which changes nothing here since dialect types and
// attributes always print in full.
//
// Spacing follows ODS's generated printers exactly (a space before an
// element unless punctuation rules say otherwise), so custom forms print
// as mlir-opt would print the same format.
package asmformat
