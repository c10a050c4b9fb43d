package target

import (
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/elem"
)

func TestPodTargets(t *testing.T) {
	for _, c := range []struct {
		name   string
		chip   string
		chips  int
		linkBC float64
	}{
		{"pod4", "ipu21", 4, 32e9 / 1.85e9},
		{"pod16", "ipu21", 16, 32e9 / 1.85e9},
		{"test16x4", "test16", 4, 32e9 / 1.85e9},
	} {
		pod, chip := mustLookup(t, c.name), mustLookup(t, c.chip)
		if err := pod.Validate(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if pod.Chips != c.chips || !pod.MultiChip() || pod.Tiles != chip.Tiles || pod.ChipTiles() != int64(c.chips*chip.Tiles) {
			t.Errorf("%s: %d chips of %d tiles", c.name, pod.Chips, pod.Tiles)
		}
		// A pod's chips are its chip target's: every per-tile figure the same.
		same := pod.Clone()
		same.Name, same.Summary, same.Chips, same.Links = chip.Name, chip.Summary, 1, Links{}
		if d, want := same.Describe(), chip.Describe(); d != want {
			t.Errorf("%s's chip differs from %s:\n%s\nwant\n%s", c.name, c.chip, d, want)
		}
		if pod.Links.Topology != "ring" || pod.Links.PerNeighbour != 2 || math.Abs(pod.Links.BytesPerCycle-c.linkBC) > 1e-9 {
			t.Errorf("%s: links %+v", c.name, pod.Links)
		}
	}
	for _, name := range []string{"ipu2", "ipu21", "test16"} {
		if tg := mustLookup(t, name); tg.Chips != 1 || tg.MultiChip() || tg.Links != (Links{}) || tg.Streaming.BytesPerChip == 0 {
			t.Errorf("%s: chips %d, links %+v, streaming %+v", name, tg.Chips, tg.Links, tg.Streaming)
		}
	}
}

func TestLinkAndStreamingCyclesHandComputed(t *testing.T) {
	pod := mustLookup(t, "pod4")
	// Ring of four: 0→1 one hop, 0→2 two, 0→3 one (the other way round).
	for _, c := range []struct{ from, to, hops int }{{0, 0, 0}, {0, 1, 1}, {0, 2, 2}, {0, 3, 1}, {3, 1, 2}} {
		if h, err := pod.LinkHops(c.from, c.to); err != nil || h != c.hops {
			t.Errorf("LinkHops(%d, %d) = %d, %v; want %d", c.from, c.to, h, err, c.hops)
		}
	}
	// 1 MB to a neighbour over two links at 32e9/1.85e9 bytes a cycle
	// each: ⌈1e6 / 34.594...⌉ = 28,907 cycles, plus 500 of latency.
	if got, err := pod.LinkTransferCycles(1_000_000, 0, 1); err != nil || got != 28907+500 {
		t.Errorf("LinkTransferCycles(1 MB, one hop) = %d, %v; want %d", got, err, 28907+500)
	}
	// Two hops, store and forward: twice that.
	if got, err := pod.LinkTransferCycles(1_000_000, 0, 2); err != nil || got != 2*(28907+500) {
		t.Errorf("LinkTransferCycles(1 MB, two hops) = %d, %v", got, err)
	}
	if got, err := pod.LinkTransferCycles(1_000_000, 2, 2); err != nil || got != 0 {
		t.Errorf("a transfer within a chip = %d, %v; want 0", got, err)
	}
	for _, bad := range [][3]int64{{-1, 0, 1}, {1, 0, 4}, {1, -1, 0}} {
		if _, err := pod.LinkTransferCycles(bad[0], int(bad[1]), int(bad[2])); err == nil {
			t.Errorf("LinkTransferCycles%v accepted", bad)
		}
	}
	// Streaming: 30 MB (a SigLIP layer's weights) at 15.75e9/1.85e9 bytes
	// a cycle is ⌈3e7 / 8.5135...⌉ = 3,523,810 cycles, plus 2,000.
	ipu := mustLookup(t, "ipu21")
	if got, err := ipu.StreamingCycles(30_000_000); err != nil || got != 3523810+2000 {
		t.Errorf("StreamingCycles(30 MB) = %d, %v; want %d", got, err, 3523810+2000)
	}
	if _, err := ipu.StreamingCycles(ipu.Streaming.BytesPerChip + 1); err == nil {
		t.Error("a streaming transfer larger than the memory was accepted")
	}
	none := ipu.Clone()
	none.Streaming = StreamingMemory{}
	if _, err := none.StreamingCycles(1); err == nil || !strings.Contains(err.Error(), "no streaming memory") {
		t.Errorf("streaming without streaming memory: %v", err)
	}
	// PopART: P stages over G micro-batches take 2(P−1) + (G−(P−1)).
	for _, c := range [][3]int64{{4, 1, 4}, {4, 4, 7}, {4, 16, 19}, {1, 5, 5}} {
		if got, err := PipelineSlots(c[0], c[1]); err != nil || got != c[2] || got != 2*(c[0]-1)+(c[1]-(c[0]-1)) {
			t.Errorf("PipelineSlots(%d, %d) = %d, %v; want %d", c[0], c[1], got, err, c[2])
		}
	}
	if _, err := PipelineSlots(0, 1); err == nil {
		t.Error("a pipeline of no stages was accepted")
	}
	if _, err := PipelineSlots(2, math.MaxInt64); err == nil {
		t.Error("an overflowing pipeline was accepted")
	}
}

func TestValidateScale(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*Target)
		want string
	}{
		{"no chips", func(t *Target) { t.Chips = 0 }, "Chips must be positive"},
		{"links on one chip", func(t *Target) { t.Chips = 1 }, "a single chip has no links"},
		{"no topology", func(t *Target) { t.Links.Topology = "mesh" }, `"ring"`},
		{"no link rate", func(t *Target) { t.Links.BytesPerCycle = math.NaN() }, "positive and finite"},
		{"cheap chip sync", func(t *Target) { t.Links.SyncCycles = 10 }, "no less than one chip's"},
		{"streaming rate without capacity", func(t *Target) { t.Streaming.BytesPerChip = 0 }, "without capacity"},
		{"streaming without rate", func(t *Target) { t.Streaming.BytesPerCycle = 0 }, "bytes per cycle must be positive"},
	} {
		tg := mustLookup(t, "pod4")
		c.edit(tg)
		if err := tg.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Validate() = %v; want %q", c.name, err, c.want)
		}
	}
}

