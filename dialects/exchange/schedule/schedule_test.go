package schedule

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// validate is the test's own check of a schedule, independent of the
// scheduler's code: every word of every transfer it names is sent exactly
// once, and no tile sends two words or receives two words in one cycle.
func validate(t *testing.T, r Result, tiles int) {
	t.Helper()
	sent := make([]int64, len(r.Transfers))
	type interval struct{ start, end int64 }
	sends := make([][]interval, tiles)
	recvs := make([][]interval, tiles)
	for _, s := range r.Segments {
		if s.Transfer < 0 || s.Transfer >= len(r.Transfers) || s.Words <= 0 || s.Start < 0 {
			t.Fatalf("bad segment %+v", s)
		}
		tr := r.Transfers[s.Transfer]
		sent[s.Transfer] += s.Words
		iv := interval{s.Start, s.Start + s.Words}
		sends[tr.Src] = append(sends[tr.Src], iv)
		for _, d := range tr.Dst {
			recvs[d] = append(recvs[d], iv)
		}
		if iv.end > r.Horizon {
			t.Fatalf("segment %+v ends after the horizon %d", s, r.Horizon)
		}
	}
	for i, tr := range r.Transfers {
		if sent[i] != tr.Words {
			t.Fatalf("transfer %d: %d of %d words sent", i, sent[i], tr.Words)
		}
	}
	for tile := range tiles {
		for what, ivs := range map[string][]interval{"sends": sends[tile], "receives": recvs[tile]} {
			sort.Slice(ivs, func(a, b int) bool { return ivs[a].start < ivs[b].start })
			for k := 1; k < len(ivs); k++ {
				if ivs[k].start < ivs[k-1].end {
					t.Fatalf("tile %d %s two words at cycle %d", tile, what, ivs[k].start)
				}
			}
		}
	}
	if r.Horizon < r.LowerBound {
		t.Fatalf("horizon %d below the bound %d", r.Horizon, r.LowerBound)
	}
}

// expandedFrom checks that an expanded schedule's transfers are the
// phase's multicasts, one unicast copy per receiver.
func expandedFrom(t *testing.T, r Result, transfers []Transfer) {
	t.Helper()
	var want []Transfer
	for _, tr := range transfers {
		for _, d := range tr.Dst {
			want = append(want, Transfer{Src: tr.Src, Dst: []int32{d}, Words: tr.Words})
		}
	}
	if len(want) != len(r.Transfers) {
		t.Fatalf("%d copies, want %d", len(r.Transfers), len(want))
	}
	for i := range want {
		if want[i].Src != r.Transfers[i].Src || want[i].Words != r.Transfers[i].Words || !slices.Equal(want[i].Dst, r.Transfers[i].Dst) {
			t.Fatalf("copy %d is %+v, want %+v", i, r.Transfers[i], want[i])
		}
	}
}

func randomUnicast(rng *rand.Rand, n, tiles int, words func() int64, pick func() (int32, int32)) []Transfer {
	var out []Transfer
	for len(out) < n {
		s, d := pick()
		if s == d {
			continue
		}
		out = append(out, Transfer{Src: s, Dst: []int32{d}, Words: words()})
	}
	return out
}

func TestUnicastReachesTheBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	uniform := func(tiles int) func() (int32, int32) {
		return func() (int32, int32) { return int32(rng.IntN(tiles)), int32(rng.IntN(tiles)) }
	}
	cases := []struct {
		name  string
		tiles int
		n     int
		words func() int64
		pick  func() (int32, int32)
	}{
		{"one word each", 64, 500, func() int64 { return 1 }, uniform(64)},
		{"1-16 words", 300, 3000, func() int64 { return 1 + rng.Int64N(16) }, uniform(300)},
		{"long transfers", 50, 200, func() int64 { return 1 + rng.Int64N(5000) }, uniform(50)},
		// A hot receiver: half the transfers go to tile 0.
		{"one hot receiver", 100, 1000, func() int64 { return 1 + rng.Int64N(8) }, func() (int32, int32) {
			if rng.IntN(2) == 0 {
				return int32(1 + rng.IntN(99)), 0
			}
			return int32(rng.IntN(100)), int32(rng.IntN(100))
		}},
		// Skewed degrees: senders drawn from a few tiles.
		{"skewed senders", 200, 2000, func() int64 { return 1 + rng.Int64N(32) }, func() (int32, int32) {
			return int32(rng.IntN(5)), int32(rng.IntN(200))
		}},
		// Many equal transfers: a relayout, every tile sending 7 words to 40 others.
		{"equal transfers", 400, 400 * 40, func() int64 { return 7 }, func() (int32, int32) {
			s := rng.IntN(400)
			return int32(s), int32((s + 1 + rng.IntN(399)) % 400)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			transfers := randomUnicast(rng, c.n, c.tiles, c.words, c.pick)
			r, err := Schedule(transfers, c.tiles)
			if err != nil {
				t.Fatal(err)
			}
			validate(t, r, c.tiles)
			if r.Horizon != r.LowerBound || r.Kind != Matching {
				t.Fatalf("horizon %d, bound %d, kind %s", r.Horizon, r.LowerBound, r.Kind)
			}
			// Few segments: a transfer is rarely split.
			if len(r.Segments) > 3*len(transfers) {
				t.Errorf("%d segments for %d transfers", len(r.Segments), len(transfers))
			}
		})
	}
}

