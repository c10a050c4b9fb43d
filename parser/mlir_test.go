package parser_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
	"github.com/ipuir/ipuir/printer"
)

// Differential tests against mlir-opt-19, skipped where it is not
// installed: the same malformed inputs give the same first diagnostic
// line, and valid inputs parse to the same IR (compared through the
// generic printed form).

func mlirOpt(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("mlir-opt-19")
	if err != nil {
		t.Skip("mlir-opt-19 not installed")
	}
	return path
}

// runMLIROpt runs mlir-opt-19 on src (as in.mlir in a fresh directory) and
// returns its stdout, the first line of its stderr, and whether it failed.
func runMLIROpt(t *testing.T, bin, src string, args ...string) (string, string, bool) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "in.mlir"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append(args, "in.mlir")...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	first, _, _ := strings.Cut(stderr.String(), "\n")
	return stdout.String(), first, err != nil
}

// TestErrorsMatchMLIROpt runs all cases through one mlir-opt-19 process
// per strictness with --split-input-file. mlir-opt numbers lines within a
// chunk that starts at its `// -----` line, so a case's line L is reported
// as L+1.
func TestErrorsMatchMLIROpt(t *testing.T) {
	bin := mlirOpt(t)
	for _, strict := range []bool{false, true} {
		var cases []errorCase
		for _, c := range errorCases {
			if c.knownDiff == "" && c.strict == strict {
				cases = append(cases, c)
			}
		}
		var src strings.Builder
		src.WriteString("// cases follow\n")
		splitLine := map[int]int{} // separator line -> case index
		line := 2
		for i, c := range cases {
			src.WriteString("// -----\n" + c.src + "\n")
			splitLine[line] = i
			line += 1 + strings.Count(c.src, "\n") + 1
		}
		args := []string{"--split-input-file", "--mlir-print-op-generic", "-o", os.DevNull}
		if !strict {
			args = append(args, "--allow-unregistered-dialect")
		}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "in.mlir"), []byte(src.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, append(args, "in.mlir")...)
		cmd.Dir = dir
		out, _ := cmd.CombinedOutput()
		got := map[int]string{}
		for _, l := range strings.Split(string(out), "\n") {
			m := splitDiag.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			k, _ := strconv.Atoi(m[1])
			i, ok := splitLine[k]
			if _, seen := got[i]; !ok || seen {
				continue
			}
			ln, _ := strconv.Atoi(m[2])
			got[i] = fmt.Sprintf("%d:%s: %s", ln-1, m[3], m[4])
		}
		for i, c := range cases {
			if got[i] != c.want {
				t.Errorf("%s: mlir-opt-19 says %q\nour table has     %q", c.name, got[i], c.want)
			}
		}
	}
}

var splitDiag = regexp.MustCompile(`^within split at in\.mlir:(\d+) offset :(\d+):(\d+): error: (.*)$`)

