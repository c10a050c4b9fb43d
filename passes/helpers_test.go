package passes_test

import (
	"strings"
	"testing"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/passes"
	"github.com/ipuir/ipuir/passes/testdialect"
	"github.com/ipuir/ipuir/passes/testpasses"
	"github.com/ipuir/ipuir/printer"
)

// newRegistry returns the builtin and test passes.
func newRegistry(t testing.TB) *passes.Registry {
	t.Helper()
	r := passes.NewBuiltinRegistry()
	if err := testpasses.Register(r); err != nil {
		t.Fatal(err)
	}
	return r
}

// fixture builds IR with a Builder: a module holding what body adds.
type fixture struct {
	ctx    *ir.Context
	b      *ir.Builder
	module *ir.Operation
	i32    ir.Type
}

func newFixture() *fixture {
	ctx := testdialect.NewContext()
	f := &fixture{ctx: ctx, b: ir.NewBuilder(ctx), i32: ctx.I(32)}
	f.module = ir.NewModule(ctx, ctx.FileLineCol("test.ipuir", 1, 1))
	return f
}

// fn starts a test.func with i32 arguments and returns them.
func (f *fixture) fn(name, visibility string, nargs int) []*ir.Value {
	args := make([]ir.Type, nargs)
	for i := range args {
		args[i] = f.i32
	}
	_, entry := testdialect.NewFunc(f.b, f.module, name, visibility, args...)
	return entry.Arguments()
}

func (f *fixture) c(v int64) *ir.Value { return testdialect.Const(f.b, f.i32, v) }
func (f *fixture) add(x, y *ir.Value) *ir.Value {
	return testdialect.Binary(f.b, testdialect.Add, x, y)
}
func (f *fixture) sub(x, y *ir.Value) *ir.Value {
	return testdialect.Binary(f.b, testdialect.Sub, x, y)
}
func (f *fixture) mul(x, y *ir.Value) *ir.Value {
	return testdialect.Binary(f.b, testdialect.Mul, x, y)
}
func (f *fixture) neg(x *ir.Value) *ir.Value { return testdialect.Unary(f.b, testdialect.Neg, x) }
func (f *fixture) ret(vs ...*ir.Value)       { testdialect.Ret(f.b, vs...) }
func (f *fixture) use(vs ...*ir.Value)       { testdialect.UseValues(f.b, vs...) }
func (f *fixture) source() *ir.Value         { return testdialect.SourceValues(f.b, f.i32)[0] }
func (f *fixture) verify(t testing.TB) {
	t.Helper()
	if d := ir.Verify(f.module); d != nil {
		t.Fatalf("fixture does not verify: %v\n%s", d, show(t, f.module))
	}
}

// run runs pipeline on the fixture's module with opts.
func (f *fixture) run(t testing.TB, pipeline string, opts passes.Options) error {
	t.Helper()
	f.verify(t)
	pm, err := newRegistry(t).ParsePipeline(pipeline)
	if err != nil {
		t.Fatalf("pipeline %q: %v", pipeline, err)
	}
	return passes.NewPassManager(f.ctx, pm, opts).Run(f.module)
}

// mustRun runs pipeline and returns the printed module.
func (f *fixture) mustRun(t testing.TB, pipeline string) string {
	t.Helper()
	if err := f.run(t, pipeline, passes.DefaultOptions()); err != nil {
		t.Fatalf("run %q: %v", pipeline, err)
	}
	return show(t, f.module)
}

// show prints op as ipu-opt would.
func show(t testing.TB, op *ir.Operation) string {
	t.Helper()
	var b strings.Builder
	if err := printer.Print(&b, op, printer.Options{}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// checkLines fails unless want, trimmed line by line, equals got.
func checkLines(t testing.TB, got, want string) {
	t.Helper()
	norm := func(s string) string {
		var out []string
		for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
			out = append(out, strings.TrimRight(l, " "))
		}
		return strings.Join(out, "\n")
	}
	if norm(got) != norm(want) {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
