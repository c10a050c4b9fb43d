package tiled

import (
	"strings"
	"testing"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/layout"
	"github.com/ipuir/ipuir/target"
)

func parse(t testing.TB, ctx *ir.Context, text string) (ir.Attribute, error) {
	t.Helper()
	body, ok := strings.CutPrefix(text, "#tiled")
	if !ok {
		t.Fatalf("%q is not a #tiled attribute", text)
	}
	return Dialect.ParseAttrBody(ctx, body, nil)
}

// Canonical forms print back to themselves; the parsed value is uniqued.
func TestAttrRoundTrip(t *testing.T) {
	ctx := ir.NewContext()
	for _, text := range []string{
		"#tiled.layout<order = block_major<row_block = 384, column_block = 16>, tile_count = 1380, replicas = 10, axes = [{axis = -2, partitions = 46, block_size = 16, padding_multiple = 16, tile_stride = 1}, {axis = -1, partitions = 3, block_size = 384, padding_multiple = 384}], memory_class = Ipu21Standard>",
		"#tiled.layout<order = amp<left>, tile_count = 1440, replicas = 80, axes = [{axis = -1, partitions = 3, block_size = 384, padding_multiple = 384}, {axis = -2, partitions = 6, block_size = 2, padding_multiple = 2}], memory_class = Ipu21Standard>",
		"#tiled.layout<order = row_major, tile_count = 1, axes = [], memory_class = Test16Interleaved>",
		"#tiled.layout<order = amp<right>, tile_count = 64, replicas = 2, replica_stride = 1, axes = [{axis = -1, partitions = 32, padding_groups = 16, block_size = 40, padding_multiple = 80, shard_padding_multiple = 48, padding = undefined, tile_stride = 2}], memory_class = Ipu21Standard>",
		"#tiled.gemm_plan<orientation = swapped, batch_partitions = 1, row_partitions = 16, column_partitions = 46, inner_partitions = 2, result_row_partitions = 1, result_column_partitions = 1, output_column_block = 16, weight_memory_class = Ipu21Standard, reduction_staging = complete, local_weight_staging = direct>",
		"#tiled.gemm_constraint<orientation = swapped, inner_partitions = 2, local_weight_staging = staged>",
		"#tiled.gemm_constraint<>",
		"#tiled.extents<[0, 1, 1], [736, 736, 743], [0, 16, 16]>",
		"#tiled.estimate<cycles = 100, compute_cycles = 60, exchange_cycles = 20, reduction_cycles = 10, sync_cycles = 10, exchange_words = 18, peak_standard_bytes = 4096, peak_interleaved_bytes = 512>",
	} {
		a, err := parse(t, ctx, text)
		if err != nil {
			t.Errorf("%s: %v", text, err)
			continue
		}
		if got := ir.AttrString(a); got != text {
			t.Errorf("printed differently:\n got: %s\nwant: %s", got, text)
		}
		again, _ := parse(t, ctx, text)
		if again != a {
			t.Errorf("%s: parsing twice gave two attributes", text)
		}
	}
}

