// Package tiled is the tiled-layout dialect: how a tensor is cut into shards
// over an IPU's tiles, and how each matmul is partitioned over them.
//
// It is step 2 of the lowering (docs/architecture.md). Every tensor value
// gets a layout (#tiled.layout): an order (row major; block major of
// transposed-matrix blocks; AMP left or right operand order), a tiling (tile
// count, replicas, and per partitioned axis: partitions, padding groups,
// block size, padding multiple, shard padding multiple, padding kind, tile
// stride) and a memory class. A shard is one tile's piece of a tensor, with
// [start, logical_end, physical_end) extents per axis; a view selects a
// region of a shard. Matmuls carry a GEMM plan (#tiled.gemm_plan) chosen by
// the planner in dialects/tiled/plan, and users may pin any subset of a
// plan's fields with #tiled.gemm_constraint.
//
// The layouts, plans and their arithmetic are package layout's, which
// knows no IR; this package makes them attributes, types' encodings and
// ops, and verifies ops with that arithmetic, so that the shard maths
// lives in one place that the device shares.
//
// Attribute bodies are parsed with participle (syntax.go): one small
// key = value grammar shared by every attribute of the dialect, then a
// semantic pass that names the offending field in each error.
package tiled
