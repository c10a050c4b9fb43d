package eval

import (
	"fmt"
	"math"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/numeric"
)

// BinaryOp names an elementwise operation of two operands; binaryOps
// declares each.
type BinaryOp uint8

const (
	Add BinaryOp = iota + 1
	Sub
	Mul
	Div
	Max
	// Pow is C's pow: x^y, NaN for a negative x and a non-integral y, 1
	// for y = 0 whatever x is.
	Pow
	// The comparisons are 1 where they hold and 0 where not (in the
	// operands' kind; the tensor dialect's comparison ops convert to i1).
	// A NaN compares unequal to everything, itself included, as IEEE 754
	// says: Less, LessEqual and Equal are 0 for it, NotEqual 1.
	Less
	LessEqual
	Equal
	NotEqual
)

var binaryOps = [...]struct {
	name  string
	apply func(x, y float64) float64
}{
	Add: {"add", func(x, y float64) float64 { return x + y }},
	Sub: {"sub", func(x, y float64) float64 { return x - y }},
	Mul: {"mul", func(x, y float64) float64 { return x * y }},
	Div: {"div", func(x, y float64) float64 { return x / y }},
	// NaN propagates, and max(-0, +0) is +0, as IEEE maximum says.
	Max:       {"max", math.Max},
	Pow:       {"pow", math.Pow},
	Less:      {"lt", func(x, y float64) float64 { return truth(x < y) }},
	LessEqual: {"le", func(x, y float64) float64 { return truth(x <= y) }},
	Equal:     {"eq", func(x, y float64) float64 { return truth(x == y) }},
	NotEqual:  {"ne", func(x, y float64) float64 { return truth(x != y) }},
}

// truth is 1 for true and 0 for false.
func truth(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// IsComparison reports whether o is a comparison (its result is a truth
// value, whatever its operands' kind).
func (o BinaryOp) IsComparison() bool { return o >= Less && o <= NotEqual }

// Valid reports whether o is a declared operation.
func (o BinaryOp) Valid() bool { return int(o) < len(binaryOps) && binaryOps[o].apply != nil }

func (o BinaryOp) String() string {
	if o.Valid() {
		return binaryOps[o].name
	}
	return fmt.Sprintf("BinaryOp(%d)", uint8(o))
}

func (o BinaryOp) apply(x, y float64) float64 { return binaryOps[o].apply(x, y) }

// Binary applies op elementwise to two arrays of one shape and kind and
// rounds each result to that kind.
func Binary(op BinaryOp, a, b *Array) (*Array, error) {
	if !op.Valid() {
		return nil, fmt.Errorf("unknown binary operation %v", op)
	}
	if err := checkAll(a, b); err != nil {
		return nil, err
	}
	if !SameShape(a.Shape, b.Shape) || a.Kind != b.Kind {
		return nil, fmt.Errorf("%v: operands differ: %s and %s", op, a.TypeString(), b.TypeString())
	}
	out := &Array{Shape: append([]int{}, a.Shape...), Kind: a.Kind, Data: make([]float64, len(a.Data))}
	parallelFor(len(out.Data), elementwiseGrain, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out.Data[i] = numeric.Round(op.apply(a.Data[i], b.Data[i]), a.Kind)
		}
	})
	return out, nil
}

// UnaryOp names an elementwise operation of one operand; unaryOps
// declares each.
type UnaryOp uint8

const (
	Exp UnaryOp = iota + 1
	Rsqrt
	Tanh
	Erf
	// Gelu is x·Φ(x) = x/2·(1+erf(x/√2)).
	Gelu
	// GeluTanh is the tanh approximation x/2·(1+tanh(√(2/π)·(x+0.044715·x³))).
	GeluTanh
	// Silu is x·σ(x) = x/(1+e^(-x)) (the sigmoid-weighted linear unit).
	Silu
	// Log is the natural logarithm (NaN below 0, -Inf at 0).
	Log
	// Floor, Ceil and Round (half to even, as ONNX's Round) are integral
	// values; Sign is -1, 0 or 1 (NaN for NaN). All four are monotone,
	// so the accuracy model takes them at the ends of an input's interval
	// and a value near a step is bounded by both sides of it.
	Floor
	Ceil
	Round
	Sign
	// Sin, Cos and Atan are the circular functions the others (tan,
	// asin, acos) are composed from.
	Sin
	Cos
	Atan
)

// unaryOps are the unary operations: each one's exact value in float64,
// before any rounding to an element type, and for a function that is not
// monotone a bound on |f'| over the whole line, which the accuracy model
// carries input errors through (a monotone one is evaluated at the ends
// of each input's interval instead).
var unaryOps = [...]struct {
	name      string
	apply     func(float64) float64
	lipschitz float64
}{
	Exp:   {"exp", math.Exp, 0},
	Rsqrt: {"rsqrt", func(x float64) float64 { return 1 / math.Sqrt(x) }, 0},
	Tanh:  {"tanh", math.Tanh, 0},
	Erf:   {"erf", math.Erf, 0},
	// Φ(x) through erfc keeps full precision for negative x, where
	// 1+erf(x/√2) would cancel. |gelu'| = |Φ(x) + x·φ(x)| peaks at x = √2
	// at 1.1289.
	Gelu: {"gelu", func(x float64) float64 { return x * 0.5 * math.Erfc(-x/math.Sqrt2) }, 1.13},
	// x/2·(1+tanh(z)) = x/(1+e^(-2z)): the same value without the
	// cancellation of 1+tanh(z) for negative z, where it would give 0 (or
	// noise) instead of about -3e-21 at x = -8. Its derivative's peak is
	// within 1e-3 of gelu's.
	GeluTanh: {"gelu(tanh)", func(x float64) float64 {
		z := math.Sqrt(2/math.Pi) * (x + GeluTanhCoefficient*x*x*x)
		return x / (1 + math.Exp(-2*z))
	}, 1.13},
	// silu' = σ(x)·(1 + x·(1-σ(x))) lies in [-0.0998, 1.0998], its ends at
	// x = ∓2.3994.
	Silu:  {"silu", func(x float64) float64 { return x / (1 + math.Exp(-x)) }, 1.1},
	Log:   {"log", math.Log, 0},
	Floor: {"floor", math.Floor, 0},
	Ceil:  {"ceil", math.Ceil, 0},
	Round: {"round", math.RoundToEven, 0},
	Sin:   {"sin", math.Sin, 1},
	Cos:   {"cos", math.Cos, 1},
	Atan:  {"atan", math.Atan, 0},
	Sign: {"sign", func(x float64) float64 {
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		}
		return x // 0, -0 and NaN are their own sign
	}, 0},
}

