package asmformat_test

import (
	"testing"

	"github.com/ipuir/ipuir/asmformat"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
)

// FuzzCheck compiles arbitrary format strings: Check may reject them but
// never panics, and what it accepts prints without panicking.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		"$lhs `,` $rhs attr-dict `:` type($res)",
		"attr-dict ($operands^ `:` type($operands))?",
		"($x^ `:` type($x)) : (`none`)? `->` qualified(type($r)) attr-dict",
		"custom<Pair>($a, type($a)) attr-dict",
		"operands `` `[` regions `]` attr-dict `:` type(operands) `->` type(results)",
		"(`fast` $fast^)? attr-dict", "", "(", "$", "`", "type(", "custom<>()", "ref(ref($a))",
	} {
		f.Add(s)
	}
	ctx := ir.NewContext()
	ctx.AllowUnregisteredDialects = true
	f.Fuzz(func(t *testing.T, format string) {
		def := &ir.OpDef{Name: "fuzz.op", AssemblyFormat: format,
			Operands: []ir.ValueDef{{Name: "a", Type: ir.AnyType}, {Name: "x", Type: ir.AnyType, Kind: ir.Optional},
				{Name: "operands", Type: ir.AnyType, Kind: ir.Variadic}},
			Results:    []ir.ValueDef{{Name: "r", Type: ir.AnyType}},
			Attributes: []ir.AttrDef{{Name: "fast", Kind: ir.UnitAttrKind, Optional: true}},
			Regions:    []ir.RegionDef{{Name: "body"}},
		}
		if asmformat.Check(def) != nil {
			return
		}
		d := &ir.Dialect{Name: "fuzz", Ops: []*ir.OpDef{def}}
		c := ir.NewContext()
		c.MustRegisterDialect(d)
		st := &ir.OperationState{Name: "fuzz.op", ResultTypes: []ir.Type{c.I(32)}, NumRegions: 1}
		op := ir.NewOperation(c, st)
		var p recordingPrinter
		p.ctx = c
		asmformat.Print(def, &p, op)
	})
}

// FuzzParseCustomForms reads arbitrary text as the custom forms of the fmt
// dialect through the real parser: errors are fine, panics are not.
func FuzzParseCustomForms(f *testing.F) {
	for _, c := range formatCases() {
		f.Add(c.want)
	}
	f.Add("fmt.opt %0 : i32 -> f32 fmt.all %0, [{}] : -> ")
	f.Fuzz(func(t *testing.T, text string) {
		ctx := newFmtContext(t)
		src := "%0 = \"test.src\"() : () -> i32\n%1 = \"test.src\"() : () -> i32\n%2 = \"test.src\"() : () -> i32\n" + text
		if m, err := parser.ParseSourceString(ctx, []byte(src), parser.Config{Filename: "fuzz.mlir"}); err == nil {
			ir.Verify(m)
		}
	})
}
