package exchange

import (
	"encoding/binary"
	"slices"
	"strconv"
	"strings"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/layout"
	"github.com/ipuir/ipuir/parser"
	"github.com/ipuir/ipuir/schedule"
)

// Transfer is one piece of an exchange phase: the elements Box (in the
// phase result's index space) of source value Operand, sent by tile Src to
// every tile of Dst, Words 32-bit words. Each tile sends its transfers
// from a contiguous send buffer and receives into a contiguous receive
// buffer, in transfer order; Offsets gives those positions.
type Transfer struct {
	Operand int32
	Src     int32
	Dst     []int32
	Words   int64
	Box     layout.Box
}

// TransfersAttr is #exchange.transfers<...>: a phase's transfers. Up to
// readableTransfers of them print one record each,
//
//	#exchange.transfers<[{src = 0, dst = [1, 2], words = 8, box = [[0, 4], [0, 4]]}, ...]>
//
// (operand = K when not 0); more print packed, one flat list of integers
// per transfer field in turn: operand, src, number of destinations, the
// destinations, words, then lo and hi per axis:
//
//	#exchange.transfers<rank = 2, packed = [0, 0, 2, 1, 2, 8, 0, 4, 0, 4, ...]>
//
// Both forms parse.
type TransfersAttr struct {
	Rank int
	List []Transfer
}

// readableTransfers is how many transfers print as records.
const readableTransfers = 16

// NewTransfersAttr uniques a transfer list.
func NewTransfersAttr(ctx *ir.Context, rank int, list []Transfer) *TransfersAttr {
	return ir.UniqueAttr(ctx, &TransfersAttr{Rank: rank, List: list})
}

// UniqueKey is the list in binary: hashing a printed million integers
// would cost more than building them.
func (a *TransfersAttr) UniqueKey() string {
	b := binary.AppendUvarint(nil, uint64(a.Rank))
	for _, t := range a.List {
		b = binary.AppendVarint(b, int64(t.Operand))
		b = binary.AppendVarint(b, int64(t.Src))
		b = binary.AppendUvarint(b, uint64(len(t.Dst)))
		for _, d := range t.Dst {
			b = binary.AppendVarint(b, int64(d))
		}
		b = binary.AppendVarint(b, t.Words)
		for _, s := range t.Box {
			b = binary.AppendVarint(b, s.Lo)
			b = binary.AppendVarint(b, s.Hi)
		}
	}
	return string(b)
}

func (a *TransfersAttr) Print(p *ir.AsmPrinter) {
	p.WriteString("#exchange.transfers<")
	var b []byte
	if len(a.List) > 0 && len(a.List) <= readableTransfers {
		b = append(b, '[')
		for i, t := range a.List {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(b, "{"...)
			if t.Operand != 0 {
				b = append(strconv.AppendInt(append(b, "operand = "...), int64(t.Operand), 10), ", "...)
			}
			b = strconv.AppendInt(append(b, "src = "...), int64(t.Src), 10)
			b = append(b, ", dst = ["...)
			for j, d := range t.Dst {
				if j > 0 {
					b = append(b, ", "...)
				}
				b = strconv.AppendInt(b, int64(d), 10)
			}
			b = strconv.AppendInt(append(b, "], words = "...), t.Words, 10)
			b = append(b, ", box = ["...)
			for j, s := range t.Box {
				if j > 0 {
					b = append(b, ", "...)
				}
				b = strconv.AppendInt(append(b, '['), s.Lo, 10)
				b = append(strconv.AppendInt(append(b, ", "...), s.Hi, 10), ']')
			}
			b = append(b, "]}"...)
		}
		b = append(b, ']')
	} else {
		b = strconv.AppendInt(append(b, "rank = "...), int64(a.Rank), 10)
		b = append(b, ", packed = ["...)
		first := true
		put := func(v int64) {
			if !first {
				b = append(b, ", "...)
			}
			first = false
			b = strconv.AppendInt(b, v, 10)
		}
		for _, t := range a.List {
			put(int64(t.Operand))
			put(int64(t.Src))
			put(int64(len(t.Dst)))
			for _, d := range t.Dst {
				put(int64(d))
			}
			put(t.Words)
			for _, s := range t.Box {
				put(s.Lo)
				put(s.Hi)
			}
		}
		b = append(b, ']')
	}
	p.WriteString(string(b))
	p.WriteString(">")
}

