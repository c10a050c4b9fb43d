package numeric

import "math/bits"

// FloorDiv is ⌊a/b⌋ for b ≠ 0, rounding toward negative infinity (Go's /
// rounds toward zero).
func FloorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// CeilDiv is ⌈a/b⌉ for b ≠ 0: how many pieces of size b cover a, for
// non-negative a and positive b.
func CeilDiv(a, b int64) int64 { return -FloorDiv(-a, b) }

// RoundUp is the least multiple of m (positive) that is at least a.
func RoundUp(a, m int64) int64 { return CeilDiv(a, m) * m }

// CeilLog2 is ⌈log2 x⌉ for x ≥ 1 (0 for x = 1, and for x < 1).
func CeilLog2(x int64) int64 {
	if x <= 1 {
		return 0
	}
	return int64(bits.Len64(uint64(x - 1)))
}
