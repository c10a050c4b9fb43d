package eval

import (
	"fmt"
)

// CheckPermutation validates perm as a permutation of 0..rank-1.
func CheckPermutation(perm []int, rank int) error {
	if len(perm) != rank {
		return fmt.Errorf("permutation %s has %d entries, expected %d (the operand's rank)", FormatInts(perm), len(perm), rank)
	}
	seen := make([]bool, rank)
	for _, p := range perm {
		if p < 0 || p >= rank {
			return fmt.Errorf("permutation %s is not a permutation of 0..%d: %d is out of range", FormatInts(perm), rank-1, p)
		}
		if seen[p] {
			return fmt.Errorf("permutation %s is not a permutation of 0..%d: %d repeats", FormatInts(perm), rank-1, p)
		}
		seen[p] = true
	}
	return nil
}

// PermutedShape is shape[perm[0]], shape[perm[1]], ...
func PermutedShape(shape, perm []int) []int {
	out := make([]int, len(perm))
	for i, p := range perm {
		out[i] = shape[p]
	}
	return out
}

// Transpose returns a with its axes permuted: result axis i is a's axis
// perm[i].
func Transpose(a *Array, perm []int) (*Array, error) {
	if err := a.Check(); err != nil {
		return nil, err
	}
	if err := CheckPermutation(perm, a.Rank()); err != nil {
		return nil, err
	}
	out := &Array{Shape: PermutedShape(a.Shape, perm), Kind: a.Kind, Data: make([]float64, len(a.Data))}
	in := strides(a.Shape)
	// src[i] is how far the input offset moves per step along result axis i.
	src := make([]int, len(perm))
	for i, p := range perm {
		src[i] = in[p]
	}
	gather(out.Data, a.Data, out.Shape, src, 0)
	return out, nil
}

// gather fills dst (row major over shape) with src[offset + Σ idx[i]·step[i]].
func gather(dst, src []float64, shape, step []int, offset int) {
	if len(dst) == 0 {
		return
	}
	rank := len(shape)
	if rank == 0 {
		dst[0] = src[offset]
		return
	}
	idx := make([]int, rank)
	o := offset
	last, lastStep := shape[rank-1], step[rank-1]
	for w := 0; w < len(dst); w += last {
		row := dst[w : w+last]
		s := o
		for j := range row {
			row[j] = src[s]
			s += lastStep
		}
		for d := rank - 2; d >= 0; d-- {
			idx[d]++
			o += step[d]
			if idx[d] < shape[d] {
				break
			}
			o -= step[d] * idx[d]
			idx[d] = 0
		}
	}
}

// Reshape returns a's values under a new shape with as many elements.
func Reshape(a *Array, shape []int) (*Array, error) {
	if err := a.Check(); err != nil {
		return nil, err
	}
	n, err := NumElements(shape)
	if err != nil {
		return nil, err
	}
	if n != len(a.Data) {
		return nil, fmt.Errorf("reshape: %s has %d elements, shape %s has %d", a.TypeString(), len(a.Data), ShapeString(shape), n)
	}
	return &Array{Shape: append([]int{}, shape...), Kind: a.Kind, Data: append([]float64{}, a.Data...)}, nil
}

// CheckBroadcast validates a broadcast of an operand of shape in to shape
// out, where operand axis i becomes result axis dims[i]: dims strictly
// increasing, and each operand dimension 1 or equal to its result
// dimension.
func CheckBroadcast(in, out, dims []int) error {
	if len(dims) != len(in) {
		return fmt.Errorf("broadcast dimensions %s have %d entries, expected %d (the operand's rank)", FormatInts(dims), len(dims), len(in))
	}
	for i, d := range dims {
		if d < 0 || d >= len(out) {
			return fmt.Errorf("broadcast dimension %d is out of range for result rank %d", d, len(out))
		}
		if i > 0 && d <= dims[i-1] {
			return fmt.Errorf("broadcast dimensions %s must be strictly increasing", FormatInts(dims))
		}
		if in[i] != 1 && in[i] != out[d] {
			return fmt.Errorf("operand dimension %d (size %d) cannot be broadcast to result dimension %d (size %d)", i, in[i], d, out[d])
		}
	}
	return nil
}

