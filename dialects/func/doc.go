// Package funcd is the func dialect: functions (func.func), returns, direct
// and indirect calls, and function constants, with MLIR's syntax and
// verifier messages, so that files mlir-opt reads and writes read and
// write the same here.
//
// The package is named funcd because func is a Go keyword; import it as
// `funcd "github.com/ipuir/ipuir/dialects/func"`. Like every dialect it
// offers Dialect(), a fresh declaration, and Register(ctx).
//
// func.func and func.call_indirect print and parse by hand (their syntax
// is not a plain sequence of operands and types); func.return, func.call
// and func.constant use the declarative assembly formats MLIR gives them.
package funcd
