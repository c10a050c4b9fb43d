package parser

import (
	"strings"
	"testing"

	"github.com/ipuir/ipuir/ir"
)

func TestParseTypePrintsBack(t *testing.T) {
	ctx := ir.NewContext()
	ctx.AllowUnregisteredDialects = true
	cases := map[string]string{
		"i32": "i32", "i0": "i0", "si1": "si1", "ui64": "ui64", "i16777215": "i16777215",
		"index": "index", "none": "none",
		"f16": "f16", "bf16": "bf16", "f32": "f32", "f64": "f64", "f80": "f80", "f128": "f128", "tf32": "tf32",
		"f8E5M2": "f8E5M2", "f8E4M3": "f8E4M3", "f8E4M3FN": "f8E4M3FN", "f8E5M2FNUZ": "f8E5M2FNUZ",
		"f8E4M3FNUZ": "f8E4M3FNUZ", "f8E4M3B11FNUZ": "f8E4M3B11FNUZ",
		"complex<f32>": "complex<f32>", "complex<i8>": "complex<i8>",
		"tuple<>": "tuple<>", "tuple<i32, tuple<none>>": "tuple<i32, tuple<none>>",
		"() -> ()": "() -> ()", "(i32) -> f32": "(i32) -> f32", "(i32, f16) -> (i32, i32)": "(i32, f16) -> (i32, i32)",
		"() -> (() -> i32)": "() -> (() -> i32)",
		"tensor<4x?xf32>":   "tensor<4x?xf32>", "tensor<*xf32>": "tensor<*xf32>", "tensor<f32>": "tensor<f32>",
		"tensor<0x4xf32>": "tensor<0x4xf32>", "tensor<4 x 4 x f32>": "tensor<4x4xf32>",
		"tensor<0xf32>": "tensor<0xf32>", "tensor<4x4xf32, #foo<x>>": "tensor<4x4xf32, #foo.x>",
		"tensor<4xcomplex<f32>>": "tensor<4xcomplex<f32>>", "tensor<4xvector<2xf32>>": "tensor<4xvector<2xf32>>",
		"tensor<4x!foo.t>":  "tensor<4x!foo.t>",
		"vector<4x[8]xf32>": "vector<4x[8]xf32>", "vector<[4]x8xf32>": "vector<[4]x8xf32>",
		"vector<f32>": "vector<f32>", "vector<4xindex>": "vector<4xindex>",
		"memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>, 1>": "memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>, 1>",
		"memref<4x4xf32, strided<[4, 1], offset: ?>>":          "memref<4x4xf32, strided<[4, 1], offset: ?>>",
		"memref<4xf32, affine_map<(d0) -> (d0)>>":              "memref<4xf32>",
		"memref<4xf32, 0>":        "memref<4xf32>",
		"memref<4xf32, \"gpu\">":  "memref<4xf32, \"gpu\">",
		"memref<*xf32, 1>":        "memref<*xf32, 1>",
		"memref<4xvector<4xf32>>": "memref<4xvector<4xf32>>",
		"!foo<\"a\">":             "!foo<\"a\">",
		"!foo.bar<\"a\" -> b>":    "!foo.bar<\"a\" -> b>",
		"!foo.bar":                "!foo.bar",
	}
	for in, want := range cases {
		ty, err := ParseType(ctx, in)
		if err != nil {
			t.Errorf("ParseType(%q): %v", in, err)
			continue
		}
		if got := ir.TypeString(ty); got != want {
			t.Errorf("ParseType(%q) prints %q, want %q", in, got, want)
		}
		again, err := ParseType(ctx, ir.TypeString(ty))
		if err != nil || again != ty {
			t.Errorf("%q does not read back as the same type: %v", want, err)
		}
	}
}

