package sim

import (
	"fmt"

	"github.com/ipuir/ipuir/runtime/ipupkg"
)

// mapping maps an index of a view or a copy's output to the operand that
// holds it and the index there: the tiled level's movement ops
// (relayout, reshape, transpose, slice, concat, broadcast) as index
// arithmetic.
type mapping struct {
	srcs    []int // the operands' buffers
	rank    int   // the operands' largest rank
	kind    string
	out     []int64   // the output's shape
	ins     [][]int64 // the operands' shapes
	perm    []int64
	dims    []int64
	offsets []int64
	strides []int64
	axis    int
}

func param(params []ipupkg.Param, key string) []int64 {
	for _, p := range params {
		if p.Key == key && !p.IsString {
			return p.Ints
		}
	}
	return nil
}

func newMapping(kind string, params []ipupkg.Param, srcs []int, out []int64, ins [][]int64) (*mapping, error) {
	m := &mapping{srcs: srcs, kind: kind, out: out, ins: ins, perm: param(params, "permutation"), dims: param(params, "dimensions"),
		offsets: param(params, "offsets"), strides: param(params, "strides")}
	if a := param(params, "axis"); len(a) == 1 {
		m.axis = int(a[0])
	}
	for _, in := range ins {
		m.rank = max(m.rank, len(in))
	}
	rank := len(out)
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s: "+format, append([]any{kind}, args...)...)
	}
	switch kind {
	case "relayout":
		if len(ins) != 1 || len(ins[0]) != rank {
			return nil, bad("one operand of the output's shape")
		}
	case "reshape":
		if len(ins) != 1 || elements(ins[0]) != elements(out) {
			return nil, bad("one operand of as many elements")
		}
	case "transpose":
		if len(ins) != 1 || len(m.perm) != rank || len(ins[0]) != rank {
			return nil, bad("a permutation of the rank")
		}
		for _, p := range m.perm {
			if p < 0 || p >= int64(rank) {
				return nil, bad("permutation %v", m.perm)
			}
		}
	case "slice":
		if len(ins) != 1 || len(m.offsets) != rank || len(ins[0]) != rank {
			return nil, bad("offsets of the rank")
		}
		if m.strides == nil {
			m.strides = make([]int64, rank)
			for i := range m.strides {
				m.strides[i] = 1
			}
		}
		if len(m.strides) != rank {
			return nil, bad("strides of the rank")
		}
	case "concat":
		if m.axis < 0 || m.axis >= rank {
			return nil, bad("axis %d", m.axis)
		}
		for _, in := range ins {
			if len(in) != rank {
				return nil, bad("operands of the rank")
			}
		}
	case "broadcast":
		if len(ins) != 1 || len(m.dims) != len(ins[0]) {
			return nil, bad("a dimension per operand axis")
		}
		for _, d := range m.dims {
			if d < 0 || d >= int64(rank) {
				return nil, bad("dimensions %v", m.dims)
			}
		}
	default:
		return nil, fmt.Errorf("unknown movement %q", kind)
	}
	return m, nil
}

func elements(shape []int64) int64 {
	n := int64(1)
	for _, d := range shape {
		n *= d
	}
	return n
}

// at maps out index idx to (operand, index in it), writing into src,
// which has the operands' largest rank.
func (m *mapping) at(idx []int64, src []int64) (int, []int64) {
	switch m.kind {
	case "relayout":
		copy(src, idx)
		return 0, src[:len(idx)]
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
		for i, p := range m.perm {
			s[p] = idx[i]
		}
		return 0, s
	case "slice":
		s := src[:len(idx)]
		for i := range idx {
			s[i] = m.offsets[i] + m.strides[i]*idx[i]
		}
		return 0, s
	case "concat":
		s := src[:len(idx)]
		copy(s, idx)
		for k, in := range m.ins {
			if s[m.axis] < in[m.axis] || k == len(m.ins)-1 {
				return k, s
			}
			s[m.axis] -= in[m.axis]
		}
	case "broadcast":
		s := src[:len(m.dims)]
		for k, d := range m.dims {
			s[k] = idx[d]
			if m.ins[0][k] == 1 {
				s[k] = 0
			}
		}
		return 0, s
	}
	return 0, src
}
