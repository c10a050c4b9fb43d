package parser

import (
	"math"
	"testing"

	"github.com/ipuir/ipuir/ir"
)

func parseAttr(t *testing.T, ctx *ir.Context, s string) ir.Attribute {
	t.Helper()
	a, err := ParseAttribute(ctx, s)
	if err != nil {
		t.Fatalf("ParseAttribute(%q): %v", s, err)
	}
	return a
}

func TestParseAttributePrintsBack(t *testing.T) {
	ctx := ir.NewContext()
	ctx.AllowUnregisteredDialects = true
	cases := map[string]string{
		"1":                                      "1 : i64",
		"-1 : i8":                                "-1 : i8",
		"255 : i8":                               "-1 : i8",
		"-1 : i1":                                "true",
		"0x10 : i32":                             "16 : i32",
		"true":                                   "true",
		"unit":                                   "unit",
		"1.5":                                    "1.500000e+00 : f64",
		"1.e5 : f32":                             "1.000000e+05 : f32",
		"0x7FC00000 : f32":                       "0x7FC00000 : f32",
		"1.0e400":                                "0x7FF0000000000000 : f64",
		"\"s\"":                                  "\"s\"",
		"\"s\" : i32":                            "\"s\" : i32",
		"[1, [2], {}]":                           "[1, [2], {}]",
		"{b = 1, a}":                             "{a, b = 1 : i64}",
		"{\"x y\" = 1}":                          "{\"x y\" = 1 : i64}",
		"i32":                                    "i32",
		"(i32) -> f32":                           "(i32) -> f32",
		"@a::@b::@c":                             "@a::@b::@c",
		"@\"a b\"":                               "@\"a b\"",
		"dense<[1, 2]> : tensor<2xi32>":          "dense<[1, 2]> : tensor<2xi32>",
		"dense<[-1, 255]> : tensor<2xi8>":        "dense<-1> : tensor<2xi8>",
		"dense<\"0x0102\"> : tensor<2xi8>":       "dense<[1, 2]> : tensor<2xi8>",
		"dense<\"0x05\"> : tensor<3xi1>":         "dense<[true, false, true]> : tensor<3xi1>",
		"dense<> : tensor<0xi32>":                "dense<> : tensor<0xi32>",
		"dense<(1, 2)> : tensor<2xcomplex<i32>>": "dense<(1,2)> : tensor<2xcomplex<i32>>",
		"dense<[\"a\", \"b\"]> : tensor<2x!foo.s>":           "dense<[\"a\", \"b\"]> : tensor<2x!foo.s>",
		"sparse<[[0, 1]], [5]> : tensor<2x2xi32>":            "sparse<[[0, 1]], 5> : tensor<2x2xi32>",
		"sparse<> : tensor<2xf32>":                           "sparse<> : tensor<2xf32>",
		"array<i32: 1, 2>":                                   "array<i32: 1, 2>",
		"array<f64>":                                         "array<f64>",
		"array<i1: true, false>":                             "array<i1: true, false>",
		"strided<[?, 1], offset: 5>":                         "strided<[?, 1], offset: 5>",
		"strided<[1], offset: 0>":                            "strided<[1]>",
		"affine_map<(d0, d1)[s0] -> (d0 * s0 + d1)>":         "affine_map<(d0, d1)[s0] -> (d0 * s0 + d1)>",
		"affine_map<(i) -> (i - 1, -i, i mod 2)>":            "affine_map<(d0) -> (d0 - 1, -d0, d0 mod 2)>",
		"affine_set<(d0) : (d0 - 1 >= 0, d0 <= 9, d0 == 4)>": "affine_set<(d0) : (d0 - 1 >= 0, -d0 + 9 >= 0, d0 - 4 == 0)>",
		"dense_resource<blob> : tensor<2xi32>":               "dense_resource<blob> : tensor<2xi32>",
		"#foo.bar<a<b>>":                                     "#foo.bar<a<b>>",
		"#foo<\"x\">":                                        "#foo<\"x\">",
		"loc(\"a\":1:2)":                                     "loc(\"a\":1:2)",
		"loc(fused[\"a\", unknown])":                         "loc(\"a\")",
		"loc(\"n\"(unknown))":                                "loc(\"n\")",
		"loc(callsite(\"a\" at \"b\":1:2))":                  "loc(callsite(\"a\" at \"b\":1:2))",
	}
	for in, want := range cases {
		a, err := ParseAttribute(ctx, in)
		if err != nil {
			t.Errorf("ParseAttribute(%q): %v", in, err)
			continue
		}
		if got := ir.AttrString(a); got != want {
			t.Errorf("ParseAttribute(%q) prints %q, want %q", in, got, want)
		}
	}
}

