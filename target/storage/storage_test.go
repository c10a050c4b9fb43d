package storage

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/target"
)

func test16(t testing.TB) *target.Target {
	tg, err := target.Lookup("test16")
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func TestReuseAlignmentAndClasses(t *testing.T) {
	tg := test16(t)
	std, _ := tg.Class(target.Standard)
	il, _ := tg.Class(target.Interleaved)
	bufs := []Buffer{
		{Name: "code", Class: std.Name, Bytes: 3000, Start: 0, End: Forever},
		{Name: "a", Class: std.Name, Bytes: 4000, Start: 0, End: 2},
		{Name: "b", Class: std.Name, Bytes: 4000, Start: 2, End: 4}, // a is dead by then: reuses its space
		{Name: "c", Class: std.Name, Bytes: 100, Align: 64, Start: 1, End: 3},
		{Name: "w", Class: il.Name, Bytes: 1000, Start: 0, End: Forever},
	}
	p, err := Place(tg, 7, bufs)
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(tg, 7, bufs, p.Address); err != nil {
		t.Fatal(err)
	}
	if p.Address[0] != std.Start {
		t.Errorf("support memory at %d, want the bottom of the class (%d)", p.Address[0], std.Start)
	}
	if p.Address[2] != p.Address[1] {
		t.Errorf("b at %d does not reuse a's space at %d", p.Address[2], p.Address[1])
	}
	if p.Address[3]%64 != 0 {
		t.Errorf("c at %d is not 64-aligned", p.Address[3])
	}
	if p.Address[4] < il.Start || p.Address[4]+1000 > il.End {
		t.Errorf("w at %d is not in %s", p.Address[4], il.Name)
	}
	if p.Live[std.Name] != 3000+4000+100 || p.Peak[std.Name] < p.Live[std.Name] {
		t.Errorf("standard: live %d, peak %d", p.Live[std.Name], p.Peak[std.Name])
	}
}

func TestShortfallIsNamed(t *testing.T) {
	tg := test16(t)
	std, _ := tg.Class(target.Standard)
	bufs := []Buffer{
		{Name: "x", Class: std.Name, Bytes: 30000, Start: 0, End: 3},
		{Name: "y", Class: std.Name, Bytes: 30000, Start: 1, End: 2},
	}
	_, err := Place(tg, 3, bufs)
	want := "tile 3: buffer y (30000 bytes, live in steps 1 to 1) does not fit Test16Standard (49152 bytes): 30000 bytes are live in x (30000 bytes); short by 10848 bytes"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	for _, c := range []struct {
		b    Buffer
		want string
	}{
		{Buffer{Name: "n", Class: "Nowhere", Bytes: 1, End: 1}, `unknown memory class "Nowhere"`},
		{Buffer{Name: "e", Class: std.Name, Bytes: 1, Start: 2, End: 2}, "lives over supersteps [2, 2), which is empty"},
		{Buffer{Name: "a", Class: std.Name, Bytes: 1, Align: 3, End: 1}, "alignment 3 is not a power of two"},
	} {
		if _, err := Place(tg, 0, []Buffer{c.b}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.b, err, c.want)
		}
	}
}

func TestCheckRefusesBadPlacements(t *testing.T) {
	tg := test16(t)
	std, _ := tg.Class(target.Standard)
	bufs := []Buffer{{Name: "p", Class: std.Name, Bytes: 64, Start: 0, End: 2}, {Name: "q", Class: std.Name, Bytes: 64, Start: 1, End: 3}}
	for _, c := range []struct {
		addr []int64
		want string
	}{
		{[]int64{0, 32}, "buffers p [0, 64) and q [32, 96) overlap while both live"},
		{[]int64{0, 4}, "buffer q at 4 is not aligned"},
		{[]int64{0, std.End}, "leaves Test16Standard"},
	} {
		if err := Check(tg, 1, bufs, c.addr); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.addr, err, c.want)
		}
	}
	// Disjoint lives may share addresses.
	bufs[1].Start = 2
	if err := Check(tg, 1, bufs, []int64{0, 0}); err != nil {
		t.Errorf("disjoint lives at one address: %v", err)
	}
}

// Random buffer sets: whatever Place places, Check accepts; what it
// refuses really needs more than the class holds at some superstep.
func TestRandomPlacements(t *testing.T) {
	tg := test16(t)
	std, _ := tg.Class(target.Standard)
	il, _ := tg.Class(target.Interleaved)
	rng := rand.New(rand.NewPCG(9, 10))
	placed := 0
	for trial := range 500 {
		var bufs []Buffer
		for range 1 + rng.IntN(40) {
			start := rng.IntN(10)
			b := Buffer{Name: "b", Class: []string{std.Name, il.Name}[rng.IntN(2)], Bytes: 1 + rng.Int64N(6000),
				Align: []int64{0, 16, 64}[rng.IntN(3)], Start: start, End: start + 1 + rng.IntN(6)}
			bufs = append(bufs, b)
		}
		p, err := Place(tg, trial, bufs)
		if err != nil {
			continue
		}
		placed++
		if err := Check(tg, trial, bufs, p.Address); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
	}
	if placed < 100 {
		t.Errorf("only %d of 500 random sets placed", placed)
	}
}

func BenchmarkPlace1000(b *testing.B) {
	tg := test16(b)
	std, _ := tg.Class(target.Standard)
	rng := rand.New(rand.NewPCG(1, 1))
	var bufs []Buffer
	for range 1000 {
		start := rng.IntN(200)
		bufs = append(bufs, Buffer{Name: "b", Class: std.Name, Bytes: 1 + rng.Int64N(400), Start: start, End: start + 1 + rng.IntN(5)})
	}
	for b.Loop() {
		if _, err := Place(tg, 0, bufs); err != nil {
			b.Fatal(err)
		}
	}
}

// First fit in start order leaves a hole below a long-lived buffer that a
// later, larger one cannot use; the placement in lifetime order packs the
// long-lived buffer at the bottom, and everything fits.
func TestLifetimeOrderWhereFirstFitFails(t *testing.T) {
	tg := test16(t)
	il, _ := tg.Class(target.Interleaved)
	size := il.Size()
	bufs := []Buffer{
		{Name: "short", Class: il.Name, Bytes: size / 2, Start: 0, End: 2},
		{Name: "long", Class: il.Name, Bytes: size/2 - 1024, Start: 0, End: 10},
		{Name: "late", Class: il.Name, Bytes: size/2 + 1024, Start: 2, End: 10},
	}
	// In start order: short at the bottom, long above it, and late (after
	// short ends) cannot fit below long nor above it.
	var first Placement
	first.Address, first.Peak, first.Live = make([]int64, 3), map[string]int64{}, map[string]int64{}
	if err := firstFit(&first, 0, il, bufs, []int{0, 1, 2}); err == nil {
		t.Fatal("first fit placed it: the test no longer exercises the retry")
	}
	p, err := Place(tg, 0, bufs)
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(tg, 0, bufs, p.Address); err != nil {
		t.Fatal(err)
	}
	if p.Address[1] != il.Start || p.Live[il.Name] != size {
		t.Errorf("long at %d (want %d), live %d (want %d)", p.Address[1], il.Start, p.Live[il.Name], size)
	}
	// Still too much at once: refused, with first fit's account.
	bufs[2].Bytes += 16
	if _, err := Place(tg, 0, bufs); err == nil || !strings.Contains(err.Error(), "late") {
		t.Errorf("an overfull class: %v", err)
	}
}
