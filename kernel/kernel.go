// Package kernel is the work of the tiled level's compute ops as data:
// each elementwise function and reduction by name, the tensor dialect's
// arithmetic that computes it (package eval), and what it costs the
// target's vector unit. The tiled dialect verifies and estimates with it;
// the simulated device executes with it, without the IR.
package kernel

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/target"
)

// Fn is a function tiled.elementwise applies to each element. The
// arithmetic is the tensor dialect's (package eval), so the device and
// the reference interpreter compute the same thing; the cost is what the
// target's vector unit spends per element.
type Fn struct {
	Name   string
	Arity  int
	Binary eval.BinaryOp // for Arity 2
	Unary  eval.UnaryOp  // for Arity 1, except convert
	// Passes are the vector passes over the data per element, by class:
	// gelu is an erf and three simple ops.
	Simple, Transcendental int64
}

// Fns are the functions of tiled.elementwise, by name.
var Fns = []*Fn{
	{Name: "add", Arity: 2, Binary: eval.Add, Simple: 1},
	{Name: "sub", Arity: 2, Binary: eval.Sub, Simple: 1},
	{Name: "mul", Arity: 2, Binary: eval.Mul, Simple: 1},
	{Name: "div", Arity: 2, Binary: eval.Div, Transcendental: 1},
	{Name: "max", Arity: 2, Binary: eval.Max, Simple: 1},
	// pow is exp(y·log|x|) and the sign and special cases of C's pow: two
	// transcendental passes and three simple ones.
	{Name: "pow", Arity: 2, Binary: eval.Pow, Transcendental: 2, Simple: 3},
	{Name: "exp", Arity: 1, Unary: eval.Exp, Transcendental: 1},
	{Name: "rsqrt", Arity: 1, Unary: eval.Rsqrt, Transcendental: 1},
	{Name: "tanh", Arity: 1, Unary: eval.Tanh, Transcendental: 1},
	{Name: "erf", Arity: 1, Unary: eval.Erf, Transcendental: 1},
	{Name: "gelu", Arity: 1, Unary: eval.Gelu, Transcendental: 1, Simple: 3},
	{Name: "gelu_tanh", Arity: 1, Unary: eval.GeluTanh, Transcendental: 1, Simple: 5},
	// The target's transcendental support includes sigmoid; silu is it
	// and a multiply.
	{Name: "silu", Arity: 1, Unary: eval.Silu, Transcendental: 1, Simple: 1},
	// log is one of the target's transcendental instructions, as exp is;
	// floor, ceil, round and sign are one simple pass each (a rounding
	// mode of the float-to-integral instruction, a compare and select).
	{Name: "log", Arity: 1, Unary: eval.Log, Transcendental: 1},
	{Name: "floor", Arity: 1, Unary: eval.Floor, Simple: 1},
	{Name: "ceil", Arity: 1, Unary: eval.Ceil, Simple: 1},
	{Name: "round", Arity: 1, Unary: eval.Round, Simple: 1},
	{Name: "sign", Arity: 1, Unary: eval.Sign, Simple: 1},
	// The vector unit has no circular functions: sin, cos and atan are
	// software sequences, a range reduction and a polynomial (poplibs'
	// codelets). Assumption, not measured: ten simple passes each (about
	// a degree-9 polynomial by Horner's rule and the reduction).
	{Name: "sin", Arity: 1, Unary: eval.Sin, Simple: 10},
	{Name: "cos", Arity: 1, Unary: eval.Cos, Simple: 10},
	{Name: "atan", Arity: 1, Unary: eval.Atan, Simple: 10},
	// A comparison is the vector unit's compare, one simple pass; its
	// result is a truth value (i1), and the cost is charged at the result's
	// rate, one element a cycle, which is no less than the operands'.
	{Name: "lt", Arity: 2, Binary: eval.Less, Simple: 1},
	{Name: "le", Arity: 2, Binary: eval.LessEqual, Simple: 1},
	{Name: "eq", Arity: 2, Binary: eval.Equal, Simple: 1},
	{Name: "ne", Arity: 2, Binary: eval.NotEqual, Simple: 1},
	// select is a masked move: one simple pass.
	{Name: "select", Arity: 3, Simple: 1},
	{Name: "convert", Arity: 1, Simple: 1},
}

// FnNamed returns the function called name.
func FnNamed(name string) (*Fn, error) {
	for _, f := range Fns {
		if f.Name == name {
			return f, nil
		}
	}
	return nil, fmt.Errorf("unknown elementwise function '%s' (known: %s)", name, strings.Join(FnNames(), ", "))
}

// FnNames are the functions' names, in table order.
func FnNames() []string {
	names := make([]string, len(Fns))
	for i, f := range Fns {
		names[i] = f.Name
	}
	return names
}

// Function is what f computes, in eval's terms.
func (f *Fn) Function() eval.Function {
	switch {
	case f.Arity == 3:
		return eval.Function{Select: true}
	case f.Arity == 2:
		return eval.Function{Binary: f.Binary}
	case f.Unary.Valid():
		return eval.Function{Unary: f.Unary}
	}
	return eval.Function{Convert: true}
}

// FnFor returns the function of the table that computes fn: how a tensor
// op's elementwise function becomes the tiled level's and the device's.
func FnFor(fn eval.Function) (*Fn, error) {
	for _, f := range Fns {
		if f.Function() == fn {
			return f, nil
		}
	}
	return nil, fmt.Errorf("no kernel computes %v: add a row for it to kernel.Fns", fn)
}

