package passes_test

import (
	"strings"
	"testing"

	"github.com/ipuir/ipuir/passes"
	"github.com/ipuir/ipuir/tests/fixture"
)

const canonDefaults = "canonicalize{  max-iterations=10 max-num-rewrites=-1 region-simplify=normal test-convergence=false top-down=true}"

// The expected texts are what mlir-opt-19 prints for the same pipelines
// (--dump-pass-pipeline, or its error), with our passes in place of MLIR's.
func TestParsePipeline(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{in: "builtin.module(func.func(canonicalize{max-iterations=3},cse),symbol-dce)",
			want: "builtin.module(func.func(canonicalize{  max-iterations=3 max-num-rewrites=-1 region-simplify=normal test-convergence=false top-down=true},cse),symbol-dce)"},
		{in: "builtin.module(canonicalize{max-iterations=3 top-down=false},cse)",
			want: "builtin.module(canonicalize{  max-iterations=3 max-num-rewrites=-1 region-simplify=normal test-convergence=false top-down=false},cse)"},
		{in: "builtin.module(func.func(cse),func.func(canonicalize))", want: "builtin.module(func.func(cse),func.func(" + canonDefaults + "))"},
		{in: "builtin.module(func.func(cse),any(canonicalize),cse)", want: "builtin.module(func.func(cse),any(" + canonDefaults + "),cse)"},
		{in: "builtin.module(any(func.func(cse)))", want: "builtin.module(any(func.func(cse)))"},
		{in: " builtin.module (cse)", want: "builtin.module(cse)"},
		{in: "builtin.module( cse , canonicalize )", want: "builtin.module(cse," + canonDefaults + ")"},
		{in: "builtin.module(func.func (cse))", want: "builtin.module(func.func(cse))"},
		{in: "builtin.module(cse{})", want: "builtin.module(cse)"},
		{in: "builtin.module()", want: "builtin.module()"},
		{in: "any(cse)", want: "any(cse)"},
		{in: "x(cse)", want: "x(cse)"},
		{in: "builtin.module(canonicalize{region-simplify=aggressive})",
			want: "builtin.module(canonicalize{  max-iterations=10 max-num-rewrites=-1 region-simplify=aggressive test-convergence=false top-down=true})"},
		{in: "builtin.module(canonicalize{top-down=1})", want: "builtin.module(" + canonDefaults + ")"},
		{in: "builtin.module(canonicalize{test-convergence})",
			want: "builtin.module(canonicalize{  max-iterations=10 max-num-rewrites=-1 region-simplify=normal test-convergence=true top-down=true})"},
		{in: "builtin.module(canonicalize{max-iterations='3'})", want: "builtin.module(canonicalize{  max-iterations=3 max-num-rewrites=-1 region-simplify=normal test-convergence=false top-down=true})"},
		{in: "builtin.module(canonicalize{max-iterations=3 max-iterations=4})", want: "builtin.module(canonicalize{  max-iterations=4 max-num-rewrites=-1 region-simplify=normal test-convergence=false top-down=true})"},
		{in: "builtin.module(canonicalize{max-iterations=0x10})", want: "builtin.module(canonicalize{  max-iterations=16 max-num-rewrites=-1 region-simplify=normal test-convergence=false top-down=true})"},
		{in: "builtin.module(canonicalize{enable-patterns=a,b})",
			want: "builtin.module(canonicalize{ enable-patterns=a,b max-iterations=10 max-num-rewrites=-1 region-simplify=normal test-convergence=false top-down=true})"},
		{in: `builtin.module(canonicalize{enable-patterns={a,b} disable-patterns="x y"})`,
			want: "builtin.module(canonicalize{disable-patterns={x y} enable-patterns=a,b max-iterations=10 max-num-rewrites=-1 region-simplify=normal test-convergence=false top-down=true})"},

		// Errors.
		{in: "builtin.module(foo)", err: "MLIR Textual PassPipeline Parser:1:1: error: 'foo' does not refer to a registered pass or pass pipeline\nfoo\n^"},
		{in: "builtin.module(func.func(cse)", err: "MLIR Textual PassPipeline Parser:1:11: error: encountered unbalanced parentheses while parsing pipeline\nfunc.func(cse\n          ^"},
		{in: "builtin.module(func.func(cse)))", err: "MLIR Textual PassPipeline Parser:1:15: error: encountered extra closing ')' creating unbalanced parentheses while parsing pipeline\nfunc.func(cse))\n              ^"},
		{in: "builtin.module(,cse)", err: "MLIR Textual PassPipeline Parser:1:1: error: '' does not refer to a registered pass or pass pipeline\n,cse\n^"},
		{in: "builtin.module(cse,)", err: "MLIR Textual PassPipeline Parser:1:5: error: '' does not refer to a registered pass or pass pipeline\ncse,\n    ^"},
		{in: "builtin.module(func.func(cse)x)", err: "MLIR Textual PassPipeline Parser:1:15: error: expected ',' after parsing pipeline\nfunc.func(cse)x\n              ^"},
		{in: "builtin.module(cse{max=1)", err: "MLIR Textual PassPipeline Parser:1:4: error: missing closing '}' while processing pass options\ncse{max=1\n   ^"},
		{in: "builtin.module(cse)) ", err: "MLIR Textual PassPipeline Parser:1:4: error: encountered extra closing ')' creating unbalanced parentheses while parsing pipeline\ncse)\n   ^"},
		{in: "builtin.module(func.func(cse),)", err: "MLIR Textual PassPipeline Parser:1:16: error: '' does not refer to a registered pass or pass pipeline\nfunc.func(cse),\n               ^"},
		{in: "builtin.module(cse cse)", err: "MLIR Textual PassPipeline Parser:1:1: error: 'cse cse' does not refer to a registered pass or pass pipeline\ncse cse\n^"},
		{in: "builtin.module(func.func())", err: "MLIR Textual PassPipeline Parser:1:11: error: '' does not refer to a registered pass or pass pipeline\nfunc.func()\n          ^"},
		{in: "builtin.module(canonicalize{max-iterations=3}{top-down=1})", err: "MLIR Textual PassPipeline Parser:1:31: error: expected ',' after parsing pipeline\ncanonicalize{max-iterations=3}{top-down=1}\n                              ^"},
		{in: "builtin.module(cse{max=1}}", err: "expected pass pipeline to be wrapped with the anchor operation type, e.g. 'builtin.module(...)'"},
		{in: "cse", err: "expected pass pipeline to be wrapped with the anchor operation type, e.g. 'builtin.module(...)'"},
		{in: "canonicalize,cse", err: "expected pass pipeline to be wrapped with the anchor operation type, e.g. 'builtin.module(...)'"},
		{in: "(cse)", err: "expected pass pipeline to be wrapped with the anchor operation type, e.g. 'builtin.module(...)'"},
		{in: "", err: "expected pass pipeline to be wrapped with the anchor operation type, e.g. 'builtin.module(...)'"},
		{in: "builtin.module(canonicalize{x=1})", err: "<Pass-Options-Parser>: no such option x\nfailed to add `canonicalize` with options `x=1`"},
		{in: "builtin.module(cse{a=1})", err: "<Pass-Options-Parser>: no such option a\nfailed to add `cse` with options `a=1`"},
		{in: "builtin.module(canonicalize{max-iterations=abc})", err: "for the --max-iterations option: 'abc' value invalid for long argument!\nfailed to add `canonicalize` with options `max-iterations=abc`"},
		{in: "builtin.module(canonicalize{max-iterations=3,top-down=false})", err: "for the --max-iterations option: '3,top-down=false' value invalid for long argument!\nfailed to add `canonicalize` with options `max-iterations=3,top-down=false`"},
		{in: "builtin.module(canonicalize{max-iterations})", err: "for the --max-iterations option: requires a value!\nfailed to add `canonicalize` with options `max-iterations`"},
		{in: "builtin.module(canonicalize{ max-iterations = 3 })", err: "for the --max-iterations option: requires a value!\nfailed to add `canonicalize` with options ` max-iterations = 3 `"},
		{in: "builtin.module(canonicalize{top-down=yes})", err: "for the --top-down option: 'yes' is invalid value for boolean argument! Try 0 or 1\nfailed to add `canonicalize` with options `top-down=yes`"},
		{in: "builtin.module(canonicalize{region-simplify=foo})", err: "for the --region-simplify option: Cannot find option named 'foo'!\nfailed to add `canonicalize` with options `region-simplify=foo`"},
		{in: "builtin.module(canonicalize{enable-patterns})", err: "for the --enable-patterns option: requires a value!\nfailed to add `canonicalize` with options `enable-patterns`"},
		// An unknown name is reported before the options of earlier passes, as MLIR resolves names first.
		{in: "builtin.module(cse{x=1},foo)", err: "MLIR Textual PassPipeline Parser:1:10: error: 'foo' does not refer to a registered pass or pass pipeline\ncse{x=1},foo\n         ^"},
		{in: "builtin.module(func.func(cse) x)", err: "MLIR Textual PassPipeline Parser:1:16: error: expected ',' after parsing pipeline\nfunc.func(cse) x\n               ^"},
		{in: "builtin.module(cse{a=1} ,cse)", err: "<Pass-Options-Parser>: no such option a\nfailed to add `cse` with options `a=1`"},
		{in: "builtin.module(func.func(cse ) )", want: "builtin.module(func.func(cse))"},
		{in: "builtin.module(func.func(cse)  ,  cse)", want: "builtin.module(func.func(cse),cse)"},
	}
	reg := fixture.Registry(t)
	for _, tc := range tests {
		pm, err := reg.ParsePipeline(tc.in)
		switch {
		case tc.err != "":
			if err == nil {
				t.Errorf("%q: parsed as %q, want error %q", tc.in, pm, tc.err)
				continue
			}
			want := "<unknown>:0: error: " + tc.err
			if err.Error() != want {
				t.Errorf("%q:\ngot  %q\nwant %q", tc.in, err.Error(), want)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.in, err)
		case pm.String() != tc.want:
			t.Errorf("%q:\ngot  %s\nwant %s", tc.in, pm, tc.want)
		default:
			// What prints parses back to the same pipeline.
			again, err := reg.ParsePipeline(pm.String())
			if err != nil || again.String() != pm.String() {
				t.Errorf("%q does not round-trip: %v %v", pm, again, err)
			}
		}
	}
}

