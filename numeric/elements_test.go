package numeric

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/ipuir/ipuir/elem"
)

// Every type stores and loads its own values exactly, narrows what it
// cannot hold as documented, and the row forms agree with the single ones.
func TestCodecRoundTrips(t *testing.T) {
	exact := map[elem.Type][]float64{
		elem.F16:  {0, 1, -2.5, 65504, 6.103515625e-05, 5.960464477539063e-08, math.Inf(-1)},
		elem.BF16: {0, 1, -2.5, 3.3895313892515355e+38},
		elem.F32:  {0, 1, -2.5, float64(float32(0.1)), math.MaxFloat32},
		elem.F64:  {0, 0.1, -1e300},
		elem.I1:   {0, 1},
		elem.I8:   {-128, 127, 0},
		elem.U8:   {0, 255},
		elem.I16:  {-32768, 32767},
		elem.U16:  {0, 65535},
		elem.I32:  {math.MinInt32, math.MaxInt32},
		elem.U32:  {0, math.MaxUint32},
		elem.I64:  {-1 << 62, 1 << 62},
		elem.U64:  {0, 1 << 63},
	}
	compared := 0
	for et, vals := range exact {
		c := CodecOf(et)
		row := make([]byte, len(vals)*c.Bytes)
		c.StoreRow(row, vals)
		got := make([]float64, len(vals))
		c.LoadRow(row, got)
		var appended []byte
		for i, v := range vals {
			if got[i] != v || c.Load(row[i*c.Bytes:]) != v {
				t.Errorf("%v: %v came back as %v", et, v, got[i])
			}
			appended = c.Append(appended, v)
			compared++
		}
		if string(appended) != string(row) {
			t.Errorf("%v: Append and StoreRow disagree", et)
		}
	}
	if compared < 30 {
		t.Fatalf("compared %d values", compared)
	}
	b := make([]byte, 8)
	for _, c := range []struct {
		et   elem.Type
		v    float64
		want float64
	}{
		{elem.I8, 200, -56}, {elem.U8, -1, 255}, {elem.I32, 2.9, 2}, {elem.I32, -2.9, -2},
		{elem.I1, 7, 1}, {elem.F16, 1 + 1.0/4096, 1}, {elem.F32, 0.1, float64(float32(0.1))},
	} {
		k := CodecOf(c.et)
		k.Store(b, c.v)
		if got := k.Load(b); got != c.want {
			t.Errorf("%v: stored %v, loaded %v, want %v", c.et, c.v, got, c.want)
		}
	}
	b[0] = 9
	if got := CodecOf(elem.I1).Load(b); got != 1 {
		t.Errorf("i1 byte 9 loads as %v, want 1", got)
	}
}

// LoadRow32 reads every f16 and bf16 pattern, and f32 values, as LoadRow
// does.
func TestLoadRow32(t *testing.T) {
	for _, k := range []elem.Type{elem.F16, elem.BF16, elem.F32} {
		c := CodecOf(k)
		n := 1 << 16
		b := make([]byte, n*c.Bytes)
		for i := range n {
			switch k {
			case elem.F32:
				binary.LittleEndian.PutUint32(b[4*i:], uint32(i)*65537+12345)
			default:
				binary.LittleEndian.PutUint16(b[2*i:], uint16(i))
			}
		}
		wide, narrow := make([]float64, n), make([]float32, n)
		c.LoadRow(b, wide)
		c.LoadRow32(b, narrow)
		for i := range n {
			if w := wide[i]; float64(narrow[i]) != w && !(math.IsNaN(w) && math.IsNaN(float64(narrow[i]))) {
				t.Fatalf("%v element %d: LoadRow32 %v, LoadRow %v", k, i, narrow[i], w)
			}
		}
	}
}
