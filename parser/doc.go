// Package parser reads MLIR 19's textual IR into package ir: the generic op
// form exactly as mlir-opt-19 reads and prints it, the custom forms that ops
// register (an OpDef.Parse hook, or a declarative AssemblyFormat through
// package asmformat), builtin types and attributes, locations, aliases and
// the {-# dialect_resources #-} section. Diagnostics carry mlir-opt-19's
// messages at its positions (1-based lines, byte columns), including its
// quirks: "expected ..." errors move to the end of the previous line when
// the offending token starts a line, a lexer error wins over the parser's,
// an error at the end of the file moves back one byte.
//
// Entry points: ParseSourceString for a file (no verifier runs; callers
// run ir.Verify), ParseType and ParseAttribute for one item. Dialects read
// their attribute and type bodies either with BodyParser, a small
// hand-written reader over the exported Lexer, or with Grammar, a
// participle grammar they declare as structs whose TypeRef and AttrRef
// leaves are read by the builtin parsers; both see the aliases of the file
// being parsed and report errors at their place in the file.
//
// # Structure, and why
//
// Speed decides the structure. On a 30 MB generic file, the design-time
// measurements on this machine give participle over its regex lexer 0.6
// MB/s and 2.5 GB of memory, participle over a hand-written lexer 1.5 MB/s,
// and that with hand-written types, attributes and locations plugged in
// through participle's Parseable 3.6 MB/s, against mlir-opt-19's 8.8 MB/s;
// a hand-written recursive-descent parser over the same lexer reached 38
// MB/s. participle also materialises every token of its input first (about
// 100 bytes per input byte). So:
//
//   - lexer.go: a hand-written lexer with MLIR's token rules that keeps only
//     the current token (the parser backtracks by copying it, and splits
//     tokens such as `4xf32` by resetting it, as MLIR does);
//   - ops.go, ssa.go, custom.go: hand-written recursive descent for the op
//     structure, regions, blocks, SSA names and custom forms;
//   - types.go, attrs.go, dense.go, locations.go, extended.go: hand-written
//     builtin types, attributes and locations, the leaves every op has;
//   - cache.go: a per-parse cache from the exact source text of a type,
//     attribute or attribute dictionary to its uniqued object, because a
//     large file spells the same types on every line and uniquing through
//     the context costs more than reading them;
//   - affine.go, resources.go, grammar.go: participle, the project's grammar
//     engine, for the parts that are our own small languages and are not
//     hot: affine map and integer set expressions, the file metadata
//     section, and dialect body grammars. Their tokens come from the
//     hand-written lexer through participle_lexer.go, so they see MLIR's
//     token boundaries and report file positions.
//
// On the file tools/ipu-parse-bench generates (30 MB, 193 k ops), measured
// on this shared 2-core machine: our parse and verify take 0.9 to 1.5
// times mlir-opt-19's parse-and-verify time (12 to 20 MB/s, varying with
// the machine's load), at 181 MB peak memory (mlir-opt's whole run: 213
// MB). Every op's location differs, so each is uniqued in the context,
// which no cache can avoid; ir's typed table for file locations keys on
// the file's number, line and column (no key string is built), so this
// is no longer a large share of parse time.
//
// # Names, scopes and locations
//
// As in MLIR, one table of SSA names serves the whole file: a region's
// definitions go out of scope when it ends (so sibling regions may reuse
// names) but a name visible from an enclosing region, even across a nested
// builtin.module, cannot be redefined. Uses before definitions get
// placeholder values replaced by the definition; those left at the end of
// the file are "use of undeclared SSA value name". An op without `loc(...)`
// is located at its name token, a block argument at its %name token; a
// trailing `loc(#alias)` may precede the alias definition (mlir-opt prints
// them at the end of the file) and is resolved when the file ends.
package parser
