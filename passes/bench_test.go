package passes_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/ipuir/ipuir/passes"
	"github.com/ipuir/ipuir/tests/fixture"
)

// BenchmarkParallelFunctions runs a function pipeline over 512 isolated
// functions of 2,000 ops on 2 cores, with and without threading.
func BenchmarkParallelFunctions(b *testing.B) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	reg := fixture.Registry(b)
	pm, err := reg.ParsePipeline("builtin.module(test.func(canonicalize,cse))")
	if err != nil {
		b.Fatal(err)
	}
	for _, threads := range []bool{false, true} {
		b.Run(fmt.Sprintf("threading=%v", threads), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				f := fixture.New()
				for k := 0; k < 512; k++ {
					a := f.Fn(fmt.Sprintf("f%d", k), "", 1)
					f.Workload(a[0], 2000)
				}
				opts := passes.DefaultOptions()
				opts.DisableThreading = !threads
				mgr := passes.NewPassManager(f.Ctx, pm, opts)
				runtime.GC()
				b.StartTimer()
				if err := mgr.Run(f.Module); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
