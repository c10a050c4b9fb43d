package printer

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
)

// A block's predecessor comment counts edges, not blocks, as mlir-opt-19
// (getSinglePredecessor): [^bb1, ^bb1] gives ^bb1 `2 preds: ^bb0, ^bb0`.
// Both the small-region scan and the large-region table are checked.
func TestPredecessorCommentsCountEdges(t *testing.T) {
	for _, filler := range []int{0, smallRegion} {
		var src strings.Builder
		src.WriteString("\"t.r\"() ({\n  \"t.br\"()[^bb1, ^bb1] : () -> ()\n^bb1:\n  \"t.br\"()[^bb2, ^bb3, ^bb2] : () -> ()\n^bb2:\n  \"t.br\"()[^bb3] : () -> ()\n^bb3:\n  \"t.end\"() : () -> ()\n")
		for i := 0; i < filler; i++ {
			fmt.Fprintf(&src, "^f%d:\n  \"t.end\"() : () -> ()\n", i)
		}
		src.WriteString("}) : () -> ()\n")
		ctx := ir.NewContext()
		ctx.AllowUnregisteredDialects = true
		m, err := parser.ParseSourceString(ctx, []byte(src.String()), parser.Config{Filename: "t.mlir"})
		if err != nil {
			t.Fatal(err)
		}
		got := OpString(m, Options{Generic: true})
		for _, want := range []string{
			"^bb1:  // 2 preds: ^bb0, ^bb0\n",
			"^bb2:  // 2 preds: ^bb1, ^bb1\n",
			"^bb3:  // 2 preds: ^bb1, ^bb2\n",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("with %d more blocks, output lacks %q:\n%s", filler, want, got)
			}
		}
	}
}
