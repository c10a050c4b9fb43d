package ir

import "testing"

// Distinct attributes are identities, not values: equal referenced
// attributes still make different attributes, and attributes holding
// different ones are not uniqued into one.
func TestNewDistinctIsFreshIdentity(t *testing.T) {
	c := NewContext()
	one := c.IntegerAttr(c.I(64), 1)
	a, b := c.NewDistinct(one), c.NewDistinct(one)
	if a == b {
		t.Fatal("two NewDistinct calls returned the same attribute")
	}
	if a.Referenced != Attribute(one) {
		t.Errorf("Referenced = %v, want the inner attribute", a.Referenced)
	}
	if c.Array(a) == c.Array(b) {
		t.Error("[distinct a] and [distinct b] were uniqued into one array")
	}
	if c.Array(a) != c.Array(a) {
		t.Error("[distinct a] is not uniqued with itself")
	}
	if c.Dict([]NamedAttr{{Name: "x", Value: a}}) == c.Dict([]NamedAttr{{Name: "x", Value: b}}) {
		t.Error("{x = distinct a} and {x = distinct b} were uniqued into one dictionary")
	}
	// A type attribute is uniqued by its printed form.
	ta := c.TypeAttr(c.TensorWithEncoding([]int64{4}, c.F32(), a))
	if ta == c.TypeAttr(c.TensorWithEncoding([]int64{4}, c.F32(), b)) {
		t.Error("types encoded by distinct a and distinct b were uniqued into one type attribute")
	}
	if u := c.NewDistinct(nil); u.Referenced != Attribute(c.Unit()) {
		t.Errorf("NewDistinct(nil) refers to %v, want unit", u.Referenced)
	}
}

// A printer numbers distinct attributes from 0 in the order it prints them,
// whatever their identities, and elides a unit referenced attribute.
func TestDistinctPrintNumbersInPrintOrder(t *testing.T) {
	c := NewContext()
	one := c.IntegerAttr(c.I(32), 1)
	a, b := c.NewDistinct(one), c.NewDistinct(c.Unit())
	var p AsmPrinter
	p.PrintAttr(c.Array(b, a, b, c.NewDistinct(a)))
	if got, want := p.String(), "[distinct[0]<>, distinct[1]<1 : i32>, distinct[0]<>, distinct[2]<distinct[1]<1 : i32>>]"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got, want := AttrString(a), "distinct[0]<1 : i32>"; got != want {
		t.Errorf("AttrString = %s, want %s", got, want)
	}
}

// DistinctMatcher accepts attributes that differ only in which distinct
// attributes they hold, provided the correspondence is one to one across
// calls, and nothing else that differs.
func TestDistinctMatcher(t *testing.T) {
	c := NewContext()
	one := c.IntegerAttr(c.I(64), 1)
	a1, a2 := c.NewDistinct(one), c.NewDistinct(one) // one side
	b1, b2 := c.NewDistinct(one), c.NewDistinct(one) // the other
	var m DistinctMatcher
	if !m.Same(c.Array(a1, one), c.Array(b1, one)) {
		t.Error("[a1, 1] and [b1, 1] differ")
	}
	if !m.Same(a1, b1) {
		t.Error("a1 and b1 differ after being matched")
	}
	if m.Same(a1, b2) {
		t.Error("a1 matches b2 although it stands for b1")
	}
	if m.Same(a2, b1) {
		t.Error("a2 matches b1 although b1 stands for a1")
	}
	if !m.Same(a2, b2) {
		t.Error("a2 and b2 differ")
	}
	if m.Same(c.Array(a1), c.Array(b1, b1)) {
		t.Error("arrays of different lengths match")
	}
	if m.Same(c.NewDistinct(one), c.NewDistinct(c.Unit())) {
		t.Error("distinct attributes with different referenced attributes match")
	}
	// Without a distinct attribute, identity decides, even where the
	// printed forms agree.
	s := &StringAttr{Val: "s"}
	if m.Same(c.String("s"), s) {
		t.Error("a non-uniqued string matches the uniqued one")
	}
}
