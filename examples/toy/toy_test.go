package toy_test

import (
	"strings"
	"testing"

	"example.com/toy"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
	"github.com/ipuir/ipuir/passes"
	"github.com/ipuir/ipuir/printer"
	"github.com/ipuir/ipuir/registry"
)

const input = `func.func @f(%x: i32) -> (i32, i32) {
  %c = "toy.const"() <{range = #toy.interval<0, 9>, value = 5 : i32}> : () -> i32
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

func newContext(t *testing.T) *ir.Context {
	ctx := registry.NewContext()
	if err := ctx.RegisterDialect(toy.Dialect); err != nil {
		t.Fatal(err)
	}
	return ctx
}

// TestToy runs the example's pass through a pipeline, as toy-opt would.
func TestToy(t *testing.T) {
	ctx := newContext(t)
	reg := passes.NewRegistry()
	if err := toy.RegisterPasses(reg); err != nil {
		t.Fatal(err)
	}
	module, err := parser.ParseSourceString(ctx, []byte(input), parser.Config{Filename: "toy.ipuir"})
	if err != nil {
		t.Fatal(err)
	}
	if d := ir.Verify(module); d != nil {
		t.Fatal(d)
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

// The attribute is checked where it is read and where it is used, and its
// errors point into the file.
func TestIntervalErrors(t *testing.T) {
	for src, want := range map[string]string{
		`%c = "toy.const"() <{range = #toy.interval<3, 1>, value = 2 : i32}> : () -> i32`: "toy.ipuir:1:43: error: #toy.interval: lo 3 is above hi 1",
		`%c = "toy.const"() <{range = #toy.interval<0, 1>, value = 2 : i32}> : () -> i32`: "toy.ipuir:1:6: error: 'toy.const' op value 2 lies outside its range #toy.interval<0, 1>",
		`%c = "toy.const"() <{range = #toy.interval<0 1>, value = 2 : i32}> : () -> i32`:  `toy.ipuir:1:46: error: unexpected token "1"`,
	} {
		ctx := newContext(t)
		module, err := parser.ParseSourceString(ctx, []byte(src+"\n"), parser.Config{Filename: "toy.ipuir"})
		if err == nil {
			if d := ir.Verify(module); d != nil {
				err = d
			}
		}
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s:\n got %v\nwant %s", src, err, want)
		}
	}
}
