package eval

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/numeric"
)

// StringTypeName is how messages spell the element type of string arrays:
// the tensor dialect's !tensor.string.
const StringTypeName = "!tensor.string"

// NewStrings returns a string array holding vals, one per element of shape.
func NewStrings(shape []int, vals []string) (*Array, error) {
	n, err := NumElements(shape)
	if err != nil {
		return nil, err
	}
	if len(vals) != n {
		return nil, fmt.Errorf("shape %s needs %d strings, got %d", ShapeString(shape), n, len(vals))
	}
	strs := make([]string, n) // never nil: an empty string array is still one
	copy(strs, vals)
	return &Array{Shape: slices.Clone(shape), Strs: strs}, nil
}

// IsStrings reports whether a holds strings.
func (a *Array) IsStrings() bool { return a.Strs != nil && a.Kind == elem.Invalid }

// StringNormalizer is ONNX's StringNormalizer: the strings of a [C] or
// [1, C] array without its stop words (compared exactly, or case-folded
// when CaseSensitive is false), then lower- or upper-cased. When no
// string is left the result is one empty string ([1] or [1, 1]), as ONNX
// specifies, since a tensor of no strings would have no element to hold
// the row.
type StringNormalizer struct {
	Case          string // "LOWER", "UPPER" or "NONE"
	CaseSensitive bool
	Stopwords     []string
}

// Apply normalizes a.
func (n StringNormalizer) Apply(a *Array) (*Array, error) {
	if !a.IsStrings() {
		return nil, fmt.Errorf("StringNormalizer of %s: it takes strings", a.TypeString())
	}
	if len(a.Shape) != 1 && (len(a.Shape) != 2 || a.Shape[0] != 1) {
		return nil, fmt.Errorf("StringNormalizer of shape %s: it takes [C] or [1, C]", ShapeString(a.Shape))
	}
	switch n.Case {
	case "LOWER", "UPPER", "NONE":
	default:
		return nil, fmt.Errorf("case change %q (LOWER, UPPER or NONE)", n.Case)
	}
	stop := map[string]bool{}
	for _, w := range n.Stopwords {
		if !n.CaseSensitive {
			w = strings.ToLower(w)
		}
		stop[w] = true
	}
	var out []string
	for _, s := range a.Strs {
		key := s
		if !n.CaseSensitive {
			key = strings.ToLower(s)
		}
		if stop[key] {
			continue
		}
		switch n.Case {
		case "LOWER":
			s = strings.ToLower(s)
		case "UPPER":
			s = strings.ToUpper(s)
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		out = []string{""}
	}
	shape := []int{len(out)}
	if len(a.Shape) == 2 {
		shape = []int{1, len(out)}
	}
	return NewStrings(shape, out)
}

// FormatNumbers is ONNX's Cast of numbers to strings: integers in decimal,
// floats in the shortest form that reads back as the same value of their
// type (0.039187793 for that f32), and NaN, INF and -INF as ONNX spells
// them.
func FormatNumbers(a *Array) (*Array, error) {
	if a.IsStrings() {
		return nil, fmt.Errorf("formatting %s: it holds strings already", a.TypeString())
	}
	bits := 64
	if a.Kind == elem.F32 || a.Kind == elem.F16 || a.Kind == elem.BF16 {
		bits = 32 // every f16 and bf16 value is an f32 value
	}
	out := make([]string, len(a.Data))
	for i, v := range a.Data {
		switch {
		case math.IsNaN(v):
			out[i] = "NaN"
		case math.IsInf(v, 1):
			out[i] = "INF"
		case math.IsInf(v, -1):
			out[i] = "-INF"
		case a.Kind.IsFloat():
			out[i] = strconv.FormatFloat(v, 'g', -1, bits)
		case a.Kind.IsUnsigned() && v >= 1<<63:
			out[i] = strconv.FormatUint(uint64(v), 10)
		default:
			out[i] = strconv.FormatInt(int64(v), 10)
		}
	}
	return NewStrings(a.Shape, out)
}

// ParseNumbers is ONNX's Cast of strings to numbers of kind: each string
// read as a decimal or scientific number ("NaN", "INF" and "-INF", in any
// case, as well), rounded to kind; a string that is no number is an error
// naming it.
func ParseNumbers(a *Array, kind elem.Type) (*Array, error) {
	if !a.IsStrings() {
		return nil, fmt.Errorf("parsing %s: it holds no strings", a.TypeString())
	}
	out, err := New(a.Shape, kind)
	if err != nil {
		return nil, err
	}
	for i, s := range a.Strs {
		t := strings.TrimSpace(s)
		var v float64
		switch strings.ToUpper(t) {
		case "NAN":
			v = math.NaN()
		case "INF", "+INF", "INFINITY":
			v = math.Inf(1)
		case "-INF", "-INFINITY":
			v = math.Inf(-1)
		default:
			var perr error
			bitSize := 64
			if kind == elem.F32 {
				bitSize = 32 // read straight to f32: no double rounding through f64
			}
			if v, perr = strconv.ParseFloat(t, bitSize); perr != nil {
				// A number beyond f64's range reads as ±Inf, which
				// rounding to kind handles; anything else is no number.
				if ne, ok := perr.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
					return nil, fmt.Errorf("element %d, %q, is not a number", i, s)
				}
			}
		}
		if !kind.IsFloat() {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("element %d, %q, is not a number of %v", i, s, kind)
			}
			v = math.Trunc(v)
		}
		out.Data[i] = numeric.Round(v, kind)
	}
	return out, nil
}
