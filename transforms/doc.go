// Package transforms holds the generic passes, the ones that know no
// dialect (MLIR's lib/Transforms): canonicalize, cse, dce and symbol-dce.
// They work on any IR through what op definitions declare (traits,
// folders, canonicalization patterns, symbol tables) and the rewrite
// drivers of package passes. One file per pass, named after its registry
// name; package registry registers them with the rest.
package transforms
