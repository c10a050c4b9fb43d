package eval

import (
	"fmt"

	"github.com/ipuir/ipuir/layout/movement"
)

// The movements' rules and index maps are layout/movement's, one per kind,
// which the tile-asm verifier and the simulated device use too; here they
// run as strided gathers over float64 data.

// CheckPermutation validates perm as a permutation of 0..rank-1.
func CheckPermutation(perm []int, rank int) error { return movement.CheckPermutation(perm, rank) }

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
	return moved(a, PermutedShape(a.Shape, perm), "transpose", movement.Params{Permutation: int64s(perm)})
}

// moved runs a checked affine movement of a into a result of shape out, as
// the movement's map describes it.
func moved(a *Array, out []int, kind string, p movement.Params) (*Array, error) {
	m, err := movement.NewMap(kind, p, int64s(out), [][]int64{int64s(a.Shape)})
	if err != nil {
		return nil, err
	}
	offset, steps, _ := m.Strided()
	res, err := New(out, a.Kind)
	if err != nil {
		return nil, err
	}
	step := make([]int, len(steps))
	for i, s := range steps {
		step[i] = int(s)
	}
	gather(res.Data, a.Data, res.Shape, step, int(offset))
	return res, nil
}

func int64s(xs []int) []int64 {
	out := make([]int64, len(xs))
	for i, x := range xs {
		out[i] = int64(x)
	}
	return out
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
func CheckBroadcast(in, out, dims []int) error { return movement.CheckBroadcast(in, out, dims) }

// Broadcast copies a into shape out: operand axis i maps to result axis
// dims[i]; result axes not in dims, and operand axes of size 1, repeat.
func Broadcast(a *Array, out []int, dims []int) (*Array, error) {
	if err := a.Check(); err != nil {
		return nil, err
	}
	if err := CheckBroadcast(a.Shape, out, dims); err != nil {
		return nil, err
	}
	return moved(a, out, "broadcast", movement.Params{Dimensions: int64s(dims)})
}

// CheckSlice validates a strided slice of shape: per axis, offset ≥ 0,
// size ≥ 0, stride ≥ 1 and the last element offset+(size-1)·stride inside
// the axis. The result shape is sizes.
func CheckSlice(shape, offsets, sizes, slStrides []int) error {
	return movement.CheckSlice(shape, offsets, sizes, slStrides)
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
	return moved(a, sizes, "slice", movement.Params{Offsets: int64s(offsets), Sizes: int64s(sizes), Strides: int64s(slStrides)})
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
