package numeric

// Saturated is where SatMul and SatAdd stick instead of overflowing: far
// above any count a real program or machine has, so that limit checks on
// fuzzed or hostile inputs stay meaningful.
const Saturated = int64(1) << 62

// SatMul multiplies non-negative counts, sticking at Saturated.
func SatMul(a, b int64) int64 {
	if a <= 0 || b <= 0 {
		return a * b
	}
	if a >= Saturated/b {
		return Saturated
	}
	return a * b
}

// SatAdd adds non-negative counts, sticking at Saturated.
func SatAdd(a, b int64) int64 {
	if a >= Saturated-b {
		return Saturated
	}
	return a + b
}