func TestParseAttributeValues(t *testing.T) {
	ctx := ir.NewContext()
	ctx.AllowUnregisteredDialects = true
	if a := parseAttr(t, ctx, "123456789012345678901234567890 : i128").(*ir.IntegerAttr); a.Big == nil || a.Big.String() != "123456789012345678901234567890" {
		t.Errorf("i128 value %v", a)
	}
	if a := parseAttr(t, ctx, "18446744073709551615 : ui64").(*ir.IntegerAttr); uint64(a.Int) != math.MaxUint64 {
		t.Errorf("ui64 max %v", a.Int)
	}
	if a := parseAttr(t, ctx, "-9223372036854775808 : i64").(*ir.IntegerAttr); a.Int != math.MinInt64 {
		t.Errorf("i64 min %v", a.Int)
	}
	if a := parseAttr(t, ctx, "0.1 : f16").(*ir.FloatAttr); a.Val != ir.RoundFloat(0.1, ir.F16) {
		t.Errorf("0.1 : f16 is %v", a.Val)
	}
	if a := parseAttr(t, ctx, "-0.0").(*ir.FloatAttr); !math.Signbit(a.Val) {
		t.Errorf("-0.0 lost its sign")
	}
	if a := parseAttr(t, ctx, "0xFC00 : f16").(*ir.FloatAttr); !math.IsInf(a.Val, -1) {
		t.Errorf("0xFC00 : f16 is %v", a.Val)
	}
	if a := parseAttr(t, ctx, "\"a\\n\\t\\\"\\\\\\41\"").(*ir.StringAttr); a.Val != "a\n\t\"\\A" {
		t.Errorf("string value %q", a.Val)
	}
	d := parseAttr(t, ctx, "dense<[[1.5, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>").(*ir.DenseElementsAttr)
	if vals := d.Float64s(); len(vals) != 4 || vals[0] != 1.5 || vals[3] != 4 {
		t.Errorf("dense values %v", vals)
	}
	if d := parseAttr(t, ctx, "dense<7> : tensor<1000x1000xi32>").(*ir.DenseElementsAttr); !d.Splat || d.Int64At(999999) != 7 {
		t.Errorf("splat %v", d)
	}
	s := parseAttr(t, ctx, "sparse<[[0, 1], [1, 0]], [5, 6]> : tensor<2x2xi32>").(*ir.SparseElementsAttr)
	if s.Indices.Int64At(2) != 1 || s.Values.(*ir.DenseElementsAttr).Int64At(1) != 6 {
		t.Errorf("sparse %v", ir.AttrString(s))
	}
	arr := parseAttr(t, ctx, "array<i8: -128, 255>").(*ir.DenseArrayAttr)
	if arr.Ints[0] != -128 || arr.Ints[1] != -1 {
		t.Errorf("array values %v", arr.Ints)
	}
	sym := parseAttr(t, ctx, "@\"a b\"::@c").(*ir.SymbolRefAttr)
	if sym.Root != "a b" || len(sym.Nested) != 1 || sym.Nested[0] != "c" {
		t.Errorf("symbol %+v", sym)
	}
	// `@a : i32` is the symbol alone; the colon is left for the caller.
	p := newParser(ctx, []byte("@a : i32"), "x", 0, newState())
	if _, err := p.parseAttribute(nil); err != nil || p.tok.Kind != Colon {
		t.Errorf("after @a: %v, token %v", err, p.tok.Kind)
	}
	m := parseAttr(t, ctx, "affine_map<(d0, d1)[s0] -> (d0 floordiv s0, d1 ceildiv 2)>").(*ir.AffineMapAttr)
	if m.Map.NumDims != 2 || m.Map.NumSymbols != 1 || m.Map.Results[0].Kind != ir.AffineFloorDiv {
		t.Errorf("affine map %v", ir.AttrString(m))
	}
	op := parseAttr(t, ctx, "#foo.bar<1>").(*ir.OpaqueAttr)
	if op.Dialect != "foo" || op.Body != "bar<1>" {
		t.Errorf("opaque attr %+v", op)
	}
}

// A context type given to ParseAttribute replaces the `: type` suffix.
func TestParseAttributeWithType(t *testing.T) {
	ctx := ir.NewContext()
	p := newParser(ctx, []byte("7"), "x", 0, newState())
	a, err := p.parseAttribute(ctx.I(8))
	if err != nil || ir.AttrString(a) != "7 : i8" {
		t.Errorf("7 with i8: %v, %v", a, err)
	}
	p = newParser(ctx, []byte("2.5"), "x", 0, newState())
	if a, err = p.parseAttribute(ctx.F16()); err != nil || ir.AttrString(a) != "2.500000e+00 : f16" {
		t.Errorf("2.5 with f16: %v, %v", a, err)
	}
}

// "s" : none reads as the same attribute as "s", as in MLIR, so printing
// one (mlir-opt prints `"s"`) and reading it back keeps the IR.
func TestParseStringTypedNoneIsUntyped(t *testing.T) {
	ctx := ir.NewContext()
	if a, b := parseAttr(t, ctx, `"s" : none`), parseAttr(t, ctx, `"s"`); a != b {
		t.Errorf(`"s" : none and "s" are different attributes`)
	}
}
