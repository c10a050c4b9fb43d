package numeric

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/ipuir/ipuir/elem"
)

// Codec reads and writes elements of one type as memory, streams, .npy
// files and ONNX raw data hold them: little endian, Bytes bytes each. It
// is the one element-value codec of the project (the IR core keeps its
// own, since it imports nothing of the project).
//
// Values are float64, as the reference and the simulated device compute
// them. Storing rounds a value to the type: floats to nearest, ties to
// even; integers toward zero and then to the type's width, as the device's
// narrowing stores do; i1 stores 1 for any nonzero value, and loads any
// nonzero byte as 1.
type Codec struct {
	Elem  elem.Type
	Bytes int
}

// CodecOf is the codec of et.
func CodecOf(et elem.Type) Codec { return Codec{Elem: et, Bytes: et.Bytes()} }

// f16Table decodes every f16 bit pattern once, when first needed: the
// device reads f16 elements far more often than it writes them.
var f16Table = sync.OnceValue(func() *[1 << 16]float64 {
	var t [1 << 16]float64
	for h := range t {
		t[h] = f16Value(uint16(h))
	}
	return &t
})

// Load decodes the element at the front of b.
func (c Codec) Load(b []byte) float64 {
	switch c.Elem {
	case elem.F16:
		return f16Table()[binary.LittleEndian.Uint16(b)]
	case elem.BF16:
		return BF16ToFloat64(binary.LittleEndian.Uint16(b))
	case elem.F32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	case elem.F64:
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	case elem.I1:
		if b[0] != 0 {
			return 1
		}
		return 0
	case elem.U8:
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

// Store encodes v at the front of b.
func (c Codec) Store(b []byte, v float64) {
	switch c.Elem {
	case elem.F16:
		binary.LittleEndian.PutUint16(b, F16FromFloat64(v))
	case elem.BF16:
		binary.LittleEndian.PutUint16(b, BF16FromFloat64(v))
	case elem.F32:
		binary.LittleEndian.PutUint32(b, math.Float32bits(float32(v)))
	case elem.F64:
		binary.LittleEndian.PutUint64(b, math.Float64bits(v))
	case elem.I1:
		b[0] = 0
		if v != 0 {
			b[0] = 1
		}
	case elem.U8, elem.I8:
		b[0] = byte(int64(v))
	case elem.I16, elem.U16:
		binary.LittleEndian.PutUint16(b, uint16(int64(v)))
	case elem.I32, elem.U32:
		binary.LittleEndian.PutUint32(b, uint32(int64(v)))
	case elem.U64:
		binary.LittleEndian.PutUint64(b, uint64(v))
	default:
		binary.LittleEndian.PutUint64(b, uint64(int64(v)))
	}
}

// Append appends v as one element.
func (c Codec) Append(b []byte, v float64) []byte {
	n := len(b)
	b = slices.Grow(b, c.Bytes)[:n+c.Bytes]
	c.Store(b[n:], v)
	return b
}

// LoadRow decodes len(dst) consecutive elements from b.
func (c Codec) LoadRow(b []byte, dst []float64) {
	if c.Elem == elem.F16 {
		t := f16Table()
		for k := range dst {
			dst[k] = t[binary.LittleEndian.Uint16(b[2*k:])]
		}
		return
	}
	for k := range dst {
		dst[k] = c.Load(b[k*c.Bytes:])
	}
}

// f16Table32 is f16Table as float32: half the cache lines for readers
// that want float32.
var f16Table32 = sync.OnceValue(func() *[1 << 16]float32 {
	var t [1 << 16]float32
	for h := range t {
		t[h] = float32(f16Value(uint16(h)))
	}
	return &t
})

// LoadRow32 decodes consecutive elements from b into dst as float32; the
// type's values must all be float32 values (numeric.Widens(c.Elem, F32)).
func (c Codec) LoadRow32(b []byte, dst []float32) {
	switch c.Elem {
	case elem.F16:
		t := f16Table32()
		for k := range dst {
			dst[k] = t[binary.LittleEndian.Uint16(b[2*k:])]
		}
	case elem.BF16:
		for k := range dst {
			dst[k] = BF16ToFloat32(binary.LittleEndian.Uint16(b[2*k:]))
		}
	case elem.F32:
		for k := range dst {
			dst[k] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*k:]))
		}
	default:
		panic(fmt.Sprintf("BUG: numeric.LoadRow32: %v values are not all float32 values", c.Elem))
	}
}

// StoreRow encodes vals as consecutive elements into b.
func (c Codec) StoreRow(b []byte, vals []float64) {
	for k, v := range vals {
		c.Store(b[k*c.Bytes:], v)
	}
}