// PricedAs is the element type an elementwise op is charged at: its
// result's, unless an operand is f64. Binary64 is software (a routine per
// element), and the routine that reads the operand is the work whatever
// the result holds: a comparison of doubles, or a conversion from f64 to
// f32, is charged at binary64's rate, not at its i1 or f32 result's.
func PricedAs(result elem.Type, operands ...elem.Type) elem.Type {
	if slices.Contains(operands, elem.F64) {
		return elem.F64
	}
	return result
}

// Cycles is what one tile spends applying f to n elements of et (the
// type it is priced at, PricedAs).
func (f *Fn) Cycles(t *target.Target, n int64, et elem.Type) (int64, error) {
	var total int64
	for _, pass := range []struct {
		count int64
		class target.OpClass
	}{{f.Simple, target.Simple}, {f.Transcendental, target.Transcendental}} {
		for range pass.count {
			c, err := t.ElementwiseCycles(n, et, pass.class)
			if err != nil {
				return 0, err
			}
			total += c
		}
	}
	return total, nil
}

// Reduction is a combining function of tiled.reduce and tiled.combine.
type Reduction struct {
	Name string
	Op   eval.ReduceOp
}

// Reductions are the reductions, by name.
var Reductions = []*Reduction{{Name: "sum", Op: eval.ReduceSum}, {Name: "max", Op: eval.ReduceMax}}

// ReductionNamed returns the reduction called name.
func ReductionNamed(name string) (*Reduction, error) {
	for _, r := range Reductions {
		if r.Name == name {
			return r, nil
		}
	}
	return nil, fmt.Errorf("unknown reduction '%s' (known: sum, max)", name)
}

// ReductionFor returns the reduction computing an eval op.
func ReductionFor(op eval.ReduceOp) *Reduction {
	for _, r := range Reductions {
		if r.Op == op {
			return r
		}
	}
	return nil
}

// The shape rules of the compute instructions, on plain shapes: the
// tile-asm verifier applies them to an instruction's operand types, the
// simulated device to a package's buffers.

// CheckElementwise checks a function's inputs against its output: as many
// as its arity, each of the output's shape.
// CheckElems checks the element types of f's inputs and output: convert
// changes the type; a comparison takes inputs of one type into i1; select
// takes an i1 condition and two values of the output's type; the others
// take and give one type.
func (f *Fn) CheckElems(ins []elem.Type, out elem.Type) error {
	if len(ins) != f.Arity {
		return fmt.Errorf("%s takes %d inputs, got %d", f.Name, f.Arity, len(ins))
	}
	switch {
	case f.Name == "convert":
		if ins[0] == out {
			return fmt.Errorf("'convert' must change the element type")
		}
	case f.Arity == 3:
		if ins[0] != elem.I1 || ins[1] != out || ins[2] != out {
			return fmt.Errorf("select takes an i1 condition and two %v values, got %v, %v and %v", out, ins[0], ins[1], ins[2])
		}
	case f.Binary.IsComparison():
		if ins[0] != ins[1] || out != elem.I1 {
			return fmt.Errorf("%s compares two inputs of one type into i1, got %v and %v into %v", f.Name, ins[0], ins[1], out)
		}
	default:
		for i, in := range ins {
			if in != out {
				return fmt.Errorf("%s: input #%d is %v, the output %v", f.Name, i, in, out)
			}
		}
	}
	return nil
}

func (f *Fn) CheckElementwise(ins [][]int64, out []int64) error {
	if len(ins) != f.Arity {
		return fmt.Errorf("%s takes %d inputs, the instruction has %d (and its output)", f.Name, f.Arity, len(ins))
	}
	for i, in := range ins {
		if !slices.Equal(in, out) {
			return fmt.Errorf("input #%d is %v but the output %v: elementwise shapes match", i, in, out)
		}
	}
	return nil
}

// CheckReduce checks a tile's reduction of in over axes into out: axes
// distinct and within the rank, the output of the input's rank (the reduced
// axes hold one partial result per tile) and equal to it off the axes.
func CheckReduce(in, out, axes []int64) error {
	if len(in) != len(out) {
		return fmt.Errorf("reduces a rank-%d input into a rank-%d output; a tile's reduction keeps the rank (the reduced axes hold partial results)", len(in), len(out))
	}
	reduced := make([]bool, len(in))
	for _, a := range axes {
		if a < 0 || a >= int64(len(in)) || reduced[a] {
			return fmt.Errorf("axes %v are not distinct axes of a rank-%d input", axes, len(in))
		}
		reduced[a] = true
	}
	for k := range in {
		if !reduced[k] && in[k] != out[k] {
			return fmt.Errorf("axis %d is not reduced, but has %d elements in the input and %d in the output", k, in[k], out[k])
		}
	}
	return nil
}

// CheckMatmul checks an AMP instruction's shapes: lhs B…×M×K, rhs B…×K×N,
// and an output B…×M×N (with the inner partitions first when partial).
func CheckMatmul(lhs, rhs, out []int64, partial bool) error {
	rank, sums := len(lhs), out
	if partial && len(out) == rank+1 {
		sums = out[1:]
	}
	if rank < 2 || len(rhs) != rank || !slices.Equal(lhs[:rank-2], rhs[:rank-2]) || lhs[rank-1] != rhs[rank-2] ||
		!slices.Equal(sums, append(slices.Clone(lhs[:rank-1]), rhs[rank-1])) {
		return fmt.Errorf("multiplies %v by %v into %v", lhs, rhs, out)
	}
	return nil
}
