// Package sim is the simulated device: a first-class implementation of
// runtime/device that executes an application package, not the IR.
//
// Every tile has its own memory: per memory class, the range of it the
// package uses, outside Go's heap.
// The program runs instruction by instruction, each on every tile that
// holds a piece of its output, the tiles in parallel (GOMAXPROCS
// goroutines); supersteps are separated by syncs, and an exchange moves
// the words of its schedule's segments, in the order of their cycles, from
// the sender's memory into every receiver's, after the schedule has been
// checked word by word (every word sent once, one word per tile per cycle
// each way, within the horizon).
// Arithmetic is the target's: f16 elementwise results rounded to f16, AMP
// blocks accumulating in f32 — the tensor dialect's kernels (package
// eval), so the device and the reference interpreter compute the same
// function.
//
// Each element is stored row major over its piece's box at the piece's
// address; every 8-byte granule remembers the buffer that last wrote it
// (in a byte when the package has under 255 buffers),
// so a read of memory no one wrote, or that another buffer has since
// overwritten (two live buffers placed on the same bytes), is a Fault
// naming the tile, the cycle and the instruction, as is a write outside a
// buffer or a schedule that breaks its rules.
//
// Cycles are counted per tile with the target's cost model (AMP blocks,
// vector passes, reductions, copies), each exchange phase its schedule's
// horizon plus the phase latency, each sync the target's sync cost; a
// superstep costs its busiest tile's compute.
package sim

import (
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"sync"

	"github.com/ipuir/ipuir/runtime/device"
	"github.com/ipuir/ipuir/runtime/ipupkg"
	"github.com/ipuir/ipuir/schedule"
	"github.com/ipuir/ipuir/target"
)

// Device is a simulated machine of one target.
type Device struct {
	tg  *target.Target
	log *slog.Logger

	pkg              *ipupkg.Package
	mem              []tileMemory
	arena            *arena
	pieceOn          [][]int32 // buffer → tile → piece index, -1 where none
	writer           []int     // buffer → the instruction that writes it, -1: none
	ready            []int     // buffer → the instruction (program index) after which it holds its value (a view: its sources'), -1: from the start, len(Program): at the end
	attached, loaded bool
}

// New returns a simulated device of tg.
func New(tg *target.Target, log *slog.Logger) *Device {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Device{tg: tg, log: log}
}

var _ device.Device = (*Device)(nil)

func (d *Device) Name() string { return "sim:" + d.tg.Name }

func (d *Device) Attach() error {
	d.log.Info("opening IPU device", "device", d.Name())
	d.attached = true
	d.log.Info("IPU device attached", "device", d.Name(), "tiles", d.tg.Tiles)
	return nil
}

func (d *Device) Initialize() error {
	if !d.attached {
		return fmt.Errorf("%s: initialise before attach", d.Name())
	}
	d.log.Info("initializing IPU device", "device", d.Name())
	d.unload()
	return nil
}

func (d *Device) Close() error {
	d.unload()
	d.attached = false
	return nil
}

// unload gives the tiles' memory back; a session of the package it held
// refuses every call after it.
func (d *Device) unload() {
	d.arena.release()
	d.pkg, d.mem, d.arena, d.loaded = nil, nil, nil, false
}

