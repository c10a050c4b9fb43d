// Package numeric holds the host-side arithmetic that the reference
// interpreter, the simulated device and the test tools must agree on bit for
// bit: rounding of float64 values to the float element types of package
// elem (f16, bf16, f32, f64), conversions between those types and their bit
// patterns, and seeded generators for test inputs.
//
// It is shaped around float64 because the interpreter computes in float64 and
// rounds to the element type after every operation (what exact f16 rounding
// means for the reference: every f16 value is an exact f16 number); values
// travel as float64 and are rounded by kind, so one code path serves every
// kind.
//
// Rounding is IEEE 754 round-to-nearest, ties-to-even, everywhere, and
// happens once, straight from the float64: going through a plain float32
// conversion first would round twice and can be wrong by one ulp near ties.
// The f16 and bf16 codecs are this package's own few shifts, checked by a
// test against ir's generic minifloat encoder (ir.FloatBits, which the
// parser and printer use) on every 16-bit pattern and millions of values,
// so that the interpreter, the device and the constants in the IR agree
// bit for bit; this package hands out quiet NaNs, where ir keeps
// signalling ones for mlir-opt's sake.
//
// The package imports only elem, the element-type vocabulary, so every
// layer may use it, the runtime and the simulated device included, without
// the IR.
package numeric