// Written defaults and spacing do not matter; the printed form elides
// defaults.
func TestLayoutDefaultsElided(t *testing.T) {
	ctx := ir.NewContext()
	a, err := parse(t, ctx, "#tiled.layout<axes=[{axis=-1,partitions=2,padding_groups=1,block_size=1,padding=zero}],tile_count=2,replicas=1,memory_class=M,order=row_major>")
	if err != nil {
		t.Fatal(err)
	}
	want := "#tiled.layout<order = row_major, tile_count = 2, axes = [{axis = -1, partitions = 2}], memory_class = M>"
	if got := ir.AttrString(a); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestMalformedAttrs(t *testing.T) {
	ctx := ir.NewContext()
	for _, c := range []struct{ text, want string }{
		{"#tiled.layout<", "offset 8: #tiled.layout: unexpected token \"<EOF>\" (expected a value)"},
		{"#tiled.layout<order = row_major>", "#tiled.layout: missing field 'tile_count'"},
		{"#tiled.layout<order = row_major, tile_count = 0, axes = [], memory_class = M>", "field 'tile_count' must be at least 1, got 0"},
		{"#tiled.layout<order = diagonal, tile_count = 1, axes = [], memory_class = M>", "unknown order 'diagonal'"},
		{"#tiled.layout<order = amp<middle>, tile_count = 1, axes = [], memory_class = M>", "amp<left> or amp<right>, got amp<middle>"},
		{"#tiled.layout<order = block_major<row_block = 4>, tile_count = 1, axes = [], memory_class = M>", "block_major: missing field 'column_block'"},
		{"#tiled.layout<order = row_major, tile_count = 1, axes = [{axis = 1, partitions = 1}], memory_class = M>", "axes[0]: axis is counted from the end and written -1 (last) to -64, got 1"},
		{"#tiled.layout<order = row_major, tile_count = 1, axes = [{axis = -1, partitions = 1, stride = 2}], memory_class = M>", "axes[0]: unknown field 'stride'"},
		{"#tiled.layout<order = row_major, tile_count = 1, axes = [{axis = -1, partitions = 1, padding = maybe}], memory_class = M>", "field 'padding' must be one of zero, undefined, got 'maybe'"},
		{"#tiled.layout<order = row_major, tile_count = 1, tile_count = 2, axes = [], memory_class = M>", "field 'tile_count' given twice"},
		{"#tiled.layout<order = row_major, tile_count = 1, axes = 3, memory_class = M>", "field 'axes' must be a list"},
		{"#tiled.layout<order = row_major, tile_count = 1, axes = [], memory_class = 3>", "field 'memory_class' must be a name, got integer 3"},
		{"#tiled.layout<order = row_major, tile_count = 99999999999999999999, axes = [], memory_class = M>", "offset 40: integer 99999999999999999999 does not fit in 64 bits"},
		{"#tiled.layout<row_major>", "expected `name = value`, got a bare word 'row_major'"},
		{"#tiled.gemm_plan<orientation = swapped>", "#tiled.gemm_plan: missing field 'row_partitions'"},
		{"#tiled.gemm_constraint<orientation = sideways>", "must be one of normal, swapped, got 'sideways'"},
		{"#tiled.gemm_constraint<source_operation = 2>", "unknown field 'source_operation'"},
		{"#tiled.gemm_constraint<row_partitions = -1>", "field 'row_partitions' must be at least 1, got -1"},
		{"#tiled.extents<[0, 2, 1]>", "need 0 ≤ start ≤ logical_end ≤ physical_end, got [0, 2, 1]"},
		{"#tiled.extents<[0, 2]>", "axis 0: expected [start, logical_end, physical_end]"},
		{"#tiled.estimate<cycles = 1, compute_cycles = 0, exchange_cycles = 0, reduction_cycles = 0, sync_cycles = 0, exchange_words = 0, peak_standard_bytes = 0, peak_interleaved_bytes = 0>", "cycles 1 is not the sum of its parts (0)"},
		{"#tiled.shape<1>", "unknown attribute #tiled.shape"},
		{"#tiled<order = row_major>", "#tiled"},
	} {
		_, err := parse(t, ctx, c.text)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to contain %q", c.text, err, c.want)
		}
	}
}

func TestParseGemmConstraintOption(t *testing.T) {
	c, err := ParseGemmConstraint("source_operation = 2, orientation = swapped, row_partitions = 16, weight_memory_class = Ipu21Standard")
	if err != nil {
		t.Fatal(err)
	}
	want := "GemmPlanConstraint { source_operation: 2, orientation: Swapped, row_partitions: 16, weight_memory_class: Ipu21Standard }"
	if got := c.DebugString(); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	p := layout.GemmPlan{Orientation: layout.Swapped, RowPartitions: 16, WeightMemoryClass: "Ipu21Standard", ColumnPartitions: 3}
	if !c.Matches(&p) {
		t.Error("a plan agreeing on the pinned fields does not match")
	}
	p.RowPartitions = 8
	if c.Matches(&p) {
		t.Error("a plan disagreeing on row_partitions matches")
	}
	if _, err := ParseGemmConstraint("orientation = swapped,"); err == nil {
		t.Error("a trailing comma was accepted")
	}
}

