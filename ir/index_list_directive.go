package ir

// IndexListDirective is a custom directive for an i64 dense array written
// as `[1, 0, 2]`, as MLIR's ODS writes attributes whose type is implied
// (not `array<i64: 1, 0, 2>`). Dialects list it in their Directives under
// the name their formats use; axes, permutations and dimensions of several
// dialects share it.
var IndexListDirective = &CustomDirective{Print: printIndexList, Parse: parseIndexList}

func printIndexList(p OpAsmPrinter, _ *Operation, args []*DirectiveArg) {
	a, ok := args[0].Attr.(*DenseArrayAttr)
	if !ok {
		// Not an i64 array (the verifier will say so): print it in full so
		// that the text still says what the IR holds.
		p.PrintAttr(args[0].Attr)
		return
	}
	p.WriteString("[")
	for i, v := range a.Ints {
		if i > 0 {
			p.WriteString(", ")
		}
		p.Asm().WriteInt(v)
	}
	p.WriteString("]")
}

func parseIndexList(p OpAsmParser, _ *OperationState, args []*DirectiveArg) error {
	if err := p.ParsePunct("["); err != nil {
		return err
	}
	var vals []int64
	if !p.ParseOptionalPunct("]") {
		for {
			v, err := p.ParseInteger()
			if err != nil {
				return err
			}
			vals = append(vals, v)
			if p.ParseOptionalPunct("]") {
				break
			}
			if err := p.ParsePunct(","); err != nil {
				return err
			}
		}
	}
	args[0].Attr = p.Context().DenseI64Array(vals...)
	return nil
}

// IntDirective is a custom directive for an i64 integer attribute written
// bare (`tile 45`, `phase 3`), as ODS writes attributes whose type is
// implied (not `45 : i64`).
var IntDirective = &CustomDirective{Print: printInt, Parse: parseInt}

func printInt(p OpAsmPrinter, _ *Operation, args []*DirectiveArg) {
	ia, ok := args[0].Attr.(*IntegerAttr)
	if it, isInt := typeOfInt(ia, ok); !isInt || it.Width != 64 || it.Signedness != Signless {
		// Not an i64 (the verifier says so): print it whole.
		p.PrintAttr(args[0].Attr)
		return
	}
	p.Asm().WriteInt(ia.Int)
}

func typeOfInt(ia *IntegerAttr, ok bool) (*IntegerType, bool) {
	if !ok {
		return nil, false
	}
	it, ok := ia.Typ.(*IntegerType)
	return it, ok
}

func parseInt(p OpAsmParser, _ *OperationState, args []*DirectiveArg) error {
	v, err := p.ParseInteger()
	if err != nil {
		return err
	}
	args[0].Attr = p.Context().IntegerAttr(p.Context().I(64), v)
	return nil
}
