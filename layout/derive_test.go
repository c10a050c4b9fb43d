package layout

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/target"
)

func rowMajor(tiles int64, axes ...AxisTiling) Layout {
	return Layout{Order: Order{Kind: RowMajor}, MemoryClass: "Ipu21Standard",
		Tiling: Tiling{TileCount: tiles, Replicas: 1, Axes: axes}}
}

func mustMap(t *testing.T, l Layout, shape []int64) *ShardMap {
	t.Helper()
	m, err := NewShardMap(&l, shape, 0)
	if err != nil {
		t.Fatalf("layout %s for %v: %v", &l, shape, err)
	}
	return m
}

// sameElementsOnTiles checks that every tile holds, under b, exactly the
// elements it holds under a, where b's tensor is a's reshaped (row-major
// linear indices compared).
func sameElementsOnTiles(t *testing.T, a, b *ShardMap) {
	t.Helper()
	linear := func(m *ShardMap, box Box) map[int64]bool {
		out := map[int64]bool{}
		idx := make([]int64, len(box))
		var rec func(k int)
		rec = func(k int) {
			if k == len(box) {
				l := int64(0)
				for i, v := range idx {
					l = l*m.Shape[i] + v
				}
				out[l] = true
				return
			}
			for v := box[k].Lo; v < box[k].Hi; v++ {
				idx[k] = v
				rec(k + 1)
			}
		}
		rec(0)
		return out
	}
	if len(a.Tiles()) != len(b.Tiles()) {
		t.Fatalf("%d tiles hold shards before, %d after", len(a.Tiles()), len(b.Tiles()))
	}
	for _, tile := range a.Tiles() {
		ba, _ := a.BoxOnTile(tile)
		bb, ok := b.BoxOnTile(tile)
		if !ok {
			t.Fatalf("tile %d holds nothing after", tile)
		}
		la, lb := linear(a, ba), linear(b, bb)
		if len(la) != len(lb) {
			t.Fatalf("tile %d: %d elements before, %d after", tile, len(la), len(lb))
		}
		for k := range la {
			if !lb[k] {
				t.Fatalf("tile %d: element %d moved", tile, k)
			}
		}
	}
}

func TestReshapeLayoutKeepsElementsOnTheirTiles(t *testing.T) {
	for _, c := range []struct {
		name      string
		l         Layout
		in, out   []int64
		derivable bool
	}{
		// The attention block's heads: 1152 columns in 32 shards of 36 are
		// 16 heads × 2 halves of 72.
		{"split columns into heads", rowMajor(64, NewAxis(1, 32), NewAxis(2, 2)), []int64{6, 1152}, []int64{6, 16, 72}, true},
		// And merged back.
		{"merge heads", rowMajor(32, NewAxis(1, 2), NewAxis(2, 16)), []int64{6, 16, 72}, []int64{6, 1152}, true},
		// Batch axes whose tiles run in row-major order collapse into one.
		{"collapse batch axes", rowMajor(12, NewAxis(3, 4), NewAxis(4, 3)), []int64{3, 4, 5, 6}, []int64{12, 5, 6}, true},
		// With the outer axis's tiles adjacent, the 12 batch entries' tiles
		// are no progression.
		{"collapse interleaved tiles", rowMajor(12, NewAxis(4, 3), NewAxis(3, 4)), []int64{3, 4, 5, 6}, []int64{12, 5, 6}, false},
		// 10 shards of 3 columns are halves of rows of 6.
		{"chunks within rows", rowMajor(10, NewAxis(1, 10)), []int64{2, 30}, []int64{2, 5, 6}, true},
		// 6 shards of 5 columns do not fall on rows of 6.
		{"chunks across rows", rowMajor(6, NewAxis(1, 6)), []int64{2, 30}, []int64{2, 5, 6}, false},
		// A whole axis outside a cut one: a shard is not one chunk.
		{"whole outer axis", rowMajor(4, NewAxis(1, 4)), []int64{3, 8}, []int64{24}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := ReshapeLayout(&c.l, c.in, c.out)
			if ok != c.derivable {
				t.Fatalf("derivable = %v, want %v (%s)", ok, c.derivable, &got)
			}
			if ok {
				sameElementsOnTiles(t, mustMap(t, c.l, c.in), mustMap(t, got, c.out))
			}
		})
	}
}

