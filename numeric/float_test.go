package numeric

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/ipuir/ipuir/elem"
)

func TestF16FromFloat64Corners(t *testing.T) {
	p := math.Ldexp // p(m, e) = m × 2^e, to write the corner values exactly
	cases := []struct {
		name string
		in   float64
		want uint16
	}{
		{"one", 1, 0x3C00},
		{"minus two", -2, 0xC000},
		{"largest finite", 65504, 0x7BFF},
		{"just below the overflow tie", 65519.99, 0x7BFF},
		{"overflow tie goes to inf (even)", 65520, 0x7C00},
		{"large overflow", 1e6, 0x7C00},
		{"negative overflow", -1e300, 0xFC00},
		{"+inf", math.Inf(1), 0x7C00},
		{"-inf", math.Inf(-1), 0xFC00},
		{"+0", 0, 0x0000},
		{"-0", math.Copysign(0, -1), 0x8000},
		{"smallest normal", p(1, -14), 0x0400},
		{"largest subnormal", p(1023, -24), 0x03FF},
		{"smallest subnormal", p(1, -24), 0x0001},
		{"half the smallest subnormal ties to zero", p(1, -25), 0x0000},
		{"just above that half rounds up", p(1, -25) + p(1, -60), 0x0001},
		{"negative half subnormal ties to -0", -p(1, -25), 0x8000},
		{"1.5 subnormal units tie to 2 (even)", p(3, -25), 0x0002},
		{"2.5 subnormal units tie to 2 (even)", p(5, -25), 0x0002},
		{"far below the subnormals", 1e-300, 0x0000},
		{"tie above one goes down to even", 1 + p(1, -11), 0x3C00},
		{"tie above 1+ulp goes up to even", 1 + p(3, -11), 0x3C02},
		{"integer tie 2049 -> 2048", 2049, 0x6800},
		{"integer tie 2051 -> 2052", 2051, 0x6802},
		// A plain float32 conversion turns this value into the exact tie
		// 1+2^-11 (the 2^-40 is below float32's precision), which would then
		// round down to 1: the double-rounding error round-to-odd prevents.
		{"double rounding trap", 1 + p(1, -11) + p(1, -40), 0x3C01},
		{"double rounding trap, negative", -(1 + p(1, -11) + p(1, -40)), 0xBC01},
		{"double rounding trap in subnormals", p(1, -25) + p(1, -70), 0x0001},
	}
	for _, c := range cases {
		if got := F16FromFloat64(c.in); got != c.want {
			t.Errorf("%s: F16FromFloat64(%v) = %#04x, want %#04x", c.name, c.in, got, c.want)
		}
	}
	// The trap really is a trap for the naive path; otherwise the case above
	// would not be testing anything.
	if naive := F16FromFloat32(float32(1 + p(1, -11) + p(1, -40))); naive != 0x3C00 {
		t.Errorf("naive double rounding gave %#04x; the trap case no longer exercises round-to-odd", naive)
	}
}

func TestF16NaN(t *testing.T) {
	h := F16FromFloat64(math.NaN())
	if h&0x7C00 != 0x7C00 || h&0x03FF == 0 {
		t.Fatalf("F16FromFloat64(NaN) = %#04x, not a NaN pattern", h)
	}
	if !math.IsNaN(RoundF16(math.NaN())) {
		t.Fatalf("RoundF16(NaN) is not NaN")
	}
	if !math.IsNaN(F16ToFloat64(0x7E00)) || !math.IsNaN(F16ToFloat64(0xFC01)) {
		t.Fatalf("NaN bit patterns do not decode to NaN")
	}
}

// numeric hands out quiet NaNs only, keeping the sign and the top of the
// payload, even though ir's encoder underneath keeps signalling NaNs.
func TestNaNsComeOutQuietWithTheirPayload(t *testing.T) {
	f32 := math.Float32frombits
	for _, c := range []struct {
		name string
		got  uint16
		want uint16
	}{
		{"f16 of a low-payload sNaN", F16FromFloat32(f32(0x7F800001)), 0x7E00},
		{"f16 of a negative sNaN keeps its payload", F16FromFloat32(f32(0xFFA00000)), 0xFF00},
		{"bf16 of a negative sNaN keeps its payload", BF16FromFloat32(f32(0xFFA00000)), 0xFFE0},
		{"f16 of a float64 sNaN", F16FromFloat64(math.Float64frombits(0x7FF4000000000000)), 0x7F00},
	} {
		if c.got != c.want {
			t.Errorf("%s: got %#04x, want %#04x", c.name, c.got, c.want)
		}
	}
	// The signalling f16 NaN 0x7C01 decodes to a quiet float64 NaN whose
	// payload still ends in the same bit.
	if bits := math.Float64bits(F16ToFloat64(0x7C01)); bits != 0x7FF8040000000000 {
		t.Errorf("F16ToFloat64(0x7c01) has bits %#x, want 0x7ff8040000000000", bits)
	}
}

