package ir

import (
	"bytes"
	"math/big"
	"testing"
)

// Integer elements are stored as mlir-opt stores them: the value in the
// type's width, the bits above it clear (-2 : i2 is 0x02, not 0xFE).
func TestPutDenseIntClearsBitsAboveWidth(t *testing.T) {
	c := NewContext()
	cases := []struct {
		t    Type
		v    int64
		want []byte
	}{
		{c.I(1), -1, []byte{0x01}},
		{c.I(2), -2, []byte{0x02}},
		{c.IntegerType(3, Signed), -1, []byte{0x07}},
		{c.IntegerType(4, Unsigned), 17, []byte{0x01}},
		{c.I(8), -2, []byte{0xFE}},
		{c.I(9), -1, []byte{0xFF, 0x01}},
		{c.I(63), -1, []byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F}},
		{c.Index(), -1, bytes.Repeat([]byte{0xFF}, 8)},
		{c.I(65), -1, append(bytes.Repeat([]byte{0xFF}, 8), 0x01)},
		{c.I(72), -2, append([]byte{0xFE}, bytes.Repeat([]byte{0xFF}, 8)...)},
	}
	for _, tc := range cases {
		dst := bytes.Repeat([]byte{0xAA}, len(tc.want))
		PutDenseInt(dst, tc.t, big.NewInt(tc.v))
		if !bytes.Equal(dst, tc.want) {
			t.Errorf("PutDenseInt(%s, %d) = % X, want % X", TypeString(tc.t), tc.v, dst, tc.want)
		}
		if got := decodeInt(dst, tc.t); got.Cmp(decodeInt(tc.want, tc.t)) != 0 {
			t.Errorf("%s %d decodes as %s", TypeString(tc.t), tc.v, got)
		}
	}
}
