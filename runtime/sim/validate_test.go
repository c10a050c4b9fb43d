package sim

import (
	"strings"
	"testing"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/runtime/ipupkg"
)

// reduceGather is gather with r = max(z) over axis 1 added: a reduction
// on tile 0 keeping the rank.
func reduceGather(t *testing.T) *ipupkg.Package {
	p, _ := gather(t)
	one := ipupkg.Layout{Order: 1, TileCount: 1, Replicas: 1}
	p.Buffers = append(p.Buffers, ipupkg.Buffer{Name: "r", Elem: elem.F16, Shape: []int64{4, 1}, Start: 2, End: -1, Layout: one,
		Pieces: []ipupkg.Piece{{Tile: 0, Address: 1280, Bytes: 8, Box: []ipupkg.Span{{Lo: 0, Hi: 4}, {Lo: 0, Hi: 1}}}}})
	p.Program = append(p.Program, ipupkg.Instruction{Op: ipupkg.OpReduce, Superstep: 1, Operands: []int{3, 4},
		Params: []ipupkg.Param{{Key: ipupkg.ParamFn, IsString: true, Str: "max"}, {Key: ipupkg.ParamAxes, Ints: []int64{1}}}})
	return p
}

// Every rule of validate, broken once on a package the reader accepts:
// the device refuses it at load, naming the instruction, and never panics
// or runs it. (What the instruction table says, such as an unknown
// function, the reader refuses first: runtime/ipupkg's tests.)
func TestLoadRefusesWhatItCannotRun(t *testing.T) {
	p, tg := gather(t)
	if _, err := run(t, reduceGather(t), tg, f16s(make([]float64, 32)...)); err != nil {
		t.Fatalf("the intact reduction: %v", err)
	}
	for _, tc := range []struct {
		name   string
		break_ func(p *ipupkg.Package)
		want   string
	}{
		{"every instruction in superstep 0", func(p *ipupkg.Package) {
			for i := range p.Program {
				p.Program[i].Superstep = 0
			}
		}, "instruction 2 (vector) computes in superstep 0 after that superstep's exchange"},
		{"the sync before the exchange dropped", func(p *ipupkg.Package) { p.Program = p.Program[1:] },
			"instruction 0 (exchange) starts superstep 0 with an exchange but no sync before it"},
		{"a horizon longer than the schedule", func(p *ipupkg.Package) { p.Exchanges[0].Horizon = 80 },
			"the horizon is 80, but the last segment ends at cycle 8"},
		{"a vector input of another shape", func(p *ipupkg.Package) {
			p.Buffers[2].Shape = []int64{8, 4}
			p.Buffers[2].Pieces[0].Box = []ipupkg.Span{{Lo: 0, Hi: 8}, {Lo: 0, Hi: 4}}
		}, "input #1 is [8 4] but the output [4 8]: elementwise shapes match"},
		{"a reduction whose axes do not fit its output", func(p *ipupkg.Package) {
			r := &p.Buffers[4]
			r.Shape, r.Pieces[0].Box, r.Pieces[0].Bytes = []int64{4, 8}, []ipupkg.Span{{Lo: 0, Hi: 4}, {Lo: 0, Hi: 8}}, 64
		}, "tile 0 holds 8 elements of the output along reduced axis 1"},
		{"a reduction over an axis past the rank", func(p *ipupkg.Package) { p.Program[3].Params[1].Ints = []int64{2} },
			"axes [2] are not distinct axes of a rank-2 input"},
		{"an instruction that writes a constant", func(p *ipupkg.Package) { p.Program[2].Operands = []int{1, 3, 2} },
			"writes buffer 2 (half), which is a constant"},
		{"a transfer past the destination", func(p *ipupkg.Package) {
			p.Exchanges[0].Transfers[0].Box = []ipupkg.Span{{Lo: 2, Hi: 5}, {Lo: 0, Hi: 8}}
		}, "box [{2 5} {0 8}] leaves the destination's shape [4 8]"},
		{"a view with a bad permutation", func(p *ipupkg.Package) {
			v := p.Buffers[3]
			v.Name, v.ViewOf, v.ViewKind, v.Start = "zt", []int{3}, "transpose", 0
			v.ViewParams = []ipupkg.Param{{Key: ipupkg.ParamPermutation, Ints: []int64{0, 0}}}
			v.Pieces = []ipupkg.Piece{{Tile: 0, Box: v.Pieces[0].Box}}
			p.Buffers = append(p.Buffers, v)
		}, "view 5 (zt): transpose: permutation [0, 0] is not a permutation of 0..1: 0 repeats"},
	} {
		q := reduceGather(t)
		tc.break_(q)
		// Through the wire format: what the reader accepts reaches Load.
		back, _, err := ipupkg.Decode(q.Encode())
		if err != nil {
			t.Errorf("%s: the reader refused it first: %v", tc.name, err)
			continue
		}
		d := New(tg, nil)
		d.Attach()
		if err := d.Load(back); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
	_ = p
}
