package target

import (
	"slices"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/elem"
)

func TestRegistry(t *testing.T) {
	if got, want := Names(), []string{"ipu2", "ipu21", "pod16", "pod4", "test16", "test16x4"}; !slices.Equal(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	all := All()
	if len(all) != 6 {
		t.Fatalf("All() returned %d targets", len(all))
	}
	for i, tg := range all {
		if tg.Name != Names()[i] {
			t.Errorf("All()[%d] is %q, want Names() order", i, tg.Name)
		}
	}
	_, err := Lookup("ipu3")
	if err == nil || !strings.Contains(err.Error(), `unknown target "ipu3"`) ||
		!strings.Contains(err.Error(), "ipu2, ipu21, pod16, pod4, test16, test16x4") {
		t.Errorf("Lookup(ipu3) error = %v; want the name and the known targets", err)
	}
}

func TestLookupReturnsIndependentCopies(t *testing.T) {
	a := mustLookup(t, "ipu21")
	a.Tiles = 1
	a.MemoryClasses[0].End = 1
	a.AMP[0].MACsPerCycle = 1
	b := mustLookup(t, "ipu21")
	if b.Tiles != 1472 || b.MemoryClasses[0].End != 512*1024 || b.AMP[0].MACsPerCycle != 64 {
		t.Fatalf("a change to one Lookup result leaked into the next: %+v", b)
	}
	c := b.Clone()
	c.Vector[0].Lanes = 99
	if b.Vector[0].Lanes == 99 {
		t.Fatal("Clone shares the vector table")
	}
}

func TestBuiltinsValidate(t *testing.T) {
	for _, tg := range All() {
		if err := tg.Validate(); err != nil {
			t.Errorf("%v", err)
		}
	}
}

// The figures docs/targets.md states as facts are pinned here, so that an edit
// of builtin.go that drifts from them fails loudly.
func TestBuiltinFiguresMatchDesign(t *testing.T) {
	for _, c := range []struct {
		name    string
		tiles   int
		sram    int64
		clockHz int64
	}{
		{"ipu21", 1472, 624 * 1024, 1_850_000_000},
		{"ipu2", 1472, 624 * 1024, 1_325_000_000},
		{"test16", 16, 64 * 1024, 1_850_000_000},
	} {
		tg := mustLookup(t, c.name)
		if tg.Tiles != c.tiles || tg.SRAMBytesPerTile != c.sram || tg.ClockHz != c.clockHz {
			t.Errorf("%s: tiles %d, SRAM %d, clock %d; want %d, %d, %d",
				c.name, tg.Tiles, tg.SRAMBytesPerTile, tg.ClockHz, c.tiles, c.sram, c.clockHz)
		}
		f16, _ := tg.AMPRateFor(elem.F16)
		f32, _ := tg.AMPRateFor(elem.F32)
		if tg.WorkerThreads != 6 || tg.SupervisorThreads != 1 || tg.WorkerIssueInterval != 6 ||
			f16.MACsPerCycle != 64 || f32.MACsPerCycle != 16 || tg.LoadStoreBytesPerCycle != 24 ||
			tg.ExchangeWordBytes != 4 || tg.ExchangeWordsPerCycle != 1 || tg.SyncCycles != 118 {
			t.Errorf("%s: per-tile figures differ from docs/targets.md: %+v", c.name, tg)
		}
		if v, _ := tg.AMPVertexFor(elem.F16, elem.F32); v != poplibsAMPVertices()[1] || v.ConvUnits != 8 || v.PassCycles != 25 ||
			v.RowCycles != 4 || v.RowGroup != 6 || v.ColumnGroup != 16 || v.InnerGroupBytes != 32 || tg.AMPWeightLoadBytes != 16 {
			t.Errorf("%s: AMP vertex %+v differs from PopLibs' estimator", c.name, v)
		}
	}
	std, _ := mustLookup(t, "ipu21").ClassByName("Ipu21Standard") // the name the reference log prints
	if std.Kind != Standard || !std.HoldsCode {
		t.Errorf("Ipu21Standard = %+v", std)
	}
	if _, err := mustLookup(t, "ipu21").ClassByName("Ipu2Standard"); err == nil ||
		!strings.Contains(err.Error(), "Ipu21Interleaved") {
		t.Errorf("unknown class name: err = %v, want the known names listed", err)
	}
}

func TestValidateRejectsInconsistentDescriptions(t *testing.T) {
	cases := []struct {
		name   string
		break_ func(*Target)
		want   string
	}{
		{"no tiles", func(t *Target) { t.Tiles = 0 }, "Tiles must be positive"},
		{"gap between classes", func(t *Target) { t.MemoryClasses[1].Start += 16 }, "without gaps or overlaps"},
		{"classes short of SRAM", func(t *Target) { t.SRAMBytesPerTile += 1024 }, "bytes of SRAM"},
		{"code in interleaved memory", func(t *Target) { t.MemoryClasses[1].HoldsCode = true }, "only standard memory can"},
		{"nowhere for code", func(t *Target) { t.MemoryClasses[0].HoldsCode = false }, "no memory class can hold code"},
		{"two standard classes", func(t *Target) { t.MemoryClasses[1].Kind = Standard; t.MemoryClasses[1].Loads128 = false }, "more than one standard"},
		{"alignment not a power of two", func(t *Target) { t.MemoryClasses[1].Alignment = 12 }, "not a positive power of two"},
		{"128-bit loads from standard memory", func(t *Target) { t.MemoryClasses[0].Loads128 = true }, "128-bit loads"},
		{"AMP type without a vertex", func(t *Target) { t.AMPVertices = t.AMPVertices[:2] }, "no vertex for it"},
		{"vertex faster than the AMP", func(t *Target) { t.AMPVertices[0].ConvUnits = 32 }, "more than the AMP's 64"},
		{"no weight load rate", func(t *Target) { t.AMPWeightLoadBytes = 0 }, "AMPWeightLoadBytes"},
		{"duplicate vector entry", func(t *Target) { t.Vector = append(t.Vector, t.Vector[0]) }, "two entries for f16"},
		{"vector faster than load/store", func(t *Target) { t.Vector[0].Lanes = 8 }, "more than load/store allows"},
		{"negative sync", func(t *Target) { t.SyncCycles = -1 }, "SyncCycles must not be negative"},
		{"negative code size", func(t *Target) { t.Code.TableEntryBytes = -8 }, "Code.TableEntryBytes must not be negative"},
	}
	for _, c := range cases {
		tg := mustLookup(t, "ipu21")
		c.break_(tg)
		err := tg.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Validate() = %v; want an error containing %q", c.name, err, c.want)
		}
	}
}

