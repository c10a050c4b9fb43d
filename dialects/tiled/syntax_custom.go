package tiled

import (
	"github.com/ipuir/ipuir/asmformat"
	"github.com/ipuir/ipuir/ir"
)

// customTile is the `custom<Tile>($tile)` directive: a tile number written
// as a bare integer (`tile 45`), not `45 : i64`, as ODS writes attributes
// whose type is implied.
const customTile = "Tile"

// registerSyntax makes the dialect's custom directives available to its
// assembly formats; it may run any number of times.
func registerSyntax() {
	asmformat.RegisterCustom(Name, customTile, asmformat.Custom{Print: printTile, Parse: parseTile})
}

func printTile(p ir.OpAsmPrinter, _ *ir.Operation, args []*asmformat.Arg) {
	if !i64AttrKind.Pred(args[0].Attr) {
		// Not an i64 (the verifier says so): print it whole.
		p.PrintAttr(args[0].Attr)
		return
	}
	p.Asm().WriteInt(args[0].Attr.(*ir.IntegerAttr).Int)
}

func parseTile(p ir.OpAsmParser, _ *ir.OperationState, args []*asmformat.Arg) error {
	v, err := p.ParseInteger()
	if err != nil {
		return err
	}
	args[0].Attr = p.Context().IntegerAttr(p.Context().I(64), v)
	return nil
}
