// Package movement is the index arithmetic of the tiled level's data
// movement: relayout, reshape, transpose, slice, concat and broadcast, as
// tile-asm's copies and views name them and as an application package
// stores them. Each kind is declared once in Kinds, with the parameters it
// takes and the rule they must satisfy against the shapes; Check applies
// that rule, and a Map maps an index of the result to the operand and
// index that hold it. The tile-asm verifier and the simulated device both
// go through here, so a view the compiler accepts is one the device can
// read, and the other way round. It knows nothing of the IR.
package movement

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ipuir/ipuir/internal/rowmajor"
)

// Params are a movement's parameters (the tiled op's attributes of the
// same names); a kind uses the ones its declaration lists.
type Params struct {
	Permutation, Dimensions, Offsets, Sizes, Strides []int64
	// Axis is concat's axis; HasAxis says it was given.
	Axis    int64
	HasAxis bool
}

// Kind is one kind of movement.
type Kind struct {
	Name string
	// Operands is how many operands it takes; -1 is one or more.
	Operands int
	// Uses names the parameters it reads (for messages and docs).
	Uses []string
	// check verifies the parameters against the result's and the
	// operands' shapes (operand counts are checked before).
	check func(p *Params, out []int64, ins [][]int64) error
}

// Kinds are the movements, by name.
var Kinds = []*Kind{
	{Name: "relayout", Operands: 1, check: checkRelayout},
	{Name: "reshape", Operands: 1, check: checkReshape},
	{Name: "transpose", Operands: 1, Uses: []string{"permutation"}, check: checkTranspose},
	{Name: "slice", Operands: 1, Uses: []string{"offsets", "sizes", "strides"}, check: checkSlice},
	{Name: "concat", Operands: -1, Uses: []string{"axis"}, check: checkConcat},
	{Name: "broadcast", Operands: 1, Uses: []string{"dimensions"}, check: checkBroadcast},
}

// Lookup returns the kind called name.
func Lookup(name string) (*Kind, error) {
	for _, k := range Kinds {
		if k.Name == name {
			return k, nil
		}
	}
	names := make([]string, len(Kinds))
	for i, k := range Kinds {
		names[i] = k.Name
	}
	return nil, fmt.Errorf("unknown movement %q (known: %s)", name, strings.Join(names, ", "))
}

// MaxRank bounds the ranks a movement takes, as the package format does.
const MaxRank = 16

// Check verifies a movement of kind name from operands of shapes ins into
// a result of shape out with parameters p.
func Check(name string, p *Params, out []int64, ins [][]int64) error {
	k, err := Lookup(name)
	if err != nil {
		return err
	}
	if k.Operands >= 0 && len(ins) != k.Operands {
		return fmt.Errorf("%s takes %d operand(s), got %d", name, k.Operands, len(ins))
	}
	if len(ins) == 0 {
		return fmt.Errorf("%s takes at least one operand", name)
	}
	for _, s := range append([][]int64{out}, ins...) {
		if len(s) > MaxRank {
			return fmt.Errorf("%s of rank %d (at most %d)", name, len(s), MaxRank)
		}
		for _, d := range s {
			if d < 0 {
				return fmt.Errorf("%s: shape %v has a negative dimension", name, s)
			}
		}
	}
	if err := k.check(p, out, ins); err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	return nil
}

func checkRelayout(_ *Params, out []int64, ins [][]int64) error {
	if !slices.Equal(ins[0], out) {
		return fmt.Errorf("the operand's shape %s is not the result's %s", FormatInts(ins[0]), FormatInts(out))
	}
	return nil
}

func checkReshape(_ *Params, out []int64, ins [][]int64) error {
	if rowmajor.Elements(ins[0]) != rowmajor.Elements(out) {
		return fmt.Errorf("%s and %s hold different numbers of elements", FormatInts(ins[0]), FormatInts(out))
	}
	return nil
}

