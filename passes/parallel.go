package passes

// sequentialFor is Context.ParallelFor on the calling goroutine alone, for runs
// with threading off.
func sequentialFor(n int, fn func(i, worker int)) {
	for i := 0; i < n; i++ {
		fn(i, 0)
	}
}
