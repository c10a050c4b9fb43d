package funcd

import (
	"fmt"

	"github.com/ipuir/ipuir/ir"
)

// arrayOfDicts is MLIR's DictArrayAttr constraint on arg_attrs and res_attrs.
var arrayOfDicts = ir.AttrKind{Desc: "Array of dictionary attributes", Pred: func(a ir.Attribute) bool {
	arr, ok := a.(*ir.ArrayAttr)
	if !ok {
		return false
	}
	for _, e := range arr.Elems {
		if _, ok := e.(*ir.DictAttr); !ok {
			return false
		}
	}
	return true
}}

// FuncOp is func.func.
var FuncOp = &ir.OpDef{
	Name:    FuncOpName,
	Summary: "A function: a symbol with a function type and a body region, empty for a declaration.",
	Description: "The body's entry block arguments are the function's arguments. A function " +
		"without a body is an external declaration and must not be public. Argument and result " +
		"attributes must carry a dialect prefix.",
	Example: "func.func @scale(%arg0: tensor<4xf32> {ipu.layout = \"row\"}, %arg1: f32) -> tensor<4xf32> {\n" +
		"  return %arg0 : tensor<4xf32>\n}\nfunc.func private @decl(i32) -> i32",
	Attributes: []ir.AttrDef{
		{Name: ir.SymbolAttrName, Kind: ir.StringAttrKind},
		{Name: FunctionTypeAttr, Kind: ir.FunctionTypeAttrKind},
		{Name: ir.VisibilityAttrName, Kind: ir.StringAttrKind, Optional: true},
		{Name: ArgAttrsAttr, Kind: arrayOfDicts, Optional: true},
		{Name: ResAttrsAttr, Kind: arrayOfDicts, Optional: true},
	},
	Regions:        []ir.RegionDef{{Name: "body"}},
	Successors:     0,
	Traits:         ir.TraitIsolatedFromAbove | ir.TraitSymbol | ir.TraitAffineScope,
	DefaultDialect: Name,
	Verify:         verifyFunc,
	Interfaces:     []any{functionInterface{}},
	Parse:          parseFunc,
	Print:          printFunc,
}

// verifyFunc checks what MLIR's FunctionOpInterface and Symbol traits
// check, with their messages.
func verifyFunc(op *ir.Operation) error {
	ft := functionType(op)
	if vis, ok := op.Attr(ir.VisibilityAttrName).(*ir.StringAttr); ok {
		switch vis.Val {
		case "public", "private", "nested":
		default:
			return fmt.Errorf(`visibility expected to be one of ["public", "private", "nested"], but got "%s"`, vis.Val)
		}
	}
	body := op.Region(0)
	if body.Empty() && !ir.IsPrivateSymbol(op) && !isNested(op) {
		return fmt.Errorf("symbol declaration cannot have public visibility")
	}
	if err := verifyAttrArray(op, ArgAttrsAttr, "argument", "arguments", len(ft.Inputs)); err != nil {
		return err
	}
	if err := verifyAttrArray(op, ResAttrsAttr, "result", "results", len(ft.Results)); err != nil {
		return err
	}
	if body.Empty() {
		return nil
	}
	entry := body.Front()
	if entry.NumArguments() != len(ft.Inputs) {
		return fmt.Errorf("entry block must have %d arguments to match function signature", len(ft.Inputs))
	}
	for i, a := range entry.Arguments() {
		if a.Type() != ft.Inputs[i] {
			return fmt.Errorf("type of entry block argument #%d('%s') must match the type of the corresponding argument in function signature('%s')",
				i, ir.TypeString(a.Type()), ir.TypeString(ft.Inputs[i]))
		}
	}
	return nil
}

func isNested(op *ir.Operation) bool {
	vis, ok := op.Attr(ir.VisibilityAttrName).(*ir.StringAttr)
	return ok && vis.Val == "nested"
}