func TestTargetOptions(t *testing.T) {
	tg, err := Lookup("pod4{link-latency-cycles=250 streaming-bytes-per-cycle=4.25}")
	if err != nil {
		t.Fatal(err)
	}
	if tg.Links.LatencyCycles != 250 || tg.Streaming.BytesPerCycle != 4.25 {
		t.Errorf("options not applied: %+v %+v", tg.Links, tg.Streaming)
	}
	// The canonical spec lists options in the order of Options, and
	// names the same target again.
	if want := "pod4{streaming-bytes-per-cycle=4.25 link-latency-cycles=250}"; tg.Name != want {
		t.Errorf("Name = %q, want %q", tg.Name, want)
	}
	again, err := Lookup(tg.Name)
	if err != nil || again.Describe() != tg.Describe() {
		t.Errorf("the canonical spec names another target: %v", err)
	}
	// The AMP's pass overhead, for every vertex.
	w, err := Lookup("ipu21{amp-pass-cycles=200}")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range w.AMPVertices {
		if v.PassCycles != 200 {
			t.Errorf("%v/%v vertex: %d", v.Elem, v.Partials, v.PassCycles)
		}
	}
	// The f32-partials what-if changes that vertex alone.
	full, err := Lookup("ipu21{amp-f32-partials-conv-units=16}")
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := full.AMPVertexFor(elem.F16, elem.F32); v.ConvUnits != 16 || v.MACsPerCycle() != 64 {
		t.Errorf("amp-f32-partials-conv-units=16: %+v", v)
	}
	if v, _ := full.AMPVertexFor(elem.F16, elem.F16); v.ConvUnits != 16 {
		t.Errorf("amp-f32-partials-conv-units=16 changed the f16-partials vertex: %+v", v)
	}
	// IO tiles are set aside from the chip's: the programs run on the rest.
	io, err := Lookup("ipu21{io-tiles=92}")
	if err != nil {
		t.Fatal(err)
	}
	if io.Tiles != 1380 || io.IOTiles != 92 || io.IOBytes() != 92*(io.SRAMBytesPerTile-io.SupportReserveBytes) {
		t.Errorf("io-tiles=92: %d compute tiles, %d IO tiles holding %d bytes", io.Tiles, io.IOTiles, io.IOBytes())
	}
	// 1 MB from 92 IO tiles at 4 bytes a cycle each, the exchange's
	// latency and a sync.
	if got, err := io.IOMoveCycles(1 << 20); err != nil || got != (1<<20+367)/368+int64(io.ExchangeLatencyCycles+io.SyncCycles) {
		t.Errorf("IOMoveCycles(1 MiB) = %d, %v", got, err)
	}
	if _, err := mustLookup(t, "ipu21").IOMoveCycles(1); err == nil {
		t.Error("a chip without IO tiles moved data from them")
	}
	if base := mustLookup(t, "ipu21"); base.AMPVertices[0].PassCycles != 25 {
		t.Error("an option leaked into the built-in target")
	}
	spec, err := WithOptions("ipu21{exchange-latency-cycles=10}", []string{"streaming-latency-cycles=100"})
	if err != nil || spec != "ipu21{exchange-latency-cycles=10 streaming-latency-cycles=100}" {
		t.Errorf("WithOptions = %q, %v", spec, err)
	}
	for _, c := range []struct{ spec, want string }{
		{"ipu21{link-latency-cycles=1}", "applies only to targets of several chips (pod16, pod4, test16x4, or a chip's with span-chips)"},
		{"ipu21{nosuch=1}", `unknown option "nosuch"; known: span-chips, exchange-latency-cycles,`},
		{"ipu21{exchange-latency-cycles=1 exchange-latency-cycles=2}", "set twice"},
		{"ipu21{exchange-latency-cycles=1.5}", "want a whole number from 0 to 2147483647"},
		{"ipu21{exchange-latency-cycles=99999999999}", "want a whole number"},
		{"ipu21{streaming-bytes-per-cycle=0}", "want a positive number"},
		{"ipu21{streaming-bytes=0}", "without capacity"},
		{"pod4{links-per-neighbour=0}", "option links-per-neighbour=0: want a whole number from 1"},
		{"ipu21{io-tiles=10}", "io-tiles 10: IO tiles come in whole rows of the 46 tile columns"},
		{"test16{io-tiles=16}", "and leave some of the 16 tiles to compute"},
		{"ipu21{", `column 7: unexpected token "<EOF>"`},
		{"ipu21 x", "unexpected token"},
		{"nosuch{exchange-latency-cycles=1}", `unknown target "nosuch"`},
		{strings.Repeat("a", 2000), "at most 1024"},
	} {
		if _, err := Lookup(c.spec); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Lookup(%.40q) = %v; want %q", c.spec, err, c.want)
		}
	}
	if _, err := WithOptions("ipu21", []string{"novalue"}); err == nil || !strings.Contains(err.Error(), "not KEY=VALUE") {
		t.Errorf("WithOptions(novalue) = %v", err)
	}
	// Every option is settable on some target, round-trips through its
	// printed value, and is described.
	d := mustLookup(t, "pod4").Describe()
	for _, o := range Options {
		tg := mustLookup(t, "pod4")
		v := o.Value(tg)
		back, err := Lookup("pod4{" + o.Name + "=" + v + "}")
		if err != nil || o.Value(back) != v {
			t.Errorf("option %s=%s does not round-trip: %v", o.Name, v, err)
		}
		if !strings.Contains(d, o.Name+"="+v+": "+o.Help) {
			t.Errorf("Describe() lacks option %s", o.Name)
		}
	}
}

