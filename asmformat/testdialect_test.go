package asmformat_test

import (
	"fmt"

	"github.com/ipuir/ipuir/asmformat"
	"github.com/ipuir/ipuir/ir"
)

// The fmt test dialect has an op for each directive of the format language.
func fmtDialect() *ir.Dialect {
	any := ir.AnyType
	single := func(name string) ir.ValueDef { return ir.ValueDef{Name: name, Type: any} }
	variadic := func(name string) ir.ValueDef { return ir.ValueDef{Name: name, Type: any, Kind: ir.Variadic} }
	optional := func(name string) ir.ValueDef { return ir.ValueDef{Name: name, Type: any, Kind: ir.Optional} }
	return &ir.Dialect{Name: "fmt", Directives: map[string]*asmformat.Custom{"Pair": {Print: printPair, Parse: parsePair}}, Ops: []*ir.OpDef{
		{Name: "fmt.binary", Operands: []ir.ValueDef{single("lhs"), single("rhs")}, Results: []ir.ValueDef{single("res")},
			Traits: ir.TraitSameOperandsAndResultType, AssemblyFormat: "$lhs `,` $rhs attr-dict `:` type($res)"},
		{Name: "fmt.call", Operands: []ir.ValueDef{variadic("args")}, Results: []ir.ValueDef{variadic("res")},
			Attributes:     []ir.AttrDef{{Name: "callee", Kind: ir.FlatSymbolRefKind}},
			AssemblyFormat: "$callee `(` $args `)` attr-dict `:` functional-type($args, results)"},
		{Name: "fmt.ret", Operands: []ir.ValueDef{variadic("operands")},
			AssemblyFormat: "attr-dict ($operands^ `:` type($operands))?"},
		{Name: "fmt.flag", Attributes: []ir.AttrDef{{Name: "fast", Kind: ir.UnitAttrKind, Optional: true}},
			AssemblyFormat: "(`fast` $fast^)? attr-dict"},
		{Name: "fmt.region", Regions: []ir.RegionDef{{Name: "body"}}, Traits: ir.TraitNoTerminator,
			AssemblyFormat: "attr-dict-with-keyword $body"},
		{Name: "fmt.br", Operands: []ir.ValueDef{variadic("args")}, Successors: -1,
			AssemblyFormat: "successors (`(` $args^ `:` type($args) `)`)? attr-dict"},
		{Name: "fmt.opt", Operands: []ir.ValueDef{optional("x")}, Results: []ir.ValueDef{single("r")},
			AssemblyFormat: "($x^ `:` type($x)) : (`none`)? `->` qualified(type($r)) attr-dict"},
		{Name: "fmt.custom", Operands: []ir.ValueDef{single("a")},
			AssemblyFormat: "custom<Pair>($a, type($a)) attr-dict"},
		{Name: "fmt.infer", Operands: []ir.ValueDef{single("a")}, Results: []ir.ValueDef{single("r")},
			InferResultTypes: func(ctx *ir.Context, ops []*ir.Value, _ []ir.NamedAttr) ([]ir.Type, error) {
				return []ir.Type{ctx.Tensor([]int64{2}, ops[0].Type())}, nil
			},
			AssemblyFormat: "$a attr-dict `:` type($a)"},
		{Name: "fmt.all", Operands: []ir.ValueDef{single("a"), variadic("b")}, Results: []ir.ValueDef{variadic("r")},
			Regions: []ir.RegionDef{{Name: "x"}, {Name: "y"}}, Traits: ir.TraitNoTerminator,
			AssemblyFormat: "operands `` `[` regions `]` attr-dict `:` type(operands) `->` type(results)"},
		{Name: "fmt.segments", Operands: []ir.ValueDef{variadic("a"), variadic("b")},
			AssemblyFormat: "$a `and` $b attr-dict `:` type($a) `and` type($b)"},
		{Name: "fmt.symbol", Attributes: []ir.AttrDef{{Name: ir.SymbolAttrName, Kind: ir.StringAttrKind},
			{Name: "value", Kind: ir.AnyAttr}},
			AssemblyFormat: "$sym_name `=` $value attr-dict"},
	}}
}

// custom<Pair>($a, type($a)) prints `<%a as type>`.
func printPair(p ir.OpAsmPrinter, _ *ir.Operation, args []*asmformat.Arg) {
	p.WriteString("<")
	p.PrintOperands(args[0].Values)
	p.WriteString(" as ")
	p.PrintType(args[1].Types[0])
	p.WriteString(">")
}

func parsePair(p ir.OpAsmParser, _ *ir.OperationState, args []*asmformat.Arg) error {
	if err := p.ParsePunct("<"); err != nil {
		return err
	}
	op, err := p.ParseOperand()
	if err != nil {
		return err
	}
	if err := p.ParseKeyword("as"); err != nil {
		return err
	}
	t, err := p.ParseType()
	if err != nil {
		return err
	}
	args[0].Operands = []ir.UnresolvedOperand{op}
	args[1].Types = []ir.Type{t}
	return p.ParsePunct(">")
}

var _ = fmt.Sprint
