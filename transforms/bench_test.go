package transforms_test

import (
	"runtime"
	"testing"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/passes"
	"github.com/ipuir/ipuir/tests/fixture"
)

// BenchmarkCanonicalizeCSE1M runs canonicalize then cse on a module of
// one million ops in one function.
func BenchmarkCanonicalizeCSE1M(b *testing.B) {
	reg := fixture.Registry(b)
	pm, err := reg.ParsePipeline("builtin.module(canonicalize,cse)")
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		f := fixture.New()
		a := f.Fn("f", "", 1)
		f.Workload(a[0], 1_000_000)
		ops := 0
		f.Module.Walk(func(*ir.Operation) ir.WalkResult { ops++; return ir.WalkAdvance })
		opts := passes.DefaultOptions()
		opts.VerifyEach = false
		mgr := passes.NewPassManager(f.Ctx, pm, opts)
		runtime.GC()
		b.StartTimer()
		if err := mgr.Run(f.Module); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		after := 0
		f.Module.Walk(func(*ir.Operation) ir.WalkResult { after++; return ir.WalkAdvance })
		b.ReportMetric(float64(ops), "ops-in")
		b.ReportMetric(float64(after), "ops-out")
		b.StartTimer()
	}
}
