package eval

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// elementwiseGrain is the number of elements below which splitting an
// elementwise loop over goroutines costs more than it saves.
const elementwiseGrain = 1 << 15

// parallelFor calls body on consecutive chunks [lo, hi) covering [0, n),
// spread over GOMAXPROCS goroutines; chunks are at least grain long. Every
// element's result must depend only on its own index, so that the split
// never changes a result.
func parallelFor(n, grain int, body func(lo, hi int)) {
	workers := runtime.GOMAXPROCS(0)
	if n <= grain || workers < 2 {
		if n > 0 {
			body(0, n)
		}
		return
	}
	chunk := max(grain, (n+4*workers-1)/(4*workers))
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				lo := int(next.Add(int64(chunk))) - chunk
				if lo >= n {
					return
				}
				body(lo, min(lo+chunk, n))
			}
		}()
	}
	wg.Wait()
}

// ParallelFor is parallelFor for elementwise work outside the package
// (the accuracy analysis's bounds), at the elementwise grain.
func ParallelFor(n int, body func(lo, hi int)) { parallelFor(n, elementwiseGrain, body) }
