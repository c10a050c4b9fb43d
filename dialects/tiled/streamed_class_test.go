package tiled

import (
	"testing"

	"github.com/ipuir/ipuir/layout"
	"github.com/ipuir/ipuir/target"
)

// tiled.matmul takes the operand the AMP streams in any memory class of
// the target, and every other operand only as its plan lays it out.
func TestStreamedOperandMayLiveInAnotherClass(t *testing.T) {
	tg, err := target.Lookup("ipu21")
	if err != nil {
		t.Fatal(err)
	}
	streamed := layout.Layout{Order: layout.Order{Kind: layout.AmpLeft}, MemoryClass: "Ipu21Standard",
		Tiling: layout.Tiling{TileCount: 16, Replicas: 1, Axes: []layout.AxisTiling{layout.NewAxis(2, 16)}}}
	in := func(l layout.Layout, class string) *layout.Layout { l.MemoryClass = class; return &l }
	right := streamed
	right.Order.Kind = layout.AmpRight
	moved := *in(streamed, "Ipu21Interleaved")
	moved.Tiling.Axes = []layout.AxisTiling{layout.NewAxis(2, 8)}
	for _, c := range []struct {
		name      string
		got, want *layout.Layout
		ok        bool
	}{
		{"streamed, interleaved", in(streamed, "Ipu21Interleaved"), &streamed, true},
		{"streamed, a class the target lacks", in(streamed, "Test16Interleaved"), &streamed, false},
		{"the AMP's right operand, interleaved", in(right, "Ipu21Interleaved"), &right, false},
		{"streamed, cut otherwise", &moved, &streamed, false},
	} {
		if got := streamedFromAnotherClass(c.got, c.want, tg); got != c.ok {
			t.Errorf("%s: %v, want %v", c.name, got, c.ok)
		}
	}
}
