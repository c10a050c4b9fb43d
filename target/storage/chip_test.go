package storage

import (
	"errors"
	"github.com/ipuir/ipuir/target"
	"slices"
	"strings"
	"testing"
)

// PeakDemand finds each class's busiest step and who holds it; lifetimes
// are [Start, End), so a buffer ending at a step frees its bytes for
// one starting there.
func TestPeakDemand(t *testing.T) {
	bufs := []Buffer{
		{Name: "a", Class: "S", Bytes: 100, Start: 0, End: 2},
		{Name: "b", Class: "S", Bytes: 300, Start: 2, End: 4}, // after a
		{Name: "c", Class: "S", Bytes: 50, Start: 1, End: Forever},
		{Name: "w", Class: "I", Bytes: 7, Start: 0, End: Forever},
	}
	d := PeakDemand(bufs)
	if s := d["S"]; s.Bytes != 350 || s.Step != 2 || !slices.Equal(s.Live, []int{1, 2}) {
		t.Errorf("standard: %+v, want 350 bytes at step 2 held by b and c", s)
	}
	if i := d["I"]; i.Bytes != 7 || i.Step != 0 || !slices.Equal(i.Live, []int{3}) {
		t.Errorf("interleaved: %+v", i)
	}
}

// A program that overflows one tile while the chip has room says it fits
// in total; one that overflows every tile says by how much in total.
func TestPlaceAllTellsUnevenFromTooBig(t *testing.T) {
	tg := test16(t)
	std := tg.MemoryClasses[0]
	bufs := make([][]Buffer, tg.Tiles)
	bufs[5] = []Buffer{{Name: "big", Class: std.Name, Bytes: std.Size() + 8, Start: 0, End: 1}}
	_, err := PlaceAll(tg, bufs)
	var ce *ChipNoFitError
	if !errors.As(err, &ce) || ce.Over != 1 || ce.Busiest != 5 || ce.First.Tile != 5 {
		t.Fatalf("one tile over: %v (%+v)", err, ce)
	}
	if !errors.Is(err, target.ErrTileMemory) {
		t.Errorf("one tile over: %v is not target.ErrTileMemory", err)
	}
	for _, want := range []string{"tile 5: buffer big", "Across the chip, 1 of 16 tiles need more", "the busiest, tile 5, has 49160 bytes live at step 0 against 49152 (short by 8), held by big",
		"the program fits in total, so it is the busiest tiles that overflow"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v\nwant it to say %s", err, want)
		}
	}
	for tile := range bufs {
		bufs[tile] = []Buffer{{Name: "big", Class: std.Name, Bytes: std.Size() + 8, Start: 0, End: 1}}
	}
	_, err = PlaceAll(tg, bufs)
	if !errors.As(err, &ce) || ce.Over != 16 || ce.Needed != 16*(std.Size()+8) || !strings.Contains(err.Error(), "short by 128 B in total") {
		t.Errorf("every tile over: %v", err)
	}
	// Everything fits: a placement per tile, no error.
	for tile := range bufs {
		bufs[tile] = []Buffer{{Name: "small", Class: std.Name, Bytes: 64, Start: 0, End: 1}}
	}
	if ps, err := PlaceAll(tg, bufs); err != nil || len(ps) != 16 {
		t.Errorf("fitting program: %d placements, %v", len(ps), err)
	}
}
