package parser_test

import (
	"testing"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
)

// An empty file name in a written location reads as "-", as in
// mlir-opt-19: loc("":1:2) prints as loc("-":1:2) and is the same
// location; a name location "" keeps its empty name.
func TestEmptyFileNameReadsAsDash(t *testing.T) {
	ctx := ir.NewContext()
	ctx.AllowUnregisteredDialects = true
	m := parseOK(t, ctx, `"t.x"() : () -> () loc("":1:2)
"t.y"() : () -> () loc("-":1:2)
"t.z"() : () -> () loc("")
`, parser.Config{})
	o := ops(m)
	if got := locString(o[0].Loc()); got != `loc("-":1:2)` {
		t.Errorf(`loc("":1:2) reads as %s, want loc("-":1:2)`, got)
	}
	if o[0].Loc() != o[1].Loc() {
		t.Errorf(`loc("":1:2) and loc("-":1:2) are different locations`)
	}
	if got := locString(o[2].Loc()); got != `loc("")` {
		t.Errorf(`loc("") reads as %s, want loc("")`, got)
	}
}
