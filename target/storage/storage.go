// Package storage places one tile's buffers in its memory classes: each
// buffer has a size, an alignment, a class and a lifetime (the supersteps
// in which it holds data), and gets an address inside its class's range
// such that no two buffers live at the same time overlap. Space a buffer
// frees is reused by buffers that start after it ends.
//
// Buffers are placed in order of their first superstep (ties: those
// living forever first, then the largest), each at the lowest aligned
// address of its class that clears every placed buffer it overlaps in
// time: first fit over an interval graph, linear in the buffers live at
// once. Buffers that live throughout (code, exchange tables, host-exchange
// code: a tile's support memory) are therefore placed first, at the bottom
// of their class, as the reference compiler places them. Where first fit
// leaves holes a later buffer cannot use, and so fails, the class is
// placed again longest-lived first (quadratic in its buffers, so only
// then), which packs buffers of like lifetimes together.
//
// A buffer that does not fit is an error naming the tile, the buffer, its
// bytes, the class's capacity, the buffers in the way and the bytes short;
// Check verifies any placement (the tile-asm verifier's rules).
package storage

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ipuir/ipuir/numeric"
	"github.com/ipuir/ipuir/target"
)

// Forever is the End of a buffer that lives to the end of the program.
const Forever = int(^uint(0) >> 1)

// Buffer is one allocation on a tile.
type Buffer struct {
	Name  string
	Class string // a memory class of the target, by name
	Bytes int64
	// Align is the buffer's own alignment (0: the class's); the address is
	// a multiple of the larger of the two.
	Align int64
	// ID is the caller's, for finding its buffers in a placement.
	ID int
	// Start and End are the supersteps in which the buffer holds data:
	// [Start, End): supersteps at the exchange level and later, ops in
	// program order at the tiled level; messages say "steps".
	Start, End int
}

// Placement is where a tile's buffers went.
type Placement struct {
	// Address of each buffer, tile-relative, in the order given.
	Address []int64
	// Peak is, per class, the highest byte in use above the class's start
	// (the class's footprint), and Live the most bytes live at once.
	Peak, Live map[string]int64
}

// Place places bufs on tile (named in errors) of target t.
func Place(t *target.Target, tile int, bufs []Buffer) (Placement, error) {
	p := Placement{Address: make([]int64, len(bufs)), Peak: map[string]int64{}, Live: map[string]int64{}}
	byClass := map[string][]int{}
	for i, b := range bufs {
		class, err := t.ClassByName(b.Class)
		if err != nil {
			return p, fmt.Errorf("tile %d: buffer %s: %v", tile, b.Name, err)
		}
		switch {
		case b.Bytes < 0:
			return p, fmt.Errorf("tile %d: buffer %s has a negative size %d", tile, b.Name, b.Bytes)
		case b.Start < 0 || b.End <= b.Start:
			return p, fmt.Errorf("tile %d: buffer %s lives over supersteps [%d, %d), which is empty", tile, b.Name, b.Start, b.End)
		case b.Align < 0 || (b.Align > 0 && b.Align&(b.Align-1) != 0):
			return p, fmt.Errorf("tile %d: buffer %s: alignment %d is not a power of two", tile, b.Name, b.Align)
		}
		byClass[class.Name] = append(byClass[class.Name], i)
	}
	classes := make([]string, 0, len(byClass))
	for name := range byClass {
		classes = append(classes, name)
	}
	slices.Sort(classes)
	for _, name := range classes {
		class, _ := t.ClassByName(name)
		order := byClass[name]
		slices.SortStableFunc(order, func(a, b int) int {
			x, y := bufs[a], bufs[b]
			if x.Start != y.Start {
				return cmp.Compare(x.Start, y.Start)
			}
			if (x.End == Forever) != (y.End == Forever) {
				if x.End == Forever {
					return -1
				}
				return 1
			}
			return cmp.Compare(y.Bytes, x.Bytes)
		})
		if err := firstFit(&p, tile, class, bufs, order); err != nil {
			// In start order the placement left holes between buffers of
			// different lifetimes that a later buffer cannot use. Try the
			// order that packs lifetimes: the longest-lived at the bottom.
			var retry Placement
			retry.Address, retry.Peak, retry.Live = slices.Clone(p.Address), map[string]int64{}, map[string]int64{}
			if byLifetime(&retry, class, bufs, order) {
				p.Address = retry.Address
				p.Peak[name], p.Live[name] = retry.Peak[name], retry.Live[name]
				continue
			}
			return p, err
		}
	}
	return p, nil
}

