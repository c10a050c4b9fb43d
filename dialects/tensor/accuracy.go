package tensor

import (
	"fmt"
	"math"
	"slices"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/numeric"
)

// The accuracy model: how far a device's value of an op may lie from
// Evaluate's, which is the reference. Every op declares its rule in its
// spec (boundRule); Bound applies it. A rule has two parts.
//
// Local: on the same inputs, a device computes each primitive op as the
// reference does up to its own rounding. Elementwise arithmetic and
// transcendental functions are faithfully rounded (within one ulp of the
// exact value, where the reference rounds to nearest: 1.5 ulps between
// them); conversions round to nearest like the reference; data movement,
// max and constants are exact. Sums (matmul, reduce_sum) may run in any
// order: a matmul accumulates in f32 (the AMP's rule; f64 for f64) and
// rounds once, a reduce_sum accumulates each stage in f32 and may store up
// to ⌈log2 R⌉ partial sums in the element type on the way; any order of n
// additions errs by at most γ_n·Σ|terms| (Higham, Accuracy and Stability
// of Numerical Algorithms, Lemma 8.4), which the rule allows once for the
// device's order and once for the reference's. Softmax and layer_norm are
// realised as their decompositions (Decompose), so their bound is the
// analysis of that decomposition plus the exact gap between the
// decomposition's reference value and the fused op's.
//
// Propagated: when an input is itself within a bound of the reference
// (an earlier op's error), the rule carries that bound to the result to
// first order without dropping terms: sums add bounds, products add
// |a|·e_b + |b|·e_a + e_a·e_b, monotone functions are evaluated at the
// ends of each input's interval, gelu and silu use their Lipschitz
// constants, and
// data movement moves the bounds with the data.
//
// A check that compares a device's value with the reference on the
// device's own inputs (errors zero) tests the local part alone, so it
// points at the op that went wrong; one from the program's inputs tests
// both, with a bound that grows with the program's depth and
// conditioning.

// boundRule computes an op's bound from its inputs' values (args), their
// bounds (errs, nil entries exact) and the reference result.
type boundRule func(s *opSpec, op *ir.Operation, args, errs []*eval.Array, result *eval.Array) (*eval.Array, error)

// Bound returns, per element of result (which is Evaluate(op, args)), a
// bound on how far a device's value of op may lie from it when the device
// computes op on inputs within errs of args (a nil entry, or a nil errs,
// is an exact input): a float64 array of result's shape.
func Bound(op *ir.Operation, args, errs []*eval.Array, result *eval.Array) (*eval.Array, error) {
	s := specOf(op)
	if s == nil {
		return nil, fmt.Errorf("'%s' is not an op of the tensor dialect", op.Name())
	}
	if errs == nil {
		errs = make([]*eval.Array, len(args))
	}
	if len(errs) != len(args) {
		return nil, fmt.Errorf("%d bounds for %d inputs", len(errs), len(args))
	}
	errs = slices.Clone(errs) // the caller's stay as they were
	for i, e := range errs {
		if e != nil && (e.Kind != elem.F64 || !eval.SameShape(e.Shape, args[i].Shape)) {
			return nil, fmt.Errorf("input #%d's bound is %s, not f64 of its shape", i, e.TypeString())
		}
		errs[i] = unknownUnbounded(e)
	}
	out, err := s.bound(s, op, args, errs, result)
	if err != nil {
		return nil, err
	}
	return unknownUnbounded(out), nil
}

// unknownUnbounded returns e with every NaN (a bound that arithmetic on
// infinite bounds left undefined, 0·∞) made +Inf: a bound nobody knows is
// no bound. Left NaN, it would read as zero in the rules' comparisons
// (e > 0 is false) and a later op's bound would drop the input's error.
// e is copied before it is changed.
func unknownUnbounded(e *eval.Array) *eval.Array {
	if e == nil {
		return nil
	}
	var out *eval.Array
	for i, v := range e.Data {
		if !math.IsNaN(v) {
			continue
		}
		if out == nil {
			out = &eval.Array{Shape: e.Shape, Kind: e.Kind, Data: slices.Clone(e.Data)}
		}
		out.Data[i] = math.Inf(1)
	}
	if out == nil {
		return e
	}
	return out
}

// zeros is an exact value's bound: a float64 array of shape.
func zeros(shape []int) *eval.Array {
	a, _ := eval.New(shape, elem.F64)
	return a
}

// errAt is input i's bound at element k (0 for an exact input).
func errAt(errs []*eval.Array, i, k int) float64 {
	if errs[i] == nil {
		return 0
	}
	return errs[i].Data[k]
}