func parseTransfers(ctx *ir.Context, text string, _ ir.Type) (ir.Attribute, error) {
	sc, err := parser.NewBodyScanner(text)
	if err != nil {
		return nil, err
	}
	a := &TransfersAttr{}
	limit := len(text) // an integer takes at least one byte
	small := func(what string, v int64) (int32, error) {
		if v < 0 || v > 1<<30 {
			return 0, sc.Errorf("%s %d out of range", what, v)
		}
		return int32(v), nil
	}
	if sc.Peek() == '[' {
		// Records; the rank is the first box's.
		if err := sc.Expect('['); err != nil {
			return nil, err
		}
		for !sc.Accept(']') {
			if len(a.List) > 0 {
				if err := sc.Expect(','); err != nil {
					return nil, err
				}
			}
			var t Transfer
			if err := sc.Expect('{'); err != nil {
				return nil, err
			}
			at := sc.Mark()
			if w, _ := sc.Word(); w == "operand" {
				if err := sc.Expect('='); err != nil {
					return nil, err
				}
				v, err := sc.Int()
				if err != nil {
					return nil, err
				}
				if t.Operand, err = small("operand", v); err != nil {
					return nil, err
				}
				if err := sc.Expect(','); err != nil {
					return nil, err
				}
			} else {
				sc.Reset(at)
			}
			if err := sc.Field("src"); err != nil {
				return nil, err
			}
			v, err := sc.Int()
			if err != nil {
				return nil, err
			}
			if t.Src, err = small("tile", v); err != nil {
				return nil, err
			}
			if err := sc.Expect(','); err != nil {
				return nil, err
			}
			if err := sc.Field("dst"); err != nil {
				return nil, err
			}
			if err := sc.Ints(limit, func(v int64) error {
				d, err := small("tile", v)
				t.Dst = append(t.Dst, d)
				return err
			}); err != nil {
				return nil, err
			}
			if err := sc.Expect(','); err != nil {
				return nil, err
			}
			if err := sc.Field("words"); err != nil {
				return nil, err
			}
			if t.Words, err = sc.Int(); err != nil {
				return nil, err
			}
			if err := sc.Expect(','); err != nil {
				return nil, err
			}
			if err := sc.Field("box"); err != nil {
				return nil, err
			}
			if err := sc.Tuples(2, "a box axis is [lo, hi]", func(_ int, v []int64) error {
				t.Box = append(t.Box, layout.Span{Lo: v[0], Hi: v[1]})
				return nil
			}); err != nil {
				return nil, err
			}
			if err := sc.Expect('}'); err != nil {
				return nil, err
			}
			if len(a.List) == 0 {
				a.Rank = len(t.Box)
			} else if len(t.Box) != a.Rank {
				return nil, sc.Errorf("transfer %d has a box of rank %d, the first one of rank %d", len(a.List), len(t.Box), a.Rank)
			}
			a.List = append(a.List, t)
		}
	} else {
		if err := sc.Field("rank"); err != nil {
			return nil, err
		}
		r, err := sc.Int()
		if err != nil {
			return nil, err
		}
		if r < 0 || r > 64 {
			return nil, sc.Errorf("rank %d out of range", r)
		}
		a.Rank = int(r)
		if err := sc.Expect(','); err != nil {
			return nil, err
		}
		if err := sc.Field("packed"); err != nil {
			return nil, err
		}
		var flat []int64
		if err := sc.Ints(limit, func(v int64) error { flat = append(flat, v); return nil }); err != nil {
			return nil, err
		}
		for k := 0; k < len(flat); {
			if k+3 > len(flat) {
				return nil, sc.Errorf("packed transfers end inside transfer %d", len(a.List))
			}
			var t Transfer
			var err error
			if t.Operand, err = small("operand", flat[k]); err != nil {
				return nil, err
			}
			if t.Src, err = small("tile", flat[k+1]); err != nil {
				return nil, err
			}
			n := flat[k+2]
			k += 3
			if n < 0 || int64(len(flat)-k) < n+1+2*int64(a.Rank) {
				return nil, sc.Errorf("packed transfers end inside transfer %d", len(a.List))
			}
			for range n {
				d, err := small("tile", flat[k])
				if err != nil {
					return nil, err
				}
				t.Dst = append(t.Dst, d)
				k++
			}
			t.Words = flat[k]
			k++
			for range a.Rank {
				t.Box = append(t.Box, layout.Span{Lo: flat[k], Hi: flat[k+1]})
				k += 2
			}
			a.List = append(a.List, t)
		}
	}
	if err := sc.End(); err != nil {
		return nil, err
	}
	return ir.UniqueAttr(ctx, a), nil
}

