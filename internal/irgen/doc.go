// Package irgen generates random, valid MLIR 19 textual IR from a seed, for
// differential tests of ipuir's parser and printer against mlir-opt-19
// (tests/interop) and for round-trip property tests.
//
// It writes text directly instead of building ir.Operations and printing
// them: its output is the oracle input, and going through package ir and
// package printer would hide exactly the bugs the interop tests look for.
// It tracks just enough structure to stay valid: the structure of every
// type (so dense elements, memref layouts and tensor elements fit), SSA
// scopes with dominance in multi-block regions, graph regions where uses may
// precede definitions, unique symbol and value names, and alias tables.
//
// Every construct is a Feature. Config switches features off; Generate
// reports how often each one was emitted, so a test can require that its
// seeds cover every enabled feature, and a construct that cannot pass yet
// stays behind a named knob instead of silently disappearing.
//
// Only what mlir-opt 19 itself round-trips is generated (see
// /work/shared/notes/mlir-and-filecheck-corners.md): no locations as
// attribute values, no f80/f128 bit patterns, no nested fused locations
// with metadata, no array<index: ...>, no @"", no distinct[..]<unit>.
// The output is deterministic for a seed: math/rand/v2's PCG is specified,
// and no map is iterated while generating.
package irgen