func TestPermuteAndProjectLayouts(t *testing.T) {
	l := rowMajor(64, NewAxis(3, 16), NewAxis(2, 4))
	p := PermuteLayout(&l, []int64{1, 0, 2}) // [16, 8, 5] -> [8, 16, 5]
	in, out := mustMap(t, l, []int64{16, 8, 5}), mustMap(t, p, []int64{8, 16, 5})
	for _, tile := range in.Tiles() {
		a, _ := in.BoxOnTile(tile)
		b, _ := out.BoxOnTile(tile)
		if a[0] != b[1] || a[1] != b[0] || a[2] != b[2] {
			t.Fatalf("tile %d: %v transposed is not %v", tile, a, b)
		}
	}
	// Dropping the axis cut 4 ways leaves its tiles as 4 replicas of each
	// head's piece.
	proj, ok := ProjectLayout(&l, []int64{16, 8, 5}, []int{0, 2}, []int64{16, 5})
	if !ok || proj.Tiling.Replicas != 4 || proj.Tiling.ReplicaStride != 16 {
		t.Fatalf("projection %s, ok %v; want 4 replicas 16 tiles apart", &proj, ok)
	}
	pm := mustMap(t, proj, []int64{16, 5})
	for _, tile := range in.Tiles() {
		a, _ := in.BoxOnTile(tile)
		b, ok := pm.BoxOnTile(tile)
		if !ok || a[0] != b[0] || a[2] != b[1] {
			t.Fatalf("tile %d holds %v of the projection, want %v", tile, b, a)
		}
	}
	// Two dropped axes whose tiles interleave are no single replica stride.
	l2 := rowMajor(24, NewAxis(3, 2), NewAxis(2, 3), NewAxis(1, 4))
	if _, ok := ProjectLayout(&l2, []int64{2, 3, 4}, []int{1}, []int64{3}); ok {
		t.Fatalf("projection onto the middle axis should have no layout")
	}
}

func TestExchangeTrafficChargesSendersAndMulticast(t *testing.T) {
	// 8 rows of 16 f16 (8 words a row) on tiles 0 and 1, moved to 8
	// replicas of the whole tensor on tiles 0-7.
	src := mustMap(t, rowMajor(2, NewAxis(2, 2)), []int64{8, 16})
	dst := Layout{Order: Order{Kind: RowMajor}, MemoryClass: "Ipu21Standard",
		Tiling: Tiling{TileCount: 8, Replicas: 8, ReplicaStride: 1}}
	dm := mustMap(t, dst, []int64{8, 16})
	fabric := func(multicast, pairs bool) *target.Target {
		tg, _ := target.Lookup("test16")
		tg.ExchangeMulticast, tg.ExchangeBusPairs = multicast, pairs
		return tg
	}
	uni := ExchangeTraffic(src, ShardNeeds(dm), 2, fabric(false, false))
	multi := ExchangeTraffic(src, ShardNeeds(dm), 2, fabric(true, false))
	// Tiles 2-7 receive all 64 words; tiles 0 and 1 the half they lack.
	if uni.MaxReceived != 64 || multi.MaxReceived != 64 || multi.Received[0] != 32 {
		t.Errorf("received %d / %d words (tile 0: %d), want 64 (32)", uni.MaxReceived, multi.MaxReceived, multi.Received[0])
	}
	// Each source half goes to 7 tiles: unicast sends it 7 times,
	// multicast once.
	if multi.MaxSent != 32 || uni.MaxSent != 7*32 {
		t.Errorf("busiest sender sends %d words (multicast) and %d (unicast), want 32 and 224", multi.MaxSent, uni.MaxSent)
	}
	if multi.MaxWords() != 64 || uni.MaxWords() != 224 {
		t.Errorf("phase bound %d (multicast) and %d (unicast), want 64 and 224", multi.MaxWords(), uni.MaxWords())
	}
	// With shared-bus pairs, tiles 2-7 take the 64 words both tiles of
	// their pair receive two a cycle; tiles 0 and 1 each take the other's
	// half alone, on their own ports at once.
	paired := ExchangeTraffic(src, ShardNeeds(dm), 2, fabric(true, true))
	if paired.MaxReceived != 32 || paired.MaxWords() != 32 || paired.Received[2] != 64 || paired.Paired[2] != 64 || paired.Paired[0] != 0 {
		t.Errorf("paired: port words %d, bound %d, tile 2 receives %d (%d with its partner), tile 0 %d with its partner; want 32, 32, 64 (64), 0",
			paired.MaxReceived, paired.MaxWords(), paired.Received[2], paired.Paired[2], paired.Paired[0])
	}
	// Moving a tensor into its own layout moves nothing.
	if same := ExchangeTraffic(src, ShardNeeds(src), 2, fabric(true, true)); same.Words != 0 || same.LocalElements != 8*16 {
		t.Errorf("identity relayout moved %d words, kept %d elements", same.Words, same.LocalElements)
	}
}

