package tiled

import (
	"fmt"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/layout"
)

// LayoutAttr is #tiled.layout<...>: a Layout as an attribute, usually the
// encoding of a ranked tensor type. Its syntax names the fields as the
// reference log does; fields at their default are left out when printed:
//
//	#tiled.layout<order = block_major<row_block = 384, column_block = 16>,
//	  tile_count = 1380, replicas = 10,
//	  axes = [{axis = -2, partitions = 46, block_size = 16, padding_multiple = 16, tile_stride = 1},
//	          {axis = -1, partitions = 3, block_size = 384, padding_multiple = 384}],
//	  memory_class = Ipu21Standard>
//
// order is row_major, block_major<row_block = R, column_block = C>,
// amp<left> or amp<right>. An axis is written -n for the n-th from the end.
// Optional fields and defaults: replicas 1, replica_stride derived,
// padding_groups 1, block_size 1, padding_multiple 1,
// shard_padding_multiple 1, padding zero (or undefined), tile_stride
// derived.
type LayoutAttr struct{ Layout layout.Layout }

// NewLayoutAttr uniques l as an attribute. The attribute keeps l; callers
// must not change l's axes afterwards.
func NewLayoutAttr(ctx *ir.Context, l layout.Layout) *LayoutAttr {
	l.Tiling.Axes = append([]layout.AxisTiling(nil), l.Tiling.Axes...)
	return ir.UniqueAttr(ctx, &LayoutAttr{Layout: l})
}

// Print writes the attribute in its canonical form.
func (a *LayoutAttr) Print(p *ir.AsmPrinter) {
	p.WriteString("#tiled.layout<")
	p.WriteString(a.Layout.String())
	p.WriteString(">")
}

var layoutFields = []string{"order", "tile_count", "replicas", "replica_stride", "tile_offset", "axes", "memory_class"}
var axisFields = []string{"axis", "partitions", "padding_groups", "block_size", "padding_multiple",
	"shard_padding_multiple", "padding", "tile_stride"}

// layoutFromSyntax builds a Layout from a parsed `layout<...>` body. It
// checks the syntax and the ranges of single fields; whether the layout fits
// a tensor and a target is the verifier's business (NewShardMap, Check).
func layoutFromSyntax(args *syntaxArgs) (layout.Layout, error) {
	var l layout.Layout
	f, err := newFieldSet("#tiled.layout", lexer.Position{}, args)
	if err != nil {
		return l, err
	}
	ov := f.take("order")
	if ov == nil {
		return l, f.missing("order", "")
	}
	if l.Order, err = orderFromSyntax(ov); err != nil {
		return l, err
	}
	if l.Tiling.TileCount, err = f.positive("tile_count", 0, true); err != nil {
		return l, err
	}
	if l.Tiling.Replicas, err = f.positive("replicas", layout.DefaultReplicas, false); err != nil {
		return l, err
	}
	if f.has("replica_stride") {
		if l.Tiling.ReplicaStride, err = f.positive("replica_stride", 0, false); err != nil {
			return l, err
		}
	}
	if l.Tiling.TileOffset, err = f.int("tile_offset", 0, false); err != nil {
		return l, err
	}
	av := f.take("axes")
	if av == nil {
		return l, f.missing("axes", " (write axes = [] for a tensor stored whole on each tile)")
	}
	if av.List == nil {
		return l, errAt(av.Pos, "#tiled.layout: field 'axes' must be a list of {...} records, got %s", describeValue(av))
	}
	var tiledAt [65]int // 1 + the index of the record tiling axis -n; 0 for none
	for i, e := range av.List.Elems {
		what := fmt.Sprintf("#tiled.layout: axes[%d]", i)
		ax, err := axisFromSyntax(what, e)
		if err != nil {
			return l, err
		}
		// Axes are -1 to -64, so this also bounds the list at 64.
		if j := tiledAt[ax.FromEnd]; j > 0 {
			return l, errAt(e.Pos, "%s: axis %s is tiled twice (axes[%d] tiles it too)", what, layout.AxisName(ax.FromEnd), j-1)
		}
		tiledAt[ax.FromEnd] = i + 1
		l.Tiling.Axes = append(l.Tiling.Axes, ax)
	}
	if l.MemoryClass, err = f.word("memory_class", true); err != nil {
		return l, err
	}
	return l, f.done(layoutFields...)
}