func TestDumpPipeline(t *testing.T) {
	pm, err := fixture.Registry(t).ParsePipeline("builtin.module(func.func(cse),symbol-dce)")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := pm.Dump(&b); err != nil {
		t.Fatal(err)
	}
	if want := "Pass Manager with 2 passes:\nbuiltin.module(func.func(cse),symbol-dce)\n\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

func TestFlatPipeline(t *testing.T) {
	reg := fixture.Registry(t)
	pm, err := reg.ParseFlatPipeline("builtin.module", "cse, func.func(canonicalize{max-iterations=2}) ,symbol-dce")
	if err != nil {
		t.Fatal(err)
	}
	want := "builtin.module(cse,func.func(canonicalize{  max-iterations=2 max-num-rewrites=-1 region-simplify=normal test-convergence=false top-down=true}),symbol-dce)"
	if pm.String() != want {
		t.Errorf("got %s\nwant %s", pm, want)
	}
	if _, err := reg.ParseFlatPipeline("builtin.module", "cse,bogus"); err == nil || !strings.Contains(err.Error(), "1:5: error: 'bogus' does not refer to a registered pass or pass pipeline") {
		t.Errorf("got %v", err)
	}
}

func TestNamedPipelines(t *testing.T) {
	reg := fixture.Registry(t)
	if err := reg.RegisterPipeline("cleanup", "Canonicalize then CSE", "canonicalize{max-iterations=2},cse"); err != nil {
		t.Fatal(err)
	}
	if err := reg.RegisterPipeline("twice", "Clean up twice", "cleanup,cleanup"); err != nil {
		t.Fatal(err)
	}
	if err := reg.RegisterPipeline("loop", "Never ends", "loop"); err != nil {
		t.Fatal(err)
	}
	pm, err := reg.ParsePipeline("builtin.module(func.func(twice))")
	if err != nil {
		t.Fatal(err)
	}
	c := "canonicalize{  max-iterations=2 max-num-rewrites=-1 region-simplify=normal test-convergence=false top-down=true},cse"
	if want := "builtin.module(func.func(" + c + "," + c + "))"; pm.String() != want {
		t.Errorf("got %s\nwant %s", pm, want)
	}
	if _, err := reg.ParsePipeline("builtin.module(loop)"); err == nil || !strings.Contains(err.Error(), "expands into itself") {
		t.Errorf("self-referring pipeline: %v", err)
	}
	if _, err := reg.ParsePipeline("builtin.module(cleanup{x=1})"); err == nil || !strings.Contains(err.Error(), "no such option x") {
		t.Errorf("options on a pipeline: %v", err)
	}
}

func TestAddPassAnchors(t *testing.T) {
	pm := passes.NewOpPassManager("builtin.module")
	if err := pm.AddPass(&anchoredPass{}); err == nil ||
		err.Error() != "Can't add pass 'anchoredPass' restricted to 'func.func' on a PassManager intended to run on 'builtin.module', did you intend to nest?" {
		t.Errorf("got %v", err)
	}
	if err := pm.Nest("func.func").AddPass(&anchoredPass{}); err != nil {
		t.Error(err)
	}
	if err := pm.Nest(passes.AnyOp).AddPass(&anchoredPass{}); err != nil {
		t.Error(err)
	}
	if got, want := pm.String(), "builtin.module(func.func(anchored),any(anchored))"; got != want {
		t.Errorf("got %s want %s", got, want)
	}
	reg := passes.NewRegistry()
	if err := reg.Register(&anchoredPass{}); err != nil {
		t.Fatal(err)
	}
	_, err := reg.ParsePipeline("builtin.module(anchored)")
	if want := "<unknown>:0: error: Can't add pass 'anchoredPass' restricted to 'func.func' on a PassManager intended to run on 'builtin.module', did you intend to nest?\nfailed to add `anchored` with options ``"; err == nil || err.Error() != want {
		t.Errorf("got %v", err)
	}
}

// FuzzParsePipeline: no input panics, and what parses prints back to a
// pipeline that parses to the same text.
func FuzzParsePipeline(f *testing.F) {
	for _, s := range []string{
		"builtin.module(func.func(canonicalize{max-iterations=3},cse),symbol-dce)",
		"any(cse)", "builtin.module(cse{a=1})", "builtin.module(canonicalize{enable-patterns={a,b} disable-patterns=\"x y\"})",
		"builtin.module(func.func(cse)))", "x((((", "b(c{{{}}})", "builtin.module(test-options{list=1,2 string-list='a b',c enum=one})",
	} {
		f.Add(s)
	}
	reg := fixture.Registry(f)
	f.Fuzz(func(t *testing.T, text string) {
		pm, err := reg.ParsePipeline(text)
		if err != nil {
			return
		}
		again, err := reg.ParsePipeline(pm.String())
		if err != nil {
			t.Fatalf("%q printed as %q, which does not parse: %v", text, pm, err)
		}
		if again.String() != pm.String() {
			t.Fatalf("%q printed as %q, which reads back as %q", text, pm, again)
		}
	})
}