func TestReduceLayoutsReplicateTheCombinedResult(t *testing.T) {
	tg, _ := target.Lookup("test16")
	l := rowMajor(16, NewAxis(2, 4), NewAxis(1, 4)) // [8, 16] in 4 × 4
	partial, shape, res, err := ReduceLayouts(&l, []int64{8, 16}, []int64{1}, tg)
	if err != nil {
		t.Fatal(err)
	}
	if shape[1] != 4 || partial.Tiling.Axes[1].Partitions != 4 {
		t.Fatalf("partials %v in %s: want one entry per column shard", shape, &partial)
	}
	if res.Tiling.Replicas != 4 {
		t.Fatalf("combined result %s: want the 4 column tiles as replicas", &res)
	}
}

// efficientnet_b0's squeeze-and-excitation pools [1, 96, 112, 112], cut
// only on its spatial axes, over those axes: replicating the result over
// the 1,456 tiles that reduced would have each gather all 96 × 1,456
// partials (559 KB of f32, more than a tile holds). The result is spread
// instead, each tile gathering the partials of its own channels.
func TestReduceLayoutsSpreadAResultWhoseGatherOutgrowsTheInput(t *testing.T) {
	tg, _ := target.Lookup("ipu21")
	shape := []int64{1, 96, 112, 112}
	l := rowMajor(1456, NewAxis(2, 56), NewAxis(1, 26))
	_, pshape, res, err := ReduceLayouts(&l, shape, []int64{2, 3}, tg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Tiling.Replicas != 1 {
		t.Fatalf("combined result %s: replicated %d times", &res, res.Tiling.Replicas)
	}
	// One channel a tile: 1,456 partials gathered, not 96 × 1,456.
	m := mustMap(t, res, []int64{1, 96})
	if gathered := m.MaxShardElements() * pshape[2] * pshape[3]; gathered != 1456 {
		t.Errorf("a result tile gathers %d partials (%s), want one channel's 1,456", gathered, &res)
	}
}

func TestSliceLayoutTakesWholeShards(t *testing.T) {
	// 3456 columns in 24 shards of 144 (blocks of 16): the middle 1152 are
	// shards 8-15, on tiles 8·stride onwards.
	col := NewAxis(1, 24)
	col.BlockSize, col.PaddingMultiple = 16, 16
	col.TileStride = 2
	l := rowMajor(48, NewAxis(2, 2), col)
	shape := []int64{8, 3456}
	s, ok := SliceLayout(&l, shape, 1, 1152, 2304)
	if !ok {
		t.Fatalf("the middle third is whole shards")
	}
	if s.Tiling.TileOffset != 16 || s.Tiling.Axes[1].Partitions != 8 {
		t.Fatalf("slice layout %s: want 8 partitions from tile 16", &s)
	}
	whole, part := mustMap(t, l, shape), mustMap(t, s, []int64{8, 1152})
	for _, tile := range part.Tiles() {
		a, _ := whole.BoxOnTile(tile)
		b, _ := part.BoxOnTile(tile)
		if a[0] != b[0] || a[1].Lo-1152 != b[1].Lo || a[1].Hi-1152 != b[1].Hi {
			t.Fatalf("tile %d: %v of the whole, %v of the slice", tile, a, b)
		}
	}
	if _, ok := SliceLayout(&l, shape, 1, 1000, 2304); ok {
		t.Errorf("a range that splits a shard has no slice layout")
	}
	if _, ok := SliceLayout(&l, shape, 0, 0, 4); !ok {
		t.Errorf("the first row shard is a slice layout")
	}
}

// randomRowMajor draws a row-major layout of shape with random partitions
// (divisors and non-divisors of the axes, random strides order) on at most
// 64 tiles, or ok false when the draw is not a layout.
func randomRowMajor(rng *rand.Rand, shape []int64) (Layout, bool) {
	l := Layout{Order: Order{Kind: RowMajor}, MemoryClass: "M", Tiling: Tiling{TileCount: 1, Replicas: 1}}
	for _, i := range rng.Perm(len(shape)) {
		if rng.IntN(2) == 0 || shape[i] < 2 {
			continue
		}
		p := 1 + rng.Int64N(min(shape[i], 8))
		if l.Tiling.TileCount*p > 64 {
			continue
		}
		l.Tiling.Axes = append(l.Tiling.Axes, NewAxis(len(shape)-i, p))
		l.Tiling.TileCount *= p
	}
	if rng.IntN(4) == 0 && l.Tiling.TileCount <= 32 {
		l.Tiling.Replicas = 2
		l.Tiling.TileCount *= 2
	}
	_, err := NewShardMap(&l, shape, 0)
	return l, err == nil
}

// Property: every derivation keeps each element on the tile that held it,
// on random shapes and layouts.
func TestDerivationsKeepElementsOnTheirTiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	dims := []int64{1, 2, 3, 4, 6, 8, 12}
	checked := map[string]int{}
	for range 3000 {
		shape := make([]int64, 1+rng.IntN(3))
		for i := range shape {
			shape[i] = dims[rng.IntN(len(dims))]
		}
		l, ok := randomRowMajor(rng, shape)
		if !ok {
			continue
		}
		in := mustMap(t, l, shape)
		// Transpose.
		perm := rng.Perm(len(shape))
		p64 := make([]int64, len(perm))
		out := make([]int64, len(perm))
		for j, p := range perm {
			p64[j], out[j] = int64(p), shape[p]
		}
		pm := mustMap(t, PermuteLayout(&l, p64), out)
		for _, tile := range in.Tiles() {
			a, _ := in.BoxOnTile(tile)
			b, ok := pm.BoxOnTile(tile)
			for j, p := range perm {
				if !ok || b[j] != a[p] {
					t.Fatalf("transpose %v of %s: tile %d holds %v, had %v", perm, &l, tile, b, a)
				}
			}
		}
		checked["transpose"]++
		// Reshape to the flattened shape and to a regrouping.
		n := int64(1)
		for _, d := range shape {
			n *= d
		}
		for _, target := range [][]int64{{n}, {shape[0], n / shape[0]}} {
			if r, ok := ReshapeLayout(&l, shape, target); ok {
				sameElementsOnTiles(t, in, mustMap(t, r, target))
				checked["reshape"]++
			}
		}
		// A slice of axis 0's first shard, when the axis is cut evenly, takes
		// whole shards and so has a layout.
		if a, ok := l.Tiling.Axis(len(shape)); ok && a.Partitions > 1 && shape[0]%a.Partitions == 0 {
			if _, ok := SliceLayout(&l, shape, 0, 0, shape[0]/a.Partitions); !ok {
				t.Fatalf("the first shard of axis 0 of %s (shape %v) has no slice layout", &l, shape)
			}
		}
		// Slice along axis 0 at every pair of partition boundaries.
		for lo := int64(0); lo < shape[0]; lo++ {
			for hi := lo + 1; hi <= shape[0]; hi++ {
				s, ok := SliceLayout(&l, shape, 0, lo, hi)
				if !ok {
					continue
				}
				sub := slices.Clone(shape)
				sub[0] = hi - lo
				sm := mustMap(t, s, sub)
				for _, tile := range sm.Tiles() {
					a, _ := in.BoxOnTile(tile)
					b, _ := sm.BoxOnTile(tile)
					if a[0].Lo-lo != b[0].Lo || a[0].Hi-lo != b[0].Hi || !slices.Equal(a[1:], b[1:]) {
						t.Fatalf("slice [%d, %d) of %s: tile %d holds %v, had %v", lo, hi, &l, tile, b, a)
					}
				}
				checked["slice"]++
			}
		}
		// Project onto the first axis (a reduction over the others), then
		// expand back: every tile holds its shard's rows again.
		if proj, ok := ProjectLayout(&l, shape, []int{0}, shape[:1]); ok {
			pm := mustMap(t, proj, shape[:1])
			for _, tile := range in.Tiles() {
				a, _ := in.BoxOnTile(tile)
				b, ok := pm.BoxOnTile(tile)
				if !ok || b[0] != a[0] {
					t.Fatalf("projection of %s: tile %d holds %v, had %v", &l, tile, b, a)
				}
			}
			em := mustMap(t, ExpandLayout(&proj, len(shape), []int{0}), shape)
			for _, tile := range pm.Tiles() {
				a, _ := pm.BoxOnTile(tile)
				b, _ := em.BoxOnTile(tile)
				if b[0] != a[0] || b.Elements() != a.Elements()*(n/shape[0]) {
					t.Fatalf("expansion: tile %d holds %v from %v", tile, b, a)
				}
			}
			checked["projection"]++
		}
	}
	t.Logf("checked %v", checked)
	for _, what := range []string{"transpose", "reshape", "slice", "projection"} {
		if checked[what] < 100 {
			t.Errorf("only %d %s cases", checked[what], what)
		}
	}
}

