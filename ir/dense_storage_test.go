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

// tf32 elements take 4 bytes, as in mlir-opt-19, which reads
// dense<"0x0000C03F"> : tensor<1xtf32> and prints over 100 tf32 elements
// as 4 bytes each; the value lives in the low 19 bits.
func TestTF32ElementsTakeFourBytes(t *testing.T) {
	c := NewContext()
	tf32 := c.Float(TF32)
	if got := ElementByteSize(tf32); got != 4 {
		t.Errorf("ElementByteSize(tf32) = %d, want 4", got)
	}
	if got := ElementByteSize(c.Complex(tf32)); got != 8 {
		t.Errorf("ElementByteSize(complex<tf32>) = %d, want 8", got)
	}
	a := c.DenseFloats(c.Tensor([]int64{2}, tf32), []float64{1.5, 2.5})
	if want := []byte{0x00, 0xFE, 0x01, 0x00, 0x00, 0x01, 0x02, 0x00}; !bytes.Equal(a.HexData(), want) {
		t.Errorf("[1.5, 2.5] : tf32 hex data = % X, want % X", a.HexData(), want)
	}
	// Bits above the 19 are ignored when reading, as mlir-opt does:
	// 0xFFFFFFFF is the tf32 0x7FFFF.
	all := c.Dense(c.Tensor([]int64{1}, tf32), []byte{0xFF, 0xFF, 0xFF, 0xFF})
	if got := AttrString(all); got != "dense<0x7FFFF> : tensor<1xtf32>" {
		t.Errorf("0xFFFFFFFF : tf32 prints as %s, want dense<0x7FFFF> : tensor<1xtf32>", got)
	}
}
