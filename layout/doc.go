// Package layout is the arithmetic of tensors cut over tiles, free of the
// IR: a Layout (order, tiling, memory class) and the ShardMap it gives a
// shape (each tile's shard and its [start, logical_end, physical_end)
// extents), boxes and spans of index space, views into shards, the
// layouts that data movement derives (reshape, transpose, slice,
// broadcast, reduce), the exchange traffic between two layouts, and the
// GEMM plan's operand and result layouts with their verification.
//
// Shard arithmetic lives in exactly one place (shard.go) and every
// consumer asks it: the tiled dialect's attributes and verifiers, the
// planner's memory and exchange estimates, the lowerings, and the
// simulated device through layout/movement, the index map of each
// movement kind. The field names and Layout.DebugString mirror the
// reference compile log's Layout, AxisTiling and ShardExtent, which users
// of such a compiler know.
package layout
