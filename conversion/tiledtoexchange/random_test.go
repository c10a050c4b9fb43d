package tiledtoexchange_test

import (
	"testing"

	"github.com/ipuir/ipuir/internal/randprog"
	"github.com/ipuir/ipuir/registry"
)

// Random programs lower from tensor to exchange without a panic: either
// the pipeline refuses one with a diagnostic (a tensor too big for the
// small target, say) or what it produces verifies, with every unicast
// phase on its bound.
func TestRandomProgramsLower(t *testing.T) {
	randprog.LowerAll(t, registry.LowerToExchange, 11)
}
