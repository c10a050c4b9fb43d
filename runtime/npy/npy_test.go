package npy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// The fixtures in testdata were written by make_fixtures.py, which runs
// NumPy's own header-writing steps under Python; see that file.

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestReadNumPyFiles(t *testing.T) {
	cases := []struct {
		file      string
		version   Version
		dtype     DType
		bigEndian bool
		fortran   bool
		shape     []int
		values    []float64 // C order
	}{
		{"f4_2x3.npy", V1, Float32, false, false, []int{2, 3}, []float64{0, 1, 2, 3, 4, 5}},
		{"f4_2x3_v2.npy", V2, Float32, false, false, []int{2, 3}, []float64{0, 1, 2, 3, 4, 5}},
		{"f4_2x3_v3.npy", V3, Float32, false, false, []int{2, 3}, []float64{0, 1, 2, 3, 4, 5}},
		{"f8_scalar.npy", V1, Float64, false, false, []int{}, []float64{3.5}},
		{"i8_5.npy", V1, Int64, false, false, []int{5}, []float64{0, 1, 2, 3, 4}},
		{"f2_4.npy", V1, Float16, false, false, []int{4}, []float64{1, -2, 0.5, 65504}},
		{"b1_3.npy", V1, Bool, false, false, []int{3}, []float64{1, 0, 1}},
		{"u1_2x2.npy", V1, Uint8, false, false, []int{2, 2}, []float64{0, 255, 7, 8}},
		{"i1_3.npy", V1, Int8, false, false, []int{3}, []float64{-128, 0, 127}},
		{"i2_3.npy", V1, Int16, false, false, []int{3}, []float64{-32768, 1, 32767}},
		{"i4_3.npy", V1, Int32, false, false, []int{3}, []float64{-(1 << 31), 1, 1<<31 - 1}},
		{"u2_3.npy", V1, Uint16, false, false, []int{3}, []float64{0, 1, 65535}},
		{"u4_3.npy", V1, Uint32, false, false, []int{3}, []float64{0, 1, 1<<32 - 1}},
		{"u8_3.npy", V1, Uint64, false, false, []int{3}, []float64{0, 1, 1 << 64}}, // 2^64-1 rounds to 2^64 in float64
		{"i2_0x3.npy", V1, Int16, false, false, []int{0, 3}, []float64{}},
		{"f4_pad64.npy", V1, Float32, false, false, []int{0, 1, 1, 1, 10, 10, 10, 10, 10, 10, 10, 10}, []float64{}},
		{"i4be_2x3.npy", V1, Int32, true, false, []int{2, 3}, []float64{0, 1, 2, 3, 4, 5}},
		{"f8be_3.npy", V1, Float64, true, false, []int{3}, []float64{1.5, -2, 1e300}},
		{"f2be_2.npy", V1, Float16, true, false, []int{2}, []float64{1, -0.5}},
		{"f4_fortran_2x3.npy", V1, Float32, false, true, []int{2, 3}, []float64{0, 1, 2, 3, 4, 5}},
		{"i2_fortran_2x3x4.npy", V1, Int16, false, true, []int{2, 3, 4}, seq(24)},
		{"legacy_py2_i4_2x3.npy", V1, Int32, false, false, []int{2, 3}, []float64{0, 1, 2, 3, 4, 5}},
	}
	for _, c := range cases {
		file := readFixture(t, c.file)
		h, err := ReadHeader(bytes.NewReader(file))
		if err != nil {
			t.Errorf("%s: ReadHeader: %v", c.file, err)
			continue
		}
		if h.Version != c.version || h.DType != c.dtype || h.BigEndian != c.bigEndian || h.FortranOrder != c.fortran ||
			!slices.Equal(h.Shape, c.shape) {
			t.Errorf("%s: header %+v, want version %v dtype %v big-endian %v fortran %v shape %v",
				c.file, h, c.version, c.dtype, c.bigEndian, c.fortran, c.shape)
		}
		if h.DataOffset+h.DataBytes() != int64(len(file)) {
			t.Errorf("%s: data offset %d + %d data bytes != file size %d", c.file, h.DataOffset, h.DataBytes(), len(file))
		}
		for _, read := range []struct {
			how string
			fn  func([]byte) (*Array, error)
		}{
			{"Decode", Decode},
			{"Read one byte at a time", func(b []byte) (*Array, error) { return Read(iotest.OneByteReader(bytes.NewReader(b))) }},
		} {
			a, err := read.fn(file)
			if err != nil {
				t.Errorf("%s: %s: %v", c.file, read.how, err)
				continue
			}
			if a.DType != c.dtype || !slices.Equal(a.Shape, c.shape) || !slices.Equal(a.Float64s(), c.values) {
				t.Errorf("%s: %s gave %v %v, want %v %v", c.file, read.how, a, a.Float64s(), c.shape, c.values)
			}
		}
	}
}