// Broadcast copies a into shape out: operand axis i maps to result axis
// dims[i]; result axes not in dims, and operand axes of size 1, repeat.
func Broadcast(a *Array, out []int, dims []int) (*Array, error) {
	if err := a.Check(); err != nil {
		return nil, err
	}
	if err := CheckBroadcast(a.Shape, out, dims); err != nil {
		return nil, err
	}
	res, err := New(out, a.Kind)
	if err != nil {
		return nil, err
	}
	in := strides(a.Shape)
	step := make([]int, len(out))
	for i, d := range dims {
		if a.Shape[i] != 1 {
			step[d] = in[i]
		}
	}
	gather(res.Data, a.Data, res.Shape, step, 0)
	return res, nil
}

// CheckSlice validates a strided slice of shape: per axis, offset ≥ 0,
// size ≥ 0, stride ≥ 1 and the last element offset+(size-1)·stride inside
// the axis. The result shape is sizes.
func CheckSlice(shape, offsets, sizes, slStrides []int) error {
	r := len(shape)
	if len(offsets) != r || len(sizes) != r || len(slStrides) != r {
		return fmt.Errorf("offsets, sizes and strides need %d entries each (the operand's rank), got %d, %d and %d",
			r, len(offsets), len(sizes), len(slStrides))
	}
	for i := range shape {
		o, s, st := offsets[i], sizes[i], slStrides[i]
		if o < 0 || s < 0 || st < 1 {
			return fmt.Errorf("axis %d: offset %d and size %d must be non-negative and stride %d positive", i, o, s, st)
		}
		if s > 0 && (o >= shape[i] || (s-1) > (shape[i]-1-o)/st) {
			return fmt.Errorf("axis %d: slice of %d elements from offset %d with stride %d runs past the dimension size %d",
				i, s, o, st, shape[i])
		}
	}
	return nil
}

// Slice returns the elements offsets[i] + j·strides[i], j < sizes[i], of
// each axis.
func Slice(a *Array, offsets, sizes, slStrides []int) (*Array, error) {
	if err := a.Check(); err != nil {
		return nil, err
	}
	if err := CheckSlice(a.Shape, offsets, sizes, slStrides); err != nil {
		return nil, err
	}
	res, err := New(sizes, a.Kind)
	if err != nil {
		return nil, err
	}
	in := strides(a.Shape)
	step := make([]int, a.Rank())
	offset := 0
	for i := range step {
		step[i] = in[i] * slStrides[i]
		offset += in[i] * offsets[i]
	}
	gather(res.Data, a.Data, res.Shape, step, offset)
	return res, nil
}

// Concat joins arrays of one kind along axis; their other dimensions must
// agree.
func Concat(arrays []*Array, axis int) (*Array, error) {
	if len(arrays) == 0 {
		return nil, fmt.Errorf("concat needs at least one operand")
	}
	if err := checkAll(arrays...); err != nil {
		return nil, err
	}
	first := arrays[0]
	if axis < 0 || axis >= first.Rank() {
		return nil, fmt.Errorf("concat: axis %d is out of range for rank %d", axis, first.Rank())
	}
	shape := append([]int{}, first.Shape...)
	shape[axis] = 0
	for i, a := range arrays {
		if a.Rank() != first.Rank() || a.Kind != first.Kind {
			return nil, fmt.Errorf("concat: operand #%d is %s, expected rank %d and element kind %v", i, a.TypeString(), first.Rank(), first.Kind)
		}
		for d := range a.Shape {
			if d != axis && a.Shape[d] != first.Shape[d] {
				return nil, fmt.Errorf("concat: operand #%d is %s, which differs from %s outside axis %d", i, a.TypeString(), first.TypeString(), axis)
			}
		}
		shape[axis] += a.Shape[axis]
	}
	res, err := New(shape, first.Kind)
	if err != nil {
		return nil, err
	}
	// Each operand contributes a contiguous run of axis·inner values per
	// outer index.
	l := lanesOf(shape, axis)
	pos := 0
	for o := 0; o < l.outer; o++ {
		for _, a := range arrays {
			run := a.Shape[axis] * l.inner
			copy(res.Data[pos:pos+run], a.Data[o*run:(o+1)*run])
			pos += run
		}
	}
	return res, nil
}
