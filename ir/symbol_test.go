package ir

import "testing"

// Lookups reuse the tables they build, yet see every change to what a
// table indexes: a symbol added, renamed or erased, a block added, and
// changes inside an unregistered op, which lookups may treat as a table.
func TestSymbolLookupSeesChanges(t *testing.T) {
	ctx := NewContext()
	ctx.AllowUnregisteredDialects = true
	m := NewModule(ctx, nil)
	body := ModuleBody(m)
	sym := func(name string) *Operation {
		return NewOperation(ctx, &OperationState{Name: "t.sym", Attrs: []NamedAttr{{Name: SymbolAttrName, Value: ctx.String(name)}}})
	}
	lookup := func(name string) *Operation { return LookupSymbolIn(m, ctx.SymbolRef(name)) }

	a := sym("a")
	body.Append(a)
	if lookup("a") != a || lookup("b") != nil {
		t.Fatal("lookup in a fresh table")
	}
	b := sym("b")
	body.Append(b)
	if lookup("b") != b {
		t.Error("a symbol appended after a lookup is not found")
	}
	b.SetAttr(ctx, SymbolAttrName, ctx.String("c"))
	if lookup("b") != nil || lookup("c") != b {
		t.Error("a rename is not seen")
	}
	b.Erase()
	if lookup("c") != nil {
		t.Error("an erased symbol is still found")
	}

	// A nested reference through an unregistered op with a region.
	outer := NewOperation(ctx, &OperationState{Name: "t.table", NumRegions: 1,
		Attrs: []NamedAttr{{Name: SymbolAttrName, Value: ctx.String("outer")}}})
	body.Append(outer)
	inner := NewBlock(nil, nil)
	if lookup("outer") != outer || LookupSymbolIn(m, ctx.SymbolRef("outer", "x")) != nil {
		t.Fatal("nested lookup before the inner symbol exists")
	}
	outer.Region(0).AppendBlock(inner)
	x := sym("x")
	inner.Append(x)
	if LookupSymbolIn(m, ctx.SymbolRef("outer", "x")) != x {
		t.Error("a symbol added in a nested table is not found")
	}
}
