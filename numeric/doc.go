// Package numeric holds the host-side arithmetic that the reference
// interpreter, the simulated device and the test tools must agree on bit for
// bit: rounding of float64 values to the element kinds the IR knows (f16,
// bf16, f32, f64), conversions between those kinds and their bit patterns,
// and seeded generators for test inputs.
//
// It is shaped around float64 because the interpreter computes in float64 and
// rounds to the element type after every operation (that is what "exact fp16
// rounding where types say f16" means in DESIGN.md); values travel as float64
// and are rounded by kind, so one code path serves every kind.
//
// Rounding is IEEE 754 round-to-nearest, ties-to-even, everywhere. Converting
// a float64 to f16 or bf16 by way of a plain float32 conversion would round
// twice and can be wrong by one ulp near ties; the float64 entry points here
// round to float32 with round-to-odd first, which makes the second rounding
// exact (the float32 significand has more than two bits beyond either target).
//
// The package imports nothing of the project so that every layer may use it.
package numeric
