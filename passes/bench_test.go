package passes_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/passes"
)

// benchBody fills the current block with about n ops of work for
// canonicalize and cse: constants (merged and hoisted), foldable
// arithmetic, commutative duplicates and ops that become dead.
func benchBody(f *fixture, arg *ir.Value, n int) {
	acc := arg
	for i := 0; i*11 < n; i++ {
		c := f.c(int64(i % 64))
		x := f.add(acc, c)           // canonical after constant folding
		y := f.add(c, acc)           // a commutative duplicate of x
		z := f.mul(x, y)             // stays
		w := f.sub(z, z)             // folds to 0
		k := f.add(f.c(3), f.c(4))   // folds to 7
		f.use(f.add(z, f.mul(w, k))) // z + 0*7 folds to z
		acc = z
	}
	f.ret(acc)
}

// BenchmarkCanonicalizeCSE1M runs canonicalize then cse on a module of
// one million ops in one function.
func BenchmarkCanonicalizeCSE1M(b *testing.B) {
	reg := passes.NewBuiltinRegistry()
	pm, err := reg.ParsePipeline("builtin.module(canonicalize,cse)")
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		f := newFixture()
		a := f.fn("f", "", 1)
		benchBody(f, a[0], 1_000_000)
		ops := 0
		f.module.Walk(func(*ir.Operation) ir.WalkResult { ops++; return ir.WalkAdvance })
		opts := passes.DefaultOptions()
		opts.VerifyEach = false
		mgr := passes.NewPassManager(f.ctx, pm, opts)
		runtime.GC()
		b.StartTimer()
		if err := mgr.Run(f.module); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		after := 0
		f.module.Walk(func(*ir.Operation) ir.WalkResult { after++; return ir.WalkAdvance })
		b.ReportMetric(float64(ops), "ops-in")
		b.ReportMetric(float64(after), "ops-out")
		b.StartTimer()
	}
}

// BenchmarkParallelFunctions runs a function pipeline over 512 isolated
// functions of 2,000 ops on 2 cores, with and without threading.
func BenchmarkParallelFunctions(b *testing.B) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	reg := passes.NewBuiltinRegistry()
	pm, err := reg.ParsePipeline("builtin.module(test.func(canonicalize,cse))")
	if err != nil {
		b.Fatal(err)
	}
	for _, threads := range []bool{false, true} {
		b.Run(fmt.Sprintf("threading=%v", threads), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				f := newFixture()
				for k := 0; k < 512; k++ {
					a := f.fn(fmt.Sprintf("f%d", k), "", 1)
					benchBody(f, a[0], 2000)
				}
				opts := passes.DefaultOptions()
				opts.DisableThreading = !threads
				mgr := passes.NewPassManager(f.ctx, pm, opts)
				runtime.GC()
				b.StartTimer()
				if err := mgr.Run(f.module); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