// verifyAttrArray checks arg_attrs or res_attrs: one dictionary per
// argument or result, holding only dialect attributes.
func verifyAttrArray(op *ir.Operation, name, what, plural string, want int) error {
	arr, ok := op.Attr(name).(*ir.ArrayAttr)
	if !ok {
		return nil
	}
	if len(arr.Elems) != want {
		return fmt.Errorf("expects %s attribute array to have the same number of elements as the number of function %s, got %d, but expected %d",
			what, plural, len(arr.Elems), want)
	}
	for _, e := range arr.Elems {
		for _, a := range e.(*ir.DictAttr).Entries {
			if !ir.IsValidDialectAttrName(a.Name) {
				return fmt.Errorf("%s may only have dialect attributes", plural)
			}
		}
	}
	return nil
}

// printFunc prints `func.func [visibility] @name(args) -> results
// attributes {...} { body }` as MLIR's function_interface_impl does.
func printFunc(p ir.OpAsmPrinter, op *ir.Operation) {
	ft := functionType(op)
	name, _ := ir.SymbolName(op)
	p.WriteString(" ")
	if vis, ok := op.Attr(ir.VisibilityAttrName).(*ir.StringAttr); ok {
		p.WriteString(vis.Val)
		p.WriteString(" ")
	}
	p.PrintSymbolName(name)
	body := op.Region(0)
	argAttrs := attrDicts(op, ArgAttrsAttr)
	p.WriteString("(")
	for i, t := range ft.Inputs {
		if i > 0 {
			p.WriteString(", ")
		}
		if !body.Empty() {
			p.PrintRegionArgument(body.Front().Argument(i), dictAt(argAttrs, i), false)
			continue
		}
		p.PrintType(t)
		if d := dictAt(argAttrs, i); d != nil {
			p.PrintOptionalAttrDict(d.Entries)
		}
	}
	p.WriteString(")")
	if len(ft.Results) > 0 {
		p.WriteString(" -> ")
		printResults(p, ft.Results, attrDicts(op, ResAttrsAttr))
	}
	p.PrintOptionalAttrDictWithKeyword(op.AllAttrs(),
		ir.SymbolAttrName, ir.VisibilityAttrName, FunctionTypeAttr, ArgAttrsAttr, ResAttrsAttr)
	if !body.Empty() {
		p.WriteString(" ")
		p.PrintRegion(body, false, true)
	}
}

// printResults prints a result list, parenthesised when there are several
// results, a function-typed one, or attributes on the first.
func printResults(p ir.OpAsmPrinter, types []ir.Type, attrs []*ir.DictAttr) {
	_, fnType := types[0].(*ir.FunctionType)
	parens := len(types) > 1 || fnType || dictAt(attrs, 0).Len() > 0
	if parens {
		p.WriteString("(")
	}
	for i, t := range types {
		if i > 0 {
			p.WriteString(", ")
		}
		p.PrintType(t)
		if d := dictAt(attrs, i); d != nil {
			p.PrintOptionalAttrDict(d.Entries)
		}
	}
	if parens {
		p.WriteString(")")
	}
}

func attrDicts(op *ir.Operation, name string) []*ir.DictAttr {
	arr, ok := op.Attr(name).(*ir.ArrayAttr)
	if !ok {
		return nil
	}
	out := make([]*ir.DictAttr, len(arr.Elems))
	for i, e := range arr.Elems {
		out[i], _ = e.(*ir.DictAttr)
	}
	return out
}

func dictAt(ds []*ir.DictAttr, i int) *ir.DictAttr {
	if i < len(ds) {
		return ds[i]
	}
	return nil
}

