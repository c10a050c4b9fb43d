package sim

import (
	"testing"

	"github.com/ipuir/ipuir/layout/movement"
	"github.com/ipuir/ipuir/runtime/ipupkg"
)

// A row of a view of a view (a transpose of a reshape, a slice of it with
// a negative-free stride, a broadcast) read as one line of the buffer it
// sees has the values the element-by-element path reads, along every
// axis, from every start and for every length; where the row is no line
// of one buffer (the reshape wraps), lineOf declines.
func TestLinesMatchElements(t *testing.T) {
	p, tg := gather(t)
	s, _ := runGather(t, p, tg)
	d := s.d
	y := 1 // [4 8], whole on tile 0 after the run
	add := func(kind string, params movement.Params, src int, shape []int64) int {
		m, err := movement.NewMap(kind, params, shape, [][]int64{p.Buffers[src].Shape})
		if err != nil {
			t.Fatal(err)
		}
		p.Buffers = append(p.Buffers, ipupkg.Buffer{Name: kind, Elem: p.Buffers[src].Elem, Shape: shape, ViewOf: []int{src}})
		on := make([]int32, p.Tiles)
		for i := range on {
			on[i] = -1
		}
		d.pieceOn = append(d.pieceOn, on)
		s.views = append(s.views, &mapping{srcs: []int{src}, rank: m.Rank, m: m})
		return len(p.Buffers) - 1
	}
	reshaped := add("reshape", movement.Params{}, y, []int64{2, 16})
	transposed := add("transpose", movement.Params{Permutation: []int64{1, 0}}, reshaped, []int64{16, 2})
	sliced := add("slice", movement.Params{Offsets: []int64{1, 0}, Sizes: []int64{7, 2}, Strides: []int64{2, 1}}, transposed, []int64{7, 2})
	wide := add("broadcast", movement.Params{Dimensions: []int64{1, 2}}, sliced, []int64{3, 7, 2})
	r := s.reader()
	lines, declined := 0, 0
	for _, b := range []int{reshaped, transposed, sliced, wide} {
		shape := p.Buffers[b].Shape
		for axis := range shape {
			for start := range shape[axis] {
				for n := 1; start+int64(n) <= shape[axis]; n++ {
					idx := make([]int64, len(shape))
					idx[axis] = start
					dir := make([]int64, len(shape))
					dir[axis] = 1
					l, ok := r.lineOf(nil, b, 0, idx, dir, n)
					if !ok {
						declined++
						continue
					}
					lines++
					for e := range n {
						at := append([]int64(nil), idx...)
						at[axis] += int64(e)
						want, err := r.read(b, 0, at)
						if err != nil {
							t.Fatal(err)
						}
						if got := l.c.Load(l.at(e)); got != want {
							t.Fatalf("%s %v along axis %d, element %d: line reads %v, elements %v", p.Buffers[b].Name, idx, axis, e, got, want)
						}
					}
				}
			}
		}
	}
	// The reshape's rows of 16 wrap rows of y's 8: those of more than 8
	// from 0, or that cross column 8, are no line.
	if lines == 0 || declined == 0 {
		t.Errorf("%d lines read, %d declined: want both", lines, declined)
	}
	t.Logf("%d lines compared element by element, %d declined", lines, declined)
}
