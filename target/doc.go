// Package target describes the machines ipuir compiles for and prices work on
// them.
//
// A Target is plain data: tile count, per-tile SRAM split into memory classes,
// threads, clock, AMP and vector throughput, load/store and exchange rates,
// sync cost and the fitted matmul cost. Passes, the planner and the simulated
// device never branch on a chip's name; they read these fields or call the
// cost methods, which are pure functions of the fields. A new machine is a new
// value, not new code paths (docs/targets.md).
//
// Every figure in the built-in targets (builtin.go) names its public source or
// is marked "Assumption:" with the reason it had to be assumed. Sources:
//
//   - docs/targets.md (the table of every figure and its source).
//   - Graphcore's public IPU documentation (IPU Programmer's Guide: tiles,
//     six worker contexts serviced round-robin plus a supervisor, the two
//     on-tile memory regions) and its product figures for the Mk2 GC200
//     (1,472 tiles, ~900 MB In-Processor-Memory, 250 TFLOPS fp16,
//     62.5 TFLOPS fp32 at 1.325 GHz, ~8 TB/s exchange, 47.5 TB/s memory).
//   - Z. Jia, B. Tillman, M. Maggioni, D. P. Scarpazza, "Dissecting the
//     Graphcore IPU Architecture via Microbenchmarking", arXiv:1912.03413,
//     2019 (six workers, memory latency and bandwidth).
//   - Y. Liu et al., "Scaling Deep Learning Computation over the Inter-Core
//     Connected Intelligence Processor with T10", SOSP 2024, arXiv:2408.04808
//     (the fitted per-tile matmul cost).
//   - Graphcore's Bow-2000 datasheet (IPU-Links, the Sync-Link, Streaming
//     Memory per machine) for the multi-chip targets and streaming memory
//     (scale.go); the figures no source fixes are Options a user may set.
//   - The reference compile log, /work/shared/reference/reference-compile-log.txt
//     (memory-class names and the address split it prints).
//
// Units: cycles are tile clock cycles (int64), sizes are bytes unless a name
// says words (one exchange word is 32 bits), throughputs are per tile per
// cycle unless a name says otherwise.
package target
