package storage

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/dustin/go-humanize"

	"github.com/ipuir/ipuir/target"
)

// Demand is what a tile's buffers need of one memory class at the tile's
// busiest step for it: the bytes live at once then, and which buffers
// they are.
type Demand struct {
	Class string
	Bytes int64
	// Step is the first step at which Bytes are live.
	Step int
	// Live are the indexes of the buffers live at Step, largest first.
	Live []int
}

// PeakDemand returns the tile's Demand per class, by class name. The live
// bytes are a lower bound on what placement needs: alignment and the
// holes that buffers of different lifetimes leave come on top.
func PeakDemand(bufs []Buffer) map[string]Demand {
	type event struct {
		at, buf int
		delta   int64
	}
	byClass := map[string][]event{}
	for i, b := range bufs {
		byClass[b.Class] = append(byClass[b.Class], event{b.Start, i, b.Bytes})
		if b.End != Forever {
			byClass[b.Class] = append(byClass[b.Class], event{b.End, i, -b.Bytes})
		}
	}
	out := map[string]Demand{}
	for class, ev := range byClass {
		// Ends before starts at one step: lifetimes are [Start, End).
		slices.SortFunc(ev, func(x, y event) int {
			if c := cmp.Compare(x.at, y.at); c != 0 {
				return c
			}
			return cmp.Compare(x.delta, y.delta)
		})
		d := Demand{Class: class}
		live := int64(0)
		for _, e := range ev {
			live += e.delta
			if live > d.Bytes {
				d.Bytes, d.Step = live, e.at
			}
		}
		for i, b := range bufs {
			if b.Class == class && b.Start <= d.Step && d.Step < b.End {
				d.Live = append(d.Live, i)
			}
		}
		slices.SortStableFunc(d.Live, func(x, y int) int { return cmp.Compare(bufs[y].Bytes, bufs[x].Bytes) })
		out[class] = d
	}
	return out
}

// PlaceAll places the buffers of every tile of t (bufs[tile]). When a
// tile's do not fit, the error (a *ChipNoFitError) says so for that tile
// as Place does, and for the whole chip: how many tiles need more than
// they have, the busiest tile with the buffers that hold its memory at its
// busiest step, and what the chip needs in total against what it has, so
// that a user can tell a program too big for the chip from one spread
// unevenly over it.
func PlaceAll(t *target.Target, bufs [][]Buffer) ([]Placement, error) {
	out := make([]Placement, len(bufs))
	for tile, b := range bufs {
		p, err := Place(t, tile, b)
		if err != nil {
			var nofit *NoFitError
			if !errors.As(err, &nofit) {
				return nil, err
			}
			return nil, chipError(t, bufs, nofit)
		}
		out[tile] = p
	}
	return out, nil
}

// ChipNoFitError is PlaceAll's error when the program does not fit.
type ChipNoFitError struct {
	// First is the first tile's failure, as Place reports it.
	First *NoFitError
	// Class is the memory class that did not fit.
	Class string
	// Over counts the tiles whose peak demand exceeds the class.
	Over int
	// Busiest is the tile with the largest peak demand, Demand its demand.
	Busiest int
	Demand  Demand
	// Needed sums every tile's peak demand; Capacity is the class's size
	// on every tile.
	Needed, Capacity int64
	msg              string
}

func (e *ChipNoFitError) Error() string { return e.msg }
func (e *ChipNoFitError) Unwrap() error { return e.First }

func chipError(t *target.Target, bufs [][]Buffer, first *NoFitError) error {
	class, err := t.ClassByName(bufs[first.Tile][first.Buffer].Class)
	if err != nil {
		return first
	}
	e := &ChipNoFitError{First: first, Class: class.Name, Busiest: -1, Capacity: class.Size() * int64(len(bufs))}
	for tile, b := range bufs {
		d := PeakDemand(b)[class.Name]
		e.Needed += d.Bytes
		if d.Bytes > class.Size() {
			e.Over++
		}
		if e.Busiest < 0 || d.Bytes > e.Demand.Bytes {
			e.Busiest, e.Demand = tile, d
		}
	}
	var held []string
	for k, i := range e.Demand.Live {
		if k == 6 {
			held = append(held, fmt.Sprintf("and %d more", len(e.Demand.Live)-k))
			break
		}
		b := bufs[e.Busiest][i]
		held = append(held, fmt.Sprintf("%s (%d bytes, live in steps %s)", b.Name, b.Bytes, Steps(b)))
	}
	var total string
	if e.Needed <= e.Capacity {
		total = fmt.Sprintf("the chip as a whole needs %s of it at the tiles' busiest steps and has %s (%.1f%% used): the program fits in total, so it is the busiest tiles that overflow",
			humanize.IBytes(uint64(e.Needed)), humanize.IBytes(uint64(e.Capacity)), 100*float64(e.Needed)/float64(e.Capacity))
	} else {
		total = fmt.Sprintf("the chip as a whole needs %s of it at the tiles' busiest steps and has %s: short by %s in total",
			humanize.IBytes(uint64(e.Needed)), humanize.IBytes(uint64(e.Capacity)), humanize.IBytes(uint64(e.Needed-e.Capacity)))
	}
	busiest := fmt.Sprintf("the busiest, tile %d, has %d bytes live at step %d against %d (", e.Busiest, e.Demand.Bytes, e.Demand.Step, class.Size())
	if e.Demand.Bytes > class.Size() {
		busiest += fmt.Sprintf("short by %d", e.Demand.Bytes-class.Size())
	} else {
		busiest += "placement leaves holes between buffers of different lifetimes"
	}
	busiest += "), held by " + strings.Join(held, ", ")
	e.msg = fmt.Sprintf("%v. Across the chip, %d of %d tiles need more %s than it holds at their busiest step; %s; %s",
		first, e.Over, len(bufs), class.Name, busiest, total)
	return e
}
