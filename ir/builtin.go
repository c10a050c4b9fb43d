package ir

// ModuleOpName and friends name the builtin ops.
const (
	ModuleOpName   = "builtin.module"
	UnrealizedCast = "builtin.unrealized_conversion_cast"
)

// The builtin ops, by definition: recognise them with op.Is(ir.Module).
var (
	// Module is builtin.module.
	Module = &OpDef{
		Name:    ModuleOpName,
		Summary: "A top-level container of ops; a symbol table.",
		Description: "A module holds one graph region with one block and no terminator. " +
			"Its discardable attributes must carry a dialect prefix.",
		Example: "module @m attributes {ipu.target = \"ipu21\"} {\n  func.func @f() { return }\n}",
		Attributes: []AttrDef{
			{Name: SymbolAttrName, Kind: StringAttrKind, Optional: true},
			{Name: VisibilityAttrName, Kind: StringAttrKind, Optional: true},
		},
		Regions: []RegionDef{{Name: "bodyRegion", SingleBlock: true, Blocks: 1}},
		Traits: TraitIsolatedFromAbove | TraitSymbolTable | TraitNoTerminator | TraitGraphRegion |
			TraitSingleBlock | TraitAffineScope,
		DefaultDialect: "builtin",
		Verify:         verifyModule,
		Parse:          parseModule,
		Print:          printModule,
	}
	// UnrealizedConversionCast is builtin.unrealized_conversion_cast.
	UnrealizedConversionCast = &OpDef{
		Name:     UnrealizedCast,
		Summary:  "A cast between types that a partial conversion leaves behind.",
		Example:  "%1 = builtin.unrealized_conversion_cast %0 : i32 to f32",
		Operands: []ValueDef{{Name: "inputs", Type: AnyType, Kind: Variadic}},
		Results:  []ValueDef{{Name: "outputs", Type: AnyType, Kind: Variadic}},
		Traits:   TraitPure,
		Parse:    parseUnrealizedCast,
		Print:    printUnrealizedCast,
	}
)

// Builtin is the builtin dialect, registered in every context.
var Builtin = &Dialect{
	Name:    "builtin",
	Summary: "The core types, attributes and ops every program uses: module and unrealized_conversion_cast.",
	Ops:     []*OpDef{Module, UnrealizedConversionCast},
}

func verifyModule(op *Operation) error {
	for _, a := range op.attrs.entriesOrNil() {
		if !IsValidDialectAttrName(a.Name) {
			return op.EmitOpError("can only contain attributes with dialect-prefixed names, found: '%s'", a.Name)
		}
	}
	return nil
}

func parseModule(p OpAsmParser, st *OperationState) error {
	if name, ok, err := p.ParseOptionalSymbolName(); err != nil {
		return err
	} else if ok {
		st.AddAttr(SymbolAttrName, p.Context().String(name))
	}
	if err := p.ParseOptionalAttrDictWithKeyword(st); err != nil {
		return err
	}
	r := &Region{}
	if err := p.ParseRegion(r, nil); err != nil {
		return err
	}
	if r.Empty() {
		r.AppendBlock(&Block{})
	}
	st.Regions = append(st.Regions, r)
	return nil
}

func printModule(p OpAsmPrinter, op *Operation) {
	if name, ok := SymbolName(op); ok {
		p.WriteString(" ")
		p.PrintSymbolName(name)
	}
	p.PrintOptionalAttrDictWithKeyword(op.AllAttrs(), SymbolAttrName)
	p.WriteString(" ")
	p.PrintRegion(op.Region(0), false, false)
}

func parseUnrealizedCast(p OpAsmParser, st *OperationState) error {
	ops, err := p.ParseOperandList()
	if err != nil {
		return err
	}
	var types []Type
	if len(ops) > 0 {
		if types, err = p.ParseColonTypeList(); err != nil {
			return err
		}
	}
	if err := p.ResolveOperands(ops, types, st); err != nil {
		return err
	}
	if err := p.ParseKeyword("to"); err != nil {
		return err
	}
	if st.ResultTypes, err = p.ParseTypeList(); err != nil {
		return err
	}
	return p.ParseOptionalAttrDict(st)
}

func printUnrealizedCast(p OpAsmPrinter, op *Operation) {
	if op.NumOperands() > 0 {
		p.WriteString(" ")
		p.PrintOperands(op.Operands())
		p.WriteString(" : ")
		p.Asm().PrintTypes(op.OperandTypes())
	}
	p.WriteString(" to ")
	p.Asm().PrintTypes(op.ResultTypes())
	p.PrintOptionalAttrDict(op.AllAttrs())
}

// NewModule creates an empty module with one block, at loc.
func NewModule(ctx *Context, loc Location) *Operation {
	op := NewOperation(ctx, &OperationState{Name: ModuleOpName, Loc: loc, NumRegions: 1})
	op.Region(0).AppendBlock(&Block{})
	return op
}

// ModuleBody is the single block of a module.
func ModuleBody(module *Operation) *Block { return module.Region(0).Front() }
