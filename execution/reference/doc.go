// Package reference is the reference interpreter: it evaluates a function
// of the tensor dialect on the host, and is the numerical oracle that every
// later lowering (the simulated device included) is compared against.
//
// A function is a func.func whose body is one block of tensor-dialect ops
// ending in func.return. Run binds the inputs to the block arguments,
// evaluates each op in order through tensor.Evaluate — the same code the
// dialect's constant folder uses — and returns the returned values. Values
// are eval.Arrays: float64 storage, each value rounded to its element type
// after every op, so f16 and bf16 results are exact f16 and bf16 numbers.
// The accumulation rules (f32 accumulation for f16, bf16 and f32 matmuls and
// sums; fused softmax and layer_norm rounded once) are documented in package
// eval.
//
// The values held at once (inputs and live results, 8 bytes an element;
// each result is dropped after its last use) are counted against
// Options.MemoryLimit before each is made, so that a function too large
// for the host fails at the op that would cross the limit instead of
// exhausting memory.
//
// Around Run sit what the ipu-run tool needs: conversion between .npy
// arrays and argument types (npy.go) and seeded input generation
// (generate.go). Every problem with the function or the inputs is an
// *ir.Diagnostic or a plain error naming the input; nothing panics on user
// input.
package reference
