// Package ir is the core of ipuir: the in-memory form of a program and the
// rules that keep it well formed.
//
// It holds what every dialect and pass builds on, in the shape MLIR gave
// these ideas:
//
//   - Context: owns the registry of dialects and op definitions and uniques
//     types and attributes, so that equal types are the same pointer and
//     equality is ==.
//   - Operation, Value, Block, Region: an operation owns its results,
//     operands (each operand is a use on its value's use list, so
//     ReplaceAllUsesWith is linear in the uses), successors, a sorted
//     attribute dictionary, properties, regions and a location.
//   - Types and attributes of the builtin dialect (integers, floats, tensors,
//     memrefs, dense elements, affine maps, locations, ...) spelled as MLIR
//     spells them; each knows how to print itself through AsmPrinter.
//   - OpDef: an op described as data (operands, results, attributes, traits,
//     verifier, folder, canonicalization patterns, assembly format). Adding
//     an op is one OpDef value registered with its dialect.
//   - Diagnostics with locations, rendered as `file:line:col: error: ...`
//     with the source line and a caret.
//   - The verifier, which visits ops, blocks and regions in mlir-opt's
//     order and reports its first failure with mlir-opt's wording and
//     location (see Verify).
//   - Typed uniquing tables for what a parser creates per op (locations,
//     small integers and floats, tensor types), so that uniquing them
//     neither prints nor allocates (unique_tables.go).
//   - Builder, walkers, symbol tables.
//
// The package imports nothing of the project and knows no dialect but
// builtin. Textual syntax lives in the parser and printer packages; they
// reach dialect syntax only through what dialects register here.
package ir
