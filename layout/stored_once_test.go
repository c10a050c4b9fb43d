package layout

import (
	"testing"

	"github.com/ipuir/ipuir/target"
)

// piecesPerTile is the most pieces any tile of dst receives or sends when
// a tensor moves from src into dst: its exchange-table entries.
func piecesPerTile(src, dst *ShardMap, tiles int64) int64 {
	count := make([]int64, tiles)
	VisitPieces(src, ShardNeeds(dst), func(p Piece) {
		if len(p.Dst) == 0 {
			return
		}
		count[p.Src]++
		for _, d := range p.Dst {
			count[d]++
		}
	})
	most := int64(0)
	for _, n := range count {
		most = max(most, n)
	}
	return most
}

// A weight a plan reads replicated (the attention block's QKV plan:
// inner axis in 2 partitions of 16-element blocks, columns in 16, each
// shard on 46 tiles) is stored once, spread over as many tiles as the plan
// uses, and each tile then takes a few pieces of it, where from the
// default layout (a row a tile) it takes one per row of its shard.
func TestStoredOnceStoresEachElementOnceInFewPieces(t *testing.T) {
	tg, err := target.Lookup("ipu21")
	if err != nil {
		t.Fatal(err)
	}
	tiles := int64(tg.Tiles)
	shape := []int64{1152, 1152}
	inner := NewAxis(2, 2)
	inner.BlockSize, inner.PaddingMultiple = 16, 16
	cols := NewAxis(1, 16)
	cols.BlockSize, cols.PaddingMultiple = 72, 72
	plan := Layout{Order: Order{Kind: AmpRight}, MemoryClass: "Ipu21Standard",
		Tiling: Tiling{TileCount: 1472, Replicas: 46, ReplicaStride: 32, Axes: []AxisTiling{inner, cols}}}
	pm := mustMap(t, plan, shape)

	home, ok := StoredOnce(&plan, shape, 2, tiles, "Ipu21Standard")
	if !ok {
		t.Fatal("no layout stores the plan's layout once")
	}
	hm := mustMap(t, home, shape)
	if home.Tiling.Replicas != 1 || home.Order.Kind != RowMajor {
		t.Fatalf("home %s: want one copy, row major", home.DebugString())
	}
	held := int64(0)
	for _, tile := range hm.Tiles() {
		s, _ := hm.OnTile(tile)
		n := int64(1)
		for _, e := range s.Extents {
			n *= e.LogicalSize()
		}
		held += n
		if n*2 < StoredPieceBytes {
			t.Errorf("tile %d holds %d bytes, under StoredPieceBytes", tile, n*2)
		}
	}
	if held != 1152*1152 {
		t.Fatalf("the home holds %d elements, the tensor has %d", held, 1152*1152)
	}
	if got := int64(len(hm.Tiles())); got < 32*23 {
		t.Errorf("the home is spread over %d tiles; want at least half the plan's 1,472", got)
	}
	def, err := DefaultLayout(shape, tg)
	if err != nil {
		t.Fatal(err)
	}
	dm := mustMap(t, def, shape)
	fromHome, fromDefault := piecesPerTile(hm, pm, tiles), piecesPerTile(dm, pm, tiles)
	// A shard of the plan is the home's pieces of it: 46, one more where a
	// cut does not fall on a block boundary, and the piece a tile sends.
	if fromHome > 48 {
		t.Errorf("a tile takes part in %d pieces from the home; want at most 48", fromHome)
	}
	if fromHome*10 > fromDefault {
		t.Errorf("a tile takes part in %d pieces from the home and %d from the default layout; want ten times fewer", fromHome, fromDefault)
	}
	t.Logf("busiest tile's pieces: %d from the home, %d from the default layout", fromHome, fromDefault)
}

