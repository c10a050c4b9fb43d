package ir

import (
	"math"
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
