// Package dialects is the home of ipuir's dialects, one package each:
// func (functions, calls, returns), tensor (model-level ops), tiled (tile
// layouts), exchange and tile-asm.
//
// Every dialect package has the same shape, so tools can register any set
// of them the same way:
//
//   - Name, the dialect's namespace, and constants for its op names;
//   - Dialect(), which returns a fresh *ir.Dialect declaring every op as
//     an ir.OpDef value (operands, results, attributes, traits, verifier,
//     folder, canonicalization patterns, summary and an example of its
//     printed form) and the dialect's types and attributes;
//   - Register(ctx), which checks the assembly formats (asmformat) and
//     registers the dialect with a context.
//
// Custom syntax is declared as data wherever it can be: an op's
// AssemblyFormat string, interpreted by package asmformat for both the
// parser and the printer, with custom<...> directives for the pieces a
// format cannot say. Hand-written Parse/Print hooks are for syntax that is
// not a sequence of directives (func.func's signature). Verifier messages
// follow MLIR's wording where MLIR has the same op, so that diagnostics
// read the same as mlir-opt's.
//
// Typed access is hand-written, not generated: builders (tensor.Build,
// tensor.Constant) and typed attribute constructors and readers
// (tiled.NewGemmPlanAttr). An OpDef already names its operands and
// attributes, so the generic accessors (op.Operand(i), op.Attr(name)) plus
// a few typed helpers per dialect are all the passes need; generated accessor
// files would double every declaration and add a regeneration step to CI
// for little gain at this size. The reference documentation, by contrast,
// is generated (tools/ipu-dialect-doc writes docs/dialects/*.md, and a
// test fails when it is stale), since prose that restates declarations
// drifts.
package dialects
