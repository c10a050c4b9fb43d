package numeric

import (
	"fmt"
	"math"

	"github.com/ipuir/ipuir/elem"
)

// format is the shape of one binary floating-point type: its fraction
// bits and its smallest normal exponent.
type format struct{ frac, minExp int }

func formatOf(k elem.Type) format {
	switch k {
	case elem.F16:
		return format{10, -14}
	case elem.BF16:
		return format{7, -126}
	case elem.F32:
		return format{23, -126}
	case elem.F64:
		return format{52, -1022}
	}
	panic(fmt.Sprintf("BUG: numeric: %v is not a float type", k))
}

// UnitRoundoff is k's unit roundoff u: half the gap between 1 and the next
// value, the largest relative error of rounding to nearest (2^-11 for
// f16, 2^-8 for bf16, 2^-24 for f32, 2^-53 for f64).
func UnitRoundoff(k elem.Type) float64 { return math.Ldexp(1, -formatOf(k).frac-1) }

// Ulp is the gap between consecutive values of k at magnitude |x| (the
// subnormal gap below the normal range); +Inf for an infinite or NaN x, or
// one too large for k.
func Ulp(x float64, k elem.Type) float64 {
	f := formatOf(k)
	x = math.Abs(x)
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return math.Inf(1)
	}
	if x > MaxFinite(k) {
		return math.Inf(1)
	}
	// The binade's exponent, straight from x's bits (an f64 subnormal is
	// below every other type's normal range, so its exponent field's -1023
	// is clamped like any other).
	e := int(math.Float64bits(x)>>52&0x7ff) - 1023
	e = max(e, f.minExp) - f.frac
	if e < -1022 {
		return math.Ldexp(1, e) // f64's own subnormal gaps
	}
	return math.Float64frombits(uint64(e+1023) << 52)
}

// MaxFinite is k's largest finite value.
func MaxFinite(k elem.Type) float64 {
	switch k {
	case elem.F16:
		return 65504
	case elem.BF16:
		return BF16ToFloat64(0x7f7f)
	case elem.F32:
		return math.MaxFloat32
	}
	formatOf(k)
	return math.MaxFloat64
}

// Gamma is γ_n(u) = n·u/(1−n·u), the bound on the relative error that n
// roundings with unit roundoff u can accumulate (Higham, Accuracy and
// Stability of Numerical Algorithms, §3.1); +Inf once n·u reaches 1.
func Gamma(n int64, u float64) float64 {
	nu := float64(max(n, 0)) * u
	if nu >= 1 {
		return math.Inf(1)
	}
	return nu / (1 - nu)
}

// Widens says whether every value of the float type from is a value of the
// float type to (f16 and bf16 into f32 and f64, f32 into f64, and each
// into itself): rounding such a value to to leaves it as it is.
func Widens(from, to elem.Type) bool {
	if !from.IsFloat() || !to.IsFloat() {
		return false
	}
	f, t := formatOf(from), formatOf(to)
	return t.frac >= f.frac && t.minExp <= f.minExp && MaxFinite(to) >= MaxFinite(from)
}
