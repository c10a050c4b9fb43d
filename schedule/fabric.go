package schedule

import (
	"slices"

	"github.com/ipuir/ipuir/numeric"
)

// Fabric is what scheduling needs to know of a target's exchange.
//
// Every tile sends at most one word per cycle and has one receive port that
// takes one word per cycle. With Pairs, tiles 2k and 2k+1 share an exchange
// bus (target.Target.ExchangeBusPairs): a word that both receive is taken by
// either port of the pair for the two of them. So in one cycle a pair takes
// at most one word for 2k alone, at most one for 2k+1 alone, and at most two
// words in all; data that both receive arrives at twice the rate. A last
// tile without a partner (an odd tile count) receives alone.
type Fabric struct {
	Tiles int
	Pairs bool
}

// Unpaired is the fabric of tiles that each receive alone.
func Unpaired(tiles int) Fabric { return Fabric{Tiles: tiles} }

// partner is the tile that shares t's bus, or -1.
func (f Fabric) partner(t int32) int32 {
	if !f.Pairs || int(t^1) >= f.Tiles {
		return -1
	}
	return t ^ 1
}

// coveredPairs says what each of transfer t's words takes of the receive
// ports: it calls fn(d, true) once for each pair whose two tiles t both
// reaches (d its even tile), and fn(d, false) for every other destination.
// mark is scratch of f.Tiles entries, stamped with stamp.
func (f Fabric) coveredPairs(t Transfer, mark []int32, stamp int32, fn func(tile int32, both bool)) {
	if !f.Pairs {
		for _, d := range t.Dst {
			fn(d, false)
		}
		return
	}
	for _, d := range t.Dst {
		mark[d] = stamp
	}
	for _, d := range t.Dst {
		p := f.partner(d)
		switch {
		case p < 0 || mark[p] != stamp:
			fn(d, false)
		case d&1 == 0:
			fn(d, true)
		}
	}
}

// takesWholePairs reports whether some transfer reaches both tiles of a
// pair, without which pairs cannot shorten a phase.
func (f Fabric) takesWholePairs(transfers []Transfer) bool {
	if !f.Pairs {
		return false
	}
	mark := make([]int32, f.Tiles)
	whole := false
	for i, t := range transfers {
		f.coveredPairs(t, mark, int32(i+1), func(_ int32, both bool) { whole = whole || both })
		if whole {
			return true
		}
	}
	return false
}

// portClass is which receive ports of its pairs a word needs (see
// groupMatching): only whole pairs (either port of each), the even ports
// of some tiles alone, the odd ports, or both kinds.
type portClass uint8

const (
	onEither portClass = iota
	onEven
	onOdd
	onBoth
)

// portsOf classifies transfer t's words; a tile without a partner has the
// even port alone.
func (f Fabric) portsOf(t Transfer, mark []int32, stamp int32) portClass {
	c := onEither
	f.coveredPairs(t, mark, stamp, func(d int32, both bool) {
		switch {
		case both:
		case d&1 == 0:
			c |= onEven
		default:
			c |= onOdd
		}
	})
	return c
}

// LowerBound is what no schedule's horizon can be below: the largest number of
// words a tile sends (a multicast word once), and of what tiles receive,
// the most a receive port must take: a lone tile's words, and for a pair
// the larger of what either tile receives alone and half (rounded up) of
// all the words the pair receives.
func LowerBound(transfers []Transfer, f Fabric) int64 {
	send := make([]int64, f.Tiles)
	alone := make([]int64, f.Tiles) // words a tile receives without its partner
	both := make([]int64, f.Tiles)  // by even tile: words the pair receives together
	mark := make([]int32, f.Tiles)
	for i, t := range transfers {
		send[t.Src] += t.Words
		f.coveredPairs(t, mark, int32(i+1), func(d int32, pair bool) {
			if pair {
				both[d] += t.Words
			} else {
				alone[d] += t.Words
			}
		})
	}
	lb := slices.Max(append(send, 0))
	for d := range f.Tiles {
		lb = max(lb, alone[d])
		if d&1 == 0 && f.partner(int32(d)) >= 0 {
			lb = max(lb, numeric.CeilDiv(alone[d]+alone[d+1]+both[d], 2))
		}
	}
	return lb
}
