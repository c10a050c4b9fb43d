package toy_test

import (
	"os"
	"strings"
	"testing"

	funcd "github.com/ipuir/ipuir/dialects/func"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
	"github.com/ipuir/ipuir/passes"
	"github.com/ipuir/ipuir/passes/example/toy"
	"github.com/ipuir/ipuir/printer"
)

const input = `func.func @f(%x: i32) -> (i32, i32) {
  %c = "toy.const"() <{value = 5 : i32}> : () -> i32
  %n = "toy.neg"(%c) : (i32) -> i32
  %a = "toy.neg"(%x) : (i32) -> i32
  %b = "toy.neg"(%a) : (i32) -> i32
  return %n, %b : i32, i32
}
`

const want = `module {
  func.func @f(%arg0: i32) -> (i32, i32) {
    %0 = "toy.const"() <{value = -5 : i32}> : () -> i32
    return %0, %arg0 : i32, i32
  }
}
`

// TestToy runs the example's pass through a pipeline, as ipu-opt would.
func TestToy(t *testing.T) {
	ctx := ir.NewContext()
	reg := passes.NewRegistry()
	if err := funcd.Register(ctx); err != nil {
		t.Fatal(err)
	}
	if err := toy.RegisterDialect(ctx); err != nil {
		t.Fatal(err)
	}
	if err := toy.RegisterPasses(reg); err != nil {
		t.Fatal(err)
	}
	module, err := parser.ParseSourceString(ctx, []byte(input), parser.Config{Filename: "toy.ipuir"})
	if err != nil {
		t.Fatal(err)
	}
	pm, err := reg.ParsePipeline("builtin.module(func.func(toy-simplify{max-iterations=2}))")
	if err != nil {
		t.Fatal(err)
	}
	mgr := passes.NewPassManager(ctx, pm, passes.DefaultOptions())
	if err := mgr.Run(module); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	printer.Print(&out, module, printer.Options{})
	if got := strings.TrimRight(out.String(), "\n") + "\n"; got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	var stats strings.Builder
	mgr.WriteStatistics(&stats, passes.StatisticsList)
	if !strings.Contains(stats.String(), "  Simplify\n    (S) 4 num-rewrites - Number of folds, rewrites and dead ops erased\n") {
		t.Errorf("statistics:\n%s", stats.String())
	}
}

// TestDocMatchesExample keeps docs/extending.md honest: its Go code block
// is this package's source, byte for byte.
func TestDocMatchesExample(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/extending.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("toy.go")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(doc), "```go\n")
	if ok {
		block, _, ok = strings.Cut(block, "```\n")
	}
	if !ok {
		t.Fatal("docs/extending.md has no ```go block")
	}
	if block != string(src) {
		t.Errorf("the code block of docs/extending.md differs from passes/example/toy/toy.go; copy the file into the doc")
	}
	if n := strings.Count(string(src), "\n"); n >= 100 {
		t.Errorf("the example has %d lines; the doc promises under 100", n)
	}
}
