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

// Array is a dense row-major tensor value: a shape, an element kind and the
// values, each representable in Kind. A scalar has an empty shape and one
// value.
type Array struct {
	Shape []int
	Kind  elem.Type
	Data  []float64
	// Strs holds a string array's elements (NewStrings), whose Kind is
	// elem.Invalid and Data nil: strings are values of the reference
	// interpreter only, so no numeric kernel can take one for numbers.
	Strs []string
}

// MaxElements bounds the size of any array a kernel creates, so that a
// mistyped shape becomes an error instead of an attempt to allocate
// terabytes.
const MaxElements = 1 << 31

// NumElements returns the product of shape, or an error when a dimension is
// negative or the product exceeds MaxElements.
func NumElements(shape []int) (int, error) {
	n := 1
	for _, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("negative dimension %d in shape %s", d, ShapeString(shape))
		}
		if d != 0 && n > MaxElements/d {
			return 0, fmt.Errorf("shape %s has more than %d elements", ShapeString(shape), MaxElements)
		}
		n *= d
	}
	return n, nil
}

// New returns a zero-filled array.
func New(shape []int, kind elem.Type) (*Array, error) {
	if !kind.Valid() {
		return nil, fmt.Errorf("invalid element kind %v", kind)
	}
	n, err := NumElements(shape)
	if err != nil {
		return nil, err
	}
	return &Array{Shape: append([]int{}, shape...), Kind: kind, Data: make([]float64, n)}, nil
}

// FromValues returns an array holding vals rounded to kind. vals must have
// exactly as many elements as shape.
func FromValues(shape []int, kind elem.Type, vals []float64) (*Array, error) {
	a, err := New(shape, kind)
	if err != nil {
		return nil, err
	}
	if len(vals) != len(a.Data) {
		return nil, fmt.Errorf("shape %s needs %d values, got %d", ShapeString(shape), len(a.Data), len(vals))
	}
	for i, v := range vals {
		a.Data[i] = numeric.Round(v, kind)
	}
	return a, nil
}

// Check reports whether a is well formed: a valid kind and as many values as
// its shape has elements.
func (a *Array) Check() error {
	if a == nil {
		return fmt.Errorf("missing array")
	}
	if a.IsStrings() {
		n, err := NumElements(a.Shape)
		if err != nil {
			return err
		}
		if n != len(a.Strs) || a.Data != nil {
			return fmt.Errorf("string array of shape %s holds %d strings and %d numbers, want %d strings", ShapeString(a.Shape), len(a.Strs), len(a.Data), n)
		}
		return nil
	}
	if !a.Kind.Valid() {
		return fmt.Errorf("invalid element kind %v", a.Kind)
	}
	n, err := NumElements(a.Shape)
	if err != nil {
		return err
	}
	if n != len(a.Data) {
		return fmt.Errorf("array of shape %s holds %d values, want %d", ShapeString(a.Shape), len(a.Data), n)
	}
	return nil
}

// Rank is the number of dimensions.
func (a *Array) Rank() int { return len(a.Shape) }

// TypeString describes a as the IR spells a tensor type, e.g.
// "tensor<2x3xf16>", for messages.
func (a *Array) TypeString() string {
	var b strings.Builder
	b.WriteString("tensor<")
	for _, d := range a.Shape {
		b.WriteString(strconv.Itoa(d))
		b.WriteByte('x')
	}
	if a.IsStrings() {
		b.WriteString(StringTypeName)
	} else {
		b.WriteString(a.Kind.String())
	}
	b.WriteByte('>')
	return b.String()
}

// ShapeString prints a shape the way tensor types spell it, "2x3", or
// "scalar" for the empty shape.
func ShapeString(shape []int) string {
	if len(shape) == 0 {
		return "scalar"
	}
	parts := make([]string, len(shape))
	for i, d := range shape {
		parts[i] = strconv.Itoa(d)
	}
	return strings.Join(parts, "x")
}

// SameShape reports whether two shapes are equal.
func SameShape(a, b []int) bool { return slices.Equal(a, b) }

// strides returns the row-major strides of shape.
func strides(shape []int) []int {
	s := make([]int, len(shape))
	n := 1
	for i := len(shape) - 1; i >= 0; i-- {
		s[i] = n
		n *= shape[i]
	}
	return s
}

// MaxAbsDiff returns the largest |a[i]-b[i]| of two arrays of one shape; a
// NaN on exactly one side counts as an infinite difference.
func MaxAbsDiff(a, b *Array) (float64, error) {
	if !SameShape(a.Shape, b.Shape) {
		return 0, fmt.Errorf("shapes differ: %s and %s", ShapeString(a.Shape), ShapeString(b.Shape))
	}
	worst := 0.0
	for i := range a.Data {
		x, y := a.Data[i], b.Data[i]
		if math.IsNaN(x) || math.IsNaN(y) {
			if math.IsNaN(x) != math.IsNaN(y) {
				return math.Inf(1), nil
			}
			continue
		}
		if x == y {
			continue
		}
		worst = math.Max(worst, math.Abs(x-y))
	}
	return worst, nil
}

// FormatInts prints a list the way the IR prints an i64 array, "[1, 0]",
// so that kernel errors and verifier messages read alike.
func FormatInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