func seq(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = float64(i)
	}
	return s
}

// Writing must give NumPy's bytes exactly: every little-endian C-order
// fixture is reproduced from its decoded array, and the 2x3 float32 one also
// from values built without the reader.
func TestWriteMatchesNumPyBytes(t *testing.T) {
	for _, name := range []string{
		"f4_2x3.npy", "f8_scalar.npy", "i8_5.npy", "f2_4.npy", "b1_3.npy", "u1_2x2.npy", "i1_3.npy",
		"i2_3.npy", "i4_3.npy", "u2_3.npy", "u4_3.npy", "u8_3.npy", "i2_0x3.npy", "f4_pad64.npy",
	} {
		want := readFixture(t, name)
		a, err := Decode(want)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := Encode(a)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: Encode = %q, %v\nNumPy wrote %q", name, got, err, want)
		}
	}
	a, err := FromFloat64s(Float32, []int{2, 3}, []float64{0, 1, 2, 3, 4, 5})
	if err != nil {
		t.Fatal(err)
	}
	for version, file := range map[Version]string{V1: "f4_2x3.npy", V2: "f4_2x3_v2.npy", V3: "f4_2x3_v3.npy"} {
		var buf bytes.Buffer
		if err := WriteVersion(&buf, a, version); err != nil || !bytes.Equal(buf.Bytes(), readFixture(t, file)) {
			t.Errorf("WriteVersion(%v) = %q, %v; want %s", version, buf.Bytes(), err, file)
		}
	}
	if err := WriteVersion(&bytes.Buffer{}, a, Version{4, 0}); err == nil {
		t.Error("WriteVersion(4.0) accepted")
	}
}

// The exact header text np.save writes, spelled out by hand: sorted keys,
// Python reprs, a ", " after every entry, 21 - len("2") = 20 spaces of
// growth room, then spaces and a newline up to the 128-byte boundary.
func TestHeaderTextSpelledOut(t *testing.T) {
	dict := "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"
	wantHeader := "\x93NUMPY\x01\x00\x76\x00" + dict + strings.Repeat(" ", 128-10-len(dict)-1) + "\n"
	got, err := encodeHeader(Float32.Descr(), []int{2, 3}, Version{})
	if err != nil || string(got) != wantHeader {
		t.Errorf("header = %q, %v\nwant     %q", got, err, wantHeader)
	}
	for shape, repr := range map[string]string{"()": "()", "(5,)": "(5,)", "(2, 3)": "(2, 3)"} {
		if s := shapeString(map[string][]int{"()": {}, "(5,)": {5}, "(2, 3)": {2, 3}}[shape]); s != repr {
			t.Errorf("shapeString for %s = %q", shape, s)
		}
	}
	// Growth room is measured from the first axis: a longer first axis takes
	// the same header space.
	short, _ := encodeHeader(Int8.Descr(), []int{7}, Version{})
	long, _ := encodeHeader(Int8.Descr(), []int{123456789}, Version{})
	if len(short) != len(long) || len(short)%64 != 0 {
		t.Errorf("headers of (7,) and (123456789,) are %d and %d bytes; want equal multiples of 64", len(short), len(long))
	}
}

func TestHeaderVersionChoice(t *testing.T) {
	long := "{" + strings.Repeat(" ", 70000) + "}"
	if _, err := wrapHeader(long, V1); err == nil {
		t.Fatal("a 70,000-byte header fitted format 1.0")
	}
	b, err := wrapHeaderAs(long, Version{})
	if err != nil || b[6] != 2 || b[7] != 0 || (len(b))%64 != 0 {
		t.Fatalf("np.save would fall back to 2.0 for a long header; got version %d.%d, %d bytes, %v", b[6], b[7], len(b), err)
	}
	if got := binary.LittleEndian.Uint32(b[8:]); int(got) != len(b)-12 {
		t.Errorf("2.0 length field = %d, want %d", got, len(b)-12)
	}
}

