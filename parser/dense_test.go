package parser

import (
	"strings"
	"testing"

	"github.com/ipuir/ipuir/ir"
)

// TestDenseOddWidthIntsStoredMasked: mlir-opt stores an iN element (N not
// a multiple of 8) as its value in N bits with the byte's upper bits
// clear, so the literal and the hex form of the same elements are the same
// attribute, and printing more than 100 of them gives mlir-opt's hex.
func TestDenseOddWidthIntsStoredMasked(t *testing.T) {
	ctx := ir.NewContext()
	same := [][2]string{
		{`dense<-2> : tensor<i2>`, `dense<"0x02"> : tensor<i2>`},
		{`dense<[-2, 1]> : tensor<2xi2>`, `dense<"0x0201"> : tensor<2xi2>`},
		{`dense<-1> : tensor<si3>`, `dense<"0x07"> : tensor<si3>`},
		{`dense<(-1,1)> : tensor<complex<i4>>`, `dense<"0x0F01"> : tensor<complex<i4>>`},
		{`dense<-1> : tensor<i9>`, `dense<"0xFF01"> : tensor<i9>`},
		{`dense<-1> : tensor<i65>`, `dense<"0xFFFFFFFFFFFFFFFF01"> : tensor<i65>`},
	}
	for _, c := range same {
		a, b := parseAttr(t, ctx, c[0]), parseAttr(t, ctx, c[1])
		if a != b {
			t.Errorf("%s and %s are different attributes: data % X and % X",
				c[0], c[1], a.(*ir.DenseElementsAttr).Data, b.(*ir.DenseElementsAttr).Data)
		}
	}
	// Over 100 elements print as hex; mlir-opt-19 prints these as 0x0201...
	vals := make([]int64, 102)
	for i := range vals {
		vals[i] = 1
		if i%2 == 0 {
			vals[i] = -2
		}
	}
	a := ctx.DenseInts(ctx.Tensor([]int64{102}, ctx.I(2)), vals)
	got := ir.AttrString(a)
	if want := `dense<"0x0201`; got[:len(want)] != want {
		t.Errorf("102 x i2 prints as %.30s..., want %s...", got, want)
	}
	if back := parseAttr(t, ctx, got); back != ir.Attribute(a) {
		t.Errorf("%.30s... does not read back as the same attribute", got)
	}
}

// tf32 hex data has 4 bytes an element, as in mlir-opt-19.
func TestDenseTF32HexFourBytes(t *testing.T) {
	ctx := ir.NewContext()
	a := parseAttr(t, ctx, `dense<"0x00FE010000010200"> : tensor<2xtf32>`)
	if b := parseAttr(t, ctx, `dense<[1.5, 2.5]> : tensor<2xtf32>`); a != b {
		t.Errorf("hex and literal tf32 elements differ: %s vs %s", ir.AttrString(a), ir.AttrString(b))
	}
	if _, err := ParseAttribute(ctx, `dense<"0x00FE01"> : tensor<1xtf32>`); err == nil {
		t.Errorf("3 bytes of hex accepted for one tf32 element; mlir-opt-19 rejects them")
	}
}

// Empty string elements print as dense<>, which reads back as the same
// attribute (dense<[]> is invalid for tensor<0x4x!t.s>).
func TestDenseStringsEmptyRoundTrip(t *testing.T) {
	ctx := ir.NewContext()
	ctx.AllowUnregisteredDialects = true
	for _, src := range []string{`dense<> : tensor<0x4x!t.s>`, `dense<[[]]> : tensor<1x0x!t.s>`} {
		a := parseAttr(t, ctx, src)
		printed := ir.AttrString(a)
		if want := "dense<> : " + src[strings.Index(src, "tensor"):]; printed != want {
			t.Errorf("%s prints as %s, want %s", src, printed, want)
		}
		if back := parseAttr(t, ctx, printed); back != a {
			t.Errorf("%s does not read back as the same attribute", printed)
		}
	}
}