// The reference log's constraint, written in our syntax, renders as the
// log does.
func TestConstraintDebugStringMatchesLog(t *testing.T) {
	c, err := ParseGemmConstraint("source_operation = 2, orientation = swapped, row_partitions = 16, column_partitions = 46, " +
		"inner_partitions = 2, result_row_partitions = 1, result_column_partitions = 1, output_column_block = 16, " +
		"weight_memory_class = Ipu21Standard, reduction_staging = complete, local_weight_staging = direct")
	if err != nil {
		t.Fatal(err)
	}
	want := "GemmPlanConstraint { source_operation: 2, orientation: Swapped, row_partitions: 16, column_partitions: 46, inner_partitions: 2, result_row_partitions: 1, result_column_partitions: 1, output_column_block: 16, weight_memory_class: Ipu21Standard, reduction_staging: Complete, local_weight_staging: Direct }"
	if got := c.DebugString(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// FuzzLayoutAttr feeds arbitrary bodies to the attribute parser and, when a
// layout parses, to the verifier: neither may panic, and what parses must
// print to a form that parses to the same attribute.
func FuzzLayoutAttr(f *testing.F) {
	for _, seed := range []string{
		".layout<order = block_major<row_block = 384, column_block = 16>, tile_count = 1380, replicas = 10, axes = [{axis = -2, partitions = 46, block_size = 16, padding_multiple = 16, tile_stride = 1}, {axis = -1, partitions = 3, block_size = 384, padding_multiple = 384}], memory_class = Ipu21Standard>",
		".layout<order = amp<left>, tile_count = 1440, replicas = 72, axes = [{axis = -1, partitions = 2, block_size = 576, padding_multiple = 576}, {axis = -2, partitions = 10, block_size = 2, padding_multiple = 2}], memory_class = Ipu21Standard>",
		".layout<order = row_major, tile_count = 4, replicas = 2, replica_stride = 1, axes = [{axis = -1, partitions = 2, padding_groups = 2, shard_padding_multiple = 6, padding = undefined, tile_stride = 2}], memory_class = M>",
		".layout<order = row_major, tile_count = 1, axes = [], memory_class = M>",
		".layout<order = amp<left>, tile_count = 1242, replicas = 46, replica_stride = 1, tile_offset = 414, axes = [{axis = -1, partitions = 3, block_size = 16, padding_multiple = 16, shard_padding_multiple = 6, tile_stride = 138}, {axis = -2, partitions = 3, block_size = 16, padding_multiple = 16, tile_stride = 46}], memory_class = Ipu21Standard>",
		".layout<order = row_major, tile_count = 8, tile_offset = -2, axes = [{axis = -1, partitions = 4}], memory_class = M>",
		".gemm_plan<orientation = swapped, row_partitions = 31, column_partitions = 47, inner_partitions = 1, inner_steps = 141, result_row_partitions = 1, result_column_partitions = 1, output_column_block = 16, weight_memory_class = M, reduction_staging = complete, local_weight_staging = direct>",
		".summary<cycles = 3, compute_cycles = 1, exchange_cycles = 1, reduction_cycles = 1, sync_cycles = 0, exchange_words = 0, ops = 1, macs = 0, compute_bound_cycles = 0>",
		".gemm_plan<orientation = normal, batch_partitions = 1, row_partitions = 1, column_partitions = 1, inner_partitions = 1, result_row_partitions = 1, result_column_partitions = 1, output_column_block = 16, weight_memory_class = M, reduction_staging = pairwise, local_weight_staging = staged>",
		".extents<[0, 1, 1], [736, 736, 743]>",
		".layout<order = row_major, tile_count = -3, axes = [{}], memory_class = >",
		".layout<<<[[{{",
		// Nesting far past the parser's bound must be an error, not a
		// stack overflow (participle recurses once per level).
		".layout<order = " + strings.Repeat("[", 200000) + ">",
		".layout<axes = " + strings.Repeat("{a = ", 100000) + ">",
		".layout<order = " + strings.Repeat("amp<", 100000) + ">",
	} {
		f.Add(seed)
	}
	ctx := ir.NewContext()
	shapes := [][]int64{{729, 1152}, {1, 729, 1152}, {8}, {0, 3}}
	tg, err := target.Lookup("ipu21")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body string) {
		a, err := Dialect.ParseAttrBody(ctx, body, nil)
		if err != nil {
			return
		}
		text := ir.AttrString(a)
		again, err := Dialect.ParseAttrBody(ctx, strings.TrimPrefix(text, "#tiled"), nil)
		if err != nil || again != a {
			t.Fatalf("%q printed as %q, which parses to %v (%v)", body, text, again, err)
		}
		if la, ok := a.(*LayoutAttr); ok {
			for _, s := range shapes {
				if m, err := layout.NewShardMap(&la.Layout, s, 0); err == nil {
					m.MaxShardShape()
					m.MaxLogicalShardShape()
					// The derivations the lowering applies to layouts it is given.
					l := &la.Layout
					perm := make([]int64, len(s))
					for i := range perm {
						perm[i] = int64(len(s) - 1 - i)
					}
					layout.PermuteLayout(l, perm)
					layout.PartialLayout(l, s, []int64{int64(len(s) - 1)})
					layout.ProjectLayout(l, s, []int{0}, s[:1])
					if n := ir.NumElements(s); n > 0 {
						layout.ReshapeLayout(l, s, []int64{n})
					}
					layout.SliceLayout(l, s, 0, 0, max(1, s[0]/2))
					if m.NumShards() <= 64 {
						layout.ExchangeTraffic(m, layout.ShardNeeds(m), 2, tg)
					}
					for _, tile := range m.Tiles() {
						shard, _ := m.OnTile(tile)
						_ = m.CheckView(tile, shard.Extents)
						if tile > 64 {
							break
						}
					}
				}
			}
		}
	})
}
