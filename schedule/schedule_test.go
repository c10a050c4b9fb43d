package schedule

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// validate is the test's own check of a schedule, independent of the
// scheduler's code, cycle by cycle: every word of every transfer it names
// is sent exactly once, no tile sends two words in one cycle, no tile takes
// two words in one cycle that its partner does not take too, and with
// pairs no pair takes more than two words in one cycle.
func validate(t *testing.T, r Result, f Fabric) {
	t.Helper()
	if err := validateErr(r, f); err != nil {
		t.Fatal(err)
	}
}

func validateErr(r Result, f Fabric) error {
	if r.Horizon < r.LowerBound {
		return fmt.Errorf("horizon %d below the bound %d", r.Horizon, r.LowerBound)
	}
	sent := make([]int64, len(r.Transfers))
	perCycle := func() [][]int8 {
		m := make([][]int8, f.Tiles)
		for i := range m {
			m[i] = make([]int8, r.Horizon)
		}
		return m
	}
	sends, alone, both := perCycle(), perCycle(), perCycle()
	for _, s := range r.Segments {
		if s.Transfer < 0 || s.Transfer >= len(r.Transfers) || s.Words <= 0 || s.Start < 0 {
			return fmt.Errorf("bad segment %+v", s)
		}
		if s.Start+s.Words > r.Horizon {
			return fmt.Errorf("segment %+v ends after the horizon %d", s, r.Horizon)
		}
		tr := r.Transfers[s.Transfer]
		sent[s.Transfer] += s.Words
		for c := s.Start; c < s.Start+s.Words; c++ {
			sends[tr.Src][c]++
			for _, d := range tr.Dst {
				p := d ^ 1
				switch {
				case f.Pairs && int(p) < f.Tiles && slices.Contains(tr.Dst, p):
					both[d&^1][c]++ // counted once per tile of the pair
				default:
					alone[d][c]++
				}
			}
		}
	}
	for i, tr := range r.Transfers {
		if sent[i] != tr.Words {
			return fmt.Errorf("transfer %d: %d of %d words sent", i, sent[i], tr.Words)
		}
	}
	for tile := range f.Tiles {
		for c := range r.Horizon {
			if sends[tile][c] > 1 {
				return fmt.Errorf("tile %d sends %d words at cycle %d", tile, sends[tile][c], c)
			}
			if alone[tile][c] > 1 {
				return fmt.Errorf("tile %d takes %d words of its own at cycle %d", tile, alone[tile][c], c)
			}
			if tile&1 == 0 && tile+1 < f.Tiles {
				if n := alone[tile][c] + alone[tile+1][c] + both[tile][c]/2; n > 2 {
					return fmt.Errorf("tiles %d and %d take %d words at cycle %d", tile, tile+1, n, c)
				}
			}
		}
	}
	return nil
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
			r, err := Schedule(transfers, Unpaired(c.tiles))
			if err != nil {
				t.Fatal(err)
			}
			validate(t, r, Unpaired(c.tiles))
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
	r, err := Schedule(transfers, Unpaired(64))
	if err != nil {
		t.Fatal(err)
	}
	validate(t, r, Unpaired(64))
	if r.Kind == ExpandedMatching {
		expandedFrom(t, r, transfers)
	}
	t.Logf("multicast phase: bound %d, horizon %d (%s)", r.LowerBound, r.Horizon, r.Kind)

	// A multicast whose sender has time to send every copy: expanded, and
	// on the bound.
	few := []Transfer{{Src: 0, Dst: []int32{1, 2}, Words: 5}, {Src: 3, Dst: []int32{1}, Words: 20}, {Src: 4, Dst: []int32{2}, Words: 20}}
	r, err = Schedule(few, Unpaired(5))
	if err != nil {
		t.Fatal(err)
	}
	validate(t, r, Unpaired(5))
	expandedFrom(t, r, few)
	if r.Kind != ExpandedMatching || r.Horizon != r.LowerBound {
		t.Fatalf("kind %s, horizon %d, bound %d", r.Kind, r.Horizon, r.LowerBound)
	}
	// A multicast to every other tile is one sender's words: sent once, on
	// the bound, where the expansion could not.
	wide := []Transfer{{Src: 0, Dst: []int32{1, 2, 3, 4, 5, 6, 7}, Words: 100}}
	if r, err = Schedule(wide, Unpaired(8)); err != nil {
		t.Fatal(err)
	}
	validate(t, r, Unpaired(8))
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
	if r, err = Schedule(replicated, Unpaired(64)); err != nil {
		t.Fatal(err)
	}
	validate(t, r, Unpaired(64))
	if r.Kind != GroupMatching || r.Horizon != r.LowerBound || len(r.Transfers) != len(replicated) {
		t.Fatalf("kind %s, horizon %d, bound %d, %d transfers", r.Kind, r.Horizon, r.LowerBound, len(r.Transfers))
	}
}