// A parameter read through broadcasts (a bias, a layer norm's scale) is
// stored in pieces of a kibibyte, not an element a tile.
func TestStorageLayoutKeepsPiecesWhole(t *testing.T) {
	tg, err := target.Lookup("ipu21")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		shape      []int64
		elemBytes  int64
		wantShards int64
	}{
		{[]int64{1152}, 2, 2},
		{[]int64{4304}, 2, 8},
		{[]int64{16}, 4, 1},
		{[]int64{1152, 1152}, 2, 1152},
	} {
		l, err := StorageLayout(c.shape, c.elemBytes, tg)
		if err != nil {
			t.Fatal(err)
		}
		if got := l.Tiling.ShardsPerReplica(); got != c.wantShards {
			t.Errorf("%v × %d bytes: %d shards (%s), want %d", c.shape, c.elemBytes, got, l.DebugString(), c.wantShards)
		}
	}
}

// A weight a temporal plan reads a step at a time (ViT-B/16's first MLP
// weight in f32, [768, 3072], six steps of 128 rows into an AMP operand
// cut 2 × 192 and replicated 3 times) stored in StepHome's blocks sends
// each step's tile its shard as one piece; from the default layout (one
// row a tile) each took 64. StepHome fits the chip by merging the widest
// axis's blocks, and stores every element once.
func TestStepHomeSendsEachStepShardAsOnePiece(t *testing.T) {
	tg, _ := target.Lookup("ipu21")
	step := Layout{Order: Order{Kind: AmpRight}, MemoryClass: "Ipu21Interleaved", Tiling: Tiling{TileCount: 1152, Replicas: 3, ReplicaStride: 384}}
	rows, cols := NewAxis(2, 2), NewAxis(1, 192)
	rows.BlockSize, rows.PaddingMultiple, rows.TileStride = 8, 8, 192
	cols.BlockSize, cols.PaddingMultiple, cols.TileStride = 16, 16, 1
	step.Tiling.Axes = []AxisTiling{rows, cols}
	stepShape, shape := []int64{128, 3072}, []int64{768, 3072}
	home, ok := StepHome(&step, stepShape, shape, int64(tg.Tiles), "Ipu21Standard")
	if !ok {
		t.Fatal("no step home")
	}
	hm, err := NewShardMap(&home, shape, int64(tg.Tiles))
	if err != nil {
		t.Fatalf("home %+v: %v", home.Tiling, err)
	}
	if got := hm.NumShards(); got > int64(tg.Tiles) || got < int64(tg.Tiles)/2 {
		t.Errorf("the home has %d shards on a chip of %d tiles", got, tg.Tiles)
	}
	if hm.MaxShardElements()*hm.NumShards() > 2*768*3072 {
		t.Errorf("the home holds %d elements for 768 × 3072", hm.MaxShardElements()*hm.NumShards())
	}
	sm, err := NewShardMap(&step, stepShape, 0)
	if err != nil {
		t.Fatal(err)
	}
	def, _ := DefaultLayout(shape, tg)
	dm, _ := NewShardMap(&def, shape, 0)
	checked, fromDefault := 0, 0
	for k0 := int64(0); k0 < 768; k0 += 128 {
		for _, tile := range sm.Tiles() {
			box, _ := sm.BoxOnTile(tile)
			need := Box{{Lo: k0 + box[0].Lo, Hi: k0 + box[0].Hi}, box[1]}
			senders := 0
			for _, from := range hm.Tiles() {
				if have, _ := hm.BoxOnTile(from); have.Intersect(need).Elements() > 0 {
					senders++
				}
			}
			if senders != 1 {
				t.Fatalf("step at row %d: tile %d's shard %v comes from %d home tiles", k0, tile, need, senders)
			}
			if k0 == 0 && tile == sm.Tiles()[0] {
				for _, from := range dm.Tiles() {
					if have, _ := dm.BoxOnTile(from); have.Intersect(need).Elements() > 0 {
						fromDefault++
					}
				}
			}
			checked++
		}
	}
	if fromDefault < 2 {
		t.Errorf("from the default layout a step's shard comes from %d tiles: the test compares nothing", fromDefault)
	}
	t.Logf("%d step shards each from one home tile (from the default layout: %d tiles)", checked, fromDefault)
}
