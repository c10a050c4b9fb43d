package sim

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/numeric"
	"github.com/ipuir/ipuir/runtime/ipupkg"
)

// granule is the unit of memory whose writer the simulator records: the
// smallest alignment of any class, so no two buffers share one.
const granule = 8

// tileMemory is one tile's SRAM, up to the highest byte the package uses,
// and who last wrote each granule (buffer index + 1; 0: no one).
type tileMemory struct {
	bytes  []byte
	writer []int32
}

func newTileMemory(size int64) tileMemory {
	return tileMemory{bytes: make([]byte, size), writer: make([]int32, (size+granule-1)/granule)}
}

// Fault is a package doing what no program may: reading memory no one
// wrote (or that another buffer overwrote), writing outside a buffer, or
// breaking its exchange schedule.
type Fault struct {
	Tile        int
	Cycle       int64
	Instruction int
	Op          string
	Msg         string
}

func (f *Fault) Error() string {
	return fmt.Sprintf("device fault: tile %d, cycle %d, instruction %d (%s): %s", f.Tile, f.Cycle, f.Instruction, f.Op, f.Msg)
}

// codec reads and writes elements of one type.
type codec struct {
	et    elem.Type
	bytes int
}

// f16Values decodes every f16 bit pattern once: the simulator reads f16
// elements far more often than it writes them.
var f16Values = func() *[1 << 16]float64 {
	var t [1 << 16]float64
	for h := range t {
		t[h] = numeric.F16ToFloat64(uint16(h))
	}
	return &t
}()

func (c codec) get(b []byte) float64 {
	switch c.et {
	case elem.F16:
		return f16Values[binary.LittleEndian.Uint16(b)]
	case elem.BF16:
		return numeric.BF16ToFloat64(binary.LittleEndian.Uint16(b))
	case elem.F32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	case elem.F64:
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	case elem.I1, elem.U8:
		return float64(b[0])
	case elem.I8:
		return float64(int8(b[0]))
	case elem.I16:
		return float64(int16(binary.LittleEndian.Uint16(b)))
	case elem.U16:
		return float64(binary.LittleEndian.Uint16(b))
	case elem.I32:
		return float64(int32(binary.LittleEndian.Uint32(b)))
	case elem.U32:
		return float64(binary.LittleEndian.Uint32(b))
	case elem.I64:
		return float64(int64(binary.LittleEndian.Uint64(b)))
	default:
		return float64(binary.LittleEndian.Uint64(b))
	}
}

// f16Bits encodes v as f16: directly when v is a normal f16 value (what
// f16 arithmetic writes), by the rounding rule otherwise.
func f16Bits(v float64) uint16 {
	b := math.Float64bits(v)
	sign := uint16(b>>48) & 0x8000
	exp := int(b>>52) & 0x7ff
	mant := b & (1<<52 - 1)
	if exp >= 1023-14 && exp <= 1023+15 && mant&(1<<42-1) == 0 {
		return sign | uint16(exp-1023+15)<<10 | uint16(mant>>42)
	}
	return numeric.F16FromFloat64(v)
}

// getRow and putRow are get and put over n consecutive elements.
func (c codec) getRow(b []byte, dst []float64) {
	if c.et == elem.F16 {
		for k := range dst {
			dst[k] = f16Values[binary.LittleEndian.Uint16(b[2*k:])]
		}
		return
	}
	for k := range dst {
		dst[k] = c.get(b[k*c.bytes:])
	}
}

func (c codec) putRow(b []byte, vals []float64) {
	if c.et == elem.F16 {
		for k, v := range vals {
			binary.LittleEndian.PutUint16(b[2*k:], f16Bits(v))
		}
		return
	}
	for k, v := range vals {
		c.put(b[k*c.bytes:], v)
	}
}

func (c codec) put(b []byte, v float64) {
	switch c.et {
	case elem.F16:
		binary.LittleEndian.PutUint16(b, f16Bits(v))
	case elem.BF16:
		binary.LittleEndian.PutUint16(b, numeric.BF16FromFloat64(v))
	case elem.F32:
		binary.LittleEndian.PutUint32(b, math.Float32bits(float32(v)))
	case elem.F64:
		binary.LittleEndian.PutUint64(b, math.Float64bits(v))
	case elem.I1, elem.U8, elem.I8:
		b[0] = byte(int64(v))
	case elem.I16, elem.U16:
		binary.LittleEndian.PutUint16(b, uint16(int64(v)))
	case elem.I32, elem.U32:
		binary.LittleEndian.PutUint32(b, uint32(int64(v)))
	default:
		binary.LittleEndian.PutUint64(b, uint64(int64(v)))
	}
}

// boxShape is a box's extent per axis.
func boxShape(box []ipupkg.Span) []int {
	out := make([]int, len(box))
	for i, s := range box {
		out[i] = int(s.Hi - s.Lo)
	}
	return out
}

func boxElements(box []ipupkg.Span) int64 {
	n := int64(1)
	for _, s := range box {
		n *= s.Hi - s.Lo
	}
	return n
}

func contains(box []ipupkg.Span, idx []int64) bool {
	for i, s := range box {
		if idx[i] < s.Lo || idx[i] >= s.Hi {
			return false
		}
	}
	return true
}

// offsetIn is idx's row-major position inside box (the simulator stores
// each piece's elements row major over its box).
func offsetIn(box []ipupkg.Span, idx []int64) int64 {
	off := int64(0)
	for i, s := range box {
		off = off*(s.Hi-s.Lo) + idx[i] - s.Lo
	}
	return off
}

// forEach calls f with every index of box in row-major order (idx is
// reused between calls).
func forEach(box []ipupkg.Span, f func(idx []int64) error) error {
	if boxElements(box) == 0 {
		return nil
	}
	idx := make([]int64, len(box))
	for i, s := range box {
		idx[i] = s.Lo
	}
	for {
		if err := f(idx); err != nil {
			return err
		}
		k := len(idx) - 1
		for ; k >= 0; k-- {
			idx[k]++
			if idx[k] < box[k].Hi {
				break
			}
			idx[k] = box[k].Lo
		}
		if k < 0 {
			return nil
		}
	}
}