// Valid reports whether o is a declared operation.
func (o UnaryOp) Valid() bool { return int(o) < len(unaryOps) && unaryOps[o].apply != nil }

func (o UnaryOp) String() string {
	if o.Valid() {
		return unaryOps[o].name
	}
	return fmt.Sprintf("UnaryOp(%d)", uint8(o))
}

// GeluTanhCoefficient is the cubic coefficient of the tanh approximation of
// gelu (Hendrycks and Gimpel, 2016).
const GeluTanhCoefficient = 0.044715

// Apply is op's exact value at x in float64, before any rounding to an
// element type.
func (o UnaryOp) Apply(x float64) float64 { return o.apply(x) }

func (o UnaryOp) apply(x float64) float64 { return unaryOps[o].apply(x) }

// Lipschitz is a bound on |f'| over the whole line for an operation that
// is not monotone, and 0 for a monotone one.
func (o UnaryOp) Lipschitz() float64 { return unaryOps[o].lipschitz }

// Function is an elementwise function as the dialects and kernels name
// it: a binary operation, a unary one, or a conversion to the result's
// element type (exactly one of the three).
type Function struct {
	Binary  BinaryOp
	Unary   UnaryOp
	Convert bool
	// Select is where(c, a, b): a where the i1 condition c is 1, b where
	// it is 0.
	Select bool
}

func (f Function) String() string {
	switch {
	case f.Binary.Valid():
		return f.Binary.String()
	case f.Unary.Valid():
		return f.Unary.String()
	case f.Convert:
		return "convert"
	case f.Select:
		return "select"
	}
	return "no function"
}

// Select is a where c is non-zero and b where it is zero, elementwise: c,
// a and b have one shape, a and b one kind, the result's.
func Select(c, a, b *Array) (*Array, error) {
	if err := checkAll(c, a, b); err != nil {
		return nil, err
	}
	if !SameShape(c.Shape, a.Shape) || !SameShape(a.Shape, b.Shape) || a.Kind != b.Kind {
		return nil, fmt.Errorf("select: operands differ: %s, %s and %s", c.TypeString(), a.TypeString(), b.TypeString())
	}
	out := &Array{Shape: append([]int{}, a.Shape...), Kind: a.Kind, Data: make([]float64, len(a.Data))}
	for i := range out.Data {
		if c.Data[i] != 0 {
			out.Data[i] = a.Data[i]
		} else {
			out.Data[i] = b.Data[i]
		}
	}
	return out, nil
}

// Unary applies op to every element of a in float64 and rounds each result
// to a's kind.
func Unary(op UnaryOp, a *Array) (*Array, error) {
	if !op.Valid() {
		return nil, fmt.Errorf("unknown unary operation %v", op)
	}
	if err := a.Check(); err != nil {
		return nil, err
	}
	out := &Array{Shape: append([]int{}, a.Shape...), Kind: a.Kind, Data: make([]float64, len(a.Data))}
	parallelFor(len(out.Data), elementwiseGrain, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out.Data[i] = numeric.Round(op.apply(a.Data[i]), a.Kind)
		}
	})
	return out, nil
}

// Convert rounds every element of a to kind.
func Convert(a *Array, kind elem.Type) (*Array, error) {
	if err := a.Check(); err != nil {
		return nil, err
	}
	if !kind.Valid() {
		return nil, fmt.Errorf("invalid element kind %v", kind)
	}
	out := &Array{Shape: append([]int{}, a.Shape...), Kind: kind, Data: make([]float64, len(a.Data))}
	if numeric.Widens(a.Kind, kind) {
		copy(out.Data, a.Data) // every value is one of kind's already
		return out, nil
	}
	parallelFor(len(out.Data), elementwiseGrain, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out.Data[i] = numeric.Round(a.Data[i], kind)
		}
	})
	return out, nil
}

// Splat returns an array of shape and kind filled with v rounded to kind.
func Splat(v float64, shape []int, kind elem.Type) (*Array, error) {
	out, err := New(shape, kind)
	if err != nil {
		return nil, err
	}
	r := numeric.Round(v, kind)
	for i := range out.Data {
		out.Data[i] = r
	}
	return out, nil
}

func checkAll(arrays ...*Array) error {
	for i, a := range arrays {
		if err := a.Check(); err != nil {
			return fmt.Errorf("operand #%d: %w", i, err)
		}
	}
	return nil
}
