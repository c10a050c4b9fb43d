package eval

import (
	"fmt"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/numeric"
)

// Bytes is a's elements as a device's streams carry them: little endian,
// row major, in a's kind (each value rounded to it), by numeric's codec.
func (a *Array) Bytes() []byte {
	c := numeric.CodecOf(a.Kind)
	b := make([]byte, len(a.Data)*c.Bytes)
	c.StoreRow(b, a.Data)
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
	c := numeric.CodecOf(kind)
	if len(data) != len(a.Data)*c.Bytes {
		return nil, fmt.Errorf("%d bytes for %d elements of %v", len(data), len(a.Data), kind)
	}
	c.LoadRow(data, a.Data)
	return a, nil
}
