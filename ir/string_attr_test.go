package ir

import "testing"

// A string attribute's type is none by default in MLIR, so "s" : none and
// "s" are one attribute, however either is built.
func TestStringTypedNoneIsUntyped(t *testing.T) {
	c := NewContext()
	plain := c.String("s")
	if got := c.TypedString("s", c.None()); got != plain {
		t.Errorf(`TypedString("s", none) = %p (type %v), want the untyped "s" %p`, got, got.Typ, plain)
	}
	if got := UniqueAttr(c, &StringAttr{Val: "s", Typ: c.None()}); got != plain {
		t.Errorf(`a StringAttr built typed none uniques apart from "s"`)
	}
	if c.TypedString("s", c.I(32)) == plain {
		t.Errorf(`"s" : i32 is the same attribute as "s"`)
	}
	if got := AttrString(c.TypedString("s", c.None())); got != `"s"` {
		t.Errorf(`"s" : none prints as %s, want "s"`, got)
	}
}
