package exchangetotileasm_test

import (
	"testing"

	"github.com/ipuir/ipuir/internal/randprog"
	"github.com/ipuir/ipuir/registry"
)

// Random programs lower from tensor to tile-asm without a panic, and what
// lowers verifies: every buffer placed inside its class, aligned, never
// overlapping another live one, live where it is used, with the support
// memory first; or the pipeline refuses the program with a diagnostic.
func TestRandomProgramsLowerToTileAsm(t *testing.T) {
	randprog.LowerAll(t, registry.LowerToTileAsm, 11)
}