func TestFortranOrderTransposes(t *testing.T) {
	a, err := Decode(readFixture(t, "i2_fortran_2x3x4.npy"))
	if err != nil {
		t.Fatal(err)
	}
	ints, _ := a.Int64s()
	for i, v := range ints {
		if v != int64(i) {
			t.Fatalf("element %d = %d after transposing to C order, want %d", i, v, i)
		}
	}
	// Writing gives C order, as np.save of np.ascontiguousarray would.
	out, _ := Encode(a)
	h, _ := ReadHeader(bytes.NewReader(out))
	if h.FortranOrder {
		t.Error("written header says Fortran order")
	}
}

func TestRoundTripEveryDType(t *testing.T) {
	shapes := [][]int{{}, {0}, {1}, {7}, {2, 3}, {2, 0, 4}, {3, 1, 2, 2}}
	for _, d := range allDTypes() {
		for _, shape := range shapes {
			n, _ := elementCount(shape)
			values := make([]float64, n)
			for i := range values {
				switch {
				case d == Bool:
					values[i] = float64(i % 2)
				case d.IsFloat():
					values[i] = float64(i)*0.25 - 1
				case d >= Uint8:
					values[i] = float64(i * 3)
				default:
					values[i] = float64(i*3) - 5
				}
			}
			a, err := FromFloat64s(d, shape, values)
			if err != nil {
				t.Fatalf("%v %v: %v", d, shape, err)
			}
			b, err := Encode(a)
			if err != nil {
				t.Fatal(err)
			}
			back, err := Decode(b)
			if err != nil || back.DType != d || !slices.Equal(back.Shape, shape) || !bytes.Equal(back.Data, a.Data) ||
				!slices.Equal(back.Float64s(), values) {
				t.Errorf("%v %v: round trip gave %v %v, %v", d, shape, back, back.Float64s(), err)
			}
		}
	}
}

func TestFileRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.npy")
	a, _ := FromFloat32s([]int{2, 2}, []float32{1.5, -2, 3, 4})
	if err := WriteFile(path, a); err != nil {
		t.Fatal(err)
	}
	back, err := ReadFile(path)
	if err != nil || !slices.Equal(back.Float32s(), []float32{1.5, -2, 3, 4}) {
		t.Fatalf("ReadFile = %v, %v", back, err)
	}
	if err := os.WriteFile(path, []byte("not numpy"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("ReadFile of a bad file: %v; want the path in the error", err)
	}
	if _, err := ReadFile(filepath.Join(t.TempDir(), "missing.npy")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadFile of a missing file: %v", err)
	}
	if err := WriteFile(path, &Array{DType: Float32, Shape: []int{2}, Data: []byte{1}}); err == nil {
		t.Error("WriteFile of an inconsistent array succeeded")
	}
}