// A reshape that regroups an axis its operand's layout cuts unevenly (a
// ViT's 196 patch rows, cut 46 ways by the matmul's plan, into 14 × 14)
// takes the default layout with the regrouped axis whole, which spreads
// the axis that stays (the 768 features); without it no layout fit.
func TestReshapeLayoutsSpreadTheAxisThatStays(t *testing.T) {
	tg, err := target.Lookup("ipu21")
	if err != nil {
		t.Fatal(err)
	}
	in, out := []int64{196, 768}, []int64{1, 14, 14, 768}
	l := rowMajor(46, NewAxis(2, 46))
	inL, outL, err := ReshapeLayouts(&l, in, out, elem.F32, tg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Check(&inL, in, elem.F32, tg); err != nil {
		t.Fatalf("input layout %s: %v", &inL, err)
	}
	sameElementsOnTiles(t, mustMap(t, inL, in), mustMap(t, outL, out))
}

// im2col's columns [1, 64, 64, 27] read as rows [4096, 27], from a layout
// that cuts both image axes (so its shards do not reinterpret): the input
// is laid out by rows of the image, spread over 64 tiles, not gathered
// onto one tile with every regrouped axis whole (which fit, and made two
// relayouts of a CNN's first layer cost 220,000 cycles).
func TestReshapeLayoutsKeepRegroupedRowsSpread(t *testing.T) {
	tg, err := target.Lookup("ipu21")
	if err != nil {
		t.Fatal(err)
	}
	in, out := []int64{1, 64, 64, 27}, []int64{4096, 27}
	l := rowMajor(64*8, NewAxis(3, 64), NewAxis(2, 8))
	inL, outL, err := ReshapeLayouts(&l, in, out, elem.F32, tg)
	if err != nil {
		t.Fatal(err)
	}
	m := mustMap(t, inL, in)
	if n := len(m.Tiles()); n < 64 {
		t.Errorf("the reshape's input is on %d tiles (%s), want the image's 64 rows spread", n, &inL)
	}
	sameElementsOnTiles(t, m, mustMap(t, outL, out))
}

// A convolution's im2col rows [20, 48, 38, 144] read as [36480, 144], and
// its result [36480, 13] read back as [20, 48, 38, 13]: neither the
// planned layouts nor the default (whose tiles follow the front axis
// first) reinterpret, and cut only on the outer axis the shards overflow
// ipu21's tiles; the default with its tiles in row-major order keeps a
// batch row of 38 image columns on each of 960 tiles.
func TestReshapeLayoutsMergeRowsInTileOrder(t *testing.T) {
	tg, err := target.Lookup("ipu21")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ in, out []int64 }{
		{[]int64{20, 48, 38, 144}, []int64{36480, 144}},
		{[]int64{36480, 13}, []int64{20, 48, 38, 13}},
	} {
		l := rowMajor(1472, NewAxis(2, 1472))
		inL, outL, err := ReshapeLayouts(&l, c.in, c.out, elem.F32, tg)
		if err != nil {
			t.Fatalf("%v to %v: %v", c.in, c.out, err)
		}
		if _, err := Check(&inL, c.in, elem.F32, tg); err != nil {
			t.Fatalf("input layout %s: %v", &inL, err)
		}
		if inL.Tiling.TileCount < 900 {
			t.Errorf("%v to %v: the input is on %d tiles, want it spread over at least 900", c.in, c.out, inL.Tiling.TileCount)
		}
		sameElementsOnTiles(t, mustMap(t, inL, c.in), mustMap(t, outL, c.out))
	}
}