// replicatedPhase is a relayout into a replicated layout: senders tiles
// 0..senders-1 each send a piece of every shard, once, to the shard's
// replicas, which sit on tiles first + shard·replicas + 0..replicas-1.
func replicatedPhase(senders, shards, replicas, first int) []Transfer {
	var out []Transfer
	for src := range senders {
		for g := range shards {
			var dst []int32
			for k := range replicas {
				dst = append(dst, int32(first+g*replicas+k))
			}
			out = append(out, Transfer{Src: int32(src), Dst: dst, Words: int64(1 + (src+g)%5)})
		}
	}
	return out
}

func TestSharedBusPairs(t *testing.T) {
	paired := Fabric{Tiles: 64, Pairs: true}
	for _, c := range []struct {
		name     string
		replicas int
		first    int
	}{
		{"replicas on pairs", 2, 32},
		{"replicas on two pairs", 4, 32},
	} {
		t.Run(c.name, func(t *testing.T) {
			transfers := replicatedPhase(32, 32/c.replicas, c.replicas, c.first)
			r, err := Schedule(transfers, paired)
			if err != nil {
				t.Fatal(err)
			}
			validate(t, r, paired)
			ordinary := LowerBound(transfers, Unpaired(64))
			// Each pair takes its shards' words at two a cycle: half the
			// ordinary bound, which the senders allow here.
			if r.Kind != PairedGroupMatching || r.Horizon != r.LowerBound || r.LowerBound != (ordinary+1)/2 ||
				r.OrdinaryHorizon != ordinary || r.PairedHorizon != r.Horizon {
				t.Fatalf("kind %s, horizon %d, bound %d, ordinary %d (bound %d), paired %d",
					r.Kind, r.Horizon, r.LowerBound, r.OrdinaryHorizon, ordinary, r.PairedHorizon)
			}
			// The schedule needs the pairs: without them it is not valid,
			// by the test's validator and by Verify.
			if validateErr(r, Unpaired(64)) == nil {
				t.Fatal("a paired schedule is valid without pairs")
			}
			if err := Verify(transfers, Unpaired(64), r.Segments, r.Horizon); err == nil || !strings.Contains(err.Error(), "receives two words") {
				t.Fatalf("Verify without pairs: %v", err)
			}
			if err := Verify(transfers, paired, r.Segments, r.Horizon); err != nil {
				t.Fatalf("Verify with pairs: %v", err)
			}
		})
	}
	// Replicas that straddle pairs (tiles 2g+1 and 2g+2) take nothing
	// together: the ordinary schedule, and no paired attempt.
	straddling := replicatedPhase(32, 15, 2, 33)
	r, err := Schedule(straddling, paired)
	if err != nil {
		t.Fatal(err)
	}
	validate(t, r, paired)
	if r.Kind != GroupMatching || r.Horizon != LowerBound(straddling, Unpaired(64)) || r.PairedHorizon != 0 {
		t.Fatalf("straddling replicas: kind %s, horizon %d, paired %d", r.Kind, r.Horizon, r.PairedHorizon)
	}
	// One sender feeding a pair: the sender is the bound, so pairing gains
	// nothing and the ordinary schedule stays.
	one := []Transfer{{Src: 0, Dst: []int32{2, 3}, Words: 40}}
	if r, err = Schedule(one, paired); err != nil {
		t.Fatal(err)
	}
	validate(t, r, paired)
	if r.Kind != GroupMatching || r.Horizon != 40 || r.LowerBound != 40 {
		t.Fatalf("one sender: kind %s, horizon %d, bound %d", r.Kind, r.Horizon, r.LowerBound)
	}
	// A group the matching cannot split (tile 5 takes words alone beside
	// tile 6, of another pair) still gains by first fit with the pairs'
	// ports: tiles 4 and 5 take two words a cycle.
	open := []Transfer{
		{Src: 0, Dst: []int32{4, 5}, Words: 10}, {Src: 1, Dst: []int32{4, 5}, Words: 10}, {Src: 2, Dst: []int32{5, 6}, Words: 10},
	}
	if r, err = Schedule(open, paired); err != nil {
		t.Fatal(err)
	}
	validate(t, r, paired)
	if r.Kind != PairedFirstFit || r.LowerBound != 15 || r.Horizon >= r.OrdinaryHorizon || r.OrdinaryHorizon != 30 {
		t.Fatalf("an open group: kind %s, horizon %d, bound %d, ordinary %d", r.Kind, r.Horizon, r.LowerBound, r.OrdinaryHorizon)
	}
	t.Logf("an open group: %d cycles paired, %d ordinary, bound %d", r.Horizon, r.OrdinaryHorizon, r.LowerBound)
	// A pair's bound is also what each of its tiles takes alone.
	mixed := []Transfer{
		{Src: 0, Dst: []int32{4, 5}, Words: 10}, {Src: 1, Dst: []int32{4, 5}, Words: 10},
		{Src: 2, Dst: []int32{4}, Words: 30}, {Src: 3, Dst: []int32{5}, Words: 6},
	}
	if lb := LowerBound(mixed, paired); lb != 30 {
		t.Fatalf("bound %d, want 30 (what tile 4 takes alone)", lb)
	}
	if lb := LowerBound(mixed[:2], paired); lb != 10 {
		t.Fatalf("bound %d, want 10 (20 words both take, two a cycle)", lb)
	}
	// Of five tiles, tile 4 has no partner, and tiles 3 and 4 are no pair.
	lone := []Transfer{{Src: 0, Dst: []int32{3, 4}, Words: 10}, {Src: 1, Dst: []int32{3, 4}, Words: 10}}
	if lb := LowerBound(lone, Fabric{Tiles: 5, Pairs: true}); lb != 20 {
		t.Fatalf("bound %d, want 20 (tiles 3 and 4 receive alone)", lb)
	}
}