func allExact(errs []*eval.Array) bool {
	for _, e := range errs {
		if e != nil {
			return false
		}
	}
	return true
}

// faithful is the local bound of a faithfully rounded result element of
// magnitude y whose exact value may have moved by prop: one ulp for the
// device and half an ulp for the reference, at the larger magnitude.
func faithful(y, prop float64, k elem.Type) float64 {
	if !k.IsFloat() {
		return 0 // integer arithmetic on its inputs is exact (wrapping as the device does)
	}
	return 1.5 * numeric.Ulp(math.Abs(y)+prop, k)
}

// boundOfCompare: exact on exact inputs; where the operands' intervals
// meet (or one is NaN with a bound), the device's truth value may be
// either, so the bound is 1 there.
func boundOfCompare(bop eval.BinaryOp) boundRule {
	return func(_ *opSpec, _ *ir.Operation, args, errs []*eval.Array, result *eval.Array) (*eval.Array, error) {
		if allExact(errs) {
			return nil, nil
		}
		out := zeros(result.Shape)
		a, b := args[0].Data, args[1].Data
		for i := range out.Data {
			ea, eb := errAt(errs, 0, i), errAt(errs, 1, i)
			if ea == 0 && eb == 0 {
				continue
			}
			if d := math.Abs(a[i] - b[i]); !(d > ea+eb) {
				out.Data[i] = 1
			}
		}
		return out, nil
	}
}

// boundOfSelect: the chosen value's bound where the condition is exact;
// where the condition may be either, both values and the distance between
// them.
func boundOfSelect(_ *opSpec, _ *ir.Operation, args, errs []*eval.Array, result *eval.Array) (*eval.Array, error) {
	if allExact(errs) {
		return nil, nil
	}
	out := zeros(result.Shape)
	c, a, b := args[0].Data, args[1].Data, args[2].Data
	for i := range out.Data {
		ea, eb := errAt(errs, 1, i), errAt(errs, 2, i)
		switch {
		case errAt(errs, 0, i) > 0:
			out.Data[i] = math.Abs(a[i]-b[i]) + max(ea, eb)
			if math.IsNaN(out.Data[i]) {
				out.Data[i] = math.Inf(1)
			}
		case c[i] != 0:
			out.Data[i] = ea
		default:
			out.Data[i] = eb
		}
	}
	return out, nil
}

// exact is the rule of constants: no error.
func exact(_ *opSpec, _ *ir.Operation, _, _ []*eval.Array, _ *eval.Array) (*eval.Array, error) {
	return nil, nil
}

// moved is the rule of data movement: the result's elements are the
// inputs', so their bounds move with them (the op's own kernel applied to
// the bounds).
func moved(s *opSpec, op *ir.Operation, args, errs []*eval.Array, _ *eval.Array) (*eval.Array, error) {
	if allExact(errs) {
		return nil, nil
	}
	in := make([]*eval.Array, len(errs))
	for i, e := range errs {
		if e == nil {
			e = zeros(args[i].Shape)
		}
		in[i] = e
	}
	return s.evaluate(op, in)
}

// boundOfBinary is the rule of an elementwise op of two operands.
func boundOfBinary(bop eval.BinaryOp) boundRule {
	return func(_ *opSpec, _ *ir.Operation, args, errs []*eval.Array, result *eval.Array) (*eval.Array, error) {
		k := result.Kind
		out := zeros(result.Shape)
		a, b := args[0].Data, args[1].Data
		eval.ParallelFor(len(out.Data), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				ea, eb := errAt(errs, 0, i), errAt(errs, 1, i)
				var prop float64
				switch bop {
				case eval.Add, eval.Sub:
					prop = ea + eb
				case eval.Mul:
					prop = math.Abs(a[i])*eb + math.Abs(b[i])*ea + ea*eb
				case eval.Div:
					if d := math.Abs(b[i]) - eb; d > 0 {
						prop = (ea + math.Abs(a[i]/b[i])*eb) / d
					} else if ea > 0 || eb > 0 {
						prop = math.Inf(1)
					}
				case eval.Max:
					out.Data[i] = max(ea, eb) // max picks an input: exact
					continue
				case eval.Pow:
					// For x > 0, pow is monotone in each operand, so its
					// extremes over the box of inputs are at the corners;
					// a box that reaches x ≤ 0 is not bounded here.
					switch {
					case ea == 0 && eb == 0:
					case a[i]-ea > 0:
						p := math.Pow(a[i], b[i])
						for _, x := range []float64{a[i] - ea, a[i] + ea} {
							for _, y := range []float64{b[i] - eb, b[i] + eb} {
								prop = max(prop, math.Abs(math.Pow(x, y)-p))
							}
						}
						if math.IsNaN(prop) {
							prop = math.Inf(1)
						}
					default:
						prop = math.Inf(1)
					}
				}
				out.Data[i] = prop + faithful(result.Data[i], prop, k)
			}
		})
		return out, nil
	}
}

