package ipupkg

import "github.com/ipuir/ipuir/layout"

// A buffer's pieces follow its layout when each tile the layout places a
// shard on holds one piece covering that shard's data, in tile order: the
// compiler writes every buffer and view so. Version 5 then stores only each
// piece's address and size, and the reader derives tiles and boxes with
// the layout's own arithmetic (layout.PlacedShards), whose work is bounded
// by the bytes that remain to describe the pieces.

// placedShards is the layout of b applied to its shape, placing at most
// limit shards.
func placedShards(p *Package, b *Buffer, limit int64) (*layout.ShardMap, []layout.TileShard, error) {
	if b.Class < 0 || b.Class >= len(p.Classes) {
		return nil, nil, &layout.LayoutError{Msg: "its memory class is not one of the package's"}
	}
	if len(b.Shape) > MaxRank {
		return nil, nil, &layout.LayoutError{Msg: "its rank is above the package's limit"}
	}
	if p.Tiles < 1 {
		return nil, nil, &layout.LayoutError{Msg: "the package has no tiles"}
	}
	l := b.Layout.Tiled(p.Classes[b.Class].Name)
	return layout.PlacedShards(&l, b.Shape, int64(p.Tiles), limit)
}

// piecesFollowLayout reports whether b's pieces are the ones its layout
// derives, so that a writer may leave their tiles and boxes out.
func piecesFollowLayout(p *Package, b *Buffer) bool {
	m, tiles, err := placedShards(p, b, int64(len(b.Pieces)))
	if err != nil || len(tiles) != len(b.Pieces) {
		return false
	}
	box := make(layout.Box, len(b.Shape))
	for i, ts := range tiles {
		pc := &b.Pieces[i]
		if int64(pc.Tile) != ts.Tile || len(pc.Box) != len(box) {
			return false
		}
		m.BoxOf(ts.Shard, box)
		for k, s := range box {
			if pc.Box[k] != (Span{s.Lo, s.Hi}) {
				return false
			}
		}
	}
	return true
}

// layoutPieces reads b's pieces' tiles and boxes from its layout; their
// addresses and sizes follow in the section, a byte each at least, which
// bounds how many the layout may place.
func (c *codec) layoutPieces(p *Package, b *Buffer) {
	if c.err != nil {
		return
	}
	m, tiles, err := placedShards(p, b, int64(len(c.b)-c.off)/2)
	if err != nil {
		c.fail("buffer %q: its pieces follow its layout, which does not place them: %v", b.Name, err)
		return
	}
	b.Pieces = make([]Piece, len(tiles))
	box := make(layout.Box, len(b.Shape))
	for i, ts := range tiles {
		m.BoxOf(ts.Shard, box)
		pc := &b.Pieces[i]
		pc.Tile = int(ts.Tile)
		pc.Box = take(&c.spanSlab, len(box))
		for k, s := range box {
			pc.Box[k] = Span{s.Lo, s.Hi}
		}
	}
}