// validInputs parse without error; the generic form printed from our IR
// must equal mlir-opt-19's generic output for the same input.
var validInputs = []struct{ name, src string }{
	{"ops-and-results", `%0:2 = "a.b"() {x = 1 : i32} : () -> (i32, i32)
%1, %2:2 = "a.c"(%0#1) : (i32) -> (i32, i32, i64)
"a.u"(%0#1, %2#1) : (i32, i64) -> ()`},
	{"names", `%-x, %$y.z = "a.c"() : () -> (i64, i32)
"a.d"(%-x, %$y.z) : (i64, i32) -> ()`},
	{"regions", `"a.b"() ({}, {^bb0:}, {
^bb0(%a: i32, %b: f32):
  "a.c"(%a) : (i32) -> ()
}) : () -> ()`},
	{"blocks", `"a.b"() ({
  "a.br"()[^bb1] : () -> ()
^bb1:
  "a.cond"()[^bb1, ^bb2] : () -> ()
^bb2:
  "a.t"() : () -> ()
}) : () -> ()`},
	{"forward-reference", `"a.b"() ({
  "a.use"(%x) : (i32) -> ()
  %x = "a.def"() : () -> i32
}) : () -> ()`},
	{"sibling-names", `"a.b"() ({
  %x = "a.c"() : () -> i32
}, {
  %x = "a.c"() : () -> i32
}) : () -> ()`},
	{"properties", `"a.b"() <{p = 1, q = "s"}> {a = 2} : () -> ()
"a.c"() <{}> {} : () -> ()
"a.d"() <1 : i32> : () -> ()`},
	{"types", `"a.b"() : () -> (i0, si1, ui64, index, f16, bf16, f32, f64, f80, f128, tf32, f8E4M3, f8E5M2, f8E4M3FN, none)
"a.c"() : () -> (complex<i32>, tuple<i32, tuple<>, none>, (i32) -> f32, () -> ())
"a.d"() : () -> (tensor<4x?xf32>, tensor<*xf32>, tensor<0x4xf32>, tensor<4 x 4 x f32>, tensor<f32>, tensor<4xf32, "enc">)
"a.e"() : () -> (vector<4x[8]xf32>, vector<[4]x8xf32>, vector<f32>, vector<4xindex>)
"a.f"() : () -> (memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>, 1>, memref<4x4xf32, strided<[4, 1], offset: ?>, "gpu">, memref<*xf32, 1>, memref<4xf32, affine_map<(d0) -> (d0)>>, memref<4xf32, 0>, memref<4xf32, {a = 1}>)
"a.g"() : () -> (!foo<"a">, !foo.bar<"a" -> b>, !foo.bar<a<b>>)`},
	{"type-aliases", `!t = tensor<4xf32>
!u = !t
"a.b"() : () -> (!t, !u)`},
	{"integers", `"a.b"() {a = 1, b = -1 : i8, c = 255 : i8, d = -128 : i8, e = 0 : i0, f = -1 : i1, g = 0x10 : i32, h = 18446744073709551615 : ui64, i = 1 : index, j = 123456789012345678901234567890 : i128, k = true, l = false} : () -> ()`},
	{"floats", `"a.b"() {a = 1.5, b = 1.e5, c = -0.0, d = 1.0e400, e = 0x7FC00000 : f32, f = 0x7FC0 : f32, g = 1.5e-3 : bf16, h = 0xFC00 : f16, i = 3.0 : f8E4M3FN, j = 1.5 : f80, k = 1.0e40 : f32, l = -1.0e400 : f16, m = 0.1 : f16} : () -> ()`},
	{"strings", `"a.b"() {a = "x\n\t\"\\\41", b = "s" : i32, "quoted key" = unit, c = "	tab"} : () -> ()`},
	{"aggregates", `"a.b"() {a = [1, [2, "x"], {}], b = {z = 1, a}, c = i32, d = (i32) -> f32, e = @a::@b::@c, f = @"a b", g = @x : : @y, h = unit} : () -> ()`},
	{"dense", `"a.b"() {a = dense<[1, 2]> : tensor<2xi32>, b = dense<1.0> : tensor<2x3xf32>, c = dense<[[1, 2], [3, 4]]> : vector<2x2xi32>, d = dense<[true, false, true]> : tensor<3xi1>, e = dense<"0x0102"> : tensor<2xi8>, f = dense<"0x05"> : tensor<3xi1>, g = dense<> : tensor<0xi32>, h = dense<[[], []]> : tensor<2x0xf32>, i = dense<(1, 2)> : tensor<2xcomplex<i32>>, j = dense<[(1.0, 2.0)]> : tensor<1xcomplex<f32>>, k = dense<["a", "b"]> : tensor<2x!foo.s>, l = dense<"x"> : tensor<3x!foo.s>, m = dense<[-1, 255]> : tensor<2xi8>, n = dense<0xFF> : tensor<2xi8>, o = dense<[0x7F, 1.0]> : tensor<2xf8E4M3FN>, p = dense<[1, 2]> : memref<2xi32>, q = dense<[1.5, 2.0]> : tensor<2xf16>, r = dense<"0x01000000"> : tensor<2xcomplex<i16>>, s = dense<[1, 2]> : tensor<2xindex>} : () -> ()`},
	{"sparse-array-strided", `"a.b"() {a = sparse<[[0, 1]], [5]> : tensor<2x2xi32>, b = sparse<> : tensor<2xf32>, c = sparse<0, 3.0> : tensor<2xf32>, d = sparse<[0, 1], [1, 2]> : tensor<4xi32>, e = array<i32: 1, 2>, f = array<f32>, g = array<i1: true, false>, h = array<f64: 1.0, 2.5>, i = array<i8: -128, 255>, j = strided<[?, 1], offset: 5>, k = strided<[]>, l = strided<[1], offset: 0>} : () -> ()`},
	{"affine", `#map = affine_map<(i, j)[N] -> (i + N * 2, j floordiv 4, -j, j - i, (i + j) mod 3, j ceildiv N)>
"a.b"() {a = #map, b = affine_map<(d0) -> ()>, c = affine_map<() -> (0)>, d = affine_set<(d0)[s0] : (d0 - s0 >= 0, d0 == 0)>, e = affine_set<() : (0 == 0)>} : () -> ()`},
	{"dialect-attrs", `"a.b"() {a = #foo<"a" -> b>, b = #foo.bar<a<b>>, c = #foo.bar, d = #foo<x>} : () -> ()`},
	{"resources", `"a.b"() {x = dense_resource<blob1> : tensor<2xi32>} : () -> ()
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000100000002000000"
    }
  }
#-}`},
	{"module", `module @m attributes {x.y = 1} {
  module {
  }
}`},
	{"single-module", `"builtin.module"() ({
  "a.b"() : () -> ()
}) : () -> ()`},
	{"comment-only", `// only a comment`},
	{"func", `func.func @f(%a: i32) -> i32 {
  %0 = "a.b"(%a) : (i32) -> i32
  return %0 : i32
}
"func.func"() <{function_type = () -> (), sym_name = "g"}> ({
  "func.return"() : () -> ()
}) : () -> ()`},
}

func TestValidInputsMatchMLIROpt(t *testing.T) {
	bin := mlirOpt(t)
	for _, c := range validInputs {
		t.Run(c.name, func(t *testing.T) {
			want, first, failed := runMLIROpt(t, bin, c.src+"\n", "--allow-unregistered-dialect", "--mlir-print-op-generic")
			if failed {
				t.Fatalf("mlir-opt-19 rejects the input: %s", first)
			}
			got := parseAndPrint(t, c.src)
			if got != want {
				t.Errorf("generic form differs\n--- ours\n%s--- mlir-opt-19\n%s", got, want)
			}
		})
	}
}

// parseAndPrint parses src, verifies it and prints it in generic form.
func parseAndPrint(t *testing.T, src string) string {
	t.Helper()
	ctx := newTestContext(t, true)
	m, err := parser.ParseSourceString(ctx, []byte(src+"\n"), parser.Config{Filename: "in.mlir"})
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if d := ir.Verify(m); d != nil {
		t.Fatalf("verify: %v", d)
	}
	var b bytes.Buffer
	if err := printer.Print(&b, m, printer.Options{Generic: true}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
