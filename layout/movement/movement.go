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
		return fmt.Errorf("the operand's shape %v is not the result's %v", ins[0], out)
	}
	return nil
}

func checkReshape(_ *Params, out []int64, ins [][]int64) error {
	if rowmajor.Elements(ins[0]) != rowmajor.Elements(out) {
		return fmt.Errorf("%v and %v hold different numbers of elements", ins[0], out)
	}
	return nil
}

func checkTranspose(p *Params, out []int64, ins [][]int64) error {
	r := len(out)
	if len(ins[0]) != r || len(p.Permutation) != r {
		return fmt.Errorf("a permutation of %d entries for ranks %d and %d", len(p.Permutation), len(ins[0]), r)
	}
	seen := make([]bool, r)
	for _, q := range p.Permutation {
		if q < 0 || q >= int64(r) || seen[q] {
			return fmt.Errorf("%v is not a permutation of 0 to %d", p.Permutation, r-1)
		}
		seen[q] = true
	}
	for i, q := range p.Permutation {
		if out[i] != ins[0][q] {
			return fmt.Errorf("result axis %d has %d elements, but operand axis %d, which the permutation puts there, has %d", i, out[i], q, ins[0][q])
		}
	}
	return nil
}

func checkSlice(p *Params, out []int64, ins [][]int64) error {
	in := ins[0]
	r := len(in)
	if len(out) != r || len(p.Offsets) != r {
		return fmt.Errorf("offsets of %d entries for ranks %d and %d", len(p.Offsets), r, len(out))
	}
	if p.Strides != nil && len(p.Strides) != r {
		return fmt.Errorf("strides of %d entries for rank %d", len(p.Strides), r)
	}
	if p.Sizes != nil && !slices.Equal(p.Sizes, out) {
		return fmt.Errorf("sizes %v are not the result's shape %v", p.Sizes, out)
	}
	for i := range r {
		o, st := p.Offsets[i], int64(1)
		if p.Strides != nil {
			st = p.Strides[i]
		}
		if o < 0 || st < 1 {
			return fmt.Errorf("axis %d: offset %d must be non-negative and stride %d positive", i, o, st)
		}
		if out[i] > 0 && (o >= in[i] || out[i]-1 > (in[i]-1-o)/st) {
			return fmt.Errorf("axis %d: %d elements from offset %d with stride %d run past the operand's %d", i, out[i], o, st, in[i])
		}
	}
	return nil
}

func checkConcat(p *Params, out []int64, ins [][]int64) error {
	r := len(out)
	if !p.HasAxis || p.Axis < 0 || p.Axis >= int64(r) {
		return fmt.Errorf("axis %d of a rank-%d result", p.Axis, r)
	}
	sum := int64(0)
	for k, in := range ins {
		if len(in) != r {
			return fmt.Errorf("operand %d has rank %d, the result %d", k, len(in), r)
		}
		for i := range r {
			if int64(i) != p.Axis && in[i] != out[i] {
				return fmt.Errorf("operand %d has %d elements on axis %d, the result %d", k, in[i], i, out[i])
			}
		}
		sum += in[p.Axis]
	}
	if sum != out[p.Axis] {
		return fmt.Errorf("the operands hold %d elements along axis %d, the result %d", sum, p.Axis, out[p.Axis])
	}
	return nil
}

func checkBroadcast(p *Params, out []int64, ins [][]int64) error {
	in := ins[0]
	if len(p.Dimensions) != len(in) {
		return fmt.Errorf("dimensions %v need one entry per operand axis (%d)", p.Dimensions, len(in))
	}
	for k, d := range p.Dimensions {
		if d < 0 || d >= int64(len(out)) || (k > 0 && d <= p.Dimensions[k-1]) {
			return fmt.Errorf("dimensions %v are not increasing axes of a rank-%d result", p.Dimensions, len(out))
		}
		if in[k] != 1 && in[k] != out[d] {
			return fmt.Errorf("operand axis %d (%d elements) cannot broadcast to result axis %d (%d)", k, in[k], d, out[d])
		}
	}
	return nil
}

// Map maps the result's indices of one checked movement to its operands'.
type Map struct {
	kind string
	// Rank is the operands' largest rank: the scratch At needs.
	Rank    int
	out     []int64
	ins     [][]int64
	p       Params
	strides []int64
}

// NewMap checks the movement and returns its map.
func NewMap(name string, p Params, out []int64, ins [][]int64) (*Map, error) {
	if err := Check(name, &p, out, ins); err != nil {
		return nil, err
	}
	m := &Map{kind: name, out: out, ins: ins, p: p, strides: p.Strides}
	for _, in := range ins {
		m.Rank = max(m.Rank, len(in))
	}
	if name == "slice" && m.strides == nil {
		m.strides = make([]int64, len(out))
		for i := range m.strides {
			m.strides[i] = 1
		}
	}
	return m, nil
}

// At maps result index idx to the operand that holds it and its index
// there, written into src (at least Rank entries, returned resliced).
func (m *Map) At(idx, src []int64) (int, []int64) {
	switch m.kind {
	case "reshape":
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
	case "transpose":
		s := src[:len(idx)]
		for i, q := range m.p.Permutation {
			s[q] = idx[i]
		}
		return 0, s
	case "slice":
		s := src[:len(idx)]
		for i := range idx {
			s[i] = m.p.Offsets[i] + m.strides[i]*idx[i]
		}
		return 0, s
	case "concat":
		s := src[:len(idx)]
		copy(s, idx)
		axis := m.p.Axis
		for k, in := range m.ins {
			if s[axis] < in[axis] || k == len(m.ins)-1 {
				return k, s
			}
			s[axis] -= in[axis]
		}
	case "broadcast":
		s := src[:len(m.p.Dimensions)]
		for k, d := range m.p.Dimensions {
			s[k] = idx[d]
			if m.ins[0][k] == 1 {
				s[k] = 0
			}
		}
		return 0, s
	}
	// relayout
	copy(src, idx)
	return 0, src[:len(idx)]
}