// Load checks the package against the device (target, tiles, memory) and
// the exchange schedules word by word, gives every tile its memory, and
// writes the constants that are loaded with the program.
func (d *Device) Load(p *ipupkg.Package) error {
	if !d.attached {
		return fmt.Errorf("%s: load before attach", d.Name())
	}
	if p.Target != d.tg.Name || p.Tiles != d.tg.Tiles || p.SRAMBytes != d.tg.SRAMBytesPerTile {
		return fmt.Errorf("the package is for %s (%d tiles, %d bytes each); this device is %s (%d tiles, %d bytes each)",
			p.Target, p.Tiles, p.SRAMBytes, d.tg.Name, d.tg.Tiles, d.tg.SRAMBytesPerTile)
	}
	if err := p.Validate(); err != nil {
		return err
	}
	if err := Validate(p); err != nil {
		return fmt.Errorf("the package's program: %v", err)
	}
	if p.ExchangeBusPairs && !d.tg.ExchangeBusPairs {
		return fmt.Errorf("the package's exchange schedules deliver words to shared-bus tile pairs, which this device (%s) does not have", d.tg.Name)
	}
	d.log.Info("loading application", "tile_count", p.Tiles)
	for i, x := range p.Exchanges {
		if err := checkSchedule(p, x); err != nil {
			return fmt.Errorf("exchange table %d (phase %d): %v", i, x.Phase, err)
		}
	}
	d.unload()
	d.pieceOn = make([][]int32, len(p.Buffers))
	for b, buf := range p.Buffers {
		on := make([]int32, p.Tiles)
		for t := range on {
			on[t] = -1
		}
		for k, pc := range buf.Pieces {
			on[pc.Tile] = int32(k)
		}
		d.pieceOn[b] = on
	}
	mem, a, err := newMemories(p, len(p.Buffers))
	if err != nil {
		return err
	}
	d.mem, d.arena = mem, a
	d.writer = make([]int, len(p.Buffers))
	for b := range d.writer {
		d.writer[b] = -1
	}
	for i, in := range p.Program {
		if n := len(in.Operands); n > 0 && in.Op != ipupkg.OpSync {
			d.writer[in.Operands[n-1]] = i
		}
	}
	// A splat constant holds its value from the step it becomes live; a
	// view, once all it sees does (views come after the buffers they see,
	// so one pass in order is enough).
	// stepAt is the program index of each step (instruction) and, last,
	// the program's end.
	var stepAt []int
	for i, in := range p.Program {
		if in.Op != ipupkg.OpSync {
			stepAt = append(stepAt, i)
		}
	}
	stepAt = append(stepAt, len(p.Program))
	d.ready = slices.Clone(d.writer)
	for b, buf := range p.Buffers {
		if buf.Init != nil && buf.Init.Splat {
			d.ready[b] = stepAt[min(int(buf.Start), len(stepAt)-1)]
		}
		for _, v := range buf.ViewOf {
			d.ready[b] = max(d.ready[b], d.ready[v])
		}
	}
	d.pkg = p
	for b, buf := range p.Buffers {
		if buf.Init != nil && !buf.Init.Splat {
			if err := d.writeTensor(b, buf.Init.Data); err != nil {
				return fmt.Errorf("constant %s: %v", buf.Name, err)
			}
		}
	}
	d.loaded = true
	d.log.Info("application loaded and initial synchronization completed", "tile_count", p.Tiles)
	return nil
}

// checkSchedule verifies a phase's schedule as the compiler's verifier
// does (schedule.Verify), on the fabric the package was
// scheduled for: the device refuses to run a schedule that would make two
// words meet on a tile's exchange port.
func checkSchedule(p *ipupkg.Package, x ipupkg.Exchange) error {
	transfers := make([]schedule.Transfer, len(x.Transfers))
	for i, t := range x.Transfers {
		dst := make([]int32, len(t.Dst))
		for k, v := range t.Dst {
			dst[k] = int32(v)
		}
		transfers[i] = schedule.Transfer{Src: int32(t.Src), Dst: dst, Words: t.Words}
	}
	segs := make([]schedule.Segment, len(x.Segments))
	for i, s := range x.Segments {
		segs[i] = schedule.Segment{Transfer: s.Transfer, Start: s.Start, Words: s.Words}
	}
	return schedule.Verify(transfers, schedule.Fabric{Tiles: p.Tiles, Pairs: p.ExchangeBusPairs}, segs, x.Horizon)
}

// Session opens the host-exchange session.
func (d *Device) Session() (device.Session, error) {
	if !d.loaded {
		return nil, fmt.Errorf("%s: no package loaded", d.Name())
	}
	d.log.Info("starting host exchange session")
	return &session{d: d, mem: d.arena, checkpoints: make([][]byte, len(d.pkg.Checkpoints)), streaming: map[int][]byte{}}, nil
}

// parallel runs f for every tile in tiles on GOMAXPROCS goroutines and
// returns the first error.
func parallel(tiles []int, f func(tile int) error) error {
	workers := min(runtime.GOMAXPROCS(0), len(tiles))
	if workers <= 1 {
		for _, t := range tiles {
			if err := f(t); err != nil {
				return err
			}
		}
		return nil
	}
	var (
		mu    sync.Mutex
		first error
		next  int
		wg    sync.WaitGroup
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if first != nil || next == len(tiles) {
					mu.Unlock()
					return
				}
				t := tiles[next]
				next++
				mu.Unlock()
				if err := f(t); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}