func TestVerifyPairs(t *testing.T) {
	paired := Fabric{Tiles: 8, Pairs: true}
	transfers := []Transfer{
		{Src: 0, Dst: []int32{2, 3}, Words: 2}, {Src: 1, Dst: []int32{2, 3}, Words: 2},
		{Src: 4, Dst: []int32{2}, Words: 2}, {Src: 5, Dst: []int32{2}, Words: 1},
	}
	for _, c := range []struct {
		segments []Segment
		horizon  int64
		want     string
	}{
		// Two words both take, then one each for tile 2 alone.
		{[]Segment{{0, 0, 2}, {1, 0, 2}, {2, 2, 2}, {3, 4, 1}}, 5, ""},
		// A word both take beside one for tile 2 alone: two in all.
		{[]Segment{{0, 0, 2}, {2, 0, 2}, {1, 2, 2}, {3, 4, 1}}, 5, ""},
		{[]Segment{{0, 0, 2}, {1, 0, 2}, {2, 1, 2}, {3, 3, 1}}, 4,
			"tiles 2 and 3, which share an exchange bus, receive 3 words in cycle 1 (segments [0 1 2]), but take two a cycle"},
		{[]Segment{{0, 0, 2}, {1, 2, 2}, {2, 4, 2}, {3, 5, 1}}, 6, "tile 2 receives two words in cycle 5 (segments 2 and 3)"},
	} {
		err := Verify(transfers, paired, c.segments, c.horizon)
		if got := fmt.Sprint(err); (c.want == "" && err != nil) || (c.want != "" && got != c.want) {
			t.Errorf("%v: %v, want %q", c.segments, err, c.want)
		}
	}
}

