package sim

import (
	"strings"
	"testing"

	"github.com/ipuir/ipuir/runtime/ipupkg"
)

// Tags are as wide as the buffer count needs, and each width records and
// reports writers alike.
func TestTagWidths(t *testing.T) {
	for _, c := range []struct{ buffers, width int }{{1, 1}, {254, 1}, {255, 2}, {65534, 2}, {65535, 4}, {1 << 20, 4}} {
		if got := tagBytes(c.buffers); got != c.width {
			t.Errorf("tagBytes(%d) = %d, want %d", c.buffers, got, c.width)
		}
	}
	for _, w := range []int{1, 2, 4} {
		a, err := newArena(64)
		if err != nil {
			t.Fatal(err)
		}
		var tg tags
		switch w {
		case 1:
			tg.w8 = a.take(8)
		case 2:
			tg.w16 = takeAs[uint16](a, 8)
		case 4:
			tg.w32 = takeAs[uint32](a, 8)
		}
		id := uint32(200)
		if w > 1 {
			id = 60000
		}
		tg.set(2, 6, id)
		if g, who, ok := tg.other(2, 6, id); !ok {
			t.Errorf("width %d: granule %d reads writer %d after set", w, g, who)
		}
		if g, who, ok := tg.other(0, 8, id); ok || g != 0 || who != 0 {
			t.Errorf("width %d: other(0, 8) = %d, %d, %v; want granule 0 unwritten", w, g, who, ok)
		}
		if g, _, ok := tg.other(3, 8, id); ok || g != 6 {
			t.Errorf("width %d: other(3, 8) = %d, %v; want granule 6", w, g, ok)
		}
		if tg.get(5) != id || tg.get(6) != 0 {
			t.Errorf("width %d: get(5), get(6) = %d, %d", w, tg.get(5), tg.get(6))
		}
		a.release()
	}
}

// A tile holds what each class uses of it: a buffer in standard memory and
// one in interleaved memory give two regions, not a span from byte 0.
func TestMemoryPerClass(t *testing.T) {
	p, _ := gather(t)
	var inter ipupkg.MemoryClass
	for k, c := range p.Classes {
		if strings.Contains(c.Name, "Interleaved") {
			inter = c
			p.Buffers[3].Class = k
		}
	}
	if inter.End == 0 {
		t.Fatal("test16 has no interleaved class")
	}
	p.Buffers[3].Pieces[0].Address = inter.Start
	ext := usedExtents(p)
	want := []extent{{0, 2050}, {inter.Start, inter.Start + 64}}
	if len(ext[0]) != 2 || ext[0][0] != want[0] || ext[0][1] != want[1] {
		t.Errorf("tile 0 uses %v, want %v", ext[0], want)
	}
	if len(ext[1]) != 1 || ext[1][0] != (extent{0, 1056}) {
		t.Errorf("tile 1 uses %v, want [{0 1056}]", ext[1])
	}
	if len(ext[5]) != 1 || ext[5][0] != (extent{0, 512}) {
		t.Errorf("tile 5 (support only) uses %v, want [{0 512}]", ext[5])
	}
	_, tg := gather(t)
	s, in := runGather(t, p, tg)
	expectOutput(t, s, 0, scaled(in, 0.5))
	if got := len(s.d.mem[0].regions); got != 2 {
		t.Errorf("tile 0 has %d regions, want 2", got)
	}
}

// Once the device is closed (its memory unmapped) or loaded again, the
// session refuses to run or read rather than touch memory it no longer
// has.
func TestSessionAfterClose(t *testing.T) {
	p, tg := gather(t)
	s, _ := runGather(t, p, tg)
	if err := s.d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Read(0); err == nil || !strings.Contains(err.Error(), "no longer loaded") {
		t.Errorf("Read after Close: %v", err)
	}
	if err := s.Run(); err == nil || !strings.Contains(err.Error(), "no longer loaded") {
		t.Errorf("Run after Close: %v", err)
	}
	if err := s.Write(0, nil); err == nil {
		t.Error("Write after Close succeeds")
	}
}
