package numeric

import (
	"math"
	"testing"

	"github.com/ipuir/ipuir/elem"
)

// Ulp is the gap to the next value, checked against the codecs by stepping
// the bit pattern, in the normal and the subnormal range.
func TestUlpIsTheGapToTheNextValue(t *testing.T) {
	checked := 0
	for h := uint16(1); h < 0x7bff; h += 37 {
		x, next := F16ToFloat64(h), F16ToFloat64(h+1)
		if got := Ulp(x, elem.F16); got != next-x {
			t.Fatalf("Ulp(%g, f16) = %g, the next f16 value is %g above", x, got, next-x)
		}
		checked++
	}
	for _, x := range []float32{1, 1.5, 3e-39, 1e30, 2} {
		next := math.Nextafter32(x, math.MaxFloat32)
		if got := Ulp(float64(x), elem.F32); got != float64(next-x) {
			t.Fatalf("Ulp(%g, f32) = %g, want %g", x, got, float64(next-x))
		}
		checked++
	}
	if got := Ulp(1, elem.BF16); got != math.Ldexp(1, -7) {
		t.Errorf("Ulp(1, bf16) = %g", got)
	}
	if !math.IsInf(Ulp(70000, elem.F16), 1) || !math.IsInf(Ulp(math.NaN(), elem.F32), 1) {
		t.Errorf("an out-of-range or NaN value has a finite ulp")
	}
	t.Logf("%d gaps compared", checked)
}

func TestUnitRoundoffAndGamma(t *testing.T) {
	if UnitRoundoff(elem.F16) != math.Ldexp(1, -11) || UnitRoundoff(elem.F32) != math.Ldexp(1, -24) {
		t.Fatalf("unit roundoffs: f16 %g, f32 %g", UnitRoundoff(elem.F16), UnitRoundoff(elem.F32))
	}
	u := UnitRoundoff(elem.F16)
	if g := Gamma(3, u); math.Abs(g-3*u/(1-3*u)) > 1e-18 {
		t.Errorf("Gamma(3, u) = %g", g)
	}
	if !math.IsInf(Gamma(4096, u), 1) || Gamma(0, u) != 0 {
		t.Errorf("Gamma's ends: %g, %g", Gamma(4096, u), Gamma(0, u))
	}
}

// Widens holds exactly where every value of one float type is one of the
// other's: checked on every f16 and bf16 pattern against rounding.
func TestWidens(t *testing.T) {
	want := map[[2]elem.Type]bool{
		{elem.F16, elem.F32}: true, {elem.F16, elem.F64}: true, {elem.BF16, elem.F32}: true, {elem.BF16, elem.F64}: true,
		{elem.F32, elem.F64}: true, {elem.F16, elem.BF16}: false, {elem.BF16, elem.F16}: false, {elem.F32, elem.F16}: false,
		{elem.F64, elem.F32}: false, {elem.I32, elem.F64}: false, {elem.F32, elem.I32}: false,
	}
	for _, k := range elem.Floats() {
		want[[2]elem.Type{k, k}] = true
	}
	for pair, w := range want {
		if got := Widens(pair[0], pair[1]); got != w {
			t.Errorf("Widens(%v, %v) = %v, want %v", pair[0], pair[1], got, w)
		}
	}
	for _, from := range []elem.Type{elem.F16, elem.BF16} {
		for _, to := range elem.Floats() {
			exact := true
			for h := range 1 << 16 {
				v := CodecOf(from).Load([]byte{byte(h), byte(h >> 8)})
				if r := Round(v, to); r != v && !(math.IsNaN(v) && math.IsNaN(r)) {
					exact = false
					break
				}
			}
			if exact != Widens(from, to) {
				t.Errorf("%v → %v: every value exact = %v, Widens says %v", from, to, exact, Widens(from, to))
			}
		}
	}
}
