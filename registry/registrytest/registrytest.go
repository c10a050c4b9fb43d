// Package registrytest parses and compiles IR with every dialect and pass
// registered, for the tests of packages the registry sits above
// (conversions, translations), which cannot import it from their own code
// but whose tests compile the examples as ipu-opt does.
package registrytest

import (
	"os"
	"testing"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
	"github.com/ipuir/ipuir/passes"
	"github.com/ipuir/ipuir/registry"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/target/irtarget"
)

// Parse parses src, named name in diagnostics, in a fresh context, which
// keeps the text as the tools' loader does (reports name values from it).
func Parse(t testing.TB, name string, src []byte) (*ir.Context, *ir.Operation) {
	t.Helper()
	ctx := registry.NewContext()
	module, err := parser.ParseSourceString(ctx, src, parser.Config{Filename: name, SourceMgr: ir.NewSourceMgr()})
	if err != nil {
		t.Fatal(err)
	}
	return ctx, module
}

// ParseFile reads and parses the file at path; it returns its text too.
func ParseFile(t testing.TB, path string) (*ir.Context, *ir.Operation, []byte) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, module := Parse(t, path, src)
	return ctx, module, src
}

// Run runs pipeline (what goes inside builtin.module(...)) on module, on
// the module's target, and returns the target and the pass manager's
// error. A pipeline that does not parse, or a module without a target,
// fails the test.
func Run(t testing.TB, ctx *ir.Context, module *ir.Operation, pipeline string) (*target.Target, error) {
	t.Helper()
	tg, err := irtarget.FromModule(module)
	if err != nil {
		t.Fatal(err)
	}
	return tg, RunOn(t, ctx, module, tg, pipeline)
}

// RunOn runs pipeline on module for target tg, which a test may have
// changed from the module's.
func RunOn(t testing.TB, ctx *ir.Context, module *ir.Operation, tg *target.Target, pipeline string) error {
	t.Helper()
	pm, err := registry.NewPassRegistry().ParsePipeline("builtin.module(" + pipeline + ")")
	if err != nil {
		t.Fatal(err)
	}
	opts := passes.DefaultOptions()
	opts.Env = irtarget.EnvKey.With(nil, tg)
	return passes.NewPassManager(ctx, pm, opts).Run(module)
}

// Compile parses the file at path and runs pipeline on it, failing the
// test on any error.
func Compile(t testing.TB, path, pipeline string) (*ir.Operation, *target.Target) {
	t.Helper()
	ctx, module, _ := ParseFile(t, path)
	tg, err := Run(t, ctx, module, pipeline)
	if err != nil {
		t.Fatal(err)
	}
	return module, tg
}
