package printer

import "github.com/ipuir/ipuir/ir"

// Options select how IR prints; each field is an mlir-opt flag.
type Options struct {
	// Generic prints every op in the generic form (--mlir-print-op-generic).
	Generic bool
	// DebugInfo prints locations (--mlir-print-debuginfo): `loc(#locN)`
	// after each op, with the #locN definitions at the end of the file.
	DebugInfo bool
	// PrettyDebugInfo prints locations in the readable, unparsable form
	// (--mlir-pretty-debuginfo); it implies DebugInfo.
	PrettyDebugInfo bool
	// LocalScope prints without aliases and names values relative to the
	// nearest isolated-from-above op (--mlir-print-local-scope).
	LocalScope bool
	// UniqueSSAIDs numbers values across the whole op instead of per
	// region (--mlir-print-unique-ssa-ids); the generic form always does.
	UniqueSSAIDs bool
	// ElideElementsAttrsIfLarger, when positive, prints non-splat elements
	// attributes with more elements as dense_resource<__elided__>
	// (--mlir-elide-elementsattrs-if-larger).
	ElideElementsAttrsIfLarger int
	// SkipRegions prints every region as {...} (--mlir-print-skip-regions).
	SkipRegions bool
	// AssumeVerified skips the verification that otherwise decides between
	// the custom and the generic form (--mlir-print-assume-verified).
	AssumeVerified bool
	// ValueUsers ends each op's line with the users of its results, and
	// starts each block with those of its arguments
	// (--mlir-print-value-users); ops without results get an id.
	ValueUsers bool
	// HexIfLarger prints elements attributes with more elements than this
	// as hex strings (--mlir-print-elementsattrs-with-hex-if-larger); 0
	// keeps mlir-opt's default of 100, -1 never prints hex.
	HexIfLarger int
	// ElideResourceStringsIfLarger leaves resource strings and blobs whose
	// printed form is longer than this out of the {-# #-} section
	// (--mlir-elide-resource-strings-if-larger); 0 keeps them all.
	ElideResourceStringsIfLarger int
	// Env is the environment that verification runs in (see ir.Env): IR
	// that verifies only against its target prints in custom form when
	// the target is given here.
	Env *ir.Env
}

func (o Options) debugInfo() bool { return o.DebugInfo || o.PrettyDebugInfo }
