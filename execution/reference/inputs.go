package reference

import (
	"fmt"
	"math"

	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/numeric"
	"github.com/ipuir/ipuir/runtime/npy"
)

// shapeAndKind returns what an argument of type t holds: the shape (empty
// for a scalar) and element kind, or an error for types the interpreter
// cannot hold.
func shapeAndKind(t ir.Type) ([]int, elem.Type, error) {
	k, ok := tensor.ElementKind(t)
	if !ok {
		return nil, 0, fmt.Errorf("type '%s' is not f16, bf16, f32 or f64, nor a tensor of them", ir.TypeString(t))
	}
	switch tt := t.(type) {
	case *ir.FloatType:
		return []int{}, k, nil
	case *ir.RankedTensorType:
		shape := make([]int, len(tt.Dims))
		for i, d := range tt.Dims {
			if d < 0 {
				return nil, 0, fmt.Errorf("type '%s' has a dynamic dimension", ir.TypeString(t))
			}
			shape[i] = int(d)
		}
		return shape, k, nil
	}
	return nil, 0, fmt.Errorf("type '%s' is not f16, bf16, f32 or f64, nor a tensor of them", ir.TypeString(t))
}

// CheckInput reports whether a is a well-formed value of type t, with its
// values representable in the element type.
func CheckInput(a *eval.Array, t ir.Type) error {
	if err := a.Check(); err != nil {
		return err
	}
	if tensor.IsStringTensor(t) || a.IsStrings() {
		if !tensor.MatchesStrings(a, t) {
			return fmt.Errorf("value of type '%s' given for an argument of type '%s'", a.TypeString(), ir.TypeString(t))
		}
		return nil
	}
	shape, k, err := shapeAndKind(t)
	if err != nil {
		return err
	}
	if a.Kind != k || !eval.SameShape(a.Shape, shape) {
		return fmt.Errorf("value of type '%s' given for an argument of type '%s'", a.TypeString(), ir.TypeString(t))
	}
	for i, v := range a.Data {
		if numeric.Round(v, k) != v && !math.IsNaN(v) {
			return fmt.Errorf("element %d (%v) is not a %v value", i, v, k)
		}
	}
	return nil
}

// DTypeFor is the .npy dtype that holds values of kind k: float16, float32
// and float64 for f16, f32 and f64, and float32 for bf16, which NumPy does
// not have (every bf16 value is exact in float32).
func DTypeFor(k elem.Type) npy.DType {
	if d, ok := npy.DTypeOf(k); ok {
		return d
	}
	return npy.Float32
}

// FromNPY converts a .npy array into an input of type t. The dtype must be
// the one DTypeFor names, so that no value is silently rounded; a bf16
// argument takes float32 data and rounds it to bf16. The shape must match
// exactly (a scalar argument takes a 0-d array).
func FromNPY(a *npy.Array, t ir.Type) (*eval.Array, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	if tensor.IsStringTensor(t) || a.DType == npy.Unicode {
		return stringsFromNPY(a, t)
	}
	shape, k, err := shapeAndKind(t)
	if err != nil {
		return nil, err
	}
	if want := DTypeFor(k); a.DType != want {
		return nil, fmt.Errorf("array is %v, but an argument of type '%s' needs %v data", a, ir.TypeString(t), want)
	}
	if !eval.SameShape(a.Shape, shape) {
		return nil, fmt.Errorf("array is %v, but the argument has type '%s' (shape %s)", a, ir.TypeString(t), npyShape(shape))
	}
	vals := a.Float64s()
	if k == elem.BF16 {
		numeric.RoundSlice(vals, k)
	}
	return &eval.Array{Shape: shape, Kind: k, Data: vals}, nil
}

// stringsFromNPY is FromNPY of a string argument: NumPy's str arrays.
func stringsFromNPY(a *npy.Array, t ir.Type) (*eval.Array, error) {
	if a.DType != npy.Unicode {
		return nil, fmt.Errorf("array is %v, but the argument has type '%s'", a, ir.TypeString(t))
	}
	vals, err := a.Strings()
	if err != nil {
		return nil, err
	}
	out, err := eval.NewStrings(a.Shape, vals)
	if err != nil {
		return nil, err
	}
	if !tensor.MatchesStrings(out, t) {
		return nil, fmt.Errorf("array is %v, but the argument has type '%s'", a, ir.TypeString(t))
	}
	return out, nil
}

// ToNPY converts a value to a .npy array of the dtype DTypeFor names
// (strings as NumPy's str arrays).
func ToNPY(a *eval.Array) (*npy.Array, error) {
	if err := a.Check(); err != nil {
		return nil, err
	}
	if a.IsStrings() {
		return npy.FromStrings(a.Shape, a.Strs)
	}
	return npy.FromFloat64s(DTypeFor(a.Kind), a.Shape, a.Data)
}

// npyShape spells a shape as NumPy prints it: (2, 3), (4,), ().
func npyShape(shape []int) string {
	switch len(shape) {
	case 0:
		return "()"
	case 1:
		return fmt.Sprintf("(%d,)", shape[0])
	}
	s := "("
	for i, d := range shape {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprint(d)
	}
	return s + ")"
}
