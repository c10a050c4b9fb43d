package tune

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sync"

	"github.com/ipuir/ipuir/tune/store"
)

// Local measures candidates on Workers goroutines of this process (0:
// GOMAXPROCS), each asking the store before it measures and writing its
// result once measured.
type Local struct {
	Store   *store.Store
	Workers int
}

// Measure implements Engine.
func (l *Local) Measure(ctx context.Context, job *Job, cands []Candidate) ([]store.Result, error) {
	workers := l.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	host, _ := os.Hostname()
	results := make([]store.Result, len(cands))
	errs := make([]error, len(cands))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := range min(workers, len(cands)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i], errs[i] = Measured(ctx, l.Store, job, cands[i], fmt.Sprintf("%s/local-%d", host, w))
			}
		}()
	}
	for i := range cands {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("candidate %s: %w", cands[i].Short(), err)
		}
	}
	return results, nil
}

// Measured is the result of c in job: the store's, or measured now and
// stored. Every engine's worker runs this, so every engine stores alike.
func Measured(ctx context.Context, st *store.Store, job *Job, c Candidate, worker string) (store.Result, error) {
	if r, ok, err := st.Get(ctx, job.Key(c)); err != nil || ok {
		return r, err
	}
	r, err := job.Measure(c, worker)
	if err != nil {
		return r, err
	}
	if _, err := st.Put(ctx, r); err != nil {
		return r, err
	}
	// Another worker may have stored it first: the stored result stands.
	stored, _, err := st.Get(ctx, job.Key(c))
	return stored, err
}
