package eval

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/numeric"
)

// Bytes is a's elements as a device's streams carry them: little endian,
// row major, in a's kind (each value rounded to it).
func (a *Array) Bytes() []byte {
	b := make([]byte, 0, len(a.Data)*a.Kind.Bytes())
	for _, v := range a.Data {
		switch a.Kind {
		case elem.F16:
			b = binary.LittleEndian.AppendUint16(b, numeric.F16FromFloat64(v))
		case elem.BF16:
			b = binary.LittleEndian.AppendUint16(b, numeric.BF16FromFloat64(v))
		case elem.F32:
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(v)))
		default:
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
	}
	return b
}

// FromBytes is the array of kind and shape whose elements data holds, as
// Bytes writes them; data must be exactly that long.
func FromBytes(data []byte, kind elem.Type, shape []int64) (*Array, error) {
	dims := make([]int, len(shape))
	for i, d := range shape {
		dims[i] = int(d)
	}
	a, err := New(dims, kind)
	if err != nil {
		return nil, err
	}
	n := kind.Bytes()
	if len(data) != len(a.Data)*n {
		return nil, fmt.Errorf("%d bytes for %d elements of %v", len(data), len(a.Data), kind)
	}
	for i := range a.Data {
		b := data[i*n:]
		switch kind {
		case elem.F16:
			a.Data[i] = numeric.F16ToFloat64(binary.LittleEndian.Uint16(b))
		case elem.BF16:
			a.Data[i] = numeric.BF16ToFloat64(binary.LittleEndian.Uint16(b))
		case elem.F32:
			a.Data[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
		default:
			a.Data[i] = math.Float64frombits(binary.LittleEndian.Uint64(b))
		}
	}
	return a, nil
}