func TestParseTypeStructure(t *testing.T) {
	ctx := ir.NewContext()
	ctx.AllowUnregisteredDialects = true
	ty, err := ParseType(ctx, "tensor<0x?x7xf16, \"enc\">")
	if err != nil {
		t.Fatal(err)
	}
	rt := ty.(*ir.RankedTensorType)
	if len(rt.Dims) != 3 || rt.Dims[0] != 0 || rt.Dims[1] != ir.Dynamic || rt.Dims[2] != 7 || rt.Elem != ctx.F16() {
		t.Errorf("tensor parsed as %+v", rt)
	}
	if s, ok := rt.Encoding.(*ir.StringAttr); !ok || s.Val != "enc" {
		t.Errorf("encoding %v", rt.Encoding)
	}
	vt := must(t, ctx, "vector<2x[4]xi8>").(*ir.VectorType)
	if len(vt.Scalable) != 2 || vt.Scalable[0] || !vt.Scalable[1] {
		t.Errorf("scalable dims %v", vt.Scalable)
	}
	mt := must(t, ctx, "memref<?x4xf32, strided<[?, 1], offset: 3>, 2>").(*ir.MemRefType)
	if sl, ok := mt.Layout.(*ir.StridedLayoutAttr); !ok || sl.Offset != 3 || sl.Strides[0] != ir.Dynamic {
		t.Errorf("layout %v", mt.Layout)
	}
	if it, ok := mt.MemorySpace.(*ir.IntegerAttr); !ok || it.Int != 2 {
		t.Errorf("memory space %v", mt.MemorySpace)
	}
	ot := must(t, ctx, "!foo.bar<1>").(*ir.OpaqueType)
	if ot.Dialect != "foo" || ot.Body != "bar<1>" {
		t.Errorf("opaque type %+v", ot)
	}
	ot = must(t, ctx, "!foo<\"x\">").(*ir.OpaqueType)
	if ot.Dialect != "foo" || ot.Body != `"x"` {
		t.Errorf("opaque type %+v", ot)
	}
	if w := must(t, ctx, "si7").(*ir.IntegerType); w.Width != 7 || w.Signedness != ir.Signed {
		t.Errorf("si7 parsed as %+v", w)
	}
}

func must(t *testing.T, ctx *ir.Context, s string) ir.Type {
	t.Helper()
	ty, err := ParseType(ctx, s)
	if err != nil {
		t.Fatalf("ParseType(%q): %v", s, err)
	}
	return ty
}

func TestParseTypeErrors(t *testing.T) {
	ctx := ir.NewContext()
	cases := map[string]string{
		"i32 x":                     "found trailing characters: 'x'",
		"foo":                       "expected non-function type",
		"tensor<4xf32":              "expected '>' in tensor type",
		"tensor<4x4>":               "expected 'x' in dimension list",
		"vector<0xf32>":             "vector types must have positive constant sizes",
		"!foo.bar":                  "`!\"foo\"<\"bar\">` type created with unregistered dialect. If this is intended, please call allowUnregisteredDialects() on the MLIRContext, or use -allow-unregistered-dialect with the MLIR opt tool used",
		"memref<4xf32, 1, 2>":       "multiple memory spaces specified in memref type",
		"(i32)":                     "expected '->' in function type",
		"complex<tensor<2xf32>>":    "invalid element type for complex",
		"i99999999":                 "integer bitwidth is limited to 16777215 bits",
		"tensor<4xf32, #undefined>": "undefined symbol alias id 'undefined'",
		"tuple<i32 f32>":            "expected '>' in tuple type",
		"memref<4xi32, affine_map<(d0) -> (d0 * d0)>>": "non-affine expression: at least one of the multiply operands has to be either a constant or symbolic",
	}
	for in, want := range cases {
		_, err := ParseType(ctx, in)
		if err == nil {
			t.Errorf("ParseType(%q) succeeded; want %q", in, want)
			continue
		}
		if d := err.(*ir.Diagnostic); d.Message != want {
			t.Errorf("ParseType(%q): %q, want %q", in, d.Message, want)
		}
	}
}

