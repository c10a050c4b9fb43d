// Package tiledtoexchange lowers the tiled program to BSP supersteps: every
// movement of data between tiles becomes an exchange.sync and an
// exchange.phase with its transfers and schedule; compute stays in the
// tiled dialect's local ops. The pipeline lower-to-exchange runs tensor →
// tiled → exchange.
package tiledtoexchange

import (
	"github.com/ipuir/ipuir/conversion/tensortotiled"
	"github.com/ipuir/ipuir/passes"
)

// LowerToExchangePipeline is the name of the registered pipeline.
const LowerToExchangePipeline = "lower-to-exchange"

// Register registers the pass and the pipeline tensor → tiled → exchange.
func Register(r *passes.Registry) error {
	if err := r.Register(&ConvertTiledToExchange{}); err != nil {
		return err
	}
	return r.RegisterPipeline(LowerToExchangePipeline,
		"Lower a tensor program to exchange phases: lower-tensor-to-tiled, then convert-tiled-to-exchange",
		tensortotiled.LowerTensorToTiledPipeline+",convert-tiled-to-exchange")
}