// CheckPermutation is transpose's rule on its own: perm is a permutation
// of 0..rank-1. The tensor dialect checks it before the result type exists.
func CheckPermutation[T ~int | ~int64](perm []T, rank int) error {
	if len(perm) != rank {
		return fmt.Errorf("permutation %s has %d entries, expected %d (the operand's rank)", FormatInts(perm), len(perm), rank)
	}
	seen := make([]bool, rank)
	for _, q := range perm {
		if q < 0 || int64(q) >= int64(rank) {
			return fmt.Errorf("permutation %s is not a permutation of 0..%d: %d is out of range", FormatInts(perm), rank-1, q)
		}
		if seen[q] {
			return fmt.Errorf("permutation %s is not a permutation of 0..%d: %d repeats", FormatInts(perm), rank-1, q)
		}
		seen[q] = true
	}
	return nil
}

func checkTranspose(p *Params, out []int64, ins [][]int64) error {
	if err := CheckPermutation(p.Permutation, len(ins[0])); err != nil {
		return err
	}
	if len(out) != len(ins[0]) {
		return fmt.Errorf("a rank-%d result of a rank-%d operand", len(out), len(ins[0]))
	}
	for i, q := range p.Permutation {
		if out[i] != ins[0][q] {
			return fmt.Errorf("result axis %d has %d elements, but operand axis %d, which the permutation puts there, has %d", i, out[i], q, ins[0][q])
		}
	}
	return nil
}

// CheckSlice is slice's rule on its own: per axis of an operand of shape
// in, offset ≥ 0, size ≥ 0, stride ≥ 1, and the last element
// offset+(size-1)·stride inside the axis. The result's shape is sizes.
func CheckSlice[T ~int | ~int64](in, offsets, sizes, strides []T) error {
	r := len(in)
	if len(offsets) != r || len(sizes) != r || len(strides) != r {
		return fmt.Errorf("offsets, sizes and strides need %d entries each (the operand's rank), got %d, %d and %d",
			r, len(offsets), len(sizes), len(strides))
	}
	for i := range in {
		o, n, st := offsets[i], sizes[i], strides[i]
		if o < 0 || n < 0 || st < 1 {
			return fmt.Errorf("axis %d: offset %d and size %d must be non-negative and stride %d positive", i, o, n, st)
		}
		if n > 0 && (o >= in[i] || (n-1) > (in[i]-1-o)/st) {
			return fmt.Errorf("axis %d: slice of %d elements from offset %d with stride %d runs past the dimension size %d",
				i, n, o, st, in[i])
		}
	}
	return nil
}

func checkSlice(p *Params, out []int64, ins [][]int64) error {
	if p.Sizes != nil && !slices.Equal(p.Sizes, out) {
		return fmt.Errorf("sizes %s are not the result's shape %s", FormatInts(p.Sizes), FormatInts(out))
	}
	return CheckSlice(ins[0], p.Offsets, out, p.stridesOrOnes(len(ins[0])))
}

// stridesOrOnes is a slice's strides, all 1 where none were given.
func (p *Params) stridesOrOnes(rank int) []int64 {
	if p.Strides != nil {
		return p.Strides
	}
	ones := make([]int64, rank)
	for i := range ones {
		ones[i] = 1
	}
	return ones
}

func checkConcat(p *Params, out []int64, ins [][]int64) error {
	r := len(out)
	if !p.HasAxis {
		return fmt.Errorf("no axis given")
	}
	if p.Axis < 0 || p.Axis >= int64(r) {
		return fmt.Errorf("axis %d is out of range for a rank-%d result", p.Axis, r)
	}
	sum := int64(0)
	for k, in := range ins {
		if len(in) != r {
			return fmt.Errorf("operand #%d has rank %d, the result %d", k, len(in), r)
		}
		for i := range r {
			if int64(i) != p.Axis && in[i] != out[i] {
				return fmt.Errorf("operand #%d has %d elements on axis %d, the result %d", k, in[i], i, out[i])
			}
		}
		sum += in[p.Axis]
	}
	if sum != out[p.Axis] {
		return fmt.Errorf("the operands hold %d elements along axis %d, the result %d", sum, p.Axis, out[p.Axis])
	}
	return nil
}

