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

// NaNs keep their bit patterns through float64 (MLIR keeps a float's exact
// bits): every NaN of the IEEE-like kinds, signs, payloads and signaling
// NaNs included; the FN and FNUZ kinds have their fixed NaN encodings.
func TestNaNBitsRoundTrip(t *testing.T) {
	for _, k := range []FloatKind{F16, BF16, F32, TF32, F8E5M2, F8E4M3} {
		f := floatFormats[k]
		exp := uint64(1<<f.expBits-1) << f.manBits
		for _, sign := range []uint64{0, 1 << (f.width - 1)} {
			for m := uint64(1); m < 1<<f.manBits; m = m*3 + 1 {
				bits := sign | exp | m
				v := FloatFromBits(bits, k)
				if !math.IsNaN(v) {
					t.Fatalf("%v %#x decoded to %v", k, bits, v)
				}
				if got, _ := FloatBits(v, k); got != bits {
					t.Errorf("%v: NaN %#x encodes back as %#x", k, bits, got)
				}
				if got, _ := FloatBits(RoundFloat(v, k), k); got != bits {
					t.Errorf("%v: NaN %#x rounds to %#x", k, bits, got)
				}
			}
		}
	}
	for _, c := range []struct {
		k    FloatKind
		bits uint64
	}{{F8E4M3FN, 0x7F}, {F8E4M3FN, 0xFF}, {F8E5M2FNUZ, 0x80}, {F8E4M3FNUZ, 0x80}} {
		if got, _ := FloatBits(FloatFromBits(c.bits, c.k), c.k); got != c.bits {
			t.Errorf("%v: NaN %#x encodes back as %#x", c.k, c.bits, got)
		}
	}
	// A float64 NaN whose payload a narrower kind cannot hold stays NaN.
	if got, _ := FloatBits(math.Float64frombits(0x7FF0000000000001), F16); got != 0x7E00 {
		t.Errorf("f64 NaN with a low payload as f16: %#x, want the quiet NaN 0x7E00", got)
	}
}

// Float attributes that differ only in NaN payload are different
// attributes, and print their own bits.
func TestFloatAttrKeepsNaNPayload(t *testing.T) {
	c := NewContext()
	a := c.FloatAttr(c.F16(), FloatFromBits(0x7C01, F16))
	b := c.FloatAttr(c.F16(), FloatFromBits(0x7E00, F16))
	if a == b {
		t.Fatal("0x7C01 and 0x7E00 uniqued to one attribute")
	}
	if got := AttrString(a); got != "0x7C01 : f16" {
		t.Errorf("printed %s, want 0x7C01 : f16", got)
	}
}
