package storage

import (
	"cmp"
	"slices"
)

// Live bytes are one definition for every report: in a step, the bytes of
// the buffers live in it ([Start, End)), support memory included. A
// class's footprint (Placement.Peak) is another measure: the highest byte
// used above the class's start, which also counts the gaps that alignment
// and the placement of buffers around each other leave, so it is at least
// the class's live bytes, and a tile's busiest by one need not be its
// busiest by the other.

// LiveBytes is, for each step from 0 to steps-1, the bytes of bufs live in
// it; a buffer that lives Forever is live to the last step.
func LiveBytes(bufs []Buffer, steps int) []int64 {
	delta := make([]int64, steps+1)
	for _, b := range bufs {
		start, end := max(0, b.Start), min(b.End, steps)
		if start >= end {
			continue
		}
		delta[start] += b.Bytes
		delta[end] -= b.Bytes
	}
	out := make([]int64, steps)
	live := int64(0)
	for s := range out {
		live += delta[s]
		out[s] = live
	}
	return out
}

// PeakLive is the most bytes of bufs live in one step: a sweep over the
// buffers' starts and ends, whatever the number of steps.
func PeakLive(bufs []Buffer) int64 {
	type event struct {
		at    int
		delta int64
	}
	ev := make([]event, 0, 2*len(bufs))
	for _, b := range bufs {
		ev = append(ev, event{b.Start, b.Bytes})
		if b.End != Forever {
			ev = append(ev, event{b.End, -b.Bytes})
		}
	}
	// Ends before starts at the same step: [start, end) intervals.
	slices.SortFunc(ev, func(x, y event) int {
		if c := cmp.Compare(x.at, y.at); c != 0 {
			return c
		}
		return cmp.Compare(x.delta, y.delta)
	})
	live, peak := int64(0), int64(0)
	for _, e := range ev {
		live += e.delta
		peak = max(peak, live)
	}
	return peak
}
