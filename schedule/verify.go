package schedule

import (
	"cmp"
	"fmt"
	"slices"
)

// Verify checks a schedule of transfers on a fabric: every segment names a
// transfer and lies in [0, horizon); every word of every transfer is sent
// exactly once, in order (segments of a transfer do not overlap and add up
// to its words); no tile sends more than one word in a cycle; and no
// receive port takes more than one word in a cycle (see Fabric: a
// shared-bus pair takes at most one word for each tile alone and two in
// all); and the horizon is where the last segment ends, so that a phase
// costs what it sends and no more or less. It is the exchange dialect's
// verifier and the device's load check;
// the scheduler's tests check schedules with a validator of their own.
func Verify(transfers []Transfer, f Fabric, segments []Segment, horizon int64) error {
	if err := Check(transfers, f.Tiles); err != nil {
		return err
	}
	sent := make([]int64, len(transfers))
	sends := make([][]use, f.Tiles)
	recvs := make([][]use, f.Tiles) // by tile, or a pair's even tile
	mark := make([]int32, f.Tiles)
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
		u := use{start: s.Start, end: s.Start + s.Words, seg: i}
		sends[t.Src] = append(sends[t.Src], u)
		f.coveredPairs(t, mark, int32(i+1), func(d int32, both bool) {
			u := u
			switch {
			case both:
				u.port = portEither
			case f.partner(d) >= 0:
				u.port = port(d & 1)
			}
			recvs[d&^pairBit(f)] = append(recvs[d&^pairBit(f)], u)
		})
	}
	for i, t := range transfers {
		if sent[i] != t.Words {
			return fmt.Errorf("transfer %d has %d words but its segments send %d", i, t.Words, sent[i])
		}
	}
	for tile := range f.Tiles {
		list := sends[tile]
		slices.SortFunc(list, func(a, b use) int { return cmp.Compare(a.start, b.start) })
		for k := 1; k < len(list); k++ {
			if a, b := list[k-1], list[k]; b.start < a.end {
				return fmt.Errorf("tile %d sends two words in cycle %d (segments %d and %d)", tile, b.start, a.seg, b.seg)
			}
		}
		if err := checkReceives(int32(tile), f.partner(int32(tile)), recvs[tile]); err != nil {
			return err
		}
	}
	end := int64(0)
	for _, s := range segments {
		end = max(end, s.Start+s.Words)
	}
	if end != horizon {
		return fmt.Errorf("the horizon is %d, but the last segment ends at cycle %d: a phase's horizon is the end of its schedule", horizon, end)
	}
	return nil
}

// pairBit is the tile-number bit that tells the tiles of a pair apart: a
// pair's receives are gathered under its even tile.
func pairBit(f Fabric) int32 {
	if f.Pairs {
		return 1
	}
	return 0
}

// port is which receive port of a pair (or of a lone tile, port 0) a word
// needs: the even tile's, the odd tile's, or either, for a word both take.
type port uint8

const (
	portEven port = iota
	portOdd
	portEither
)

// use is a segment's hold on a sender or a receive port.
type use struct {
	start, end int64
	seg        int
	port       port
}

// checkReceives sweeps the words one receiver takes, a lone tile's or a
// pair's (tile even, partner odd, or -1), cycle by cycle: at most one word
// per tile alone and at most two for the pair.
func checkReceives(tile, partner int32, uses []use) error {
	type event struct {
		at    int64
		start bool
		u     use
	}
	events := make([]event, 0, 2*len(uses))
	for _, u := range uses {
		events = append(events, event{u.start, true, u}, event{u.end, false, u})
	}
	// Ends before starts at the same cycle: a segment holds [start, end).
	slices.SortFunc(events, func(a, b event) int {
		if c := cmp.Compare(a.at, b.at); c != 0 {
			return c
		}
		if a.start != b.start {
			if a.start {
				return 1
			}
			return -1
		}
		return 0
	})
	var active []use
	var count [3]int
	for _, e := range events {
		if !e.start {
			count[e.u.port]--
			active = slices.DeleteFunc(active, func(u use) bool { return u.seg == e.u.seg })
			continue
		}
		count[e.u.port]++
		active = append(active, e.u)
		switch {
		case count[portEven] > 1 || count[portOdd] > 1:
			on, p := tile, e.u.port
			if p == portOdd {
				on = partner
			}
			other := slices.IndexFunc(active, func(u use) bool { return u.port == p && u.seg != e.u.seg })
			return fmt.Errorf("tile %d receives two words in cycle %d (segments %d and %d)", on, e.at, active[other].seg, e.u.seg)
		case count[portEven]+count[portOdd]+count[portEither] > 2:
			segs := make([]int, len(active))
			for k, u := range active {
				segs[k] = u.seg
			}
			slices.Sort(segs)
			return fmt.Errorf("tiles %d and %d, which share an exchange bus, receive %d words in cycle %d (segments %v), but take two a cycle",
				tile, partner, len(active), e.at, segs)
		}
	}
	return nil
}