func TestElemTypes(t *testing.T) {
	for _, e := range []elem.Type{elem.I1, elem.I8, elem.I16, elem.I32, elem.F16, elem.F32, elem.F64} {
		got, err := ParseElemType(e.String())
		if err != nil || got != e {
			t.Errorf("ParseElemType(%q) = %v, %v", e.String(), got, err)
		}
	}
	wantBytes := map[elem.Type]int{elem.I1: 1, elem.I8: 1, elem.I16: 2, elem.I32: 4, elem.F16: 2, elem.F32: 4, elem.Invalid: 0}
	for e, b := range wantBytes {
		if e.Bytes() != b {
			t.Errorf("%v.Bytes() = %d, want %d", e, e.Bytes(), b)
		}
	}
	if _, err := ParseElemType("i64"); err == nil || !strings.Contains(err.Error(), "no arithmetic") {
		t.Errorf("ParseElemType(i64) = %v; want an explanation that the targets lack it", err)
	}
	// Binary64 is software: one element at a time, each class at its
	// slowest routine (ipuVectorRates' source), and no AMP.
	for _, tg := range All() {
		r, ok := tg.VectorRateFor(elem.F64)
		if !ok || r.Lanes != 1 || r.SimpleCyclesPerVector != 377 || r.TranscendentalCyclesPerVector != 9973 {
			t.Errorf("%s: f64 vector rate %+v", tg.Name, r)
		}
		if _, ok := tg.AMPRateFor(elem.F64); ok {
			t.Errorf("%s: the AMP takes f64", tg.Name)
		}
	}
	if _, err := ParseElemType("q7"); err == nil || !strings.Contains(err.Error(), "unknown element type") {
		t.Errorf("ParseElemType(q7) = %v", err)
	}
}

func TestDescribeAndTable(t *testing.T) {
	table := Table(All())
	lines := strings.Split(strings.TrimRight(table, "\n"), "\n")
	if len(lines) != 7 || !strings.HasPrefix(lines[0], "NAME") {
		t.Fatalf("Table has %d lines:\n%s", len(lines), table)
	}
	if !strings.Contains(lines[2], "ipu21") || !strings.Contains(lines[2], "1.85 GHz") || !strings.Contains(lines[2], "94208") {
		t.Errorf("ipu21 row %q lacks its name, clock or peak", lines[2])
	}
	d := mustLookup(t, "ipu21").Describe()
	for _, want := range []string{
		"ipu21: ", "1472", "624 KiB", "Ipu21Standard: standard, bytes [0, 524288) = 512 KiB",
		"Ipu21Interleaved: interleaved", "every 6th cycle", "1.85 GHz", "f16: 64 MAC/cycle/tile",
		"f16 in, f32 partials: 8 conv units × 16 inputs, 32 MAC/cycle/tile; a pass 25 + weights + 6 workers × (19 + 4·⌈m/6⌉) cycles",
		"f32 in, f32 partials: 16 conv units × 8 inputs, 16 MAC/cycle/tile", "24 bytes/cycle/tile", "118 cycles",
	} {
		if !strings.Contains(d, want) {
			t.Errorf("Describe() lacks %q:\n%s", want, d)
		}
	}
	if ordinal(1) != "1st" || ordinal(12) != "12th" || ordinal(22) != "22nd" || ordinal(113) != "113th" {
		t.Error("ordinal spells numbers wrongly")
	}
}

func TestShowTargets(t *testing.T) {
	all, err := ShowTargets("")
	if err != nil || !strings.HasPrefix(all, "NAME") || !strings.Contains(all, "ipu21") {
		t.Fatalf("table:\n%s", all)
	}
	one, err := ShowTargets("ipu21")
	if err != nil || !strings.HasPrefix(one, "ipu21: ") || !strings.Contains(one, "1472") {
		t.Fatalf("describe:\n%s", one)
	}
	_, err = ShowTargets("x")
	if err == nil || !strings.Contains(err.Error(), `unknown target "x"`) {
		t.Fatalf("error %v, want an unknown target", err)
	}
}
