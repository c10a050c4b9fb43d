package layout

import (
	"encoding/binary"

	"github.com/ipuir/ipuir/numeric"
	"github.com/ipuir/ipuir/target"
)

// Need is what one tile needs of a tensor for an op: a box of its elements.
type Need struct {
	Tile int64
	Box  Box
}

// Traffic is the data movement of one exchange phase, charged on both
// sides: per tile, the 32-bit words it sends and the words it receives.
// A tile can send one word per cycle and its receive port take one, so the
// phase takes at least MaxWords cycles (the bound the exchange scheduler
// reaches).
type Traffic struct {
	Sent, Received []int64 // words, by tile
	// Paired, on targets whose tiles 2k and 2k+1 share an exchange bus
	// (target.Target.ExchangeBusPairs), is by tile the words it receives
	// in pieces its partner receives too; nil elsewhere.
	Paired  []int64
	MaxSent int64
	// MaxReceived is the most words one receive port takes: a tile's, or
	// on a pair the larger of what either tile takes alone and half of
	// what the two take (the pair's two ports share the words both take).
	MaxReceived int64
	// Words is the total received over all tiles.
	Words int64
	// Pieces is the number of distinct sends (a multicast counts once).
	Pieces int
	// LocalElements were needed on a tile that already holds them.
	LocalElements int64
	// ChipBytes, on a target whose programs span chips
	// (target.Target.SpanChips), is the bytes that cross from chip a to
	// chip b at [a·chips+b]: a piece once for each other chip it reaches
	// (the receiving chip's exchange spreads it to its tiles). Nil on one
	// chip.
	ChipBytes []int64
}

// MaxWords is the words of the busiest tile in its busier direction.
func (t *Traffic) MaxWords() int64 { return max(t.MaxSent, t.MaxReceived) }

// ExchangeTraffic computes what moves when every need is served from the
// shards of src (see VisitPieces) on target tg: per tile, the words it
// receives and the words it sends, with multicast (one send reaching every
// receiver of a piece) where tg has it, or one send per receiver, and the
// words shared-bus pairs take together where tg has them. Pieces are whole
// words: elemBytes·elements rounded up to tg's exchange word.
func ExchangeTraffic(src *ShardMap, needs []Need, elemBytes int64, tg *target.Target) Traffic {
	tiles := int64(len(src.owner))
	for _, n := range needs {
		tiles = max(tiles, n.Tile+1)
	}
	wordBytes := int64(tg.ExchangeWordBytes)
	tr := Traffic{Sent: make([]int64, tiles), Received: make([]int64, tiles)}
	var mark []int
	if tg.ExchangeBusPairs {
		tr.Paired, mark = make([]int64, tiles), make([]int, tiles)
	}
	stamp := 0
	if chips := tg.SpanChips(); chips > 1 {
		tr.ChipBytes = make([]int64, chips*chips)
	}
	VisitPieces(src, needs, func(p Piece) {
		words := numeric.CeilDiv(satMul(p.Box.Elements(), elemBytes), wordBytes)
		if tr.ChipBytes != nil {
			target.AddCrossing(tg, tr.ChipBytes, p.Src, p.Dst, satMul(words, wordBytes))
		}
		tr.LocalElements += int64(p.Local) * p.Box.Elements()
		stamp++
		for _, t := range p.Dst {
			tr.Received[t] += words
			tr.Words += words
			if mark != nil {
				mark[t] = stamp
			}
		}
		if mark != nil {
			for _, t := range p.Dst {
				if q := t ^ 1; q < tiles && mark[q] == stamp {
					tr.Paired[t] += words
				}
			}
		}
		if len(p.Dst) > 0 {
			if tg.ExchangeMulticast {
				tr.Sent[p.Src] += words
			} else {
				tr.Sent[p.Src] += satMul(words, int64(len(p.Dst)))
			}
			tr.Pieces++
		}
	})
	tr.setMax()
	return tr
}

// setMax derives MaxSent and MaxReceived from the per-tile words.
func (t *Traffic) setMax() {
	t.MaxSent, t.MaxReceived = 0, 0
	for i := range t.Sent {
		t.MaxSent = max(t.MaxSent, t.Sent[i])
		if t.Paired == nil {
			t.MaxReceived = max(t.MaxReceived, t.Received[i])
			continue
		}
		if i&1 == 1 {
			continue
		}
		a := t.Received[i] - t.Paired[i]
		if i+1 == len(t.Sent) {
			t.MaxReceived = max(t.MaxReceived, t.Received[i])
			continue
		}
		b := t.Received[i+1] - t.Paired[i+1]
		t.MaxReceived = max(t.MaxReceived, a, b, numeric.CeilDiv(a+b+t.Paired[i], 2))
	}
}

