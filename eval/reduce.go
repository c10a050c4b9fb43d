package eval

import (
	"fmt"
	"math"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/internal/enum"
	"github.com/ipuir/ipuir/numeric"
)

// ReduceOp names a reduction.
type ReduceOp uint8

const (
	ReduceSum ReduceOp = iota + 1
	ReduceMax
)

var reduceOpNames = []string{ReduceSum: "reduce_sum", ReduceMax: "reduce_max"}

func (o ReduceOp) String() string { return enum.Name(o, reduceOpNames, "ReduceOp") }

// CheckAxes validates a list of reduction axes for rank: each in range,
// strictly increasing (so none repeats).
func CheckAxes(axes []int, rank int) error {
	for i, ax := range axes {
		if ax < 0 || ax >= rank {
			return fmt.Errorf("axis %d is out of range for rank %d", ax, rank)
		}
		if i > 0 && ax <= axes[i-1] {
			return fmt.Errorf("axes %s must be strictly increasing", FormatInts(axes))
		}
	}
	return nil
}

// ReducedShape is shape without the given axes (which CheckAxes accepts).
func ReducedShape(shape []int, axes []int) []int {
	out := make([]int, 0, len(shape))
	for i, d := range shape {
		if !containsInt(axes, i) {
			out = append(out, d)
		}
	}
	return out
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// Reduce reduces a over axes, dropping them from the shape. A sum over no
// elements is +0; a max over no elements is -Inf. See the package comment
// for the accumulation rule of sums.
func Reduce(op ReduceOp, a *Array, axes []int) (*Array, error) {
	if op != ReduceSum && op != ReduceMax {
		return nil, fmt.Errorf("unknown reduction %v", op)
	}
	if err := a.Check(); err != nil {
		return nil, err
	}
	if err := CheckAxes(axes, a.Rank()); err != nil {
		return nil, fmt.Errorf("%v: %w", op, err)
	}
	out, err := New(ReducedShape(a.Shape, axes), a.Kind)
	if err != nil {
		return nil, err
	}
	// Each output element reduces the input elements whose kept
	// coordinates match its own, visited in row-major order of the
	// reduced coordinates: walk the input once in row-major order and
	// send each element to its output slot. The per-slot order is then
	// exactly increasing index order.
	outStrides := strides(out.Shape)
	// outStep[d] is how far the output index moves per step along input
	// axis d (0 for reduced axes).
	outStep := make([]int, a.Rank())
	for d, o := 0, 0; d < a.Rank(); d++ {
		if !containsInt(axes, d) {
			outStep[d] = outStrides[o]
			o++
		}
	}
	f32 := a.Kind != elem.F64
	acc := make([]float64, len(out.Data))
	if op == ReduceMax {
		for i := range acc {
			acc[i] = math.Inf(-1)
		}
	}
	idx := make([]int, a.Rank())
	o := 0
	for _, v := range a.Data {
		switch {
		case op == ReduceMax:
			if math.IsNaN(v) || v > acc[o] || (v == 0 && acc[o] == 0 && !math.Signbit(v)) {
				acc[o] = v
			}
		case f32:
			acc[o] = float64(float32(acc[o]) + float32(v))
		default:
			acc[o] += v
		}
		// Advance the multi-index and the output offset.
		for d := a.Rank() - 1; d >= 0; d-- {
			idx[d]++
			o += outStep[d]
			if idx[d] < a.Shape[d] {
				break
			}
			o -= outStep[d] * idx[d]
			idx[d] = 0
		}
	}
	for i, v := range acc {
		out.Data[i] = numeric.Round(v, a.Kind)
	}
	return out, nil
}
