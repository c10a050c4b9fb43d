package tests

import (
	"testing"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/numeric"
)

// The core keeps its own floor and ceiling division (it imports nothing of
// the project); its constant folding must agree with numeric's, which
// every other package uses.
func TestCoreDivisionAgreesWithNumeric(t *testing.T) {
	compared := 0
	for a := int64(-13); a <= 13; a++ {
		for b := int64(-5); b <= 5; b++ {
			if b == 0 {
				continue
			}
			for _, c := range []struct {
				name string
				core *ir.AffineExpr
				want int64
			}{
				{"floordiv", ir.FloorDiv(ir.Const(a), ir.Const(b)), numeric.FloorDiv(a, b)},
				{"ceildiv", ir.CeilDiv(ir.Const(a), ir.Const(b)), numeric.CeilDiv(a, b)},
			} {
				if c.core.Kind != ir.AffineConst || c.core.Val != c.want {
					t.Errorf("%d %s %d: the core folds to %+v, numeric says %d", a, c.name, b, c.core, c.want)
				}
				compared++
			}
		}
	}
	if compared != 2*27*10 {
		t.Fatalf("compared %d", compared)
	}
}
