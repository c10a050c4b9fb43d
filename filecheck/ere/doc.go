// Package ere implements the POSIX extended regular expressions that LLVM's
// FileCheck uses: the Henry Spencer dialect compiled into llvm::Regex, matched
// byte by byte with leftmost-longest semantics.
//
// FileCheck compatibility needs more than Go's regexp package offers:
//
//   - Spencer's syntax: `\d` is a literal `d` (any escaped non-digit is itself),
//     `\1`..`\9` are back-references, `{` is literal unless a digit follows,
//     bracket expressions know `[:class:]`, `[=x=]`, `[.name.]` and the
//     word-boundary kludges `[[:<:]]` and `[[:>:]]`; invalid expressions are
//     reported with Spencer's messages ("brackets ([ ]) not balanced", ...).
//   - Bytes, not runes: `.` and bracket expressions consume one byte, as in the
//     C library, so non-ASCII input matches exactly as it does in FileCheck.
//   - REG_NEWLINE: `.` and negated brackets never match a newline; `^` and `$`
//     also match after and before one.
//   - REG_ICASE folds ASCII letters only.
//
// Matching runs a Pike VM that tracks the earliest start of every thread, which
// gives the leftmost-longest match in one pass over the text. Literal runs that
// every match must contain, and the fact that most FileCheck patterns cannot
// cross a newline, let a search skip to candidate lines with bytes.Index.
// Back-references are matched the way Spencer's engine does it: a superset of
// the expression (each back-reference replaced by a copy of its group) finds
// candidate starts, and a backtracking matcher confirms each one.
package ere
