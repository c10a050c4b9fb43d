package tiled

import (
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/layout"
)

// Custom directives of the dialect's assembly formats:
//
//   - custom<Tile>($tile): a tile number as a bare integer (`tile 45`), not
//     `45 : i64`, as ODS writes attributes whose type is implied;
//   - custom<Extents>($extents): a view's extents as a list of
//     [start, logical_end, physical_end] triples. Written as a
//     #tiled.extents attribute right before the `:` of the type, the `: type`
//     would be read as the attribute's own type.
//   - custom<Name>($fn): a function's name as a bare word (`max`);
//   - custom<IndexList>($axes): an i64 array as `[0, 2]` (ir.IndexListDirective).
const (
	customTile      = "Tile"
	customExtents   = "Extents"
	customName      = "Name"
	customIndexList = "IndexList"
)

// NameDirective is custom<Name>: a name attribute written as a bare word
// (`max`), for other dialects' formats too.
var NameDirective = &ir.CustomDirective{Print: printName, Parse: parseName}

func printName(p ir.OpAsmPrinter, _ *ir.Operation, args []*ir.DirectiveArg) {
	s, ok := args[0].Attr.(*ir.StringAttr)
	if !ok || !isBareWord(s.Val) {
		p.PrintAttr(args[0].Attr)
		return
	}
	p.WriteString(s.Val)
}

func parseName(p ir.OpAsmParser, _ *ir.OperationState, args []*ir.DirectiveArg) error {
	w, err := p.ParseKeywordAny()
	if err != nil {
		return err
	}
	args[0].Attr = p.Context().String(w)
	return nil
}

func isBareWord(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func printExtents(p ir.OpAsmPrinter, _ *ir.Operation, args []*ir.DirectiveArg) {
	ext, ok := args[0].Attr.(*ExtentsAttr)
	if !ok {
		p.PrintAttr(args[0].Attr)
		return
	}
	p.WriteString("[")
	for i, e := range ext.Extents {
		if i > 0 {
			p.WriteString(", ")
		}
		p.WriteString("[")
		p.Asm().WriteInt(e.Start)
		p.WriteString(", ")
		p.Asm().WriteInt(e.LogicalEnd)
		p.WriteString(", ")
		p.Asm().WriteInt(e.PhysicalEnd)
		p.WriteString("]")
	}
	p.WriteString("]")
}

func parseExtents(p ir.OpAsmParser, _ *ir.OperationState, args []*ir.DirectiveArg) error {
	if err := p.ParsePunct("["); err != nil {
		return err
	}
	var ext []layout.Extent
	for !p.ParseOptionalPunct("]") {
		if len(ext) > 0 {
			if err := p.ParsePunct(","); err != nil {
				return err
			}
		}
		if err := p.ParsePunct("["); err != nil {
			return err
		}
		var n [3]int64
		for i := range n {
			if i > 0 {
				if err := p.ParsePunct(","); err != nil {
					return err
				}
			}
			v, err := p.ParseInteger()
			if err != nil {
				return err
			}
			n[i] = v
		}
		if err := p.ParsePunct("]"); err != nil {
			return err
		}
		e := layout.Extent{Start: n[0], LogicalEnd: n[1], PhysicalEnd: n[2]}
		if !e.WellFormed() {
			return p.Errorf("extent of axis %d must satisfy 0 ≤ start ≤ logical_end ≤ physical_end, got [%d, %d, %d]", len(ext), n[0], n[1], n[2])
		}
		ext = append(ext, e)
	}
	args[0].Attr = NewExtentsAttr(p.Context(), ext)
	return nil
}