func TestMulticast(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	// Receivers bound: 8 senders each multicast to 8 of 64 receivers; the
	// expansion would load senders 8×, so first fit; gap reported.
	var transfers []Transfer
	for s := range 8 {
		for k := range 4 {
			dst := rng.Perm(56)[:8]
			tr := Transfer{Src: int32(s), Words: int64(3 + k)}
			for _, d := range dst {
				tr.Dst = append(tr.Dst, int32(8+d))
			}
			transfers = append(transfers, tr)
		}
	}
	r, err := Schedule(transfers, 64)
	if err != nil {
		t.Fatal(err)
	}
	validate(t, r, 64)
	if r.Kind == ExpandedMatching {
		expandedFrom(t, r, transfers)
	}
	t.Logf("multicast phase: bound %d, horizon %d (%s)", r.LowerBound, r.Horizon, r.Kind)

	// A multicast whose sender has time to send every copy: expanded, and
	// on the bound.
	few := []Transfer{{Src: 0, Dst: []int32{1, 2}, Words: 5}, {Src: 3, Dst: []int32{1}, Words: 20}, {Src: 4, Dst: []int32{2}, Words: 20}}
	r, err = Schedule(few, 5)
	if err != nil {
		t.Fatal(err)
	}
	validate(t, r, 5)
	expandedFrom(t, r, few)
	if r.Kind != ExpandedMatching || r.Horizon != r.LowerBound {
		t.Fatalf("kind %s, horizon %d, bound %d", r.Kind, r.Horizon, r.LowerBound)
	}
	// A multicast to every other tile is one sender's words: sent once, on
	// the bound, where the expansion could not.
	wide := []Transfer{{Src: 0, Dst: []int32{1, 2, 3, 4, 5, 6, 7}, Words: 100}}
	if r, err = Schedule(wide, 8); err != nil {
		t.Fatal(err)
	}
	validate(t, r, 8)
	if r.Kind != GroupMatching || r.Horizon != 100 || r.ReceiveConfigurations != 7 {
		t.Fatalf("kind %s, horizon %d, %d receive configurations", r.Kind, r.Horizon, r.ReceiveConfigurations)
	}
	// Replicated destinations, as a relayout into a replicated layout makes
	// them: 64 shards on 8 groups of 4 replicas, every source tile sending
	// its piece of each shard once to the shard's replicas. Grouping the
	// replicas reaches the bound with every word sent once.
	var replicated []Transfer
	for src := range 32 {
		for g := range 8 {
			var dst []int32
			for k := range 4 {
				dst = append(dst, int32(32+4*g+k))
			}
			replicated = append(replicated, Transfer{Src: int32(src), Dst: dst, Words: int64(1 + (src+g)%5)})
		}
	}
	if r, err = Schedule(replicated, 64); err != nil {
		t.Fatal(err)
	}
	validate(t, r, 64)
	if r.Kind != GroupMatching || r.Horizon != r.LowerBound || len(r.Transfers) != len(replicated) {
		t.Fatalf("kind %s, horizon %d, bound %d, %d transfers", r.Kind, r.Horizon, r.LowerBound, len(r.Transfers))
	}
}

func TestRandomMixedPhasesAreValid(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 200 {
		tiles := 2 + rng.IntN(40)
		var transfers []Transfer
		for range rng.IntN(60) {
			src := int32(rng.IntN(tiles))
			k := 1 + rng.IntN(min(4, tiles-1))
			var dst []int32
			for _, d := range rng.Perm(tiles) {
				if int32(d) != src && len(dst) < k {
					dst = append(dst, int32(d))
				}
			}
			transfers = append(transfers, Transfer{Src: src, Dst: dst, Words: 1 + rng.Int64N(20)})
		}
		r, err := Schedule(transfers, tiles)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		validate(t, r, tiles)
	}
}

func TestBadPhases(t *testing.T) {
	for _, c := range []struct {
		transfers []Transfer
		want      string
	}{
		{[]Transfer{{Src: 0, Dst: []int32{0}, Words: 1}}, "transfer 0: tile 0 sends to itself"},
		{[]Transfer{{Src: 0, Dst: []int32{9}, Words: 1}}, "transfer 0: destination tile 9 is not one of the 4 tiles"},
		{[]Transfer{{Src: 0, Dst: []int32{1}, Words: 0}}, "transfer 0: 0 words (want at least 1)"},
		{[]Transfer{{Src: 0, Dst: []int32{1, 1}, Words: 1}}, "transfer 0: destination tile 1 listed twice"},
		{[]Transfer{{Src: 1, Words: 1}}, "transfer 0: no destination"},
	} {
		if _, err := Schedule(c.transfers, 4); err == nil || err.Error() != c.want {
			t.Errorf("%+v: %v, want %q", c.transfers, err, c.want)
		}
	}
	if r, err := Schedule(nil, 4); err != nil || r.Horizon != 0 || r.Kind != Empty {
		t.Errorf("empty phase: %+v, %v", r, err)
	}
}

// A phase as large as the reference log's largest: 60,000 transfers of
// 1-16 words over 1,472 tiles.
func BenchmarkSchedule60000(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	transfers := randomUnicast(rng, 60000, 1472, func() int64 { return 1 + rng.Int64N(16) },
		func() (int32, int32) { return int32(rng.IntN(1472)), int32(rng.IntN(1472)) })
	for b.Loop() {
		r, err := Schedule(transfers, 1472)
		if err != nil || r.Horizon != r.LowerBound {
			b.Fatalf("%v: horizon %d, bound %d", err, r.Horizon, r.LowerBound)
		}
	}
}
