// Package filecheck is a reimplementation of LLVM FileCheck 19: it reads a
// check file of CHECK-style directives, matches them against an input text and
// reports failures with FileCheck's diagnostics and annotated input dump.
//
// The package follows FileCheck's own structure so that its observable
// behaviour — which inputs pass, the exit status, the text of every error —
// matches the original, corner cases included:
//
//   - checkfile.go finds directives (prefixes, suffixes, comments) and
//     pattern.go compiles each pattern into a fixed string or a POSIX regular
//     expression with substitutions, as FileCheck's readCheckFile and
//     Pattern::parsePattern do;
//   - numeric.go holds numeric variables and expressions ([[#VAR+1]]);
//   - match.go and check.go match patterns against the input: CHECK-LABEL
//     regions, CHECK-DAG groups, CHECK-NOT ranges, CHECK-NEXT/SAME/EMPTY line
//     rules, CHECK-COUNT;
//   - source.go prints SourceMgr-style diagnostics, diag.go records the
//     annotations that dump.go draws for --dump-input;
//   - cmdline.go is the filecheck command's option handling (Main).
//
// Regular expressions use package ere, a byte-oriented engine for the
// Henry Spencer dialect FileCheck is built with.
//
// Run checks an input in memory; Main is the whole command.
package filecheck
