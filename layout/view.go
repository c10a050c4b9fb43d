package layout

import "fmt"

// ViewOutsideShardMessage is the fixed start of the containment error, as in
// the reference log; tests and --verify-diagnostics files match on it.
const ViewOutsideShardMessage = "tensor view falls outside its storage shard"

// ViewError is a view that is not a subset of its storage shard. Its text is
// the reference log's: the message, then layout=, shard_extents= and
// view_extents= in the log's notation.
type ViewError struct {
	Layout *Layout
	Shard  []Extent
	View   []Extent
}

func (e *ViewError) Error() string {
	return fmt.Sprintf("%s layout=%s shard_extents=%s view_extents=%s",
		ViewOutsideShardMessage, e.Layout.DebugString(), DebugExtents(e.Shard), DebugExtents(e.View))
}

// CheckView checks that view (one extent per tensor axis, in the tensor's
// positions) lies inside the shard stored on tile. It fails with a
// *LayoutError when the tile holds no shard or the view is malformed, and
// with a *ViewError when the view leaves the shard.
func (m *ShardMap) CheckView(tile int64, view []Extent) error {
	shard, ok := m.OnTile(tile)
	if !ok {
		return layoutErr("tile %d holds no shard of the layout (tile_count %d)", tile, m.Layout.Tiling.TileCount)
	}
	if len(view) != len(m.Shape) {
		return layoutErr("view has %d extents but the tensor has rank %d", len(view), len(m.Shape))
	}
	for i, v := range view {
		if !v.WellFormed() {
			return layoutErr("view extent of axis %d is not 0 ≤ start ≤ logical_end ≤ physical_end: [%d, %d, %d]",
				i, v.Start, v.LogicalEnd, v.PhysicalEnd)
		}
	}
	for i, v := range view {
		if !shard.Extents[i].Contains(v) {
			return &ViewError{Layout: m.Layout, Shard: shard.Extents, View: view}
		}
	}
	return nil
}
