package kernel

import (
	"strings"
	"testing"

	"github.com/ipuir/ipuir/elem"
)

// CheckElems is the one rule of element types the tiled verifier and the
// package's validation apply: each function's accepted and refused types.
func TestCheckElems(t *testing.T) {
	fn := func(name string) *Fn {
		f, err := FnNamed(name)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	f16, f32, i1, i32 := elem.F16, elem.F32, elem.I1, elem.I32
	checked := 0
	for _, c := range []struct {
		fn   string
		ins  []elem.Type
		out  elem.Type
		want string // "" accepted
	}{
		{"add", []elem.Type{f16, f16}, f16, ""},
		{"add", []elem.Type{i32, i32}, i32, ""},
		{"add", []elem.Type{f16, f32}, f16, "input #1 is f32, the output f16"},
		{"convert", []elem.Type{f32}, f16, ""},
		{"convert", []elem.Type{i32}, i32, "'convert' must change the element type"},
		{"lt", []elem.Type{f32, f32}, i1, ""},
		{"lt", []elem.Type{f32, f32}, f32, "lt compares two inputs of one type into i1"},
		{"eq", []elem.Type{i32, f32}, i1, "eq compares two inputs of one type into i1"},
		{"select", []elem.Type{i1, f16, f16}, f16, ""},
		{"select", []elem.Type{f16, f16, f16}, f16, "select takes an i1 condition and two f16 values"},
		{"select", []elem.Type{i1, f16, f32}, f16, "select takes an i1 condition and two f16 values"},
		{"select", []elem.Type{i1, f16}, f16, "select takes 3 inputs, got 2"},
	} {
		err := fn(c.fn).CheckElems(c.ins, c.out)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %v -> %v: %v", c.fn, c.ins, c.out, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s %v -> %v: got %v, want %q", c.fn, c.ins, c.out, err, c.want)
		}
		checked++
	}
	t.Logf("%d element-type rules checked", checked)
}

// An op that reads a double is priced at binary64's rate whatever it
// makes; every other op at its result's type, as before.
func TestPricedAs(t *testing.T) {
	for _, c := range []struct {
		result   elem.Type
		operands []elem.Type
		want     elem.Type
	}{
		{elem.I1, []elem.Type{elem.F64, elem.F64}, elem.F64},
		{elem.F32, []elem.Type{elem.F64}, elem.F64},
		{elem.F64, []elem.Type{elem.F32}, elem.F64},
		{elem.F16, []elem.Type{elem.F32}, elem.F16},
		{elem.I1, []elem.Type{elem.F32, elem.F32}, elem.I1},
		{elem.F32, nil, elem.F32},
	} {
		if got := PricedAs(c.result, c.operands...); got != c.want {
			t.Errorf("PricedAs(%v, %v) = %v, want %v", c.result, c.operands, got, c.want)
		}
	}
}
