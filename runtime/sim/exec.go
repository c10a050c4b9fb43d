package sim

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/internal/rowmajor"
	"github.com/ipuir/ipuir/kernel"
	"github.com/ipuir/ipuir/numeric"
	"github.com/ipuir/ipuir/runtime/device"
	"github.com/ipuir/ipuir/runtime/ipupkg"
	"github.com/ipuir/ipuir/target"
)

type session struct {
	d           *Device
	mem         *arena // the memory of the load the session was opened on
	steps       int    // instructions in the program (syncs aside)
	checkpoints [][]byte
	cycles      *device.Cycles
	views       []*mapping // buffer → its view mapping (nil: not a view)
	// streaming is the chip's streaming memory: the inputs the host wrote
	// there, by the buffer a stream-in loads each into.
	streaming map[int][]byte
	// ioFree is the cycle from which the IO tiles may take the next load.
	ioFree int64
}

func (s *session) Cycles() *device.Cycles { return s.cycles }

// live refuses a session whose device has since been closed, or loaded
// again: its tiles' memory is gone.
func (s *session) live() error {
	if !s.d.loaded || s.d.arena != s.mem {
		return fmt.Errorf("%s: the session's package is no longer loaded", s.d.Name())
	}
	return nil
}

func (s *session) stream(index int, output bool) (ipupkg.Stream, error) {
	if err := s.live(); err != nil {
		return ipupkg.Stream{}, err
	}
	for _, st := range s.d.pkg.Streams {
		if st.Output == output && st.Index == index {
			return st, nil
		}
	}
	dir := "input"
	if output {
		dir = "output"
	}
	return ipupkg.Stream{}, fmt.Errorf("the package has no %s stream %d", dir, index)
}

// Write fills input stream index.
func (s *session) Write(index int, data []byte) error {
	st, err := s.stream(index, false)
	if err != nil {
		return err
	}
	if w := s.d.writer[st.Buffer]; w >= 0 && s.d.pkg.Program[w].Op == ipupkg.OpStreamIn {
		// A weight in streaming memory: the program's stream-in loads it.
		buf := s.d.pkg.Buffers[st.Buffer]
		if want := rowmajor.Elements(buf.Shape) * int64(numeric.CodecOf(buf.Elem).Bytes); int64(len(data)) != want {
			return fmt.Errorf("%s: %d bytes, want %d (%v %v)", buf.Name, len(data), want, buf.Elem, buf.Shape)
		}
		s.streaming[st.Buffer] = slices.Clone(data)
		return nil
	}
	return s.d.writeTensor(st.Buffer, data)
}

// streamIn carries out a stream-in whose exchange starts at cycle start:
// it writes the input the host put in streaming memory into every piece
// of its buffer and returns the cycles the program waits for it. Without
// IO tiles the chip streams or computes, not both, and waits for the
// whole transfer. With them (Target.IOTiles), a load that the IO tiles
// hold was prefetched into them from when they handed over the previous
// one (the program's start for the first: the host wrote the weights
// before the run), behind the compute and exchanges since; the program
// waits for what that did not hide, then for the hand-over exchange from
// the IO tiles (Target.IOMoveCycles), as a phase's prefetch does
// (runtime/pipeline.PricePhases).
func (s *session) streamIn(in ipupkg.Instruction, start int64, loads *device.StreamedLoads) (int64, error) {
	out := in.Operands[0]
	data, ok := s.streaming[out]
	if !ok {
		return 0, fmt.Errorf("buffer %d (%s): its input was not written to streaming memory", out, s.d.pkg.Buffers[out].Name)
	}
	if err := s.d.writeTensor(out, data); err != nil {
		return 0, err
	}
	buf := &s.d.pkg.Buffers[out]
	var bytes int64
	for _, pc := range buf.Pieces {
		n := int64(1)
		for _, sp := range pc.Box {
			n *= sp.Hi - sp.Lo
		}
		bytes += n * int64(numeric.CodecOf(buf.Elem).Bytes)
	}
	tg := s.d.tg
	load, err := tg.StreamingCycles(bytes)
	if err != nil {
		return 0, err
	}
	wait := load
	if tg.IOTiles > 0 && bytes <= tg.IOBytes() {
		move, err := tg.IOMoveCycles(bytes)
		if err != nil {
			return 0, err
		}
		hidden := min(load, max(start-s.ioFree, 0))
		wait = load - hidden + move
		loads.Hidden += hidden
	}
	s.ioFree = start + wait
	loads.Loads++
	loads.Bytes += bytes
	loads.Waited += wait
	return wait, nil
}

// writeTensor writes a whole tensor (row major) into every piece of
// buffer b.
func (d *Device) writeTensor(b int, data []byte) error {
	buf := d.pkg.Buffers[b]
	c := numeric.CodecOf(buf.Elem)
	if want := rowmajor.Elements(buf.Shape) * int64(c.Bytes); int64(len(data)) != want {
		return fmt.Errorf("%s: %d bytes, want %d (%v %v)", buf.Name, len(data), want, buf.Elem, buf.Shape)
	}
	// A buffer has one piece per tile, so the pieces are written in
	// parallel.
	pieces := make([]int, len(buf.Pieces))
	for k := range pieces {
		pieces[k] = k
	}
	return parallel(pieces, func(k int) error {
		pc := &buf.Pieces[k]
		return forRows(pc.Box, func(idx []int64, n int) error {
			lin := rowmajor.Linear(buf.Shape, idx)
			return d.writeRowRaw(b, pc.Tile, idx, n, data[lin*int64(c.Bytes):])
		})
	})
}

