package passes

import (
	"sync"
	"sync/atomic"
)

// parallelFor calls fn(i, worker) for i in [0, n). Up to cap(tokens)
// helper goroutines join the calling one; a helper is only started when a
// token is free, and the caller always works too, so nested parallel
// sections (a module pipeline running function pipelines) never wait for a
// goroutine and the total stays bounded by GOMAXPROCS. worker numbers the
// goroutine that ran i (0 is the caller), for timing.
func parallelFor(tokens chan struct{}, n int, fn func(i, worker int)) {
	if tokens == nil || n <= 1 {
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
