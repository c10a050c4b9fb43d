// Package kernel is the work of the tiled level's compute ops as data:
// each elementwise function and reduction by name, the tensor dialect's
// arithmetic that computes it (package eval), and what it costs the
// target's vector unit. The tiled dialect verifies and estimates with it;
// the simulated device executes with it, without the IR.
package kernel

import (
	"fmt"
	"strings"

	"github.com/ipuir/ipuir/dialects/tensor/eval"
	"github.com/ipuir/ipuir/elem"
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
	{Name: "exp", Arity: 1, Unary: eval.Exp, Transcendental: 1},
	{Name: "rsqrt", Arity: 1, Unary: eval.Rsqrt, Transcendental: 1},
	{Name: "tanh", Arity: 1, Unary: eval.Tanh, Transcendental: 1},
	{Name: "erf", Arity: 1, Unary: eval.Erf, Transcendental: 1},
	{Name: "gelu", Arity: 1, Unary: eval.Gelu, Transcendental: 1, Simple: 3},
	{Name: "gelu_tanh", Arity: 1, Unary: eval.GeluTanh, Transcendental: 1, Simple: 5},
	{Name: "convert", Arity: 1, Simple: 1},
}

// FnNamed returns the function called name.
func FnNamed(name string) (*Fn, error) {
	for _, f := range Fns {
		if f.Name == name {
			return f, nil
		}
	}
	names := make([]string, len(Fns))
	for i, f := range Fns {
		names[i] = f.Name
	}
	return nil, fmt.Errorf("unknown elementwise function '%s' (known: %s)", name, strings.Join(names, ", "))
}

// FnForBinary and FnForUnary return the function computing an eval op.
func FnForBinary(op eval.BinaryOp) *Fn {
	for _, f := range Fns {
		if f.Arity == 2 && f.Binary == op {
			return f
		}
	}
	return nil
}

// FnForUnary: see FnForBinary.
func FnForUnary(op eval.UnaryOp) *Fn {
	for _, f := range Fns {
		if f.Arity == 1 && f.Unary == op && f.Name != "convert" {
			return f
		}
	}
	return nil
}

// Cycles is what one tile spends applying f to n elements of et.
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
