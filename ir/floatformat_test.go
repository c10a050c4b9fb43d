package ir

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The expected spellings are what mlir-opt-19 prints for these values.
func TestAppendFloatMatchesMLIR(t *testing.T) {
	cases := []struct {
		v    float64
		kind FloatKind
		want string
	}{
		{1.5, F64, "1.500000e+00"},
		{0.1, F64, "1.000000e-01"},
		{1e-5, F64, "1.000000e-05"},
		{100.5, F16, "1.005000e+02"},
		{3e-7, F32, "3.000000e-07"},
		{1e300, F64, "1.000000e+300"},
		{4.9e-324, F64, "4.940660e-324"},
		{65504, F16, "6.550400e+04"},
		{0.00012345, F64, "1.234500e-04"},
		{1e-7, F16, "1.192090e-07"},
		{0.3, BF16, "3.007810e-01"},
		{1.5, F8E5M2, "1.500000e+00"},
		{math.Copysign(0, -1), F32, "-0.000000e+00"},
		{0, F64, "0.000000e+00"},
		// Six digits do not read back: APFloat's round-trip rendering.
		{1234.5678, F32, "1234.56775"},
		{3.14159265358979, F64, "3.14159265358979"},
		{123456789012345678, F64, "1.2345678901234568E+17"},
		// That rendering has no '.': the bit pattern.
		{16777217, F64, "0x4170000010000000"},
		{1234567, F64, "0x4132D68700000000"},
		{12345678, F32, "0x4B3C614E"},
		{math.Inf(1), F64, "0x7FF0000000000000"},
		{math.Inf(-1), F16, "0xFC00"},
		{math.NaN(), F32, "0x7FC00000"},
	}
	for _, c := range cases {
		v := RoundFloat(c.v, c.kind)
		if got := string(AppendFloat(nil, v, c.kind)); got != c.want {
			t.Errorf("AppendFloat(%v, %s) = %s, want %s", c.v, c.kind, got, c.want)
		}
	}
}

// The 128-bit digit generation agrees with the big-integer one wherever it
// applies: every f16 and bf16 value, and random f32 and f64 values, at the
// precisions AppendFloat asks for.
func TestExactDigits128MatchesBig(t *testing.T) {
	compared := map[FloatKind]int{}
	check := func(v float64, kind FloatKind) {
		if v == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
			return
		}
		frac, e2 := math.Frexp(math.Abs(v))
		mant, exp := uint64(math.Ldexp(frac, 53)), e2-53
		for mant&1 == 0 {
			mant >>= 1
			exp++
		}
		for _, precision := range []int{6, 2 + precisionBits(kind)*59/196} {
			bitsRequired := (precision*196 + 58) / 59
			got, gotExp, ok := exactDigits128(nil, mant, exp, bitsRequired)
			if !ok {
				continue
			}
			compared[kind]++
			want, wantExp := exactDigitsBig(mant, exp, bitsRequired)
			if string(got) != string(want) || gotExp != wantExp {
				t.Fatalf("%v (%v, precision %d): %se%d, want %se%d", v, kind, precision, got, gotExp, want, wantExp)
			}
		}
	}
	for b := uint64(0); b < 1<<16; b++ {
		check(FloatFromBits(b, F16), F16)
		check(FloatFromBits(b, BF16), BF16)
	}
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 200000; i++ {
		check(float64(math.Float32frombits(r.Uint32())), F32)
		check(math.Float64frombits(r.Uint64()), F64)
		check(math.Ldexp(float64(r.Uint64()>>11), r.IntN(200)-150), F64)
	}
	// The fast path must have been taken often enough to mean something.
	for kind, min := range map[FloatKind]int{F16: 100000, BF16: 10000, F32: 10000, F64: 10000} {
		if compared[kind] < min {
			t.Errorf("%v: only %d comparisons", kind, compared[kind])
		}
	}
	t.Logf("comparisons: %v", compared)
}
