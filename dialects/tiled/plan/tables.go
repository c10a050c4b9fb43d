package plan

import (
	"github.com/ipuir/ipuir/layout"
	"github.com/ipuir/ipuir/target"
)

// tableBytes estimates the exchange-table bytes the busiest tile keeps for
// the whole program because of the chosen plans: every piece that brings
// a matmul's operand into its plan's layout takes a table entry
// (target.CodeModel.TableEntryBytes) on its sender and on each receiver
// (layout.VisitPieces, as the exchange lowering cuts them). An operand
// comes from its producer's result layout (through Derive), from Source
// (an argument, a home), or, for a value the planner does not see
// produced (a layer norm's output, an elementwise result), from the
// default layout the tiled lowering gives such values; resident operands
// and temporal plans' step sends are not counted. Support memory is live
// from the first step on every tile, so a deep stack's tables are memory
// that no matmul can have: PlanProgram reserves what this finds beyond
// the target's SupportReserveBytes.
func tableBytes(prog Program, choices []Choice, t *target.Target) int64 {
	if t.Code.TableEntryBytes <= 0 || len(choices) != len(prog.Matmuls) {
		return 0
	}
	entries := make([]int64, t.Tiles)
	produced := map[int]*layout.Layout{}
	for i, m := range prog.Matmuls {
		c := &choices[i]
		if c.Layouts == nil {
			continue
		}
		a, b, _ := m.Shape.Shapes()
		for k, o := range []Operand{m.LHS, m.RHS} {
			shape := [][]int64{a, b}[k]
			if o.Resident || c.Layouts.Step != nil {
				continue
			}
			var src layout.Layout
			switch from := produced[o.Value]; {
			case from != nil && o.Value >= 0 && o.Derive != nil:
				d, ok := o.Derive(from)
				if !ok {
					continue
				}
				src = d
			case from != nil && o.Value >= 0:
				src = *from
			case o.Source != nil && o.Derive == nil:
				src = *o.Source
			default:
				d, err := layout.DefaultLayout(shape, t)
				if err != nil {
					continue
				}
				src = d
			}
			dst := []*layout.Layout{&c.Layouts.LHS, &c.Layouts.RHS}[k]
			if src.Equal(dst) || src.SameDistribution(dst) {
				continue
			}
			sm, err := layout.NewShardMap(&src, shape, int64(t.Tiles))
			if err != nil {
				continue
			}
			dm, err := layout.NewShardMap(dst, shape, int64(t.Tiles))
			if err != nil {
				continue
			}
			layout.VisitPieces(sm, layout.ShardNeeds(dm), func(p layout.Piece) {
				if len(p.Dst) == 0 {
					return
				}
				if p.Src >= 0 && p.Src < int64(len(entries)) {
					entries[p.Src]++
				}
				for _, d := range p.Dst {
					if d >= 0 && d < int64(len(entries)) {
						entries[d]++
					}
				}
			})
		}
		if m.Result >= 0 {
			produced[m.Result] = &c.Layouts.Result
		}
	}
	most := int64(0)
	for _, n := range entries {
		most = max(most, n)
	}
	return satMul(most, t.Code.TableEntryBytes)
}
