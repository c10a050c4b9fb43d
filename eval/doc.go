// Package eval holds the numerical kernels of the tensor dialect: one
// function per op, over float64 arrays that carry their element kind.
//
// It is the single piece of code behind two users that must agree bit for
// bit: the tensor dialect's constant folder (dialects/tensor) and the
// reference interpreter (execution/reference), which is the numerical oracle
// for every later lowering. Keeping the kernels free of the IR (they see
// shapes, kinds and numbers, never operations or attributes) lets both call
// them directly, lets the interpreter stay fast, and keeps the arithmetic
// rules in one place.
//
// Arithmetic rules (the "accumulation semantics" of the dialect):
//
//   - Storage is float64. Every array's values are already representable in
//     its Kind; every kernel rounds its results to the result kind
//     (numeric.Round: round to nearest, ties to even) before returning.
//   - Elementwise ops (binaryOps and unaryOps, declared in elementwise.go,
//     and convert) compute each element in float64 from the rounded inputs and
//     round once. For add, sub, mul, div and convert this is the correctly
//     rounded IEEE result in f16, bf16 and f32 (float64 has more than twice
//     their precision plus two bits, so the double rounding is exact).
//   - matmul, batch_matmul and reduce_sum accumulate in f32 when the inputs
//     are f16, bf16 or f32, and in f64 when they are f64: the accumulator
//     starts at +0, adds the terms in increasing index order (k for matmuls,
//     the reduced elements in row-major order for reductions), rounding to
//     the accumulator kind after every product and every addition, and the
//     final sum is rounded once to the result kind. Products of f16 or bf16
//     values are exact in f32, so for those inputs this is exactly an f32
//     multiply-accumulate unit without fused rounding. The order is fixed
//     so that results do not depend on how the work is split over cores.
//   - reduce_max, transpose, reshape, broadcast, slice and concat move or
//     select values and round nothing.
//   - softmax and layer_norm are fused: computed entirely in float64 (max
//     subtraction, exponentials and sums for softmax; mean, biased variance
//     and the normalisation for layer_norm) and rounded once per output
//     element. Their decompositions (tensor-decompose) round after every
//     primitive op instead, so they agree within a few ulps, not exactly.
//
// Every kernel checks its arguments and returns an error rather than
// panicking: the interpreter may be handed IR that never went through the
// verifier.
package eval
