// Package parallel runs loops over independent items on the machine's
// cores, for the pass manager (passes on sibling functions) and the
// verifier (sibling functions verified at once, as MLIR's verifier does).
//
// One pool of helper goroutines, GOMAXPROCS-1 strong, serves every loop
// of the process, so that nested loops (a pass manager worker verifying
// after its pass) never start more goroutines than there are cores and
// never wait for one: the caller of For always works on the loop itself,
// and helpers join only when a token is free.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

var tokens = make(chan struct{}, max(runtime.GOMAXPROCS(0)-1, 0))

// For calls fn(i, worker) for every i in [0, n), on the calling goroutine
// and any helpers free; it returns when all calls have. worker numbers
// the goroutine that ran i (0 is the caller), for timing.
func For(n int, fn func(i, worker int)) {
	if n <= 1 || cap(tokens) == 0 {
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
		case tokens <- struct{}{}:
			wg.Add(1)
			go func(worker int) {
				defer func() { <-tokens; wg.Done() }()
				work(worker)
			}(w)
		default:
			break start
		}
	}
	work(0)
	wg.Wait()
}
