// Package tensor is the model-level dialect of ipuir: operations on builtin
// ranked tensors with value semantics (matmul, batch_matmul, elementwise
// arithmetic and transcendentals, reductions, softmax, layer_norm, gelu,
// transpose, reshape, broadcast, slice, concat, convert, constant, splat).
// It is step 1 of the lowering pipeline (docs/architecture.md): what a model is before
// any layout, tiling or exchange decision.
//
// Its namespace is `tensor`, the same as MLIR's own tensor dialect, by
// design; mlir-opt therefore rejects these ops by name, while the generic
// syntax stays MLIR's.
//
// Shape of the package:
//
//   - Each op is one ir.OpDef (declared in the file of its group: matmul.go,
//     elementwise.go, ...) with an assembly-format string for its custom
//     syntax, InferResultTypes, a verifier that compares the declared result
//     type with the inferred one, a folder and canonicalization patterns.
//     Types are restricted to statically shaped tensors of f16, bf16, f32 and
//     f64 (scalars only where an op says so), because every op must be
//     executable by the reference interpreter and the numeric package rounds
//     to exactly those kinds.
//   - Evaluation lives in the eval subpackage and is reached through
//     Evaluate. The folder and the reference interpreter (execution/reference)
//     both call Evaluate, so constant folding computes exactly what the
//     interpreter would: one piece of code serves both.
//   - Constant folding is bounded: an op whose operands are all constants
//     folds when no operand or result has more than FoldElementLimit
//     elements, and elementwise and data-movement ops on splat constants
//     fold to splats of any size (they cost one element's work).
//   - decompose.go rewrites softmax, layer_norm and gelu into primitive ops;
//     the tensor-decompose pass runs it.
//
// Semantics of each op, including how sums accumulate, are documented on
// the OpDefs and in package eval.
package tensor