// A reshape of an empty tensor (ONNX's Reshape with allowzero, [0, 3, 4]
// to [3, 4, 0]) keeps nothing anywhere: it reinterprets from any layout.
func TestReshapeLayoutOfAnEmptyTensor(t *testing.T) {
	l := rowMajor(3, NewAxis(2, 3))
	r, ok := ReshapeLayout(&l, []int64{0, 3, 4}, []int64{3, 4, 0})
	if !ok {
		t.Fatal("an empty tensor's reshape does not reinterpret")
	}
	if len(r.Tiling.Axes) != 0 || r.Tiling.TileCount != 3 {
		t.Errorf("result layout %s, want it whole on the input's 3 tiles", &r)
	}
	if _, ok := ReshapeLayout(&l, []int64{2, 3, 4}, []int64{3, 4, 3}); ok {
		t.Error("a reshape that changes the element count reinterprets")
	}
}

func TestExchangeTrafficCountsWhatCrossesChips(t *testing.T) {
	// On two test16 chips as one program (tiles 0–15 and 16–31): 8 rows
	// of 16 f16 on tiles 0 and 16, half on each chip, moved to replicas
	// on tiles 0–31. Each half reaches the other chip once (32 words, 128
	// bytes), however many of its tiles take it.
	tg, err := target.Lookup("test16{span-chips=2}")
	if err != nil {
		t.Fatal(err)
	}
	rows := NewAxis(2, 2)
	rows.TileStride = 16
	src := mustMap(t, Layout{Order: Order{Kind: RowMajor}, MemoryClass: "Test16Standard",
		Tiling: Tiling{TileCount: 32, Replicas: 1, Axes: []AxisTiling{rows}}}, []int64{8, 16})
	dst := mustMap(t, Layout{Order: Order{Kind: RowMajor}, MemoryClass: "Test16Standard",
		Tiling: Tiling{TileCount: 32, Replicas: 32, ReplicaStride: 1}}, []int64{8, 16})
	tr := ExchangeTraffic(src, ShardNeeds(dst), 2, tg)
	if want := []int64{0, 128, 128, 0}; !slices.Equal(tr.ChipBytes, want) {
		t.Errorf("ChipBytes = %v; want %v", tr.ChipBytes, want)
	}
	var sum Traffic
	sum.Add(&tr)
	sum.Add(&tr)
	if sum.ChipBytes[1] != 256 {
		t.Errorf("two phases added: %v", sum.ChipBytes)
	}
	// On one chip nothing crosses.
	one, _ := target.Lookup("test16")
	src1 := mustMap(t, rowMajor(2, NewAxis(2, 2)), []int64{8, 16})
	if tr := ExchangeTraffic(src1, ShardNeeds(src1), 2, one); tr.ChipBytes != nil {
		t.Errorf("one chip: ChipBytes = %v", tr.ChipBytes)
	}
}

