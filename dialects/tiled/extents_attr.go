package tiled

import (
	"strconv"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/layout"
)

// ExtentsAttr is #tiled.extents<[start, logical_end, physical_end], ...>:
// one triple per tensor axis, front to back, in the tensor's positions (the
// padded positions of shard.go). It gives a view its region, e.g.
// #tiled.extents<[0, 1, 1], [736, 736, 743], [0, 16, 16]>.
type ExtentsAttr struct{ Extents []layout.Extent }

// NewExtentsAttr uniques the extents as an attribute.
func NewExtentsAttr(ctx *ir.Context, ext []layout.Extent) *ExtentsAttr {
	return ir.UniqueAttr(ctx, &ExtentsAttr{Extents: append([]layout.Extent(nil), ext...)})
}

func (a *ExtentsAttr) Print(p *ir.AsmPrinter) {
	p.WriteString("#tiled.extents<")
	for i, e := range a.Extents {
		if i > 0 {
			p.WriteString(", ")
		}
		p.WriteString("[" + strconv.FormatInt(e.Start, 10) + ", " + strconv.FormatInt(e.LogicalEnd, 10) + ", " +
			strconv.FormatInt(e.PhysicalEnd, 10) + "]")
	}
	p.WriteString(">")
}

// Shape is the physical size of each axis: the shape of the view's buffer.
func (a *ExtentsAttr) Shape() []int64 {
	shape := make([]int64, len(a.Extents))
	for i, e := range a.Extents {
		shape[i] = e.PhysicalSize()
	}
	return shape
}

func extentsFromSyntax(args *syntaxArgs) ([]layout.Extent, error) {
	if args == nil {
		return nil, errAt(lexer.Position{}, "#tiled.extents: expected <[start, logical_end, physical_end], ...>")
	}
	var out []layout.Extent
	for i, it := range args.Items {
		v := it.Value
		if it.Key != "" || v.List == nil || len(v.List.Elems) != 3 {
			return nil, errAt(it.Pos, "#tiled.extents: axis %d: expected [start, logical_end, physical_end]", i)
		}
		var n [3]int64
		for j, e := range v.List.Elems {
			if e.Int == nil {
				return nil, errAt(e.Pos, "#tiled.extents: axis %d: expected integers, got %s", i, describeValue(e))
			}
			var err error
			if n[j], err = e.Int.value(e.Pos); err != nil {
				return nil, err
			}
		}
		ext := layout.Extent{Start: n[0], LogicalEnd: n[1], PhysicalEnd: n[2]}
		if !ext.WellFormed() {
			return nil, errAt(v.Pos, "#tiled.extents: axis %d: need 0 ≤ start ≤ logical_end ≤ physical_end, got [%d, %d, %d]", i, n[0], n[1], n[2])
		}
		out = append(out, ext)
	}
	return out, nil
}
