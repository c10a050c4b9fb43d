package irelem

import (
	"testing"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
)

// Every element type maps to the IR type of its name and back.
func TestMappingAgreesWithNames(t *testing.T) {
	ctx := ir.NewContext()
	for _, e := range elem.All() {
		ty := Type(ctx, e)
		if got := ir.TypeString(ty); got != e.String() {
			t.Errorf("%v maps to %s", e, got)
		}
		parsed, err := parser.ParseType(ctx, e.String())
		if err != nil || parsed != ty {
			t.Errorf("%v: the IR type %q is %v (%v)", e, e.String(), parsed, err)
		}
		back, ok := Of(ctx.Tensor([]int64{2}, ty))
		if !ok || back != e {
			t.Errorf("%v: back from the IR gives %v, %v", e, back, ok)
		}
	}
	for _, text := range []string{"f8E5M2", "i7", "si32", "index", "tf32", "f80"} {
		ty, err := parser.ParseType(ctx, text)
		if err != nil {
			t.Fatal(err)
		}
		if e, ok := Of(ty); ok && text != "si32" {
			t.Errorf("%s maps to %v", text, e)
		}
	}
}
