package exchangetotileasm

import (
	"github.com/ipuir/ipuir/conversion/tiledtoexchange"
	"github.com/ipuir/ipuir/passes"
)

// LowerToTileAsmPipeline is the name of the registered pipeline.
const LowerToTileAsmPipeline = "lower-to-tile-asm"

// Register registers the pass and the pipeline tensor → tiled → exchange →
// tile-asm.
func Register(r *passes.Registry) error {
	if err := r.Register(&ConvertExchangeToTileAsm{}); err != nil {
		return err
	}
	return r.RegisterPipeline(LowerToTileAsmPipeline,
		"Lower a tensor program to per-tile programs with placed storage: lower-to-exchange, then convert-exchange-to-tile-asm",
		tiledtoexchange.LowerToExchangePipeline+",convert-exchange-to-tile-asm")
}