// Piece is one part of a source shard some tiles need: the elements Box
// (in the source's index space) of the shard on tile Src, needed by the
// tiles Dst; Local more tiles needed it and hold it already.
type Piece struct {
	Src   int64
	Dst   []int64
	Local int
	Box   Box
}

// VisitPieces calls visit for every piece of src that serves needs. Each
// needed element comes from the tile itself when it holds a replica of the
// element's shard, and otherwise from one replica chosen by the need's
// box, so that tiles needing the same box (replicas of one destination
// shard) are served by the same sender, in one piece. Pieces come in the
// order of the needs' first appearance, then of the source partitions.
// Box and Dst are reused between calls: copy them to keep them.
//
// The work is proportional to the pieces: needs with equal boxes are
// served together, and per box only the source partitions that overlap it
// are visited (a binary search per axis).
func VisitPieces(src *ShardMap, needs []Need, visit func(Piece)) {
	type group struct {
		box   Box
		tiles []int64
	}
	var groups []group
	index := map[string]int{}
	var key []byte
	for _, n := range needs {
		if n.Box.Elements() == 0 {
			continue
		}
		key = appendBox(key[:0], n.Box)
		g, ok := index[string(key)]
		if !ok {
			g = len(groups)
			index[string(key)] = g
			groups = append(groups, group{box: n.Box})
		}
		groups[g].tiles = append(groups[g].tiles, n.Tile)
	}
	reps := src.Layout.Tiling.Replicas
	ranges := make([][2]int64, len(src.splits))
	coords := make([]int64, len(src.splits))
	piece := make(Box, len(src.Shape))
	var dst []int64
	for gid, g := range groups {
		empty := false
		for i := range src.splits {
			s := &src.splits[i]
			first, last := s.partitionsOverlapping(g.box[s.axis])
			ranges[i] = [2]int64{first, last}
			coords[i] = first
			empty = empty || first >= last
		}
		if empty {
			continue
		}
		for {
			copy(piece, g.box)
			linear, span := int64(0), int64(1)
			for i := range src.splits {
				s := &src.splits[i]
				piece[s.axis] = piece[s.axis].Intersect(s.span(coords[i]))
				linear += coords[i] * span
				span *= s.tiling.Partitions
			}
			if piece.Elements() > 0 {
				dst = dst[:0]
				local := 0
				for _, t := range g.tiles {
					if own, ok := src.shardOnTile(t); ok && own == linear {
						local++
						continue
					}
					dst = append(dst, t)
				}
				visit(Piece{Src: src.tileOf(coords, int64(gid)%reps), Dst: dst, Local: local, Box: piece})
			}
			// Next combination of overlapping partitions, first axis fastest.
			i := 0
			for ; i < len(coords); i++ {
				coords[i]++
				if coords[i] < ranges[i][1] {
					break
				}
				coords[i] = ranges[i][0]
			}
			if i == len(coords) {
				break
			}
		}
	}
}

func appendBox(b []byte, box Box) []byte {
	for _, s := range box {
		b = binary.AppendVarint(b, s.Lo)
		b = binary.AppendVarint(b, s.Hi)
	}
	return b
}

// ShardNeeds is the needs of a tensor being moved into layout dst: every
// tile of dst needs its shard's data.
func ShardNeeds(dst *ShardMap) []Need {
	var out []Need
	for _, t := range dst.Tiles() {
		b, _ := dst.BoxOnTile(t)
		out = append(out, Need{Tile: t, Box: b})
	}
	return out
}

// Add accumulates o into t: two exchanges in one phase.
func (t *Traffic) Add(o *Traffic) {
	n := max(len(t.Sent), len(o.Sent))
	grow := func(a []int64) []int64 { return append(a, make([]int64, n-len(a))...) }
	t.Sent, t.Received = grow(t.Sent), grow(t.Received)
	if o.Paired != nil || t.Paired != nil {
		t.Paired = grow(t.Paired)
	}
	for i := range o.Sent {
		t.Sent[i] += o.Sent[i]
		t.Received[i] += o.Received[i]
		if o.Paired != nil {
			t.Paired[i] += o.Paired[i]
		}
	}
	if o.ChipBytes != nil {
		if t.ChipBytes == nil {
			t.ChipBytes = make([]int64, len(o.ChipBytes))
		}
		for i, b := range o.ChipBytes {
			t.ChipBytes[i] += b
		}
	}
	t.Words += o.Words
	t.Pieces += o.Pieces
	t.LocalElements += o.LocalElements
	t.setMax()
}
