// Package lit runs lit-style tests: text files whose comments carry shell
// commands (`// RUN: ...`) and test conditions, in the manner of LLVM's lit.
//
// A test file may contain:
//
//	// RUN: tool %s | filecheck %s     a command; a trailing \ continues it on the next RUN: line
//	// REQUIRES: feature, expr          run only when every expression holds
//	// UNSUPPORTED: expr, ...           skip when any expression holds
//	// XFAIL: expr, ...                 expect failure when any holds ("*" always)
//
// Expressions combine feature names with !, &&, || and parentheses, as in
// lit. The features of a Config are typically:
//
//   - the operating system, as `linux` (runtime.GOOS) and `system-linux`;
//   - every executable in the tools directory (the project's freshly built
//     commands, e.g. `filecheck`, `ipu-opt`);
//   - `filecheck-19`, `mlir-opt-19`, `mlir-translate-19` when those LLVM
//     tools are on PATH.
//
// RUN commands see these substitutions: %s (the test file), %S and %p (its
// directory), %t (a temporary file path unique to the test), %T (the
// directory of %t) and %% (a literal %). Each command runs under
// `bash -o pipefail -c` in the test's temporary directory, with the tools
// directory first on PATH; commands run in order and the first failure
// fails the test. `not CMD` succeeds when CMD fails, and `not --crash CMD`
// when CMD dies from a signal (Go programs get GOTRACEBACK=crash so that a
// panic counts), as lit's `not` does.
package lit