// ScheduleAttr is #exchange.schedule<...>: when each transfer's words
// go, as the scheduler left them.
//
//	#exchange.schedule<horizon = 8, lower_bound = 8, kind = matching, segments = [[0, 0, 8], ...]>
//
// A segment [I, START, WORDS] sends WORDS consecutive words of transfer I,
// one per cycle from cycle START.
type ScheduleAttr struct {
	Horizon, LowerBound int64
	Kind                schedule.Kind
	Segments            []schedule.Segment
}

// NewScheduleAttr uniques a schedule.
func NewScheduleAttr(ctx *ir.Context, s ScheduleAttr) *ScheduleAttr {
	return ir.UniqueAttr(ctx, &s)
}

// UniqueKey is the schedule in binary.
func (a *ScheduleAttr) UniqueKey() string {
	b := binary.AppendVarint(nil, a.Horizon)
	b = binary.AppendVarint(b, a.LowerBound)
	b = append(append(b, a.Kind...), 0)
	for _, s := range a.Segments {
		b = binary.AppendVarint(b, int64(s.Transfer))
		b = binary.AppendVarint(b, s.Start)
		b = binary.AppendVarint(b, s.Words)
	}
	return string(b)
}

func (a *ScheduleAttr) Print(p *ir.AsmPrinter) {
	b := []byte("#exchange.schedule<horizon = ")
	b = strconv.AppendInt(b, a.Horizon, 10)
	b = strconv.AppendInt(append(b, ", lower_bound = "...), a.LowerBound, 10)
	b = append(append(b, ", kind = "...), a.Kind...)
	b = append(b, ", segments = ["...)
	for i, s := range a.Segments {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendInt(append(b, '['), int64(s.Transfer), 10)
		b = strconv.AppendInt(append(b, ", "...), s.Start, 10)
		b = append(strconv.AppendInt(append(b, ", "...), s.Words, 10), ']')
	}
	p.WriteString(string(append(b, "]>"...)))
}

func parseSchedule(ctx *ir.Context, text string, _ ir.Type) (ir.Attribute, error) {
	sc, err := parser.NewBodyScanner(text)
	if err != nil {
		return nil, err
	}
	var a ScheduleAttr
	if err := sc.Field("horizon"); err != nil {
		return nil, err
	}
	if a.Horizon, err = sc.Int(); err != nil {
		return nil, err
	}
	if err := sc.Expect(','); err != nil {
		return nil, err
	}
	if err := sc.Field("lower_bound"); err != nil {
		return nil, err
	}
	if a.LowerBound, err = sc.Int(); err != nil {
		return nil, err
	}
	if err := sc.Expect(','); err != nil {
		return nil, err
	}
	if err := sc.Field("kind"); err != nil {
		return nil, err
	}
	at := sc.Mark()
	k, err := sc.Word()
	if err != nil {
		return nil, err
	}
	if !slices.Contains(schedule.Kinds, schedule.Kind(k)) {
		sc.Reset(at)
		names := make([]string, len(schedule.Kinds))
		for i, want := range schedule.Kinds {
			names[i] = string(want)
		}
		return nil, sc.Errorf("unknown schedule kind '%s' (known: %s)", k, strings.Join(names, ", "))
	}
	a.Kind = schedule.Kind(k)
	if err := sc.Expect(','); err != nil {
		return nil, err
	}
	if err := sc.Field("segments"); err != nil {
		return nil, err
	}
	if err := sc.Tuples(3, "a segment is [transfer, start, words]", func(i int, v []int64) error {
		if v[0] < 0 || v[0] > 1<<40 {
			return sc.Errorf("segment %d: transfer %d out of range", i, v[0])
		}
		a.Segments = append(a.Segments, schedule.Segment{Transfer: int(v[0]), Start: v[1], Words: v[2]})
		return nil
	}); err != nil {
		return nil, err
	}
	if err := sc.End(); err != nil {
		return nil, err
	}
	return NewScheduleAttr(ctx, a), nil
}