// resnet18's first convolution: its matmul result [12544, 64] read back as
// the image [1, 112, 112, 64]. The rows were cut into 715 padded
// partitions by the plan, the image's default layout cuts 112 columns into
// 13 (no whole rows per tile), and the row's default cuts 12544 over
// 1,472 tiles: none reinterprets, and every fallback that did not fit was
// refused ("no layout lets a reshape of [12544 64] to [1 112 112 64] stay
// on its tiles"). An even cut (112 × 8 tiles of 14 image columns) does.
func TestReshapeLayoutsFindAnEvenCut(t *testing.T) {
	tg, err := target.Lookup("ipu21")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ in, out []int64 }{
		{[]int64{12544, 64}, []int64{1, 112, 112, 64}},
		{[]int64{1, 112, 112, 147}, []int64{12544, 147}},
		{[]int64{3136, 256}, []int64{1, 56, 56, 256}},
		{[]int64{16384, 16}, []int64{1, 128, 128, 16}},
	} {
		l := rowMajor(1430, NewAxis(2, 715), NewAxis(1, 2))
		inL, outL, err := ReshapeLayouts(&l, c.in, c.out, elem.F32, tg)
		if err != nil {
			t.Fatalf("%v to %v: %v", c.in, c.out, err)
		}
		if _, err := Check(&inL, c.in, elem.F32, tg); err != nil {
			t.Fatalf("%v to %v: input layout %s: %v", c.in, c.out, &inL, err)
		}
		if _, err := Check(&outL, c.out, elem.F32, tg); err != nil {
			t.Fatalf("%v to %v: result layout %s: %v", c.in, c.out, &outL, err)
		}
		if inL.Tiling.TileCount < 448 {
			t.Errorf("%v to %v: the input is on %d tiles (%s), want it spread over at least 448", c.in, c.out, inL.Tiling.TileCount, &inL)
		}
		sameElementsOnTiles(t, mustMap(t, inL, c.in), mustMap(t, outL, c.out))
	}
}