func orderFromSyntax(v *syntaxValue) (layout.Order, error) {
	if v.Word == nil {
		return layout.Order{}, errAt(v.Pos, "#tiled.layout: field 'order' must be row_major, block_major<...>, amp<left> or amp<right>, got %s", describeValue(v))
	}
	w := v.Word
	switch w.Name {
	case "row_major":
		if w.Args != nil {
			return layout.Order{}, errAt(v.Pos, "#tiled.layout: row_major takes no arguments")
		}
		return layout.Order{Kind: layout.RowMajor}, nil
	case "block_major":
		f, err := newFieldSet("#tiled.layout: block_major", v.Pos, w.Args)
		if err != nil {
			return layout.Order{}, err
		}
		o := layout.Order{Kind: layout.BlockMajor}
		if o.RowBlock, err = f.positive("row_block", 0, true); err != nil {
			return layout.Order{}, err
		}
		if o.ColumnBlock, err = f.positive("column_block", 0, true); err != nil {
			return layout.Order{}, err
		}
		return o, f.done("row_block", "column_block")
	case "amp":
		if w.Args == nil || len(w.Args.Items) != 1 || w.Args.Items[0].Key != "" || w.Args.Items[0].Value.Word == nil {
			return layout.Order{}, errAt(v.Pos, "#tiled.layout: amp order must be amp<left> or amp<right>")
		}
		switch w.Args.Items[0].Value.Word.Name {
		case "left":
			return layout.Order{Kind: layout.AmpLeft}, nil
		case "right":
			return layout.Order{Kind: layout.AmpRight}, nil
		}
		return layout.Order{}, errAt(v.Pos, "#tiled.layout: amp order must be amp<left> or amp<right>, got amp<%s>", w.Args.Items[0].Value.Word.Name)
	}
	return layout.Order{}, errAt(v.Pos, "#tiled.layout: unknown order '%s' (row_major, block_major<...>, amp<left>, amp<right>)", w.Name)
}

func axisFromSyntax(what string, v *syntaxValue) (layout.AxisTiling, error) {
	if v.Record == nil {
		return layout.AxisTiling{}, errAt(v.Pos, "%s: expected a {...} record, got %s", what, describeValue(v))
	}
	f, err := newFieldSet(what, v.Pos, v.Record)
	if err != nil {
		return layout.AxisTiling{}, err
	}
	axis, err := f.int("axis", 0, true)
	if err != nil {
		return layout.AxisTiling{}, err
	}
	if axis >= 0 || axis < -64 {
		return layout.AxisTiling{}, errAt(f.items["axis"].Value.Pos, "%s: axis is counted from the end and written -1 (last) to -64, got %d", what, axis)
	}
	a := layout.NewAxis(int(-axis), 0)
	for _, p := range []struct {
		name string
		dst  *int64
		def  int64
	}{{"partitions", &a.Partitions, 0}, {"padding_groups", &a.PaddingGroups, layout.DefaultPaddingGroups},
		{"block_size", &a.BlockSize, layout.DefaultBlockSize}, {"padding_multiple", &a.PaddingMultiple, layout.DefaultPaddingMultiple},
		{"shard_padding_multiple", &a.ShardPaddingMultiple, layout.DefaultShardPaddingMultiple}} {
		if *p.dst, err = f.positive(p.name, p.def, p.name == "partitions"); err != nil {
			return layout.AxisTiling{}, err
		}
	}
	switch pad, err := f.word("padding", false, "zero", "undefined"); {
	case err != nil:
		return layout.AxisTiling{}, err
	case pad == "undefined":
		a.Padding = layout.PaddingUndefined
	}
	if f.has("tile_stride") {
		if a.TileStride, err = f.positive("tile_stride", 0, false); err != nil {
			return layout.AxisTiling{}, err
		}
	}
	return a, f.done(axisFields...)
}
