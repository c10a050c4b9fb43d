// Package printer writes IR as text, byte for byte as mlir-opt 19 writes
// it: the generic op form, custom forms (an op's hand-written Print hook or
// its declarative assembly format through package asmformat), SSA value
// and block names, attribute and type aliases at the top of the file,
// locations (inline or as #loc aliases at the end with DebugInfo), and the
// {-# dialect_resources #-} section.
//
// The structure follows MLIR's AsmPrinter because the output has to match
// it exactly, quirks included:
//
//   - names (names.go) are assigned before printing by a walk over regions
//     that mirrors MLIR's SSANameState, including its numbering order
//     (counters continue into nested regions, restart in sibling regions,
//     and never restart in the generic form);
//   - aliases (aliases.go) are found by a dry run of the real printer in
//     which an ir.AsmHook records each type, attribute and location as it
//     would print, so custom printers and dialect types need no separate
//     walker, and the visiting order, alias depth and deferral rules are
//     MLIR's;
//   - ops, regions and blocks (ops.go) print through opPrinter, which is
//     the ir.OpAsmPrinter custom printers receive.
//
// Print fails only when the writer does; invalid IR prints in the generic
// form, as mlir-opt does, so custom printers may assume verified ops.
//
// Output streams: text goes to the writer in chunks as ops complete;
// naming keeps one small entry per value group and block, and the alias
// dry run and the printing itself allocate nothing per op, so printing a
// large module costs little time and memory beyond the module's own (the
// parse+verify+print figure of the README).
package printer
