package numeric_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/numeric"
)

// quiet is numeric's NaN policy applied to a value of ir's decoder.
func quiet(x float64) float64 {
	if x != x {
		return math.Float64frombits(math.Float64bits(x) | 1<<51)
	}
	return x
}

func same(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

// The 16-bit codecs agree with ir's generic minifloat encoder, the one the
// parser and the printer use, on every pattern and on many values.
func TestCodecsAgreeWithTheIR(t *testing.T) {
	for b := 0; b < 1<<16; b++ {
		h := uint16(b)
		if got, want := numeric.F16ToFloat64(h), quiet(ir.FloatFromBits(uint64(h), ir.F16)); !same(got, want) {
			t.Fatalf("f16 %#04x decodes to %v, ir says %v", h, got, want)
		}
		if got, want := numeric.BF16ToFloat64(h), quiet(ir.FloatFromBits(uint64(h), ir.BF16)); !same(got, want) {
			t.Fatalf("bf16 %#04x decodes to %v, ir says %v", h, got, want)
		}
	}
	encode := func(x float64) {
		for _, c := range []struct {
			kind ir.FloatKind
			got  uint16
		}{{ir.F16, numeric.F16FromFloat64(x)}, {ir.BF16, numeric.BF16FromFloat64(x)}} {
			want, _ := ir.FloatBits(quiet(x), c.kind)
			if uint64(c.got) != want {
				t.Fatalf("%v (%#016x) encodes as %#04x in %v, ir says %#04x", x, math.Float64bits(x), c.got, c.kind, want)
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 1_000_000; i++ {
		// Random bit patterns reach every exponent, NaN payload and tie.
		encode(math.Float64frombits(rng.Uint64()))
		// Values near the 16-bit range, where rounding decides.
		encode(math.Ldexp(rng.Float64()*2-1, rng.IntN(80)-50))
	}
	for b := 0; b < 1<<16; b++ {
		// Every value exactly, and the ties halfway between neighbours.
		x := numeric.F16ToFloat64(uint16(b))
		encode(x)
		encode(math.Nextafter(x, math.Inf(1)))
		y := numeric.BF16ToFloat64(uint16(b))
		encode(y)
		encode(math.Nextafter(y, math.Inf(-1)))
		if b < 0x7c00 {
			encode((x + numeric.F16ToFloat64(uint16(b+1))) / 2)
		}
	}
}