func TestEvenLayoutCutsEveryAxisByADivisor(t *testing.T) {
	tg, err := target.Lookup("ipu21")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		shape []int64
		parts []int64 // per axis, front to back
	}{
		{[]int64{1, 112, 112, 64}, []int64{1, 112, 8, 1}}, // 1,472 / 112 leaves 13 tiles: 112's largest divisor ≤ 13 is 8
		{[]int64{12544, 64}, []int64{896, 1}},             // 12544 = 2^8·7^2: its largest divisor ≤ 1,472
		{[]int64{7, 7, 512}, []int64{7, 7, 16}},           // 1,472 / 49 leaves 30 tiles: 16 of them divide 512
		{[]int64{1471}, []int64{1471}},                    // prime, and no more than the tiles
		{[]int64{1473}, []int64{491}},                     // 3 · 491
	} {
		l, err := EvenLayout(c.shape, tg)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]int64, len(c.shape))
		for i := range got {
			got[i] = 1
			if a, ok := l.Tiling.Axis(len(c.shape) - i); ok {
				got[i] = a.Partitions
			}
		}
		if !slices.Equal(got, c.parts) {
			t.Errorf("EvenLayout(%v) cuts the axes into %v, want %v", c.shape, got, c.parts)
		}
	}
}

// A broadcast whose result is wanted in a replicated layout with the new
// axis cut too (the one-hot of an embedding lookup at batch 4: [1000]
// indices broadcast to [512, 1000], a matmul's operand in five copies)
// has no projection of its result's shards; it computes in the wanted
// layout from the whole input on every tile, not in the wanted layout
// with the new axis made whole (every tile 512 rows, 16 times its shard).
func TestBroadcastLayoutsFromAWholeInput(t *testing.T) {
	wanted := Layout{Order: Order{Kind: RowMajor}, MemoryClass: "Ipu21Interleaved", Tiling: Tiling{TileCount: 1440, Replicas: 5, ReplicaStride: 288}}
	cols, rows := NewAxis(1, 18), NewAxis(2, 16)
	cols.BlockSize, cols.PaddingMultiple, cols.TileStride = 8, 8, 16
	rows.BlockSize, rows.PaddingMultiple, rows.TileStride = 16, 16, 1
	wanted.Tiling.Axes = []AxisTiling{cols, rows}
	out, in := []int64{512, 1000}, []int64{1000}
	inL, compute := BroadcastLayouts(&wanted, out, in, []int64{1})
	if !compute.Equal(&wanted) {
		t.Fatalf("the broadcast computes in %+v, not the wanted layout", compute.Tiling)
	}
	result, err := NewShardMap(&compute, out, 0)
	if err != nil {
		t.Fatal(err)
	}
	input, err := NewShardMap(&inL, in, 0)
	if err != nil {
		t.Fatalf("input layout %+v: %v", inL.Tiling, err)
	}
	checked := 0
	for _, tile := range result.Tiles() {
		box, _ := result.BoxOnTile(tile)
		have, ok := input.BoxOnTile(tile)
		if !ok || !have.Contains(Box{box[1]}) {
			t.Fatalf("tile %d computes columns %v but holds %v of the input", tile, box[1], have)
		}
		checked++
	}
	if got, shard := input.MaxShardElements(), result.MaxShardElements(); got > shard {
		t.Errorf("the input takes %d elements a tile, more than the result's shard of %d", got, shard)
	}
	t.Logf("%d tiles hold the input their shard reads", checked)
}
