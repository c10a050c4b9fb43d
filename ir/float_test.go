package ir

import (
	"math"
	"testing"
)

func TestFloatEncodingRoundTrip(t *testing.T) {
	cases := []struct {
		kind FloatKind
		v    float64
		bits uint64
	}{
		{F16, 1, 0x3C00},
		{F16, -2, 0xC000},
		{F16, 65504, 0x7BFF},
		{F16, 65520, 0x7C00}, // rounds to inf
		{F16, math.Ldexp(1, -24), 0x0001},
		{F16, math.Ldexp(1, -25), 0x0000}, // tie to even (zero)
		{F16, math.Ldexp(3, -25), 0x0002}, // 1.5 ulp rounds to even 2
		{BF16, 1, 0x3F80},
		{BF16, math.Inf(-1), 0xFF80},
		{F8E4M3FN, 448, 0x7E},
		{F8E4M3FN, 1, 0x38},
		{F8E5M2, 57344, 0x7B},
		{F8E4M3FNUZ, 1, 0x40},
		{F8E4M3, 240, 0x77},
		{TF32, 1, 0x1FC00},
	}
	for _, c := range cases {
		got, _ := FloatBits(c.v, c.kind)
		if got != c.bits {
			t.Errorf("FloatBits(%v, %v) = %#x, want %#x", c.v, c.kind, got, c.bits)
		}
		back := FloatFromBits(c.bits, c.kind)
		if !math.IsInf(back, 0) && back != RoundFloat(c.v, c.kind) {
			t.Errorf("FloatFromBits(%#x, %v) = %v, want %v", c.bits, c.kind, back, RoundFloat(c.v, c.kind))
		}
	}
	if !math.IsNaN(FloatFromBits(0x7F, F8E4M3FN)) || !math.IsNaN(FloatFromBits(0x80, F8E4M3FNUZ)) {
		t.Error("NaN encodings of FN/FNUZ formats not decoded as NaN")
	}
}

func TestFloatBitsBigRoundTrip(t *testing.T) {
	for _, k := range []FloatKind{F80, F128} {
		for _, v := range []float64{1, -2.5, 1e300, math.Ldexp(1, -1070), math.Inf(1)} {
			if got := FloatFromBitsBig(FloatBitsBig(v, k), k); got != v {
				t.Errorf("%v: %v round-tripped to %v", k, v, got)
			}
		}
	}
	if got := FloatBitsBig(1, F80).Text(16); got != "3fff8000000000000000" {
		t.Errorf("f80 1.0 = %s", got)
	}
}
