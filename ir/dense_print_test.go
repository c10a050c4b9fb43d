package ir

import (
	"math/rand/v2"
	"testing"
)

// Integer elements of up to 64 bits print without big integers; the
// result must equal the general decoding for every width and signedness.
func TestDenseIntegerElementsPrintLikeDecodeInt(t *testing.T) {
	c := NewContext()
	r := rand.New(rand.NewPCG(1, 2))
	types := []Type{c.Index()}
	for _, w := range []int{2, 7, 8, 9, 16, 31, 32, 33, 63, 64} {
		for s := Signless; s <= Unsigned; s++ {
			types = append(types, c.IntegerType(w, s))
		}
	}
	for _, et := range types {
		d, _ := denseElemOf(et)
		for k := 0; k < 200; k++ {
			b := make([]byte, d.bytes)
			for i := range b {
				b[i] = byte(r.Uint32())
			}
			if k < 4 { // extremes: all zeros, all ones, sign bit only, max
				for i := range b {
					b[i] = []byte{0, 0xff, 0, 0xff}[k]
				}
				if k >= 2 {
					b[len(b)-1] ^= 0x80
				}
			}
			var p AsmPrinter
			d.printPart(&p, b)
			if want := decodeInt(b, et).String(); p.String() != want {
				t.Fatalf("%s % x: printed %s, want %s", TypeString(et), b, p.String(), want)
			}
		}
	}
}

// A sparse attribute prints its parts without their `dense<...>` wrapper.
func TestSparsePrintsPartsBare(t *testing.T) {
	c := NewContext()
	idx := c.DenseInts(c.Tensor([]int64{2, 2}, c.I(64)), []int64{0, 1, 1, 0})
	vals := c.DenseInts(c.Tensor([]int64{2}, c.I(32)), []int64{5, -6})
	a := c.Sparse(c.Tensor([]int64{2, 2}, c.I(32)), idx, vals)
	var p AsmPrinter
	p.WriteString("dense<9> before, ")
	p.PrintAttr(a)
	if want := "dense<9> before, sparse<[[0, 1], [1, 0]], [5, -6]> : tensor<2x2xi32>"; p.String() != want {
		t.Fatalf("printed %s, want %s", p.String(), want)
	}
}

// String elements with no elements print as dense<>, as mlir-opt-19 does:
// nested lists cannot spell tensor<0x4x!t.s> (both tools reject
// dense<[]> for it), and dense<[[]]> for tensor<1x0x!t.s> is not its form.
func TestDenseStringsEmptyPrintNothing(t *testing.T) {
	c := NewContext()
	s := c.Opaque("t", "s")
	for _, shape := range [][]int64{{0}, {0, 4}, {1, 0}, {2, 0, 3}} {
		ty := c.Tensor(shape, s)
		want := "dense<> : " + TypeString(ty)
		if got := AttrString(c.DenseStrings(ty, nil)); got != want {
			t.Errorf("no strings of %s print as %s, want %s", TypeString(ty), got, want)
		}
	}
	if got := AttrString(c.DenseStrings(c.Tensor([]int64{0}, s), []string{"a"})); got != `dense<"a"> : tensor<0x!t.s>` {
		t.Errorf(`a splat of "a" over no elements prints as %s, want dense<"a"> : tensor<0x!t.s>`, got)
	}
}