// Every binary16 value must survive a round trip, and every midpoint between
// neighbours must go to the neighbour with the even bit pattern, while a
// nudge either side of the midpoint decides it. This covers all ties of the
// format, subnormals and the overflow boundary included.
func TestF16ExhaustiveRoundTripAndTies(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		v := F16ToFloat64(uint16(h))
		if math.IsNaN(v) {
			continue
		}
		if got := F16FromFloat64(v); got != uint16(h) {
			t.Fatalf("round trip of %#04x (%v) gave %#04x", h, v, got)
		}
	}
	checkMidpoints(t, "f16", 0x7BFF, F16ToFloat64, F16FromFloat64)
}

func TestBF16FromFloat64Corners(t *testing.T) {
	p := math.Ldexp
	cases := []struct {
		name string
		in   float64
		want uint16
	}{
		{"one", 1, 0x3F80},
		{"minus 1.5", -1.5, 0xBFC0},
		{"tie above one goes down to even", 1 + p(1, -8), 0x3F80},
		{"tie above 1+ulp goes up to even", 1 + p(3, -8), 0x3F82},
		{"double rounding trap", 1 + p(1, -8) + p(1, -40), 0x3F81},
		{"largest finite", p(0xFF, 120), 0x7F7F},
		{"overflow tie goes to inf (even)", p(0x1FF, 119), 0x7F80},
		{"max float32 overflows bf16", math.MaxFloat32, 0x7F80},
		{"beyond float32", 1e300, 0x7F80},
		{"-inf", math.Inf(-1), 0xFF80},
		{"-0", math.Copysign(0, -1), 0x8000},
		{"smallest bf16 subnormal", p(1, -133), 0x0001},
		{"half of it ties to zero", p(1, -134), 0x0000},
		{"just above half rounds up", p(1, -134) + p(1, -160), 0x0001},
		{"smallest float32 subnormal is below bf16 resolution", p(1, -149), 0x0000},
	}
	for _, c := range cases {
		if got := BF16FromFloat64(c.in); got != c.want {
			t.Errorf("%s: BF16FromFloat64(%v) = %#04x, want %#04x", c.name, c.in, got, c.want)
		}
	}
}

func TestBF16NaNStaysNaN(t *testing.T) {
	// Only the lowest payload bit set: truncating to 16 bits would leave
	// 0x7F80, which is +Inf.
	nan := math.Float32frombits(0x7F800001)
	if got := BF16FromFloat32(nan); got&0x7F80 != 0x7F80 || got&0x007F == 0 {
		t.Fatalf("BF16FromFloat32(low-payload NaN) = %#04x, not a NaN pattern", got)
	}
	negNaN := math.Float32frombits(0xFFC00000)
	if got := BF16FromFloat32(negNaN); got != 0xFFC0 {
		t.Fatalf("BF16FromFloat32(-qNaN) = %#04x, want 0xffc0 (payload and sign kept)", got)
	}
	if !math.IsNaN(RoundBF16(math.NaN())) {
		t.Fatalf("RoundBF16(NaN) is not NaN")
	}
}

func TestBF16ExhaustiveRoundTripAndTies(t *testing.T) {
	for b := 0; b < 1<<16; b++ {
		v := BF16ToFloat64(uint16(b))
		if math.IsNaN(v) {
			continue
		}
		if got := BF16FromFloat64(v); got != uint16(b) {
			t.Fatalf("round trip of %#04x (%v) gave %#04x", b, v, got)
		}
		if got := BF16FromFloat32(float32(v)); got != uint16(b) {
			t.Fatalf("float32 round trip of %#04x (%v) gave %#04x", b, v, got)
		}
	}
	checkMidpoints(t, "bf16", 0x7F7F, BF16ToFloat64, BF16FromFloat64)
}

