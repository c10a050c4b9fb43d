package elem

import "testing"

func TestEveryTypeRoundTrips(t *testing.T) {
	for _, ty := range All() {
		got, err := Parse(ty.String())
		if err != nil || got != ty {
			t.Errorf("%v: Parse gives %v, %v", ty, got, err)
		}
		if ty.Bytes()*8 < ty.Bits() || ty.Bytes() == 0 {
			t.Errorf("%v: %d bytes for %d bits", ty, ty.Bytes(), ty.Bits())
		}
		if ty.IsFloat() == ty.IsInteger() {
			t.Errorf("%v: float %v and integer %v", ty, ty.IsFloat(), ty.IsInteger())
		}
	}
	if Invalid.Valid() || Invalid.Bytes() != 0 || Type(200).Valid() {
		t.Error("invalid types pass as valid")
	}
	if _, err := Parse("f8E4M3"); err == nil {
		t.Error("a type outside the vocabulary parses")
	}
	if F16.Bytes() != 2 || BF16.Bits() != 16 || I1.Bytes() != 1 || U32.String() != "ui32" || !U8.IsUnsigned() || I8.IsUnsigned() {
		t.Error("facts of the vocabulary are wrong")
	}
}
