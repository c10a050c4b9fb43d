package printer

import (
	"testing"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
)

// Distinct attributes print as mlir-opt-19 prints them: an alias
// `#distinct`, `#distinct1`, ... each (nested ones first, by depth), ids
// renumbered from 0 in print order, so the alias definitions take the first
// ids, and `distinct[N]<>` (unit) inline, without an alias. The expected
// text is mlir-opt-19's output for the same input.
func TestPrintDistinctAsMLIR(t *testing.T) {
	src := `"t.x"() {a = distinct[5]<[1]>, b = distinct[3]<[1]>, c = distinct[5]<[1]>, d = distinct[7]<unit>, e = [distinct[9]<"s">], f = distinct[2]<distinct[1]<1 : i32>>} : () -> ()
"t.y"() {a = distinct[3]<[1]>} : () -> ()
`
	want := `#distinct = distinct[0]<[1]>
#distinct1 = distinct[1]<[1]>
#distinct2 = distinct[2]<"s">
#distinct3 = distinct[3]<1 : i32>
#distinct4 = distinct[4]<#distinct3>
module {
  "t.x"() {a = #distinct, b = #distinct1, c = #distinct, d = distinct[5]<>, e = [#distinct2], f = #distinct4} : () -> ()
  "t.y"() {a = #distinct1} : () -> ()
}

`
	ctx := ir.NewContext()
	ctx.AllowUnregisteredDialects = true
	m, err := parser.ParseSourceString(ctx, []byte(src), parser.Config{Filename: "t.mlir"})
	if err != nil {
		t.Fatal(err)
	}
	got := printString(t, m, Options{})
	if got != want {
		t.Errorf("got:\n%q\nwant:\n%q", got, want)
	}
	// Printing again numbers afresh: the ids belong to the printing.
	if again := printString(t, m, Options{}); again != want {
		t.Errorf("second print differs:\n%s", again)
	}
}