func TestConstructorsAndAccessors(t *testing.T) {
	h, err := FromFloat64s(Float16, []int{3}, []float64{1 + math.Ldexp(1, -11), 65520, math.Copysign(0, -1)})
	if err != nil {
		t.Fatal(err)
	}
	bits, _ := h.F16Bits()
	if !slices.Equal(bits, []uint16{0x3C00, 0x7C00, 0x8000}) {
		t.Errorf("float16 rounding gave %#04x", bits)
	}
	if back, _ := FromF16Bits([]int{3}, bits); !bytes.Equal(back.Data, h.Data) {
		t.Error("FromF16Bits does not keep bit patterns")
	}
	u, _ := FromInt64s(Uint64, []int{1}, []int64{math.MaxInt64})
	u.Data[7] = 0xFF // now 2^64 - 1
	if _, err := u.Int64s(); err == nil {
		t.Error("Int64s of a uint64 above MaxInt64 did not fail")
	}
	if f := u.Float64s()[0]; f != 1<<64 {
		t.Errorf("Float64s of 2^64-1 = %v", f)
	}
	neg, _ := FromInt64s(Int16, []int{2}, []int64{-3, 300})
	if v, _ := neg.Int64s(); !slices.Equal(v, []int64{-3, 300}) {
		t.Errorf("Int64s = %v", v)
	}
	b, _ := FromBools([]int{2}, []bool{true, false})
	if v, _ := b.Bools(); !slices.Equal(v, []bool{true, false}) {
		t.Errorf("Bools = %v", v)
	}
	if v, _ := b.Int64s(); !slices.Equal(v, []int64{1, 0}) {
		t.Errorf("Int64s of bools = %v", v)
	}
	if got := b.String(); got != "bool (2,)" {
		t.Errorf("String() = %q", got)
	}
	z, _ := New(Int32, []int{2, 2})
	if len(z.Data) != 16 || z.Len() != 4 {
		t.Errorf("New: %d bytes, %d elements", len(z.Data), z.Len())
	}

	bad := []struct {
		name string
		err  error
	}{
		{"fraction into int32", second(FromFloat64s(Int32, []int{1}, []float64{3.5}))},
		{"300 into uint8", second(FromFloat64s(Uint8, []int{1}, []float64{300}))},
		{"NaN into int8", second(FromFloat64s(Int8, []int{1}, []float64{math.NaN()}))},
		{"2 into bool", second(FromFloat64s(Bool, []int{1}, []float64{2}))},
		{"2^63 into int64", second(FromFloat64s(Int64, []int{1}, []float64{1 << 63}))},
		{"-1 into uint16", second(FromInt64s(Uint16, []int{1}, []int64{-1}))},
		{"128 into int8", second(FromInt64s(Int8, []int{1}, []int64{128}))},
		{"ints into float", second(FromInt64s(Float32, []int{1}, []int64{1}))},
		{"count mismatch", second(FromFloat32s([]int{2, 2}, []float32{1}))},
		{"negative shape", second(New(Int8, []int{-1}))},
		{"too many dims", second(New(Int8, make([]int, 65)))},
		{"invalid dtype", second(New(DType(0), []int{1}))},
		{"overflowing shape", second(New(Float64, []int{1 << 40, 1 << 40}))},
		{"F16Bits of float32", third(z.F16Bits())},
		{"Bools of int32", fourth(z.Bools())},
		{"Int64s of float16", fifth(h.Int64s())},
	}
	for _, c := range bad {
		if c.err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

func second(_ *Array, err error) error  { return err }
func third(_ []uint16, err error) error { return err }
func fourth(_ []bool, err error) error  { return err }
func fifth(_ []int64, err error) error  { return err }

// NumPy's str arrays ('<U6', '>U3', Fortran order) read as their strings,
// and strings written read back, byte for byte as NumPy writes them.
func TestStrings(t *testing.T) {
	for _, c := range []struct {
		file  string
		shape []int
		want  []string
	}{
		{"U6_2x2.npy", []int{2, 2}, []string{"monday", "été", "x", ""}},
		{"U3be_2.npy", []int{2}, []string{"ab", "c"}},
		{"U3_fortran_2x3.npy", []int{2, 3}, []string{"a", "bb", "ccc", "dd", "e", ""}},
	} {
		a, err := Decode(readFixture(t, c.file))
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		got, err := a.Strings()
		if err != nil || !slices.Equal(got, c.want) || !slices.Equal(a.Shape, c.shape) || a.DType != Unicode {
			t.Errorf("%s: %v %q, %v; want %v %q", c.file, a.Shape, got, err, c.shape, c.want)
		}
		if f := a.Float64s(); len(f) != len(c.want) || (len(f) > 0 && !math.IsNaN(f[0])) {
			t.Errorf("%s: strings read as numbers %v", c.file, f)
		}
		if _, err := a.Int64s(); err == nil {
			t.Errorf("%s: strings read as integers", c.file)
		}
	}
	a, err := FromStrings([]int{2, 2}, []string{"monday", "été", "x", ""})
	if err != nil {
		t.Fatal(err)
	}
	enc, err := Encode(a)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(enc, readFixture(t, "U6_2x2.npy")) {
		t.Errorf("FromStrings wrote other bytes than NumPy:\n%q", enc)
	}
	for _, bad := range [][]string{{"a\x00b"}, {"\xff"}} {
		if _, err := FromStrings([]int{1}, bad); err == nil {
			t.Errorf("%q written", bad)
		}
	}
	if _, err := New(Unicode, []int{2}); err == nil {
		t.Error("New made a string array without a width")
	}
	if _, err := FromFloat64s(Unicode, []int{1}, []float64{1}); err == nil {
		t.Error("numbers made a string array")
	}
	// A surrogate is no character, and a width beyond the bound is no header.
	sur := slices.Clone(readFixture(t, "U3be_2.npy"))
	copy(sur[len(sur)-12:], []byte{0, 0, 0xD8, 0})
	if a, err := Decode(sur); err != nil {
		t.Fatal(err)
	} else if _, err := a.Strings(); err == nil || !strings.Contains(err.Error(), "no Unicode character") {
		t.Errorf("a surrogate read: %v", err)
	}
	for _, descr := range []string{"<U", "<U-1", "<U+3", "|U3", "<U99999999"} {
		h, _ := wrapHeader(fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (1,), }", descr), V1)
		if _, err := Decode(h); err == nil {
			t.Errorf("descr %q accepted", descr)
		}
	}
}