// boundOfMonotone is the rule of a function monotone on its domain: the
// input's interval maps to the interval between f at its ends.
func boundOfMonotone(f func(float64) float64) boundRule {
	return func(_ *opSpec, _ *ir.Operation, args, errs []*eval.Array, result *eval.Array) (*eval.Array, error) {
		k := result.Kind
		out := zeros(result.Shape)
		x := args[0].Data
		eval.ParallelFor(len(out.Data), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				e := errAt(errs, 0, i)
				prop := 0.0
				if e > 0 {
					fx := f(x[i])
					prop = max(math.Abs(f(x[i]+e)-fx), math.Abs(f(x[i]-e)-fx))
					if math.IsNaN(prop) {
						prop = math.Inf(1) // the interval leaves the domain
					}
				}
				out.Data[i] = prop + faithful(result.Data[i], prop, k)
			}
		})
		return out, nil
	}
}

// boundOfUnary: a monotone function is evaluated at the ends of each
// input's interval; one that is not (gelu, silu) carries the input's
// bound through its Lipschitz constant (eval's unaryOps declares both).
func boundOfUnary(s *opSpec, op *ir.Operation, args, errs []*eval.Array, result *eval.Array) (*eval.Array, error) {
	f := s.fn(op).Unary
	if f.Lipschitz() == 0 {
		return boundOfMonotone(f.Apply)(s, op, args, errs, result)
	}
	k := result.Kind
	out := zeros(result.Shape)
	for i := range out.Data {
		prop := f.Lipschitz() * errAt(errs, 0, i)
		out.Data[i] = prop + faithful(result.Data[i], prop, k)
	}
	return out, nil
}

// boundOfConvert: rounding to nearest, as the reference does, so exact
// inputs give the reference's value; a moved input may round to a
// neighbour.
func boundOfConvert(_ *opSpec, _ *ir.Operation, _, errs []*eval.Array, result *eval.Array) (*eval.Array, error) {
	if allExact(errs) {
		return nil, nil
	}
	k := result.Kind
	out := zeros(result.Shape)
	for i := range out.Data {
		if e := errAt(errs, 0, i); e > 0 {
			if !k.IsFloat() {
				// Truncation to an integer moves by less than e + 1; to
				// i1, anything but an exact zero is 1.
				out.Data[i] = math.Ceil(e) + 1
				if k == elem.I1 {
					out.Data[i] = 1
				}
				continue
			}
			out.Data[i] = e + numeric.Ulp(math.Abs(result.Data[i])+e, k)
		}
	}
	return out, nil
}

// boundOfSplat: every element is the scalar operand.
func boundOfSplat(_ *opSpec, _ *ir.Operation, _, errs []*eval.Array, result *eval.Array) (*eval.Array, error) {
	if allExact(errs) {
		return nil, nil
	}
	out := zeros(result.Shape)
	for i := range out.Data {
		out.Data[i] = errs[0].Data[0]
	}
	return out, nil
}

// accumulation is the unit roundoff of the type a sum of k values
// accumulates in: f32, or f64 for f64.
func accumulation(k elem.Type) float64 {
	if k == elem.F64 {
		return numeric.UnitRoundoff(elem.F64)
	}
	return numeric.UnitRoundoff(elem.F32)
}

// absF64 is |a| as float64, with e added when it is given.
func absF64(a, e *eval.Array) *eval.Array {
	out := &eval.Array{Shape: a.Shape, Kind: elem.F64, Data: make([]float64, len(a.Data))}
	for i, v := range a.Data {
		out.Data[i] = math.Abs(v)
		if e != nil {
			out.Data[i] += e.Data[i]
		}
	}
	return out
}

// boundOfMatmul: result[i, j] sums K products. M1 = |A|·|B| and
// M2 = (|A|+e_A)·(|B|+e_B) give the propagated bound M2 − M1 and the
// magnitude the sums' rounding scales with.
func boundOfMatmul(s *opSpec, op *ir.Operation, args, errs []*eval.Array, result *eval.Array) (*eval.Array, error) {
	return boundOfContraction(s, op, args, errs, result, int64(args[0].Shape[len(args[0].Shape)-1]))
}

