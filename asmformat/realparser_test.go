package asmformat_test

import (
	"bytes"
	"testing"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
	"github.com/ipuir/ipuir/printer"
)

// TestFormatRoundTripsThroughParser prints each case's module in the
// custom form, reads it back with the real parser (which hands custom
// forms to asmformat.Parse) and requires the same text again.
func TestFormatRoundTripsThroughParser(t *testing.T) {
	for _, c := range formatCases() {
		ctx := newFmtContext(t)
		op, _ := buildCase(ctx, c)
		var first bytes.Buffer
		if err := printer.Print(&first, op.ParentOp(), printer.Options{}); err != nil {
			t.Fatal(err)
		}
		again, err := parser.ParseSourceString(ctx, first.Bytes(), parser.Config{Filename: "fmt.mlir"})
		if err != nil {
			t.Errorf("%s: %v\n%s", c.name, err, first.String())
			continue
		}
		if d := ir.Verify(again); d != nil {
			t.Errorf("%s: %v", c.name, d)
			continue
		}
		var second bytes.Buffer
		if err := printer.Print(&second, again, printer.Options{}); err != nil {
			t.Fatal(err)
		}
		if first.String() != second.String() {
			t.Errorf("%s: printed\n%s\nthen\n%s", c.name, first.String(), second.String())
		}
	}
}