// FuzzParseSpec: no spec makes Lookup panic, and an accepted spec's
// canonical name names the same target.
func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"ipu21", "pod4{link-latency-cycles=1}", "test16{link-latency-cycles=3 span-chips=2}", "ipu21{span-chips=99999999}", "test16{streaming-bytes-per-cycle=1e3}", "ipu21{", "x{a=1 b=2}", "{}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tg, err := Lookup(s)
		if err != nil {
			return
		}
		again, err := Lookup(tg.Name)
		if err != nil || again.Describe() != tg.Describe() {
			t.Fatalf("%q is named %q, which names another target (%v)", s, tg.Name, err)
		}
	})
}

// TestOptionsDocumented: docs/targets.md's table of options lists every
// option, for the targets it applies to, and no other.
func TestOptionsDocumented(t *testing.T) {
	text, err := os.ReadFile("../docs/targets.md")
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	for _, line := range strings.Split(string(text), "\n") {
		if strings.HasPrefix(line, "| `") && (strings.Contains(line, "| all |") || strings.Contains(line, "| multi-chip |")) {
			name := strings.TrimSuffix(strings.TrimPrefix(strings.Fields(line)[1], "`"), "`")
			documented = append(documented, name)
			o, ok := OptionNamed(name)
			if !ok {
				t.Errorf("docs/targets.md documents option %s, which does not exist", name)
			} else if o.MultiChip != strings.Contains(line, "| multi-chip |") {
				t.Errorf("docs/targets.md: option %s's targets are wrong", name)
			}
		}
	}
	if !slices.Equal(documented, OptionNames()) {
		t.Errorf("docs/targets.md lists options %v, want %v (in the order of Options)", documented, OptionNames())
	}
}