// checkMidpoints walks the positive finite bit patterns 0..maxFinite of a
// 16-bit format and, for each neighbour pair (a, b), checks that the exact
// midpoint rounds to the even pattern and that values just off the midpoint
// round to the nearer neighbour; the same for the negated values. Above the
// largest finite value the "neighbour" is infinity (pattern maxFinite+1).
func checkMidpoints(t *testing.T, format string, maxFinite uint16, decode func(uint16) float64, encode func(float64) uint16) {
	t.Helper()
	for lo := uint16(0); lo <= maxFinite; lo++ {
		hi := lo + 1
		a := decode(lo)
		var b float64
		if hi == maxFinite+1 {
			// The virtual next value past the largest finite one: one ulp up.
			b = a + (a - decode(lo-1))
		} else {
			b = decode(hi)
		}
		mid := a + (b-a)/2 // exact: the formats are far narrower than float64
		even := lo
		if lo&1 == 1 {
			even = hi
		}
		nudge := (b - a) / (1 << 20)
		for _, sign := range []float64{1, -1} {
			signBit := uint16(0)
			if sign < 0 {
				signBit = 0x8000
			}
			if got := encode(sign * mid); got != even|signBit {
				t.Fatalf("%s: midpoint %v of %#04x and %#04x rounded to %#04x, want %#04x", format, sign*mid, lo, hi, got, even|signBit)
			}
			if got := encode(sign * (mid - nudge)); got != lo|signBit {
				t.Fatalf("%s: just below midpoint %v rounded to %#04x, want %#04x", format, sign*mid, got, lo|signBit)
			}
			if got := encode(sign * (mid + nudge)); got != hi|signBit {
				t.Fatalf("%s: just above midpoint %v rounded to %#04x, want %#04x", format, sign*mid, got, hi|signBit)
			}
		}
	}
}

// Random float64 values in the binary16 normal range, checked against
// math/big rounding to 11 significant bits: an oracle that shares no code
// with the conversion under test.
func TestRoundF16AgainstBigFloat(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200000; i++ {
		mant := 1 + r.Float64() // [1, 2) with 52 random fraction bits
		exp := r.IntN(30) - 14  // binary16 normal exponents -14..15
		x := math.Ldexp(mant, exp)
		if r.IntN(2) == 0 {
			x = -x
		}
		ref, _ := new(big.Float).SetPrec(11).SetMode(big.ToNearestEven).SetFloat64(x).Float64()
		if math.Abs(ref) > 65504 {
			ref = math.Inf(int(math.Copysign(1, ref)))
		}
		if got := RoundF16(x); got != ref {
			t.Fatalf("RoundF16(%v) = %v, math/big says %v", x, got, ref)
		}
	}
}

func TestRoundBF16AgainstBigFloat(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 200000; i++ {
		x := math.Ldexp(1+r.Float64(), r.IntN(250)-125)
		if r.IntN(2) == 0 {
			x = -x
		}
		ref, _ := new(big.Float).SetPrec(8).SetMode(big.ToNearestEven).SetFloat64(x).Float64()
		if got := RoundBF16(x); got != ref {
			t.Fatalf("RoundBF16(%v) = %v, math/big says %v", x, got, ref)
		}
	}
}

func TestRoundByKind(t *testing.T) {
	// 1 + 2^-9 + 2^-12 + 2^-30 rounds differently for every kind: f16 keeps
	// 10 fraction bits, bf16 7, f32 23.
	x := 1 + math.Ldexp(1, -9) + math.Ldexp(1, -12) + math.Ldexp(1, -30)
	want := map[elem.Type]float64{
		elem.F16:  1 + math.Ldexp(1, -9),
		elem.BF16: 1,
		elem.F32:  1 + math.Ldexp(1, -9) + math.Ldexp(1, -12),
		elem.F64:  x,
	}
	for k, w := range want {
		if got := Round(x, k); got != w {
			t.Errorf("Round(%v, %v) = %v, want %v", x, k, got, w)
		}
	}
	xs := []float64{x, 65520, -1e-9}
	RoundSlice(xs, elem.F16)
	if xs[0] != want[elem.F16] || !math.IsInf(xs[1], 1) || xs[2] != 0 || !math.Signbit(xs[2]) {
		t.Errorf("RoundSlice(elem.F16) = %v", xs)
	}
	if RoundF32(1e39) != math.Inf(1) {
		t.Errorf("RoundF32(1e39) should overflow to +Inf")
	}
}

func TestRoundInvalidKindPanicsAsBug(t *testing.T) {
	defer func() {
		r := recover()
		if s, ok := r.(string); !ok || s[:4] != "BUG:" {
			t.Fatalf("Round with an invalid kind: recovered %v, want a BUG: panic", r)
		}
	}()
	Round(1, elem.Invalid)
}
