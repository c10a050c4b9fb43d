package eval

import (
	"fmt"
	"math"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/numeric"
)

// BinaryOp names an elementwise operation of two operands.
type BinaryOp uint8

const (
	Add BinaryOp = iota + 1
	Sub
	Mul
	Div
	Max
)

var binaryNames = [...]string{Add: "add", Sub: "sub", Mul: "mul", Div: "div", Max: "max"}

func (o BinaryOp) String() string {
	if o >= Add && o <= Max {
		return binaryNames[o]
	}
	return fmt.Sprintf("BinaryOp(%d)", uint8(o))
}

func (o BinaryOp) apply(x, y float64) float64 {
	switch o {
	case Add:
		return x + y
	case Sub:
		return x - y
	case Mul:
		return x * y
	case Div:
		return x / y
	case Max:
		// NaN propagates, and max(-0, +0) is +0, as IEEE maximum says.
		return math.Max(x, y)
	}
	panic(fmt.Sprintf("BUG: eval: unknown %v", o))
}

// Binary applies op elementwise to two arrays of one shape and kind and
// rounds each result to that kind.
func Binary(op BinaryOp, a, b *Array) (*Array, error) {
	if op < Add || op > Max {
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

// UnaryOp names an elementwise operation of one operand.
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
)

var unaryNames = [...]string{Exp: "exp", Rsqrt: "rsqrt", Tanh: "tanh", Erf: "erf", Gelu: "gelu", GeluTanh: "gelu(tanh)"}

func (o UnaryOp) String() string {
	if o >= Exp && o <= GeluTanh {
		return unaryNames[o]
	}
	return fmt.Sprintf("UnaryOp(%d)", uint8(o))
}

// GeluTanhCoefficient is the cubic coefficient of the tanh approximation of
// gelu (Hendrycks and Gimpel, 2016).
const GeluTanhCoefficient = 0.044715

// Apply is op's exact value at x in float64, before any rounding to an
// element type.
func (o UnaryOp) Apply(x float64) float64 { return o.apply(x) }

func (o UnaryOp) apply(x float64) float64 {
	switch o {
	case Exp:
		return math.Exp(x)
	case Rsqrt:
		return 1 / math.Sqrt(x)
	case Tanh:
		return math.Tanh(x)
	case Erf:
		return math.Erf(x)
	case Gelu:
		// Φ(x) through erfc keeps full precision for negative x, where
		// 1+erf(x/√2) would cancel.
		return x * 0.5 * math.Erfc(-x/math.Sqrt2)
	case GeluTanh:
		// x/2·(1+tanh(z)) = x/(1+e^(-2z)): the same value without the
		// cancellation of 1+tanh(z) for negative z, where it would give 0
		// (or noise) instead of about -3e-21 at x = -8.
		z := math.Sqrt(2/math.Pi) * (x + GeluTanhCoefficient*x*x*x)
		return x / (1 + math.Exp(-2*z))
	}
	panic(fmt.Sprintf("BUG: eval: unknown %v", o))
}

// Unary applies op to every element of a in float64 and rounds each result
// to a's kind.
func Unary(op UnaryOp, a *Array) (*Array, error) {
	if op < Exp || op > GeluTanh {
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
	if !kind.IsFloat() {
		return nil, fmt.Errorf("invalid element kind %v", kind)
	}
	out := &Array{Shape: append([]int{}, a.Shape...), Kind: kind, Data: make([]float64, len(a.Data))}
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