// parseFunc parses the custom form printFunc prints.
func parseFunc(p ir.OpAsmParser, st *ir.OperationState) error {
	ctx := p.Context()
	for _, vis := range []string{"private", "public", "nested"} {
		if p.ParseOptionalKeyword(vis) {
			st.AddAttr(ir.VisibilityAttrName, ctx.String(vis))
			break
		}
	}
	name, err := p.ParseSymbolName()
	if err != nil {
		return err
	}
	st.AddAttr(ir.SymbolAttrName, ctx.String(name))

	args, inputs, argAttrs, err := parseArguments(p)
	if err != nil {
		return err
	}
	var results []ir.Type
	var resAttrs []ir.Attribute
	if p.ParseOptionalPunct("->") {
		if results, resAttrs, err = parseResults(p); err != nil {
			return err
		}
	}
	st.AddAttr(FunctionTypeAttr, ctx.TypeAttr(ctx.Function(inputs, results)))
	if anyNonEmpty(argAttrs) {
		st.AddAttr(ArgAttrsAttr, ctx.Array(argAttrs...))
	}
	if anyNonEmpty(resAttrs) {
		st.AddAttr(ResAttrsAttr, ctx.Array(resAttrs...))
	}
	if err := p.ParseOptionalAttrDictWithKeyword(st); err != nil {
		return err
	}
	// A body after unnamed arguments parses without them, and the
	// verifier then reports the missing entry block arguments, as in MLIR.
	body := &ir.Region{}
	if _, err := p.ParseOptionalRegion(body, args); err != nil {
		return err
	}
	st.Regions = append(st.Regions, body)
	return nil
}

// parseArguments parses `(%a: t {attrs} loc(..), ...)` or, for a
// declaration, `(t {attrs}, ...)`; args is empty in the second form.
func parseArguments(p ir.OpAsmParser) (args []ir.Argument, inputs []ir.Type, attrs []ir.Attribute, err error) {
	named := false
	ctx := p.Context()
	if err = p.ParsePunct("("); err != nil {
		return
	}
	if p.ParseOptionalPunct(")") {
		return
	}
	for i := 0; ; i++ {
		arg, isArg, aerr := p.ParseOptionalArgument(true, true)
		if aerr != nil {
			return nil, nil, nil, aerr
		}
		switch {
		case i == 0:
			named = isArg
		case isArg != named:
			if named {
				return nil, nil, nil, p.Errorf("expected SSA identifier")
			}
			return nil, nil, nil, p.Errorf("expected type instead of SSA identifier")
		}
		if isArg {
			args = append(args, arg)
			inputs = append(inputs, arg.Type)
			if arg.Attrs != nil {
				attrs = append(attrs, arg.Attrs)
			} else {
				attrs = append(attrs, ctx.EmptyDict())
			}
		} else {
			t, terr := p.ParseType()
			if terr != nil {
				return nil, nil, nil, terr
			}
			d, derr := parseAttrDict(p)
			if derr != nil {
				return nil, nil, nil, derr
			}
			inputs = append(inputs, t)
			attrs = append(attrs, d)
		}
		if p.ParseOptionalPunct(")") {
			return
		}
		if err = p.ParsePunct(","); err != nil {
			return
		}
	}
}

// parseResults parses `type` or `(type {attrs}, ...)`.
func parseResults(p ir.OpAsmParser) ([]ir.Type, []ir.Attribute, error) {
	if !p.ParseOptionalPunct("(") {
		t, err := p.ParseType()
		if err != nil {
			return nil, nil, err
		}
		return []ir.Type{t}, []ir.Attribute{p.Context().EmptyDict()}, nil
	}
	var types []ir.Type
	var attrs []ir.Attribute
	if p.ParseOptionalPunct(")") {
		return nil, nil, nil
	}
	for {
		t, err := p.ParseType()
		if err != nil {
			return nil, nil, err
		}
		d, err := parseAttrDict(p)
		if err != nil {
			return nil, nil, err
		}
		types, attrs = append(types, t), append(attrs, d)
		if p.ParseOptionalPunct(")") {
			return types, attrs, nil
		}
		if err := p.ParsePunct(","); err != nil {
			return nil, nil, err
		}
	}
}

// parseAttrDict parses an optional `{...}` into a dictionary.
func parseAttrDict(p ir.OpAsmParser) (*ir.DictAttr, error) {
	var tmp ir.OperationState
	if err := p.ParseOptionalAttrDict(&tmp); err != nil {
		return nil, err
	}
	return p.Context().Dict(tmp.Attrs), nil
}

func anyNonEmpty(dicts []ir.Attribute) bool {
	for _, d := range dicts {
		if d.(*ir.DictAttr).Len() > 0 {
			return true
		}
	}
	return false
}
