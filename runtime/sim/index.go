package sim

import (
	"fmt"

	"github.com/ipuir/ipuir/layout/movement"
	"github.com/ipuir/ipuir/runtime/ipupkg"
)

// mapping maps an index of a view or a copy's output to the buffer that
// holds it and the index there: the movement's index map
// (layout/movement) over the operands' buffers.
type mapping struct {
	srcs []int // the operands' buffers
	rank int   // the operands' largest rank
	m    *movement.Map
}

// viewMappings is, per buffer of p, its view mapping (nil for a buffer
// that is no view).
func viewMappings(p *ipupkg.Package) ([]*mapping, error) {
	out := make([]*mapping, len(p.Buffers))
	for b, buf := range p.Buffers {
		if len(buf.ViewOf) == 0 {
			continue
		}
		ins := make([][]int64, len(buf.ViewOf))
		for k, v := range buf.ViewOf {
			ins[k] = p.Buffers[v].Shape
		}
		m, err := newMapping(buf.ViewKind, buf.ViewParams, buf.ViewOf, buf.Shape, ins)
		if err != nil {
			return nil, fmt.Errorf("view %d (%s): %v", b, buf.Name, err)
		}
		out[b] = m
	}
	return out, nil
}

func newMapping(kind string, params []ipupkg.Param, srcs []int, out []int64, ins [][]int64) (*mapping, error) {
	m, err := movement.NewMap(kind, ipupkg.Movement(params), out, ins)
	if err != nil {
		return nil, err
	}
	return &mapping{srcs: srcs, rank: m.Rank, m: m}, nil
}

func (m *mapping) at(idx []int64, src []int64) (int, []int64) { return m.m.At(idx, src) }
