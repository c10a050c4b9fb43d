package tileasm

import (
	"encoding/binary"
	"strconv"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
)

// Run is a range of consecutive tiles that share one value.
type Run struct {
	First, Last int32 // tiles [First, Last]
	Value       int64
}

// PerTileAttr is #tileasm.per_tile<[[first, last, value], ...]>: an integer
// for each of some tiles (a buffer's address, a tile's code bytes),
// run-length encoded over tiles in order. The allocator places a program's
// buffers alike on most tiles, so a buffer on 1,472 tiles is usually a few
// runs.
type PerTileAttr struct{ Runs []Run }

// NewPerTileAttr encodes per-tile values (tiles ascending) as runs.
func NewPerTileAttr(ctx *ir.Context, tiles []int64, values []int64) *PerTileAttr {
	var runs []Run
	for i, t := range tiles {
		if n := len(runs); n > 0 && runs[n-1].Last == int32(t)-1 && runs[n-1].Value == values[i] {
			runs[n-1].Last = int32(t)
			continue
		}
		runs = append(runs, Run{First: int32(t), Last: int32(t), Value: values[i]})
	}
	return ir.UniqueAttr(ctx, &PerTileAttr{Runs: runs})
}

// At returns tile's value, if it has one.
func (a *PerTileAttr) At(tile int64) (int64, bool) {
	lo, hi := 0, len(a.Runs)
	for lo < hi {
		mid := (lo + hi) / 2
		switch r := a.Runs[mid]; {
		case tile < int64(r.First):
			hi = mid
		case tile > int64(r.Last):
			lo = mid + 1
		default:
			return r.Value, true
		}
	}
	return 0, false
}

// Tiles is the number of tiles with a value.
func (a *PerTileAttr) Tiles() int64 {
	n := int64(0)
	for _, r := range a.Runs {
		n += int64(r.Last-r.First) + 1
	}
	return n
}

// UniqueKey is the runs in binary.
func (a *PerTileAttr) UniqueKey() string {
	var b []byte
	for _, r := range a.Runs {
		b = binary.AppendVarint(b, int64(r.First))
		b = binary.AppendVarint(b, int64(r.Last))
		b = binary.AppendVarint(b, r.Value)
	}
	return string(b)
}

func (a *PerTileAttr) Print(p *ir.AsmPrinter) {
	b := []byte("#tileasm.per_tile<[")
	for i, r := range a.Runs {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendInt(append(b, '['), int64(r.First), 10)
		b = strconv.AppendInt(append(b, ", "...), int64(r.Last), 10)
		b = append(strconv.AppendInt(append(b, ", "...), r.Value, 10), ']')
	}
	p.WriteString(string(append(b, "]>"...)))
}

func parsePerTile(ctx *ir.Context, text string, _ ir.Type) (ir.Attribute, error) {
	sc, err := parser.NewBodyScanner(text)
	if err != nil {
		return nil, err
	}
	a := &PerTileAttr{}
	if err := sc.Tuples(3, "a run is [first tile, last tile, value]", func(i int, v []int64) error {
		switch {
		case v[0] < 0 || v[1] < v[0] || v[1] > 1<<30:
			return sc.Errorf("run %d: tiles %d to %d are not an ascending range of tiles", i, v[0], v[1])
		case v[2] < 0:
			return sc.Errorf("run %d: negative value %d", i, v[2])
		case i > 0 && int64(a.Runs[i-1].Last) >= v[0]:
			return sc.Errorf("run %d starts at tile %d, not after the previous run", i, v[0])
		}
		a.Runs = append(a.Runs, Run{First: int32(v[0]), Last: int32(v[1]), Value: v[2]})
		return nil
	}); err != nil {
		return nil, err
	}
	if err := sc.End(); err != nil {
		return nil, err
	}
	return ir.UniqueAttr(ctx, a), nil
}
