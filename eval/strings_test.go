package eval

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/elem"
)

func strs(t *testing.T, shape []int, vals ...string) *Array {
	t.Helper()
	a, err := NewStrings(shape, vals)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// StringNormalizer as ONNX's operator page and backend tests define it.
func TestStringNormalizer(t *testing.T) {
	week := []string{"monday", "tuesday", "wednesday", "thursday"}
	for _, c := range []struct {
		name  string
		n     StringNormalizer
		in    *Array
		shape []int
		want  []string
	}{
		{"lower, case-sensitive", StringNormalizer{Case: "LOWER", CaseSensitive: true, Stopwords: []string{"monday"}}, strs(t, []int{4}, week...), []int{3}, week[1:]},
		{"no change, case-sensitive", StringNormalizer{Case: "NONE", CaseSensitive: true, Stopwords: []string{"Monday"}}, strs(t, []int{4}, "Monday", "tuesday", "monday", "x"), []int{3}, []string{"tuesday", "monday", "x"}},
		{"upper, folded, 2-D", StringNormalizer{Case: "UPPER", Stopwords: []string{"monday"}}, strs(t, []int{1, 6}, "Monday", "tuesday", "wednesday", "Monday", "tuesday", "wednesday"), []int{1, 4}, []string{"TUESDAY", "WEDNESDAY", "TUESDAY", "WEDNESDAY"}},
		{"nothing left", StringNormalizer{Case: "UPPER", Stopwords: []string{"monday"}}, strs(t, []int{2}, "monday", "MONDAY"), []int{1}, []string{""}},
		{"nothing left, 2-D", StringNormalizer{Case: "NONE", CaseSensitive: true, Stopwords: []string{"a"}}, strs(t, []int{1, 1}, "a"), []int{1, 1}, []string{""}},
		{"no stop words", StringNormalizer{Case: "NONE"}, strs(t, []int{3}, "Straße", "ÉTÉ", ""), []int{3}, []string{"Straße", "ÉTÉ", ""}},
		{"unicode case", StringNormalizer{Case: "LOWER"}, strs(t, []int{2}, "ÉTÉ", "ΣΟΦΙΑ"), []int{2}, []string{"été", "σοφια"}},
	} {
		got, err := c.n.Apply(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !slices.Equal(got.Shape, c.shape) || !slices.Equal(got.Strs, c.want) || got.Check() != nil {
			t.Errorf("%s: %v %q, want %v %q", c.name, got.Shape, got.Strs, c.shape, c.want)
		}
	}
	for _, c := range []struct {
		n  StringNormalizer
		in *Array
	}{
		{StringNormalizer{Case: "lower"}, strs(t, []int{1}, "a")},
		{StringNormalizer{Case: "NONE"}, strs(t, []int{2, 2}, "a", "b", "c", "d")},
		{StringNormalizer{Case: "NONE"}, &Array{Shape: []int{1}, Kind: elem.F32, Data: []float64{1}}},
	} {
		if _, err := c.n.Apply(c.in); err == nil {
			t.Errorf("%+v of %s accepted", c.n, c.in.TypeString())
		}
	}
}

// Numbers written as strings read back as the same numbers, in ONNX's
// spelling; strings that are no number are refused naming them.
func TestFormatAndParseNumbers(t *testing.T) {
	f32, _ := FromValues([]int{6}, elem.F32, []float64{0.039187793, 0.5, -3, math.NaN(), math.Inf(1), math.Inf(-1)})
	got, err := FormatNumbers(f32)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"0.039187793", "0.5", "-3", "NaN", "INF", "-INF"}
	if !slices.Equal(got.Strs, want) || got.TypeString() != "tensor<6x!tensor.string>" {
		t.Fatalf("%s %q, want %q", got.TypeString(), got.Strs, want)
	}
	back, err := ParseNumbers(got, elem.F32)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range f32.Data {
		if back.Data[i] != v && !(math.IsNaN(v) && math.IsNaN(back.Data[i])) {
			t.Errorf("element %d: %q read back as %v, want %v", i, got.Strs[i], back.Data[i], v)
		}
	}
	ints, _ := FromValues([]int{3}, elem.I64, []float64{-7, 0, 1 << 40})
	if s, _ := FormatNumbers(ints); !slices.Equal(s.Strs, []string{"-7", "0", "1099511627776"}) {
		t.Errorf("i64 written as %q", s.Strs)
	}
	// Decimal to f32 directly: 0.47892547 is the f32 nearest it.
	p, err := ParseNumbers(strs(t, []int{4}, "0.47892547", " 1e3", "inf", "-Infinity"), elem.F32)
	if err != nil {
		t.Fatal(err)
	}
	if p.Data[0] != float64(float32(0.47892547)) || p.Data[1] != 1000 || !math.IsInf(p.Data[2], 1) || !math.IsInf(p.Data[3], -1) {
		t.Errorf("read %v", p.Data)
	}
	if i, err := ParseNumbers(strs(t, []int{2}, "12.7", "-3.9"), elem.I32); err != nil || !slices.Equal(i.Data, []float64{12, -3}) {
		t.Errorf("to i32: %v, %v", i, err)
	}
	for _, bad := range []string{"monday", "", "1.2.3", "NaN-ish"} {
		if _, err := ParseNumbers(strs(t, []int{1}, bad), elem.F32); err == nil || !strings.Contains(err.Error(), "not a number") {
			t.Errorf("%q read as a number: %v", bad, err)
		}
	}
	if _, err := ParseNumbers(strs(t, []int{1}, "NaN"), elem.I32); err == nil {
		t.Error("NaN read as an i32")
	}
	if _, err := FormatNumbers(got); err == nil {
		t.Error("strings formatted again")
	}
	if _, err := ParseNumbers(f32, elem.F32); err == nil {
		t.Error("numbers parsed")
	}
}

// A string array is checked as one: its count, and no numbers beside it.
func TestStringArrayCheck(t *testing.T) {
	a := strs(t, []int{2, 0})
	if err := a.Check(); err != nil || !a.IsStrings() {
		t.Errorf("an empty string array: %v, strings %v", err, a.IsStrings())
	}
	if _, err := NewStrings([]int{2}, []string{"a"}); err == nil {
		t.Error("one string for two elements")
	}
	b := strs(t, []int{1}, "a")
	b.Data = []float64{1}
	if b.Check() == nil {
		t.Error("a string array holding numbers passed its check")
	}
}
