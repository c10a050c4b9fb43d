package schedule

import (
	"cmp"
	"fmt"
	"slices"
)

// Verify checks a schedule of transfers on a target of the given tiles:
// every segment names a transfer and lies in [0, horizon); every word of
// every transfer is sent exactly once, in order (segments of a transfer do
// not overlap and add up to its words); and no tile sends more than one
// word or receives more than one word in a cycle. It is the exchange
// dialect's verifier; the scheduler's tests check schedules with a
// validator of their own.
func Verify(transfers []Transfer, tiles int, segments []Segment, horizon int64) error {
	if err := Check(transfers, tiles); err != nil {
		return err
	}
	sent := make([]int64, len(transfers))
	type busy struct {
		start, end int64
		seg        int
	}
	sends := make([][]busy, tiles)
	recvs := make([][]busy, tiles)
	for i, s := range segments {
		switch {
		case s.Transfer < 0 || s.Transfer >= len(transfers):
			return fmt.Errorf("segment %d names transfer %d, but the phase has %d", i, s.Transfer, len(transfers))
		case s.Words <= 0 || s.Start < 0:
			return fmt.Errorf("segment %d: %d words from cycle %d (want at least one word, from cycle 0 on)", i, s.Words, s.Start)
		case s.Start+s.Words > horizon:
			return fmt.Errorf("segment %d (transfer %d, cycles %d to %d) ends after the horizon %d", i, s.Transfer, s.Start, s.Start+s.Words, horizon)
		}
		t := transfers[s.Transfer]
		sent[s.Transfer] += s.Words
		b := busy{s.Start, s.Start + s.Words, i}
		sends[t.Src] = append(sends[t.Src], b)
		for _, d := range t.Dst {
			recvs[d] = append(recvs[d], b)
		}
	}
	for i, t := range transfers {
		if sent[i] != t.Words {
			return fmt.Errorf("transfer %d has %d words but its segments send %d", i, t.Words, sent[i])
		}
	}
	for tile := range tiles {
		for _, side := range []struct {
			what string
			list []busy
		}{{"sends", sends[tile]}, {"receives", recvs[tile]}} {
			slices.SortFunc(side.list, func(a, b busy) int { return cmp.Compare(a.start, b.start) })
			for k := 1; k < len(side.list); k++ {
				if a, b := side.list[k-1], side.list[k]; b.start < a.end {
					return fmt.Errorf("tile %d %s two words in cycle %d (segments %d and %d)", tile, side.what, b.start, a.seg, b.seg)
				}
			}
		}
	}
	return nil
}
