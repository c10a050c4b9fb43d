package ir

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// The helper goroutines that parallel loops share, GOMAXPROCS-1 of them
// for the whole process, so that nested loops (a pass manager worker
// verifying after its pass) never start more goroutines than there are
// cores and never wait for one: the caller of a loop always works on it
// itself, and helpers join only when a token is free.
var parallelTokens = make(chan struct{}, max(runtime.GOMAXPROCS(0)-1, 0))

// ParallelFor calls fn(i, worker) for every i in [0, n), on the calling
// goroutine and any free helpers, and returns when all calls have; worker
// numbers the goroutine that ran i (0 is the caller), for timing. With
// the context's multithreading disabled it runs them in order on the
// caller. As in MLIR, the context is what offers its users parallelism:
// the verifier checks sibling functions at once with it, and the pass
// manager runs pipelines on sibling ops.
func (c *Context) ParallelFor(n int, fn func(i, worker int)) {
	if n <= 1 || cap(parallelTokens) == 0 || c.DisableMultithreading {
		for i := 0; i < n; i++ {
			fn(i, 0)
		}
		return
	}
	var next atomic.Int64
	work := func(worker int) {
		for {
			i := int(next.Add(1) - 1)
			if i >= n {
				return
			}
			fn(i, worker)
		}
	}
	var wg sync.WaitGroup
start:
	for w := 1; w < n; w++ {
		select {
		case parallelTokens <- struct{}{}:
			wg.Add(1)
			go func(worker int) {
				defer func() { <-parallelTokens; wg.Done() }()
				work(worker)
			}(w)
		default:
			break start
		}
	}
	work(0)
	wg.Wait()
}
