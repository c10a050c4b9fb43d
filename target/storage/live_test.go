package storage

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// Live bytes per step and the peak agree on random buffer sets, and match
// a count made step by step.
func TestLiveBytesAndPeak(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		steps := 1 + r.IntN(20)
		var bufs []Buffer
		for range r.IntN(12) {
			start := r.IntN(steps)
			end := start + 1 + r.IntN(steps-start)
			if r.IntN(4) == 0 {
				end = Forever
			}
			bufs = append(bufs, Buffer{Bytes: int64(1 + r.IntN(1000)), Start: start, End: end})
		}
		got := LiveBytes(bufs, steps)
		for s := range steps {
			want := int64(0)
			for _, b := range bufs {
				if b.Start <= s && s < b.End {
					want += b.Bytes
				}
			}
			if got[s] != want {
				t.Fatalf("trial %d, step %d: %d live bytes, want %d", trial, s, got[s], want)
			}
		}
		peak := int64(0)
		if len(got) > 0 {
			peak = slices.Max(got)
		}
		if p := PeakLive(bufs); p != peak {
			t.Fatalf("trial %d: PeakLive %d, the steps' largest %d", trial, p, peak)
		}
	}
}