// boundOfContraction is the rule of an op each of whose result elements
// sums inner products of its operands' elements (a matmul, a
// convolution), accumulated as a matmul accumulates.
func boundOfContraction(s *opSpec, op *ir.Operation, args, errs []*eval.Array, result *eval.Array, inner int64) (*eval.Array, error) {
	k := result.Kind
	m1, err := s.evaluate(op, []*eval.Array{absF64(args[0], nil), absF64(args[1], nil)})
	if err != nil {
		return nil, err
	}
	m2 := m1
	if !allExact(errs) {
		if m2, err = s.evaluate(op, []*eval.Array{absF64(args[0], errs[0]), absF64(args[1], errs[1])}); err != nil {
			return nil, err
		}
	}
	g := 2 * numeric.Gamma(inner, accumulation(k))
	if p, ok := PartialsOf(op); ok && p == elem.F16 {
		// f16 partials: the device sums each block of PartialsBlock
		// products in f32 (within the term above) and adds the block sums
		// into an f16 partial sum, rounding each time: ⌈K/16⌉ f16
		// roundings of sums no larger than Σ|a·b|, γ_B(u16)·M2 at most.
		g += numeric.Gamma((inner+PartialsBlock-1)/PartialsBlock, numeric.UnitRoundoff(elem.F16))
	}
	out := zeros(result.Shape)
	eval.ParallelFor(len(out.Data), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			prop := max(m2.Data[i]-m1.Data[i], 0)
			out.Data[i] = prop + g*m2.Data[i] + faithful(result.Data[i], prop, k)
		}
	})
	return out, nil
}

// stages is how many partial sums of R terms a device may store in the
// element type on the way to the result: ⌈log2 R⌉ (a tree over tiles and
// their partitions).
func stages(r int64) int64 {
	n := int64(0)
	for p := int64(1); p < r; p *= 2 {
		n++
	}
	return n
}

// boundOfReduce is the rule of reduce_sum and reduce_max.
func boundOfReduce(kind eval.ReduceOp) boundRule {
	return func(_ *opSpec, op *ir.Operation, args, errs []*eval.Array, result *eval.Array) (*eval.Array, error) {
		axes, err := opAttrs(op).ints(AxesAttr)
		if err != nil {
			return nil, err
		}
		if kind == eval.ReduceMax {
			if allExact(errs) {
				return nil, nil
			}
			return eval.Reduce(eval.ReduceMax, errs[0], axes)
		}
		k := result.Kind
		s1, err := eval.Reduce(eval.ReduceSum, absF64(args[0], nil), axes)
		if err != nil {
			return nil, err
		}
		var prop *eval.Array
		if !allExact(errs) {
			if prop, err = eval.Reduce(eval.ReduceSum, errs[0], axes); err != nil {
				return nil, err
			}
		}
		r := int64(1)
		for _, a := range axes {
			r *= int64(args[0].Shape[a])
		}
		g := 2*numeric.Gamma(r, accumulation(k)) + numeric.Gamma(stages(r), numeric.UnitRoundoff(k))
		out := zeros(result.Shape)
		for i := range out.Data {
			p := 0.0
			if prop != nil {
				p = prop.Data[i]
			}
			out.Data[i] = p + g*(s1.Data[i]+p) + faithful(result.Data[i], p, k)
		}
		return out, nil
	}
}

// boundByDecomposition is the rule of an op that devices realise as its
// decomposition: the analysis of the decomposition on the same inputs,
// plus the gap between the decomposition's reference value and the fused
// op's.
func boundByDecomposition(_ *opSpec, op *ir.Operation, args, errs []*eval.Array, result *eval.Array) (*eval.Array, error) {
	ctx := op.Context()
	locs := make([]ir.Location, op.NumOperands())
	for i := range locs {
		locs[i] = op.Loc()
	}
	scratch := ir.NewBlock(op.OperandTypes(), locs)
	m := ir.NewMapping()
	for i, v := range op.Operands() {
		m.Values[v] = scratch.Argument(i)
	}
	clone := op.Clone(ctx, m)
	scratch.Append(clone)
	out, err := decomposeOne(clone, ir.NewRewriter(ctx, nil))
	if err != nil {
		return nil, err
	}
	in := make([]Value, len(args))
	for i := range args {
		in[i] = Value{Array: args[i], Bound: errs[i]}
	}
	w := &Walker{Bounds: true}
	got, err := w.Run(scratch, in, []*ir.Value{out})
	if err != nil {
		return nil, err
	}
	d := got[0]
	bound := zeros(result.Shape)
	eval.ParallelFor(len(bound.Data), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			gap := math.Abs(d.Array.Data[i] - result.Data[i])
			if math.IsNaN(gap) {
				gap = 0 // both NaN, or a NaN the comparison judges itself
			}
			bound.Data[i] = gap
			if d.Bound != nil {
				bound.Data[i] += d.Bound.Data[i]
			}
		}
	})
	return bound, nil
}
