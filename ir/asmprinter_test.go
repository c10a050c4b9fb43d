package ir

import "testing"

// Spellings checked against mlir-opt-19's output for the same attributes.
func TestBuiltinSpellingsMatchMLIR(t *testing.T) {
	c := NewContext()
	i64, f64 := c.I(64), c.F64()
	cplx := c.Complex(c.I(32))
	cases := []struct {
		a    Attribute
		want string
	}{
		{c.String("a\n\"b\\"), `"a\0A\22b\\"`},
		{c.SymbolRef(`a"b c`), `@"a\22b c"`},
		{c.Array(c.IntegerAttr(i64, 1), c.FloatAttr(f64, 2), c.IntegerAttr(c.I(32), 3)), "[1, 2.000000e+00, 3 : i32]"},
		{c.Array(c.FloatAttr(f64, 16777217)), "[0x4170000010000000 : f64]"},
		{c.TypedString("s", c.None()), `"s"`},
		{c.TypeAttr(c.MemRef([]int64{4}, c.F32(), nil, c.IntegerAttr(i64, 1))), "memref<4xf32, 1>"},
		{c.TypeAttr(c.UnrankedMemRef(c.F32(), c.IntegerAttr(i64, 2))), "memref<*xf32, 2>"},
		{c.TypeAttr(c.Opaque("d", `foo<"x">`)), `!d.foo<"x">`},
		{c.TypeAttr(c.Opaque("d", `"%"`)), `!d<"%">`},
		{c.OpaqueAttr("d", "bar<x y>"), "#d.bar<x y>"},
		{c.OpaqueAttr("d", "1x"), "#d<1x>"},
		{c.Dense(c.Tensor(nil, cplx), []byte{1, 0, 0, 0, 2, 0, 0, 0}), "dense<(1,2)> : tensor<complex<i32>>"},
		{c.DenseInts(c.Tensor([]int64{0}, c.I(32)), nil), "dense<> : tensor<0xi32>"},
		{c.DenseInts(c.Tensor([]int64{2, 0}, c.I(32)), nil), "dense<> : tensor<2x0xi32>"},
	}
	for _, tc := range cases {
		if got := AttrString(tc.a); got != tc.want {
			t.Errorf("got %s, want %s", got, tc.want)
		}
	}
}

type countingHook struct{ types, attrs int }

func (h *countingHook) HookType(p *AsmPrinter, t Type) bool { h.types++; return false }
func (h *countingHook) HookAttr(p *AsmPrinter, a Attribute, elideType bool) bool {
	h.attrs++
	return false
}

// The hook sees nested values and, declining them, leaves output unchanged.
func TestHookSeesNestedValues(t *testing.T) {
	c := NewContext()
	a := c.Array(c.TypeAttr(c.Tensor([]int64{2}, c.F32())), c.Unit())
	h := &countingHook{}
	p := AsmPrinter{Hook: h}
	p.PrintAttr(a)
	if p.String() != "[tensor<2xf32>, unit]" {
		t.Fatalf("printed %s", p.String())
	}
	// array, type attr, unit; tensor type and its f32 element.
	if h.attrs != 3 || h.types != 2 {
		t.Fatalf("hook saw %d attrs and %d types", h.attrs, h.types)
	}
}