// Nesting deeper than maxNestingDepth fails with a diagnostic, in each of
// the recursive grammars.
func TestNestingLimit(t *testing.T) {
	ctx := ir.NewContext()
	ctx.AllowUnregisteredDialects = true
	deep := func(open, close string, n int, mid string) string {
		return strings.Repeat(open, n) + mid + strings.Repeat(close, n)
	}
	for _, src := range []string{
		`"a.b"() {x = ` + deep("[", "]", 2000, "1") + `} : () -> ()`,
		`"a.b"() : () -> ` + deep("tuple<", ">", 2000, "i32"),
		`"a.b"() : () -> ` + deep("(", ") -> i32", 2000, "i32"),
		`"a.b"() {x = dense<` + deep("[", "]", 2000, "1") + `> : tensor<1xi32>} : () -> ()`,
		`"a.b"() ` + deep(`({"a.c"() `, `: () -> ()})`, 2000, "") + ` : () -> ()`,
		`"a.b"() {x = ` + deep("{a = ", "}", 2000, "1") + `} : () -> ()`,
		`"a.b"() : () -> () loc(` + deep(`"n"(`, ")", 2000, `"x"`) + `)`,
		// Affine bodies, read by participle, are bounded too.
		`"a.b"() {m = affine_map<(d0) -> (` + deep("(", ")", 1000000, "d0") + `)>} : () -> ()`,
		`"a.b"() {s = affine_set<(d0) : (` + deep("(", ")", 2000, "d0") + ` >= 0)>} : () -> ()`,
		`"a.b"() : () -> memref<4xf32, affine_map<(d0) -> (` + deep("(", ")", 2000, "d0") + `)>>`,
		`"a.b"() {m = affine_map<(d0) -> (` + deep("-(", ")", 2000, "d0") + `)>} : () -> ()`,
		`{-# dialect_resources: ` + deep("{ a: ", "}", 2000, `"0x01"`) + ` #-}`,
	} {
		_, err := ParseSourceString(ctx, []byte(src), Config{Filename: "deep.mlir"})
		d, ok := err.(*ir.Diagnostic)
		if !ok || d.Message != "nesting of regions, attributes or types is deeper than 512 levels" {
			t.Errorf("deep input %.40q...: %v", src, err)
		}
	}
}

// Affine expressions without brackets nest too: a run of unary minuses
// costs no stack however long, and a body past maxAffineTokens (a sum of
// 200,000 terms is 1.2 million) is refused with a message; one just under
// it parses, in time linear in its length.
func TestLongAffineBodies(t *testing.T) {
	ctx := ir.NewContext()
	ctx.AllowUnregisteredDialects = true
	parse := func(body string) error {
		_, err := ParseSourceString(ctx, []byte(`"a.b"() {m = affine_map<(d0, d1) -> (`+body+`)>} : () -> ()`), Config{Filename: "long.mlir"})
		return err
	}
	if err := parse(strings.Repeat("-", 200001) + "d0"); err != nil {
		t.Errorf("200,001 minuses: %v", err)
	}
	if err := parse("d0" + strings.Repeat(" + d1 * 2 - d0", 40000)); err != nil {
		t.Errorf("a sum of 80,000 terms: %v", err)
	}
	err := parse("d0" + strings.Repeat(" + d1 * 2 - d0", 200000))
	if d, ok := err.(*ir.Diagnostic); !ok || d.Message != "affine map is longer than 262144 tokens" {
		t.Errorf("a sum of 400,000 terms: %v", err)
	}
}

// A tensor of rank 200,000 parses with every dimension, in time linear in
// its length: the `x` after each dimension is split off alone instead of
// lexing the rest of the type as one identifier each time (rank 10^5 took
// 7.6 s; now 20 ms).
func TestHighRankTensor(t *testing.T) {
	ctx := ir.NewContext()
	const rank = 200000
	src := "tensor<" + strings.Repeat("2x?x", rank/2) + "f32>"
	ty, err := ParseType(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	tt, ok := ty.(*ir.RankedTensorType)
	if !ok || len(tt.Dims) != rank || tt.Dims[0] != 2 || tt.Dims[1] != ir.Dynamic || tt.Dims[rank-1] != ir.Dynamic {
		t.Fatalf("parsed %T with %d dims", ty, len(tt.Dims))
	}
	if got := ir.TypeString(ty); got != src {
		t.Fatalf("prints differently (%d bytes, want %d)", len(got), len(src))
	}
}