func TestChipSpec(t *testing.T) {
	for _, c := range []struct{ spec, want string }{
		{"ipu21", "ipu21"},
		{"ipu21{streaming-latency-cycles=5}", "ipu21{streaming-latency-cycles=5}"},
		{"pod4", "ipu21"},
		{"test16x4", "test16"},
		{"pod16{link-latency-cycles=1 streaming-bytes-per-cycle=2 amp-pass-cycles=100}", "ipu21{amp-pass-cycles=100 streaming-bytes-per-cycle=2}"},
	} {
		tg := mustLookup(t, c.spec)
		got, err := tg.ChipSpec()
		if err != nil || got != c.want {
			t.Errorf("%s: ChipSpec() = %q, %v; want %q", c.spec, got, err, c.want)
		}
		chip := mustLookup(t, got)
		if chip.Tiles != tg.Tiles || chip.Streaming != tg.Streaming || chip.AMPVertices[0] != tg.AMPVertices[0] {
			t.Errorf("%s: its chip %s has other figures", c.spec, got)
		}
	}
}

// A program spanning chips: its tiles are the chips' together, chip after
// chip; its links are a pod's, in a line; an exchange pays the busiest
// link direction (or the longest route, store and forward) when that is
// longer than the tiles' own exchange, and a sync across every chip.
func TestSpanChipsHandComputed(t *testing.T) {
	one := mustLookup(t, "test16")
	span := mustLookup(t, "test16{span-chips=4}")
	if span.Tiles != 4*one.Tiles || span.TileColumns != 4*one.TileColumns || span.SpanChips() != 4 || span.Links.Topology != "line" || span.MultiChip() {
		t.Fatalf("span of 4: %d tiles, %d columns, span %d, links %+v", span.Tiles, span.TileColumns, span.SpanChips(), span.Links)
	}
	for tile, chip := range map[int]int{0: 0, 15: 0, 16: 1, 47: 2, 63: 3} {
		if got := span.ChipOf(tile); got != chip {
			t.Errorf("ChipOf(%d) = %d; want %d", tile, got, chip)
		}
	}
	// 1,024 bytes from chip 0 to chip 1 and 1,024 from chip 0 to chip 2:
	// the link 0→1 carries 2,048 (⌈2048 / 34.59⌉ = 60 cycles, + 500);
	// the route to chip 2 two hops of ⌈1024 / 34.59⌉ = 30 + 500 each.
	bytes := make([]int64, 16)
	bytes[0*4+1], bytes[0*4+2] = 1024, 1024
	if got, err := span.SpanLinkCycles(bytes); err != nil || got != 2*(30+500) {
		t.Errorf("SpanLinkCycles = %d, %v; want %d (the longest route)", got, err, 2*(30+500))
	}
	bytes[0*4+2], bytes[3*4+1] = 0, 1_000_000 // 0→1 and 3→1 use different link directions
	if got, err := span.SpanLinkCycles(bytes); err != nil || got != 2*(28907+500) {
		t.Errorf("SpanLinkCycles = %d, %v; want %d", got, err, 2*(28907+500))
	}
	ex, sync, err := span.ExchangeStepCycles(10, bytes)
	if err != nil || ex != 2*(28907+500) || sync != span.Links.SyncCycles {
		t.Errorf("ExchangeStepCycles across chips = %d + sync %d, %v", ex, sync, err)
	}
	ex, sync, err = span.ExchangeStepCycles(10, make([]int64, 16))
	if err != nil || ex != 10+int64(span.ExchangeLatencyCycles) || sync != int64(span.SyncCycles) {
		t.Errorf("ExchangeStepCycles within chips = %d + sync %d, %v", ex, sync, err)
	}
	if u := span.UniformChipBytes(1600, 4); len(u) != 16 || u[0] != 0 || u[1] != 100 || u[4*3+2] != 100 {
		t.Errorf("UniformChipBytes(1600, 4) = %v", u)
	}
	if u := span.UniformChipBytes(1600, 2); u[1] != 400 || u[4] != 400 || u[2] != 0 || u[4*3+2] != 0 {
		t.Errorf("UniformChipBytes(1600, 2) = %v", u)
	}
	if span.UniformChipBytes(1600, 1) != nil || span.ChipsCovered(16) != 1 || span.ChipsCovered(17) != 2 || span.ChipsCovered(1000) != 4 {
		t.Errorf("one chip covered: %v, ChipsCovered(16, 17, 1000) = %d, %d, %d", span.UniformChipBytes(1600, 1), span.ChipsCovered(16), span.ChipsCovered(17), span.ChipsCovered(1000))
	}
	if _, err := span.SpanLinkCycles(make([]int64, 3)); err == nil {
		t.Error("SpanLinkCycles took traffic of the wrong shape")
	}
	// Streaming: each chip its share, side by side.
	a, _ := one.StreamingCycles(1 << 20)
	b, _ := span.StreamingCycles(1 << 20)
	if b >= a || b < span.Streaming.LatencyCycles {
		t.Errorf("StreamingCycles(1 MiB) over 4 chips = %d, over one %d", b, a)
	}
	// A pod's stages: its chip's spec with span-chips and the pod's links.
	for _, c := range []struct {
		pod    string
		chips  int
		want   string
		errMsg string
	}{
		{"test16x4", 1, "test16", ""},
		{"test16x4", 2, "test16{span-chips=2}", ""},
		{"pod4{link-latency-cycles=250}", 4, "ipu21{span-chips=4 link-latency-cycles=250}", ""},
		{"test16x4", 5, "", "spanning 5 of its 4 chips"},
		{"test16", 2, "", "has one chip"},
	} {
		got, err := mustLookup(t, c.pod).StageSpec(c.chips)
		if c.errMsg != "" {
			if err == nil || !strings.Contains(err.Error(), c.errMsg) {
				t.Errorf("%s.StageSpec(%d) = %q, %v; want %q", c.pod, c.chips, got, err, c.errMsg)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s.StageSpec(%d) = %q, %v; want %q", c.pod, c.chips, got, err, c.want)
		}
		if st := mustLookup(t, got); c.chips > 1 && st.Links.LatencyCycles != mustLookup(t, c.pod).Links.LatencyCycles {
			t.Errorf("%s: its stage's links are not the pod's", got)
		}
	}
	for spec, want := range map[string]string{
		"pod4{span-chips=2}":                         "a program spans one or more chips of a chip target",
		"test16{span-chips=2 io-tiles=4}":            "does not stream through IO tiles",
		"test16{link-latency-cycles=9}":              "applies only to targets of several chips",
		"test16{link-latency-cycles=9 span-chips=2}": "",
	} {
		_, err := Lookup(spec)
		if (want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("Lookup(%s) = %v; want %q", spec, err, want)
		}
	}
}