// firstFit places order (one class's buffers, by first step) in class:
// each at the lowest aligned address that clears the placed buffers still
// live, which are kept by address.
func firstFit(p *Placement, tile int, class target.MemoryClass, bufs []Buffer, order []int) error {
	name := class.Name
	var active []int // placed buffers still live, by address
	for _, i := range order {
		b := bufs[i]
		// Drop buffers whose lives ended before this one starts.
		kept := active[:0]
		for _, j := range active {
			if bufs[j].End > b.Start {
				kept = append(kept, j)
			}
		}
		active = kept
		align := max(class.Alignment, b.Align)
		addr := numeric.RoundUp(class.Start, align)
		for _, j := range active { // by address
			if addr+b.Bytes <= p.Address[j] {
				break
			}
			addr = max(addr, numeric.RoundUp(p.Address[j]+bufs[j].Bytes, align))
		}
		if addr+b.Bytes > class.End {
			return shortError(tile, class, i, bufs, active, addr)
		}
		p.Address[i] = addr
		at, _ := slices.BinarySearchFunc(active, addr, func(j int, a int64) int { return cmp.Compare(p.Address[j], a) })
		active = slices.Insert(active, at, i)
		p.Peak[name] = max(p.Peak[name], addr+b.Bytes-class.Start)
		live := int64(0)
		for _, j := range active {
			live += bufs[j].Bytes
		}
		p.Live[name] = max(p.Live[name], live)
	}
	return nil
}

// byLifetime places order in class longest-lived first (support memory,
// then by steps lived, then by size), each at the lowest aligned address
// clear of every placed buffer whose life overlaps its own. It reports
// whether all fit. The work is quadratic in the class's buffers on the
// tile, which is why it runs only where first fit failed.
func byLifetime(p *Placement, class target.MemoryClass, bufs []Buffer, order []int) bool {
	name := class.Name
	sorted := slices.Clone(order)
	span := func(b Buffer) int {
		if b.End == Forever {
			return Forever
		}
		return b.End - b.Start
	}
	slices.SortStableFunc(sorted, func(a, b int) int {
		x, y := bufs[a], bufs[b]
		if c := cmp.Compare(span(y), span(x)); c != 0 {
			return c
		}
		return cmp.Compare(y.Bytes, x.Bytes)
	})
	var placed []int
	var overlapping []int
	for _, i := range sorted {
		b := bufs[i]
		overlapping = overlapping[:0]
		for _, j := range placed {
			if bufs[j].Start < b.End && b.Start < bufs[j].End {
				overlapping = append(overlapping, j)
			}
		}
		slices.SortFunc(overlapping, func(x, y int) int { return cmp.Compare(p.Address[x], p.Address[y]) })
		align := max(class.Alignment, b.Align)
		addr := numeric.RoundUp(class.Start, align)
		for _, j := range overlapping {
			if addr+b.Bytes <= p.Address[j] {
				break
			}
			addr = max(addr, numeric.RoundUp(p.Address[j]+bufs[j].Bytes, align))
		}
		if addr+b.Bytes > class.End {
			return false
		}
		p.Address[i] = addr
		placed = append(placed, i)
		p.Peak[name] = max(p.Peak[name], addr+b.Bytes-class.Start)
	}
	// The most bytes live at once, step by step over the buffers' starts
	// (where the live set grows).
	for _, i := range sorted {
		live := int64(0)
		for _, j := range sorted {
			if bufs[j].Start <= bufs[i].Start && bufs[i].Start < bufs[j].End {
				live += bufs[j].Bytes
			}
		}
		p.Live[name] = max(p.Live[name], live)
	}
	return true
}