func TestRandomMixedPhasesAreValid(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	pairedWins, gained := 0, int64(0)
	gaps := map[bool]int64{} // by fabric: the gaps to the bound, summed
	for trial := range 400 {
		tiles := 2 + rng.IntN(40)
		var transfers []Transfer
		for range rng.IntN(60) {
			src := int32(rng.IntN(tiles))
			k := 1 + rng.IntN(min(4, tiles-1))
			var dst []int32
			for _, d := range rng.Perm(tiles) {
				if int32(d) != src && len(dst) < k && !slices.Contains(dst, int32(d)) {
					dst = append(dst, int32(d))
					// With its partner, as replicas on pairs: always in
					// every other phase, else half the time.
					if p := int32(d ^ 1); p < int32(tiles) && p != src && !slices.Contains(dst, p) && (trial%2 == 0 || rng.IntN(2) == 0) {
						dst = append(dst, p)
					}
				}
			}
			transfers = append(transfers, Transfer{Src: src, Dst: dst, Words: 1 + rng.Int64N(20)})
		}
		for _, f := range []Fabric{Unpaired(tiles), {Tiles: tiles, Pairs: true}} {
			r, err := Schedule(transfers, f)
			if err != nil {
				t.Fatalf("trial %d: %v", trial, err)
			}
			validate(t, r, f)
			if lb := LowerBound(r.Transfers, f); lb != r.LowerBound {
				t.Fatalf("trial %d: %s schedule states the bound %d, its transfers' is %d", trial, r.Kind, r.LowerBound, lb)
			}
			if err := Verify(r.Transfers, f, r.Segments, r.Horizon); err != nil {
				t.Fatalf("trial %d: Verify refuses a schedule the validator accepts: %v", trial, err)
			}
			if r.Horizon > r.OrdinaryHorizon || LowerBound(transfers, f) > LowerBound(transfers, Unpaired(tiles)) {
				t.Fatalf("trial %d: horizon %d, ordinary %d, bound %d", trial, r.Horizon, r.OrdinaryHorizon, r.LowerBound)
			}
			if r.Kind == PairedGroupMatching || r.Kind == PairedFirstFit {
				pairedWins++
				gained += r.OrdinaryHorizon - r.Horizon
			}
			gaps[f.Pairs] += r.Gap()
		}
	}
	t.Logf("paired schedules shorter than ordinary ones in %d of 400 phases, by %d cycles in all; gaps to the bound: %d cycles unpaired, %d paired",
		pairedWins, gained, gaps[false], gaps[true])
	if pairedWins == 0 {
		t.Fatal("no random phase gained from pairs")
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
		if _, err := Schedule(c.transfers, Unpaired(4)); err == nil || err.Error() != c.want {
			t.Errorf("%+v: %v, want %q", c.transfers, err, c.want)
		}
	}
	if r, err := Schedule(nil, Unpaired(4)); err != nil || r.Horizon != 0 || r.Kind != Empty {
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
		r, err := Schedule(transfers, Unpaired(1472))
		if err != nil || r.Horizon != r.LowerBound {
			b.Fatalf("%v: horizon %d, bound %d", err, r.Horizon, r.LowerBound)
		}
	}
}

// fuzzPhase reads a fabric and transfers from arbitrary bytes: the tile
// count and whether there are pairs, a count, then per transfer its
// source, a destination bit mask (the tiles its bits name) and its words.
// It returns the bytes left, and false when they make no valid phase.
func fuzzPhase(data []byte) (Fabric, []Transfer, []byte, bool) {
	if len(data) < 3 {
		return Fabric{}, nil, nil, false
	}
	fab := Fabric{Tiles: 2 + int(data[0]%14), Pairs: data[1]&1 == 1}
	n := int(data[2] % 8)
	data = data[3:]
	var transfers []Transfer
	for range n {
		if len(data) < 3 {
			return fab, nil, nil, false
		}
		tr := Transfer{Src: int32(int(data[0]) % fab.Tiles), Words: int64(data[2] % 9)}
		for d := range fab.Tiles {
			if d < 8 && data[1]&(1<<d) != 0 {
				tr.Dst = append(tr.Dst, int32(d))
			}
		}
		transfers = append(transfers, tr)
		data = data[3:]
	}
	return fab, transfers, data, Check(transfers, fab.Tiles) == nil
}

// FuzzVerify checks Verify against the test's validator on schedules built
// from arbitrary bytes, with and without pairs: it must never panic, it
// must accept exactly what the validator accepts with the horizon at the
// schedule's end, and it must refuse any other horizon.
func FuzzVerify(f *testing.F) {
	f.Add([]byte{6, 1, 2, 0x0c, 4, 3, 0x0c, 4, 0, 0, 0, 4, 1, 0, 4})
	f.Add([]byte{6, 1, 2, 0x0c, 4, 3, 0x0c, 4, 0, 0, 0, 4, 1, 0, 4, 0, 1, 1})
	f.Add([]byte{3, 0, 1, 0x01, 2, 0, 0, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		fab, transfers, data, ok := fuzzPhase(data)
		if !ok {
			return
		}
		var segs []Segment
		for len(data) >= 3 {
			segs = append(segs, Segment{Transfer: int(data[0] % 9), Start: int64(data[1] % 32), Words: int64(data[2] % 9)})
			data = data[3:]
		}
		horizon := int64(0)
		for _, s := range segs {
			horizon = max(horizon, s.Start+s.Words)
		}
		err := Verify(transfers, fab, segs, horizon)
		r := Result{Transfers: transfers, Segments: segs, Horizon: horizon}
		segsValid := validateErr(r, fab)
		if (err == nil) != (segsValid == nil) {
			t.Fatalf("Verify says %v, the validator %v", err, segsValid)
		}
		if segsValid == nil {
			if err := Verify(transfers, fab, segs, horizon+1); err == nil {
				t.Fatalf("Verify accepts a horizon of %d for a schedule that ends at %d", horizon+1, horizon)
			}
		}
	})
}