// CheckBroadcast is broadcast's rule: operand axis i of shape in becomes
// result axis dims[i] of shape out, dims strictly increasing, and each
// operand dimension is 1 or its result dimension.
func CheckBroadcast[T ~int | ~int64](in, out, dims []T) error {
	if len(dims) != len(in) {
		return fmt.Errorf("broadcast dimensions %s have %d entries, expected %d (the operand's rank)", FormatInts(dims), len(dims), len(in))
	}
	for i, d := range dims {
		if d < 0 || int64(d) >= int64(len(out)) {
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

func checkBroadcast(p *Params, out []int64, ins [][]int64) error {
	return CheckBroadcast(ins[0], out, p.Dimensions)
}

// FormatInts writes a list as the diagnostics do: [1, 0, 2].
func FormatInts[T ~int | ~int64](xs []T) string {
	b := []byte{'['}
	for i, x := range xs {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendInt(b, int64(x), 10)
	}
	return string(append(b, ']'))
}

// Map maps the result's indices of one checked movement to its operands'.
//
// Relayout, transpose, slice and broadcast are affine: operand axis k's
// index is base[k] plus, for each result axis i that reads it (from[i] ==
// k), scale[i]·idx[i]. Reshape maps through the row-major linear index and
// concat picks the operand along its axis.
type Map struct {
	kind string
	// Rank is the operands' largest rank: the scratch At needs.
	Rank int
	out  []int64
	ins  [][]int64
	p    Params
	// The affine kinds' map.
	affine bool
	from   []int
	scale  []int64
	base   []int64
}

// NewMap checks the movement and returns its map.
func NewMap(name string, p Params, out []int64, ins [][]int64) (*Map, error) {
	if err := Check(name, &p, out, ins); err != nil {
		return nil, err
	}
	m := &Map{kind: name, out: out, ins: ins, p: p}
	for _, in := range ins {
		m.Rank = max(m.Rank, len(in))
	}
	switch name {
	case "relayout", "transpose", "slice", "broadcast":
		m.affine = true
		m.from, m.scale, m.base = make([]int, len(out)), make([]int64, len(out)), make([]int64, len(ins[0]))
		for i := range out {
			m.from[i], m.scale[i] = i, 1
		}
	}
	switch name {
	case "transpose":
		for i, q := range p.Permutation {
			m.from[i] = int(q)
		}
	case "slice":
		copy(m.scale, p.stridesOrOnes(len(out)))
		copy(m.base, p.Offsets)
	case "broadcast":
		for i := range m.from {
			m.from[i] = -1
		}
		for k, d := range p.Dimensions {
			if ins[0][k] != 1 {
				m.from[d] = k
			}
		}
	}
	return m, nil
}

// Strided returns, for an affine movement, the operand's row-major offset
// of result index 0 and how far it moves per step along each result axis:
// what a strided gather over the operand's data needs. ok is false for
// reshape and concat.
func (m *Map) Strided() (offset int64, steps []int64, ok bool) {
	if !m.affine {
		return 0, nil, false
	}
	in := m.ins[0]
	strides := make([]int64, len(in))
	n := int64(1)
	for k := len(in) - 1; k >= 0; k-- {
		strides[k] = n
		n *= in[k]
	}
	for k, b := range m.base {
		offset += b * strides[k]
	}
	steps = make([]int64, len(m.out))
	for i, k := range m.from {
		if k >= 0 {
			steps[i] = m.scale[i] * strides[k]
		}
	}
	return offset, steps, true
}

// At maps result index idx to the operand that holds it and its index
// there, written into src (at least Rank entries, returned resliced).
func (m *Map) At(idx, src []int64) (int, []int64) {
	if m.affine {
		s := src[:len(m.base)]
		copy(s, m.base)
		for i, k := range m.from {
			if k >= 0 {
				s[k] += m.scale[i] * idx[i]
			}
		}
		return 0, s
	}
	if m.kind == "reshape" {
		lin := int64(0)
		for i, d := range m.out {
			lin = lin*d + idx[i]
		}
		in := m.ins[0]
		s := src[:len(in)]
		for i := len(in) - 1; i >= 0; i-- {
			if in[i] > 0 {
				s[i] = lin % in[i]
				lin /= in[i]
			}
		}
		return 0, s
	}
	// concat
	s := src[:len(idx)]
	copy(s, idx)
	axis := m.p.Axis
	for k, in := range m.ins {
		if s[axis] < in[axis] || k == len(m.ins)-1 {
			return k, s
		}
		s[axis] -= in[axis]
	}
	return len(m.ins) - 1, s
}