// NoFitError is Place's error when a buffer does not fit its class.
type NoFitError struct {
	Tile   int
	Buffer int // index in the buffers given
	// Short is the bytes missing.
	Short int64
	msg   string
}

func (e *NoFitError) Error() string { return e.msg }

// Is makes a buffer that does not fit a target.ErrTileMemory.
func (e *NoFitError) Is(err error) bool { return err == target.ErrTileMemory }

func shortError(tile int, class target.MemoryClass, i int, bufs []Buffer, active []int, addr int64) error {
	b := bufs[i]
	var in []string
	used := int64(0)
	for _, j := range active {
		in = append(in, fmt.Sprintf("%s (%d bytes)", bufs[j].Name, bufs[j].Bytes))
		used += bufs[j].Bytes
	}
	short := addr + b.Bytes - class.End
	what := "nothing else is live"
	if len(in) > 0 {
		what = fmt.Sprintf("%d bytes are live in %s", used, strings.Join(in, ", "))
	}
	return &NoFitError{Tile: tile, Buffer: i, Short: short, msg: fmt.Sprintf("tile %d: buffer %s (%d bytes, live in steps %s) does not fit %s (%d bytes): %s; short by %d bytes",
		tile, b.Name, b.Bytes, Steps(b), class.Name, class.Size(), what, short)}
}

// Steps writes a buffer's lifetime as messages do: "3 to 5", "0 on".
func Steps(b Buffer) string {
	if b.End == Forever {
		return fmt.Sprintf("%d on", b.Start)
	}
	return fmt.Sprintf("%d to %d", b.Start, b.End-1)
}

// Check verifies a placement: every buffer inside its class's range and
// aligned, and no two buffers live at the same time overlapping.
func Check(t *target.Target, tile int, bufs []Buffer, address []int64) error {
	if len(address) != len(bufs) {
		return fmt.Errorf("tile %d: %d addresses for %d buffers", tile, len(address), len(bufs))
	}
	type placed struct {
		i          int
		start, end int64
	}
	byClass := map[string][]placed{}
	for i, b := range bufs {
		class, err := t.ClassByName(b.Class)
		if err != nil {
			return fmt.Errorf("tile %d: buffer %s: %v", tile, b.Name, err)
		}
		a := address[i]
		if a < class.Start || a+b.Bytes > class.End {
			return fmt.Errorf("tile %d: buffer %s at [%d, %d) leaves %s [%d, %d)", tile, b.Name, a, a+b.Bytes, class.Name, class.Start, class.End)
		}
		if align := max(class.Alignment, b.Align); a%align != 0 {
			return fmt.Errorf("tile %d: buffer %s at %d is not aligned to %d", tile, b.Name, a, align)
		}
		byClass[class.Name] = append(byClass[class.Name], placed{i, a, a + b.Bytes})
	}
	for _, ps := range byClass {
		slices.SortFunc(ps, func(x, y placed) int { return cmp.Compare(x.start, y.start) })
		// Overlapping addresses must not be live together; compare each
		// buffer with the ones whose ranges it meets.
		for k := range ps {
			for m := k + 1; m < len(ps) && ps[m].start < ps[k].end; m++ {
				x, y := bufs[ps[k].i], bufs[ps[m].i]
				if ps[m].start == ps[m].end || ps[k].start == ps[k].end {
					continue
				}
				if x.Start < y.End && y.Start < x.End {
					return fmt.Errorf("tile %d: buffers %s [%d, %d) and %s [%d, %d) overlap while both live (steps %s and %s)",
						tile, x.Name, ps[k].start, ps[k].end, y.Name, ps[m].start, ps[m].end, Steps(x), Steps(y))
				}
			}
		}
	}
	return nil
}