// FuzzSchedule schedules phases built from arbitrary bytes, with and
// without pairs: every schedule is valid by the test's validator and by
// Verify, states its transfers' bound, and is no longer than the ordinary
// one.
func FuzzSchedule(f *testing.F) {
	f.Add([]byte{6, 1, 3, 0, 0x0c, 4, 1, 0x0c, 4, 2, 0x18, 4})
	f.Add([]byte{12, 1, 4, 0, 0xf0, 8, 1, 0x30, 3, 2, 0x0f, 5, 9, 0x06, 2})
	f.Add([]byte{5, 0, 2, 0, 0x1e, 8, 1, 0x1c, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		fab, transfers, _, ok := fuzzPhase(data)
		if !ok {
			return
		}
		r, err := Schedule(transfers, fab)
		if err != nil {
			t.Fatalf("a valid phase does not schedule: %v", err)
		}
		if err := validateErr(r, fab); err != nil {
			t.Fatal(err)
		}
		if err := Verify(r.Transfers, fab, r.Segments, r.Horizon); err != nil {
			t.Fatal(err)
		}
		if lb := LowerBound(r.Transfers, fab); lb != r.LowerBound || r.Horizon > r.OrdinaryHorizon {
			t.Fatalf("%s: bound %d (transfers' %d), horizon %d, ordinary %d", r.Kind, r.LowerBound, lb, r.Horizon, r.OrdinaryHorizon)
		}
	})
}

// A relayout into replicas on shared-bus pairs at the reference log's
// scale: every one of 1,472 tiles sends 7 words to each of 40 pairs
// (58,880 multicasts); paired, the phase takes half the ordinary horizon.
func BenchmarkSchedulePairedRelayout(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 10))
	const tiles = 1472
	var transfers []Transfer
	for src := range tiles {
		for _, pair := range rng.Perm(tiles / 2)[:40] {
			if d := int32(2 * pair); d != int32(src) && d+1 != int32(src) {
				transfers = append(transfers, Transfer{Src: int32(src), Dst: []int32{d, d + 1}, Words: 7})
			}
		}
	}
	fab := Fabric{Tiles: tiles, Pairs: true}
	for b.Loop() {
		r, err := Schedule(transfers, fab)
		if err != nil || r.Kind != PairedGroupMatching || r.Horizon != r.LowerBound || 2*r.Horizon > r.OrdinaryHorizon+1 {
			b.Fatalf("%v: %s, horizon %d, bound %d, ordinary %d", err, r.Kind, r.Horizon, r.LowerBound, r.OrdinaryHorizon)
		}
		b.ReportMetric(float64(r.OrdinaryHorizon), "ordinary-cycles")
		b.ReportMetric(float64(r.Horizon), "paired-cycles")
	}
}

// A mixed multicast phase at chip scale, which no group matching splits:
// 1,472 tiles each sending 20 pieces of 1-16 words to 2-8 tiles, with
// their partners half the time. First fit schedules it, ordinary and
// paired; the metrics are both horizons and the paired bound.
func BenchmarkScheduleMixedMulticast(b *testing.B) {
	rng := rand.New(rand.NewPCG(11, 12))
	const tiles = 1472
	var transfers []Transfer
	for src := range tiles {
		for range 20 {
			var dst []int32
			for len(dst) < 2+rng.IntN(7) {
				d := int32(rng.IntN(tiles))
				if d == int32(src) || slices.Contains(dst, d) {
					continue
				}
				dst = append(dst, d)
				if p := d ^ 1; p != int32(src) && !slices.Contains(dst, p) && rng.IntN(2) == 0 {
					dst = append(dst, p)
				}
			}
			transfers = append(transfers, Transfer{Src: int32(src), Dst: dst, Words: 1 + rng.Int64N(16)})
		}
	}
	fab := Fabric{Tiles: tiles, Pairs: true}
	for b.Loop() {
		r, err := Schedule(transfers, fab)
		if err != nil || r.Horizon > r.OrdinaryHorizon {
			b.Fatalf("%v: horizon %d, ordinary %d", err, r.Horizon, r.OrdinaryHorizon)
		}
		b.ReportMetric(float64(r.OrdinaryHorizon), "ordinary-cycles")
		b.ReportMetric(float64(r.Horizon), "paired-cycles")
		b.ReportMetric(float64(r.LowerBound), "bound-cycles")
	}
}
