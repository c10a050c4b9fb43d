package ir

import "testing"

// Setting an argument's attribute keeps the others' and its own other
// attributes, and reads back; arguments without attributes read nil.
func TestArgumentAttrs(t *testing.T) {
	ctx := NewContext()
	ctx.AllowUnregisteredDialects = true
	fn := NewOperation(ctx, &OperationState{Name: "t.fn"})
	if ArgumentAttr(fn, 0, "t.a") != nil {
		t.Fatal("attribute on a function without arg_attrs")
	}
	SetArgumentAttr(ctx, fn, 1, 3, "t.a", ctx.Unit())
	SetArgumentAttr(ctx, fn, 1, 3, "t.b", ctx.String("x"))
	SetArgumentAttr(ctx, fn, 2, 3, "t.a", ctx.Unit())
	SetArgumentAttr(ctx, fn, 1, 3, "t.a", ctx.String("again"))
	if got := AttrString(fn.Attr(ArgAttrsName)); got != `[{}, {t.a = "again", t.b = "x"}, {t.a}]` {
		t.Errorf("arg_attrs = %s", got)
	}
	if ArgumentAttr(fn, 0, "t.a") != nil || ArgumentAttr(fn, 2, "t.a") == nil || ArgumentAttr(fn, 5, "t.a") != nil || ArgumentAttr(fn, -1, "t.a") != nil {
		t.Error("ArgumentAttr reads the wrong argument")
	}
	SetArgumentAttr(ctx, fn, 2, 3, "t.a", nil)
	if ArgumentAttr(fn, 2, "t.a") != nil || ArgumentAttr(fn, 1, "t.a") == nil {
		t.Errorf("removing: arg_attrs = %s", AttrString(fn.Attr(ArgAttrsName)))
	}
}
