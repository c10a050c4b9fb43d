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

func param(params []ipupkg.Param, key string) []int64 {
	for _, p := range params {
		if p.Key == key && !p.IsString {
			return p.Ints
		}
	}
	return nil
}

// movementParams reads a copy's or a view's parameters by the names the
// tiled ops give them.
func movementParams(params []ipupkg.Param) movement.Params {
	p := movement.Params{Permutation: param(params, "permutation"), Dimensions: param(params, "dimensions"),
		Offsets: param(params, "offsets"), Sizes: param(params, "sizes"), Strides: param(params, "strides")}
	if a := param(params, "axis"); len(a) == 1 {
		p.Axis, p.HasAxis = a[0], true
	}
	return p
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
	m, err := movement.NewMap(kind, movementParams(params), out, ins)
	if err != nil {
		return nil, err
	}
	return &mapping{srcs: srcs, rank: m.Rank, m: m}, nil
}

func (m *mapping) at(idx []int64, src []int64) (int, []int64) { return m.m.At(idx, src) }