// readTensor gathers a whole tensor (row major) from buffer b's pieces.
func (s *session) readTensor(b int) ([]byte, error) {
	buf := s.d.pkg.Buffers[b]
	c := numeric.CodecOf(buf.Elem)
	n := rowmajor.Elements(buf.Shape)
	out := make([]byte, n*int64(c.Bytes))
	seen := make([]bool, n)
	r := s.reader()
	var row []float64
	for _, pc := range buf.Pieces {
		err := forRows(pc.Box, func(idx []int64, n int) error {
			lin := rowmajor.Linear(buf.Shape, idx)
			if seen[lin] {
				return nil // a replica's
			}
			row = slices.Grow(row[:0], n)[:n]
			if err := r.readRow(b, pc.Tile, idx, n, row); err != nil {
				return err
			}
			for k, v := range row {
				c.Store(out[(lin+int64(k))*int64(c.Bytes):], v)
				seen[lin+int64(k)] = true
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if i := slices.Index(seen, false); i >= 0 {
		return nil, fmt.Errorf("%s: element %d is on no tile", buf.Name, i)
	}
	return out, nil
}

// Read returns output stream index.
func (s *session) Read(index int) ([]byte, error) {
	st, err := s.stream(index, true)
	if err != nil {
		return nil, err
	}
	return s.readTensor(st.Buffer)
}

// Checkpoint returns checkpoint i as its buffer held it after it was
// written.
func (s *session) Checkpoint(i int) ([]byte, error) {
	if i < 0 || i >= len(s.checkpoints) || s.checkpoints[i] == nil {
		return nil, fmt.Errorf("checkpoint %d was not sampled (run first)", i)
	}
	return s.checkpoints[i], nil
}

// write stores v at idx of buffer b on tile.
func (d *Device) write(b, tile int, idx []int64, v float64) error {
	buf := &d.pkg.Buffers[b]
	if len(idx) != len(buf.Shape) || len(buf.ViewOf) > 0 {
		return fmt.Errorf("writes buffer %s (rank %d) at a rank-%d index, or through a view", buf.Name, len(buf.Shape), len(idx))
	}
	k := d.pieceOn[b][tile]
	if k < 0 {
		return fmt.Errorf("writes buffer %s on a tile that holds none of it", buf.Name)
	}
	pc := &buf.Pieces[k]
	if !contains(pc.Box, idx) {
		return fmt.Errorf("writes outside buffer %s: index %v is not in the tile's piece %v", buf.Name, idx, pc.Box)
	}
	c := numeric.CodecOf(buf.Elem)
	addr := pc.Address + offsetIn(pc.Box, idx)*int64(c.Bytes)
	if addr+int64(c.Bytes) > pc.Address+pc.Bytes {
		return fmt.Errorf("writes outside buffer %s: [%d, %d) is past its %d bytes at %d", buf.Name, addr, addr+int64(c.Bytes), pc.Bytes, pc.Address)
	}
	sp, err := d.mem[tile].at(addr, int64(c.Bytes))
	if err != nil {
		return err
	}
	c.Store(sp.bytes, v)
	sp.written(b)
	return nil
}

// reader reads elements, through views, with scratch of its own: one per
// goroutine.
type reader struct {
	s       *session
	scratch map[int][]int64
	frames  []*[3][]int64
	lines   []*[6][]int64
	depth   int
}

func (s *session) reader() *reader { return &reader{s: s, scratch: map[int][]int64{}} }

func (r *reader) read(b, tile int, idx []int64) (float64, error) {
	d := r.s.d
	buf := &d.pkg.Buffers[b]
	if len(idx) != len(buf.Shape) {
		return 0, fmt.Errorf("reads buffer %s (rank %d) at a rank-%d index", buf.Name, len(buf.Shape), len(idx))
	}
	if m := r.s.views[b]; m != nil {
		sc, ok := r.scratch[b]
		if !ok {
			sc = make([]int64, m.rank)
			r.scratch[b] = sc
		}
		j, src := m.at(idx, sc)
		return r.read(m.srcs[j], tile, src)
	}
	k := d.pieceOn[b][tile]
	if k < 0 {
		return 0, fmt.Errorf("reads buffer %s on a tile that holds none of it", buf.Name)
	}
	pc := &buf.Pieces[k]
	if !contains(pc.Box, idx) {
		return 0, fmt.Errorf("reads index %v of buffer %s, which is not in the tile's piece %v", idx, buf.Name, pc.Box)
	}
	c := numeric.CodecOf(buf.Elem)
	addr := pc.Address
	if buf.Init == nil || !buf.Init.Splat {
		addr += offsetIn(pc.Box, idx) * int64(c.Bytes)
	}
	sp, err := d.mem[tile].at(addr, int64(c.Bytes))
	if err != nil {
		return 0, err
	}
	if err := sp.check(d.pkg, b, "reads"); err != nil {
		return 0, err
	}
	return c.Load(sp.bytes), nil
}

func (r *reader) gather(b, tile int, box []ipupkg.Span) (*eval.Array, error) {
	buf := r.s.d.pkg.Buffers[b]
	out, err := eval.New(boxShape(box), buf.Elem)
	if err != nil {
		return nil, err
	}
	if len(box) == 0 {
		out.Data[0], err = r.read(b, tile, nil)
		return out, err
	}
	i := 0
	err = forRows(box, func(idx []int64, n int) error {
		err := r.readRow(b, tile, idx, n, out.Data[i:i+n])
		i += n
		return err
	})
	return out, err
}

// gather32 reads box of buffer b on tile into dst as float32 (b's values
// must all be float32 values).
func (r *reader) gather32(b, tile int, box []ipupkg.Span, dst []float32) error {
	if int64(len(dst)) != boxElements(box) || len(box) == 0 {
		return fmt.Errorf("reads %d elements of %s into %d", boxElements(box), r.s.d.pkg.Buffers[b].Name, len(dst))
	}
	var row []float64
	i := 0
	return forRows(box, func(idx []int64, n int) error {
		if r.s.views[b] == nil {
			if sp, c, err := r.s.d.storedRow(b, tile, idx, n); err == nil {
				c.LoadRow32(sp.bytes, dst[i:i+n])
				i += n
				return nil
			}
		}
		row = slices.Grow(row[:0], n)[:n]
		if err := r.readRow(b, tile, idx, n, row); err != nil {
			return err
		}
		for k, v := range row {
			dst[i+k] = float32(v)
		}
		i += n
		return nil
	})
}

// scatter32 writes float32 values (box's elements, row major) into the
// tile's piece of b, each rounded once to b's type.
func (d *Device) scatter32(b, tile int, box []ipupkg.Span, vals []float32) error {
	if int64(len(vals)) != boxElements(box) || len(box) == 0 {
		return fmt.Errorf("computes %d elements for a piece of %s that holds %d", len(vals), d.pkg.Buffers[b].Name, boxElements(box))
	}
	var row []float64
	i := 0
	return forRows(box, func(idx []int64, n int) error {
		row = slices.Grow(row[:0], n)[:n]
		for k := range row {
			row[k] = float64(vals[i+k])
		}
		i += n
		return d.writeRow(b, tile, idx, row)
	})
}

func (d *Device) scatter(b, tile int, box []ipupkg.Span, a *eval.Array) error {
	if int64(len(a.Data)) != boxElements(box) {
		return fmt.Errorf("computes %d elements for a piece of %s that holds %d", len(a.Data), d.pkg.Buffers[b].Name, boxElements(box))
	}
	if len(box) == 0 {
		return d.write(b, tile, nil, a.Data[0])
	}
	i := 0
	return forRows(box, func(idx []int64, n int) error {
		err := d.writeRow(b, tile, idx, a.Data[i:i+n])
		i += n
		return err
	})
}

// pieceBox is the box tile holds of buffer b (views included).
func (d *Device) pieceBox(b, tile int) ([]ipupkg.Span, bool) {
	k := d.pieceOn[b][tile]
	if k < 0 {
		return nil, false
	}
	return d.pkg.Buffers[b].Pieces[k].Box, true
}

func (d *Device) tilesOf(b int) []int {
	var out []int
	for _, pc := range d.pkg.Buffers[b].Pieces {
		out = append(out, pc.Tile)
	}
	return out
}

// Run executes the program once.
func (s *session) Run() error {
	if err := s.live(); err != nil {
		return err
	}
	d, p := s.d, s.d.pkg
	d.log.Info("invoking streaming host exchange call", "call", "run")
	if err := s.prepareViews(); err != nil {
		return err
	}
	s.steps = 0
	for _, in := range p.Program {
		if in.Op != ipupkg.OpSync {
			s.steps++
		}
	}
	for i, c := range p.Checkpoints {
		if d.ready[c.Buffer] < 0 && p.Buffers[c.Buffer].Init == nil {
			snap, err := s.readTensor(c.Buffer)
			if err != nil {
				return fmt.Errorf("checkpoint %d (%s): %v", i, c.Name, err)
			}
			s.checkpoints[i] = snap
		}
	}
	cyc := &device.Cycles{}
	s.ioFree = 0
	perTile := map[int64][]int64{} // superstep → compute cycles per tile
	words := map[int64][]int64{}   // superstep → exchange words per tile (busier direction)
	syncs := map[int64]int64{}
	exch := map[int64]int64{}
	crossing := map[int64]bool{} // supersteps whose exchange crosses chips: their syncs are every chip's
	var steps []int64
	pendingSyncs := int64(0)
	clock := int64(0) // cycles before the current superstep, for faults
	step := int64(0)
	for i, in := range p.Program {
		if in.Op == ipupkg.OpSync {
			pendingSyncs++
			continue
		}
		if len(in.Operands) == 0 {
			return &Fault{Instruction: i, Op: in.Op.String(), Cycle: clock, Msg: "an instruction with no output"}
		}
		if _, ok := perTile[in.Superstep]; !ok {
			perTile[in.Superstep] = make([]int64, p.Tiles)
			words[in.Superstep] = make([]int64, p.Tiles)
			steps = append(steps, in.Superstep)
			clock = total(d.tg, steps[:len(steps)-1], perTile, syncs, crossing, exch)
		}
		syncs[in.Superstep] += pendingSyncs
		pendingSyncs = 0
		if err := s.writeSplats(step); err != nil {
			return err
		}
		for k, c := range p.Checkpoints {
			if b := p.Buffers[c.Buffer]; b.Init != nil && b.Init.Splat && b.Start == step {
				var err error
				if s.checkpoints[k], err = s.readTensor(c.Buffer); err != nil {
					return fmt.Errorf("checkpoint %d (%s): %v", k, c.Name, err)
				}
			}
		}
		cost := make([]int64, p.Tiles)
		fault := func(tile int, err error) error {
			return &Fault{Tile: tile, Cycle: clock + perTile[in.Superstep][tile], Instruction: i, Op: in.Op.String(), Msg: err.Error()}
		}
		var err error
		if in.Op == ipupkg.OpStreamIn {
			// In the superstep's exchange, with the chip's streaming memory:
			// every tile waits for the load.
			start := clock + slices.Max(perTile[in.Superstep]) + syncs[in.Superstep]*int64(d.tg.SyncCycles) + exch[in.Superstep]
			var c int64
			if c, err = s.streamIn(in, start, &cyc.Streamed); err != nil {
				err = &Fault{Tile: -1, Cycle: start, Instruction: i, Op: in.Op.String(), Msg: err.Error()}
			} else {
				exch[in.Superstep] += c
				cyc.Ops = append(cyc.Ops, device.OpCycles{Instruction: i, Op: in.Op.String(), Superstep: in.Superstep, Cycles: c,
					Busy: device.TileLoad{Tile: -1}})
			}
		} else if in.Op == ipupkg.OpExchange {
			// The phase starts after the superstep's compute and its sync.
			start := clock + slices.Max(perTile[in.Superstep]) + syncs[in.Superstep]*int64(d.tg.SyncCycles)
			var horizon int64
			horizon, err = s.exchange(in, func(tile int, err error) error {
				return &Fault{Tile: tile, Cycle: start, Instruction: i, Op: in.Op.String(), Msg: err.Error()}
			})
			if err == nil {
				// Across the chips of a span the phase also waits for the
				// links, and its sync is every chip's.
				x := &p.Exchanges[in.Int(ipupkg.ParamExchange)]
				crossed := chipBytes(x, d.tg)
				c, sync, cerr := d.tg.ExchangeStepCycles(horizon, crossed)
				exch[in.Superstep] += c
				if sync > int64(d.tg.SyncCycles) {
					crossing[in.Superstep] = true
					onChip, _ := d.tg.ExchangePhaseCycles(horizon)
					cyc.ChipLinks.Phases++
					cyc.ChipLinks.Waited += c - onChip
					for _, b := range crossed {
						cyc.ChipLinks.Bytes += b
					}
				}
				load := exchangeWords(x, p.Tiles)
				for t, w := range load {
					words[in.Superstep][t] += w
				}
				cyc.Ops = append(cyc.Ops, device.OpCycles{Instruction: i, Op: in.Op.String(), Superstep: in.Superstep, Cycles: c,
					Busy: device.LoadOf(load)})
				err = cerr
			}
		} else {
			out := in.Operands[len(in.Operands)-1]
			err = parallel(d.tilesOf(out), func(tile int) error {
				c, err := s.compute(in, tile)
				if err != nil {
					return fault(tile, err)
				}
				cost[tile] = c
				return nil
			})
			for t, c := range cost {
				perTile[in.Superstep][t] += c
			}
			busy := device.LoadOf(cost)
			cyc.Ops = append(cyc.Ops, device.OpCycles{Instruction: i, Op: in.Op.String(), Superstep: in.Superstep, Cycles: max(busy.Load, 0), Busy: busy})
		}
		if err != nil {
			return err
		}
		for k, c := range p.Checkpoints {
			if d.ready[c.Buffer] == i {
				if s.checkpoints[k], err = s.readTensor(c.Buffer); err != nil {
					return fmt.Errorf("checkpoint %d (%s): %v", k, c.Name, err)
				}
			}
		}
		step++
	}
	// Splat constants that become live after the last instruction (a
	// constant the function returns) hold their value for the host, and
	// what sees them is ready.
	if err := s.writeSplats(step); err != nil {
		return err
	}
	for k, c := range p.Checkpoints {
		if d.ready[c.Buffer] == len(p.Program) {
			var err error
			if s.checkpoints[k], err = s.readTensor(c.Buffer); err != nil {
				return fmt.Errorf("checkpoint %d (%s): %v", k, c.Name, err)
			}
		}
	}
	for _, st := range steps {
		if crossing[st] {
			cyc.ChipLinks.SyncCycles += syncCycles(d.tg, syncs[st], true) - syncCycles(d.tg, syncs[st], false)
		}
		load := slices.Clone(perTile[st])
		for t, w := range words[st] {
			load[t] += w
		}
		cyc.Supersteps = append(cyc.Supersteps, device.SuperstepCycles{Superstep: st, Compute: slices.Max(perTile[st]),
			Sync: syncCycles(d.tg, syncs[st], crossing[st]), Exchange: exch[st], Busy: device.LoadOf(load)})
	}
	cyc.Total = total(d.tg, steps, perTile, syncs, crossing, exch)
	s.cycles = cyc
	d.log.Info("program finished", "total_cycles", cyc.Total, "supersteps", len(steps))
	return nil
}

// exchangeWords is the words each tile sends or receives in a phase, the
// busier direction: a tile takes part in a phase for that many cycles.
func exchangeWords(x *ipupkg.Exchange, tiles int) []int64 {
	sent, received := make([]int64, tiles), make([]int64, tiles)
	for _, sg := range x.Segments {
		if sg.Transfer < 0 || sg.Transfer >= len(x.Transfers) {
			continue // the validator refuses such a package before it runs
		}
		tr := &x.Transfers[sg.Transfer]
		if tr.Src >= 0 && tr.Src < tiles {
			sent[tr.Src] += sg.Words
		}
		for _, to := range tr.Dst {
			if to >= 0 && to < tiles {
				received[to] += sg.Words
			}
		}
	}
	for t := range sent {
		sent[t] = max(sent[t], received[t])
	}
	return sent
}

func total(tg *target.Target, steps []int64, perTile map[int64][]int64, syncs map[int64]int64, crossing map[int64]bool, exch map[int64]int64) int64 {
	sum := int64(0)
	for _, st := range steps {
		sum += slices.Max(perTile[st]) + syncCycles(tg, syncs[st], crossing[st]) + exch[st]
	}
	return sum
}

// syncCycles is a superstep's n syncs: every chip's where its exchange
// crosses the chips of a span, else the chip's tiles'.
func syncCycles(tg *target.Target, n int64, crossing bool) int64 {
	if crossing {
		return n * tg.Links.SyncCycles
	}
	return n * int64(tg.SyncCycles)
}

// chipBytes is the bytes an exchange moves between the chips of a span, from
// chip a to chip b at [a·chips+b] (target.AddCrossing: a segment once for
// each other chip its receivers are on); nil on one chip.
func chipBytes(x *ipupkg.Exchange, tg *target.Target) []int64 {
	chips := tg.SpanChips()
	if chips < 2 {
		return nil
	}
	bytes := make([]int64, chips*chips)
	for _, sg := range x.Segments {
		if sg.Transfer < 0 || sg.Transfer >= len(x.Transfers) {
			continue // the validator refuses such a package before it runs
		}
		tr := &x.Transfers[sg.Transfer]
		target.AddCrossing(tg, bytes, tr.Src, tr.Dst, sg.Words*int64(tg.ExchangeWordBytes))
	}
	return bytes
}

func (s *session) prepareViews() error {
	var err error
	s.views, err = viewMappings(s.d.pkg)
	return err
}

// writeSplats writes the splat constants that become live at step (at
// the program's end, step is the step count: every later one too).
func (s *session) writeSplats(step int64) error {
	last := step == int64(s.steps)
	for b, buf := range s.d.pkg.Buffers {
		if buf.Init == nil || !buf.Init.Splat || buf.Start < step || (buf.Start > step && !last) {
			continue
		}
		c := numeric.CodecOf(buf.Elem)
		v := c.Load(buf.Init.Data)
		for _, pc := range buf.Pieces {
			// One element per tile: every index reads it.
			lo := make([]int64, len(pc.Box))
			for i, sp := range pc.Box {
				lo[i] = sp.Lo
			}
			if boxElements(pc.Box) == 0 {
				continue
			}
			if err := s.d.write(b, pc.Tile, lo, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// compute runs instruction in on tile and returns its cycles there.
func (s *session) compute(in ipupkg.Instruction, tile int) (int64, error) {
	d := s.d
	r := s.reader()
	out := in.Operands[len(in.Operands)-1]
	outBuf := d.pkg.Buffers[out]
	box, _ := d.pieceBox(out, tile)
	n := boxElements(box)
	switch in.Op {
	case ipupkg.OpVector:
		fn, err := kernel.FnNamed(in.Str(ipupkg.ParamFn))
		if err != nil {
			return 0, err
		}
		if len(in.Operands)-1 != fn.Arity {
			return 0, fmt.Errorf("%s takes %d inputs, the instruction has %d", fn.Name, fn.Arity, len(in.Operands)-1)
		}
		args := make([]*eval.Array, fn.Arity)
		for j := range args {
			if args[j], err = r.gather(in.Operands[j], tile, box); err != nil {
				return 0, err
			}
		}
		var res *eval.Array
		switch {
		case fn.Name == "convert":
			res, err = eval.Convert(args[0], outBuf.Elem)
		case fn.Arity == 3:
			res, err = eval.Select(args[0], args[1], args[2])
		case fn.Arity == 2:
			res, err = eval.Binary(fn.Binary, args[0], args[1])
		default:
			res, err = eval.Unary(fn.Unary, args[0])
		}
		if err == nil && res.Kind != outBuf.Elem {
			res, err = eval.Convert(res, outBuf.Elem)
		}
		if err != nil {
			return 0, err
		}
		if err := d.scatter(out, tile, box, res); err != nil {
			return 0, err
		}
		operandTypes := make([]elem.Type, len(args))
		for j, a := range args {
			operandTypes[j] = a.Kind
		}
		return fn.Cycles(d.tg, n, kernel.PricedAs(outBuf.Elem, operandTypes...))
	case ipupkg.OpReduce:
		red, err := kernel.ReductionNamed(in.Str(ipupkg.ParamFn))
		if err != nil {
			return 0, err
		}
		op := red.Op
		src := in.Operands[0]
		srcBox, ok := d.pieceBox(src, tile)
		if !ok {
			return 0, fmt.Errorf("the tile holds none of the reduction's input")
		}
		axes := in.Ints(ipupkg.ParamAxes)
		if len(srcBox) != len(box) {
			return 0, fmt.Errorf("a rank-%d reduction of a rank-%d input", len(box), len(srcBox))
		}
		readBox := slices.Clone(box)
		var iaxes []int
		for _, a := range axes {
			if a < 0 || int(a) >= len(readBox) {
				return 0, fmt.Errorf("axis %d of a rank-%d reduction", a, len(readBox))
			}
			readBox[a] = srcBox[a]
			iaxes = append(iaxes, int(a))
		}
		arr, err := r.gather(src, tile, readBox)
		if err != nil {
			return 0, err
		}
		res, err := eval.Reduce(op, arr, iaxes)
		if err == nil && res.Kind != outBuf.Elem {
			res, err = eval.Convert(res, outBuf.Elem)
		}
		if err != nil {
			return 0, err
		}
		if err := d.scatter(out, tile, box, res); err != nil {
			return 0, err
		}
		return d.tg.ReductionCycles(boxExtents(readBox), iaxes, d.pkg.Buffers[src].Elem)
	case ipupkg.OpAmp:
		return s.amp(in, tile, r, box)
	case ipupkg.OpCopy:
		var ins [][]int64
		for _, o := range in.Operands[:len(in.Operands)-1] {
			ins = append(ins, d.pkg.Buffers[o].Shape)
		}
		m, err := newMapping(in.Str(ipupkg.ParamMovement), in.Params, in.Operands[:len(in.Operands)-1], outBuf.Shape, ins)
		if err != nil {
			return 0, err
		}
		// A copy reads its operands through the mapping its kind says.
		arr, err := eval.New(boxShape(box), outBuf.Elem)
		if err != nil {
			return 0, err
		}
		i := 0
		err = forRows(box, func(idx []int64, n int) error {
			err := r.readRowVia(m, tile, idx, n, arr.Data[i:i+n])
			i += n
			return err
		})
		if err != nil {
			return 0, err
		}
		if err := d.scatter(out, tile, box, arr); err != nil {
			return 0, err
		}
		return d.tg.ElementwiseCycles(n, outBuf.Elem, target.Simple)
	}
	return 0, fmt.Errorf("no such instruction")
}

// amp multiplies the tile's pieces: out[batch, rows, cols] (a partial
// output has the inner partition first) = lhs[batch, rows, K] ×
// rhs[batch, K, cols] over the inner range K the tile's lhs piece holds,
// accumulating in f32.
func (s *session) amp(in ipupkg.Instruction, tile int, r *reader, box []ipupkg.Span) (int64, error) {
	d := s.d
	if len(in.Operands) != 3 {
		return 0, fmt.Errorf("an AMP instruction takes lhs, rhs and output")
	}
	lhs, rhs, out := in.Operands[0], in.Operands[1], in.Operands[2]
	partial := in.Flag(ipupkg.ParamPartial)
	rest := box
	if partial {
		rest = box[1:]
	}
	if len(rest) < 2 {
		return 0, fmt.Errorf("an output of rank %d", len(box))
	}
	lbox, ok := d.pieceBox(lhs, tile)
	if !ok || len(lbox) != len(rest) {
		return 0, fmt.Errorf("the tile holds no lhs piece of the output's rank")
	}
	k := lbox[len(lbox)-1]
	batch := rest[:len(rest)-2]
	rows, cols := rest[len(rest)-2], rest[len(rest)-1]
	m, kk, nn := int(rows.Hi-rows.Lo), int(k.Hi-k.Lo), int(cols.Hi-cols.Lo)
	et, outElem := d.pkg.Buffers[lhs].Elem, d.pkg.Buffers[out].Elem
	partials := target.DefaultPartials
	if in.Str(ipupkg.ParamPartials) == elem.F16.String() {
		partials = elem.F16
	}
	vertex, ok := d.tg.AMPVertexFor(et, partials)
	if !ok {
		return 0, fmt.Errorf("the AMP has no vertex for %v inputs with %v partials", et, partials)
	}
	cycles := func() (int64, error) {
		m, nn, weights := m, nn, rhs
		if plan := in.Ints(ipupkg.ParamPlan); len(plan) > 0 && plan[0] == ipupkg.PlanSwapped {
			// The AMP computes the transposed product: its rows are the
			// output's columns, and its weights the left operand.
			m, nn, weights = nn, m, lhs
		}
		class := d.pkg.Buffers[weights].Class
		return d.tg.AMPCycles(target.AMPWork{Batch: boxElements(batch), Rows: int64(m), Inner: int64(kk), Columns: int64(nn),
			Elem: et, Partials: partials, Loads128: class >= 0 && class < len(d.pkg.Classes) && d.pkg.Classes[class].Kind == target.Interleaved.String()})
	}
	lbox, rbox := append(slices.Clone(batch), rows, k), append(slices.Clone(batch), k, cols)
	if d.pkg.Buffers[rhs].Elem == et && numeric.Widens(et, elem.F32) && numeric.Widens(outElem, elem.F32) {
		// The AMP's own arithmetic: operands as float32, f32 sums, each
		// output rounded once to its type (what eval.MatMul computes on
		// the same values, without its float64 arrays).
		nb := int(boxElements(batch))
		a32, b32, c32 := make([]float32, nb*m*kk), make([]float32, nb*kk*nn), make([]float32, nb*m*nn)
		if err := r.gather32(lhs, tile, lbox, a32); err != nil {
			return 0, err
		}
		if err := r.gather32(rhs, tile, rbox, b32); err != nil {
			return 0, err
		}
		var err error
		if partials == elem.F16 {
			// f16 partials: each block of the vertex's input channels
			// summed in f32, the partial sum rounded to f16 after each.
			err = eval.MatMulF16Partials(nb, m, kk, nn, vertex.InputChannels(), a32, b32, c32)
		} else {
			err = eval.MatMulF32(nb, m, kk, nn, a32, b32, c32)
		}
		if err != nil {
			return 0, err
		}
		if err := d.scatter32(out, tile, box, c32); err != nil {
			return 0, err
		}
		return cycles()
	}
	a, err := r.gather(lhs, tile, lbox)
	if err != nil {
		return 0, err
	}
	b, err := r.gather(rhs, tile, rbox)
	if err != nil {
		return 0, err
	}
	if outElem != et {
		// A partial output holds f32 sums: multiply as f32 (the AMP
		// accumulates in f32 either way; eval rounds to the operands' kind).
		// The gathered pieces are the amp's own: where f32 holds their
		// values as they are, they are relabelled rather than copied.
		for _, x := range []**eval.Array{&a, &b} {
			if numeric.Widens((*x).Kind, elem.F32) {
				(*x).Kind = elem.F32
			} else if *x, err = eval.Convert(*x, elem.F32); err != nil {
				return 0, err
			}
		}
	}
	var res *eval.Array
	if len(batch) == 0 {
		res, err = eval.MatMul(a, b)
	} else {
		res, err = eval.BatchMatMul(a, b)
	}
	if err == nil && res.Kind != outElem {
		res, err = eval.Convert(res, outElem)
	}
	if err != nil {
		return 0, err
	}
	if err := d.scatter(out, tile, box, res); err != nil {
		return 0, err
	}
	return cycles()
}

// copyRuns moves the elements [lo, hi) (row major over box, indices of
// dst) of stored buffer src, held on tile from at the index plus off, into
// dst on tile, as runs of bytes that are consecutive in both pieces: the
// box's trailing axes that span both pieces whole join the last one, so a
// piece four columns wide moves in runs of rows × 4 elements, not in rows
// of 4. It returns false, having done nothing, where the copy is not such
// a one (a view or splat source, another element type, strides, a box not
// inside both pieces): the element-wise path then moves it, or says what
// is wrong.
func (d *Device) copyRuns(dst, tile, src, from int, box []ipupkg.Span, off []int64, lo, hi int64) (bool, error) {
	sb, db := &d.pkg.Buffers[src], &d.pkg.Buffers[dst]
	rank := len(box)
	if off == nil || rank == 0 || len(sb.ViewOf) > 0 || sb.Init != nil && sb.Init.Splat || sb.Elem != db.Elem ||
		len(sb.Shape) != rank || len(db.Shape) != rank || lo >= hi {
		return false, nil
	}
	ks, kd := d.pieceOn[src][from], d.pieceOn[dst][tile]
	if ks < 0 || kd < 0 {
		return false, nil
	}
	sp, dp := &sb.Pieces[ks], &db.Pieces[kd]
	S, D := sp.Box, dp.Box
	for i, b := range box {
		if b.Lo < D[i].Lo || b.Hi > D[i].Hi || b.Lo+off[i] < S[i].Lo || b.Hi+off[i] > S[i].Hi || b.Hi <= b.Lo {
			return false, nil
		}
	}
	j := rank - 1
	for j > 0 && box[j] == D[j] && box[j].Lo+off[j] == S[j].Lo && box[j].Hi+off[j] == S[j].Hi {
		j--
	}
	run := int64(1)
	for i := j; i < rank; i++ {
		run *= box[i].Hi - box[i].Lo
	}
	eb := int64(db.Elem.Bytes())
	if sp.Bytes < boxElements(S)*eb || dp.Bytes < boxElements(D)*eb {
		return false, nil
	}
	idx, sidx := make([]int64, rank), make([]int64, rank)
	for pos := lo; pos < hi; {
		n := min(hi, pos-pos%run+run) - pos
		rest := pos
		for i := rank - 1; i >= 0; i-- {
			ext := box[i].Hi - box[i].Lo
			idx[i] = box[i].Lo + rest%ext
			sidx[i] = idx[i] + off[i]
			rest /= ext
		}
		srcSpan, err := d.mem[from].at(sp.Address+offsetIn(S, sidx)*eb, n*eb)
		if err == nil {
			err = srcSpan.check(d.pkg, src, "reads")
		}
		if err != nil {
			return true, err
		}
		to, err := d.mem[tile].at(dp.Address+offsetIn(D, idx)*eb, n*eb)
		if err != nil {
			return true, err
		}
		copy(to.bytes, srcSpan.bytes)
		to.written(dst)
		pos += n
	}
	return true, nil
}

// exchange runs one phase: each destination tile first copies what it
// already holds of the sources, then receives the transfers sent to it.
// It returns the phase's horizon.
func (s *session) exchange(in ipupkg.Instruction, fault func(int, error) error) (int64, error) {
	d, p := s.d, s.d.pkg
	x := &p.Exchanges[in.Int(ipupkg.ParamExchange)]
	srcs, dst := in.Operands[:len(in.Operands)-1], in.Operands[len(in.Operands)-1]
	rank := len(p.Buffers[dst].Shape)
	srcIndex := func(k int, idx, into []int64) []int64 {
		for i := range idx {
			off, str := int64(0), int64(1)
			if len(x.SourceOffsets) == len(srcs)*rank {
				off = x.SourceOffsets[k*rank+i]
			}
			if len(x.SourceStrides) == len(srcs)*rank {
				str = x.SourceStrides[k*rank+i]
			}
			into[i] = off + str*idx[i]
		}
		return into
	}
	stride := func(k, i int) int64 {
		if len(x.SourceStrides) == len(srcs)*rank {
			return x.SourceStrides[k*rank+i]
		}
		return 1
	}
	offset := func(k, i int) int64 {
		if len(x.SourceOffsets) == len(srcs)*rank {
			return x.SourceOffsets[k*rank+i]
		}
		return 0
	}
	// sourceOffset is source k's index offset per axis where its strides
	// are all 1 (the copies copyRuns can move in runs), nil otherwise.
	sourceOffset := func(k int) []int64 {
		off := make([]int64, rank)
		for i := range rank {
			if stride(k, i) != 1 {
				return nil
			}
			off[i] = offset(k, i)
		}
		return off
	}
	// coveredBy is the part of box whose source-k indices fall in sb.
	coveredBy := func(box, sb []ipupkg.Span, k int) ([]ipupkg.Span, bool) {
		if len(sb) != rank {
			return nil, false
		}
		out := make([]ipupkg.Span, rank)
		for i := range rank {
			off, str := offset(k, i), stride(k, i)
			if str < 1 {
				return nil, false
			}
			lo := max(box[i].Lo, numeric.CeilDiv(sb[i].Lo-off, str))
			hi := min(box[i].Hi, numeric.FloorDiv(sb[i].Hi-1-off, str)+1)
			if lo >= hi {
				return nil, false
			}
			out[i] = ipupkg.Span{Lo: lo, Hi: hi}
		}
		return out, true
	}
	for t, tr := range x.Transfers {
		if tr.Operand >= len(srcs) || len(tr.Box) != rank {
			return 0, fault(tr.Src, fmt.Errorf("transfer %d reads source %d of %d with a rank-%d box", t, tr.Operand, len(srcs), len(tr.Box)))
		}
	}
	// Elements per 32-bit word (the target's exchange word), and each
	// destination's segments in cycle order with the word they start at.
	elemBytes := int64(p.Buffers[dst].Elem.Bytes())
	epw := max(int64(d.tg.ExchangeWordBytes)/elemBytes, 1)
	type segment struct {
		transfer            int
		start, first, words int64
	}
	next := make([]int64, len(x.Transfers))
	order := slices.Clone(x.Segments)
	slices.SortStableFunc(order, func(a, b ipupkg.Segment) int { return cmp.Compare(a.Start, b.Start) })
	incomingSegments := make([][]segment, p.Tiles)
	for _, sg := range order {
		tr := x.Transfers[sg.Transfer]
		seg := segment{transfer: sg.Transfer, start: sg.Start, first: next[sg.Transfer], words: sg.Words}
		next[sg.Transfer] += sg.Words
		for _, to := range tr.Dst {
			incomingSegments[to] = append(incomingSegments[to], seg)
		}
	}
	err := parallel(d.tilesOf(dst), func(tile int) error {
		r := s.reader()
		box, _ := d.pieceBox(dst, tile)
		// copyLine moves n elements along axis from idx on this tile (row
		// major over the box it is called for: the axes after axis have
		// one index) from source k at the mapped indices on tile from.
		startBuf, dir := make([]int64, rank), make([]int64, rank)
		copyLine := func(k, from int, idx []int64, axis, n int) error {
			start := srcIndex(k, idx, startBuf)
			if rank == 0 {
				v, err := r.read(srcs[k], from, start)
				if err != nil {
					return err
				}
				return d.write(dst, tile, idx, v)
			}
			if p.Buffers[srcs[k]].Elem == p.Buffers[dst].Elem {
				// The common case: elements of one stored buffer, moved
				// as their bytes.
				clear(dir)
				dir[axis] = stride(k, axis)
				if l, ok := r.lineOf(nil, srcs[k], from, start, dir, n); ok {
					if ok, err := d.writeLine(dst, tile, idx, axis, &l); ok || err != nil {
						return err
					}
				}
			}
			// Element by element, through the checks that say what is
			// wrong.
			at := slices.Clone(idx)
			for e := range n {
				at[axis] = idx[axis] + int64(e)
				v, err := r.read(srcs[k], from, srcIndex(k, at, make([]int64, rank)))
				if err != nil {
					return err
				}
				if err := d.write(dst, tile, at, v); err != nil {
					return err
				}
			}
			return nil
		}
		// What the tile holds already: for each source, the part of the
		// destination piece whose elements its piece on this tile has.
		for k, src := range srcs {
			sb, ok := d.pieceBox(src, tile)
			if !ok {
				continue
			}
			sub, ok := coveredBy(box, sb, k)
			if !ok {
				continue
			}
			if done, err := d.copyRuns(dst, tile, src, tile, sub, sourceOffset(k), 0, boxElements(sub)); done || err != nil {
				if err != nil {
					return fault(tile, err)
				}
				continue
			}
			if err := forLines(sub, 0, boxElements(sub), func(idx []int64, axis, n int) error { return copyLine(k, tile, idx, axis, n) }); err != nil {
				return fault(tile, err)
			}
		}
		// The words sent to this tile, segment by segment in the order of
		// their cycles: a segment's words are the next ones of its
		// transfer, its box's elements in row-major order.
		for _, sg := range incomingSegments[tile] {
			tr := &x.Transfers[sg.transfer]
			lo, hi := sg.first*epw, min((sg.first+sg.words)*epw, boxElements(tr.Box))
			if done, err := d.copyRuns(dst, tile, srcs[tr.Operand], tr.Src, tr.Box, sourceOffset(tr.Operand), lo, hi); done || err != nil {
				if err != nil {
					return fault(tile, fmt.Errorf("transfer %d from tile %d, cycle %d: %v", sg.transfer, tr.Src, sg.start, err))
				}
				continue
			}
			err := forLines(tr.Box, lo, hi, func(idx []int64, axis, n int) error {
				if err := copyLine(tr.Operand, tr.Src, idx, axis, n); err != nil {
					return fmt.Errorf("transfer %d from tile %d, cycle %d: %v", sg.transfer, tr.Src, sg.start, err)
				}
				return nil
			})
			if err != nil {
				return fault(tile, err)
			}
		}
		// Every element of the destination piece must have arrived.
		return forRows(box, func(idx []int64, n int) error {
			if _, _, err := d.storedRow(dst, tile, idx, n); err != nil {
				return fault(tile, fmt.Errorf("phase %d leaves part of %s unwritten on the tile: %v", x.Phase, p.Buffers[dst].Name, err))
			}
			return nil
		})
	})
	return x.Horizon, err
}
