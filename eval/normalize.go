package eval

import (
	"fmt"
	"math"

	"github.com/ipuir/ipuir/numeric"
)

// lanes describes an array as outer×axis×inner so that a kernel can walk
// the elements along one axis: element (o, i, n) is at (o·axis + i)·inner + n.
type lanes struct{ outer, axis, inner int }

func lanesOf(shape []int, axis int) lanes {
	l := lanes{outer: 1, axis: shape[axis], inner: 1}
	for _, d := range shape[:axis] {
		l.outer *= d
	}
	for _, d := range shape[axis+1:] {
		l.inner *= d
	}
	return l
}

// Softmax returns exp(x - max)/Σexp(x - max) along axis, computed in
// float64 and rounded once per element.
func Softmax(a *Array, axis int) (*Array, error) {
	if err := a.Check(); err != nil {
		return nil, err
	}
	if axis < 0 || axis >= a.Rank() {
		return nil, fmt.Errorf("softmax: axis %d is out of range for rank %d", axis, a.Rank())
	}
	l := lanesOf(a.Shape, axis)
	out := &Array{Shape: append([]int{}, a.Shape...), Kind: a.Kind, Data: make([]float64, len(a.Data))}
	// One lane (a fixed outer and inner coordinate) per task.
	parallelFor(l.outer*l.inner, 64, func(lo, hi int) {
		e := make([]float64, l.axis)
		for t := lo; t < hi; t++ {
			base := (t/l.inner)*l.axis*l.inner + t%l.inner
			m := math.Inf(-1)
			for i := 0; i < l.axis; i++ {
				m = math.Max(m, a.Data[base+i*l.inner])
			}
			sum := 0.0
			for i := range e {
				e[i] = math.Exp(a.Data[base+i*l.inner] - m)
				sum += e[i]
			}
			for i, v := range e {
				out.Data[base+i*l.inner] = numeric.Round(v/sum, a.Kind)
			}
		}
	})
	return out, nil
}

// LayerNorm normalises a over its last axis: (x - mean)/sqrt(var + eps)·scale
// + bias, with the biased (population) variance, computed in float64 and
// rounded once per element. scale and bias have the last axis's length and
// a's kind.
func LayerNorm(a, scale, bias *Array, eps float64) (*Array, error) {
	if err := checkAll(a, scale, bias); err != nil {
		return nil, err
	}
	if a.Rank() < 1 {
		return nil, fmt.Errorf("layer_norm needs an operand of rank at least 1, got %s", a.TypeString())
	}
	n := a.Shape[a.Rank()-1]
	for _, p := range []*Array{scale, bias} {
		if p.Rank() != 1 || p.Shape[0] != n || p.Kind != a.Kind {
			return nil, fmt.Errorf("layer_norm: scale and bias must be %s, got %s", (&Array{Shape: []int{n}, Kind: a.Kind}).TypeString(), p.TypeString())
		}
	}
	if math.IsNaN(eps) || eps < 0 {
		return nil, fmt.Errorf("layer_norm: epsilon must be a non-negative number, got %v", eps)
	}
	out := &Array{Shape: append([]int{}, a.Shape...), Kind: a.Kind, Data: make([]float64, len(a.Data))}
	if n == 0 {
		return out, nil
	}
	rows := len(a.Data) / n
	parallelFor(rows, 64, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			x := a.Data[r*n : (r+1)*n]
			mean := 0.0
			for _, v := range x {
				mean += v
			}
			mean /= float64(n)
			variance := 0.0
			for _, v := range x {
				variance += (v - mean) * (v - mean)
			}
			variance /= float64(n)
			inv := 1 / math.Sqrt(variance+eps)
			y := out.Data[r*n : (r+1)*n]
			for i, v := range x {
				y[i] = numeric.Round((v-mean)*inv*scale.Data[i]+bias.Data[i], a.Kind)
			}
		}
	})
	return out, nil
}
