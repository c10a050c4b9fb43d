package ir

import (
	"fmt"
	"sync"
	"testing"
)

// Values uniqued by their parts: equal parts give one pointer however the
// value is built, any differing part gives another, and a caller's
// slices are not kept.
func TestIdentityKeyedUniquing(t *testing.T) {
	c := NewContext()
	f16, f32, i1 := c.F16(), c.F32(), c.I(1)
	ta, tb := c.Tensor([]int64{4}, f16), c.Tensor([]int64{4}, f32)

	ins, outs := []Type{ta, tb}, []Type{i1}
	fn := c.Function(ins, outs)
	ins[0] = tb // the uniqued type keeps copies
	if fn.Inputs[0] != ta {
		t.Fatal("Function kept its caller's slice")
	}
	same := map[string][2]any{
		"function": {fn, UniqueType(c, &FunctionType{Inputs: []Type{ta, tb}, Results: []Type{i1}})},
		"tuple":    {c.Tuple(ta, i1), c.Tuple(ta, i1)},
		"dict":     {c.Dict([]NamedAttr{{"a", c.Unit()}, {"b", c.String("x")}}), c.Dict([]NamedAttr{{"b", c.String("x")}, {"a", c.Unit()}})},
		"array":    {c.Array(c.String("x"), c.Unit()), UniqueAttr(c, &ArrayAttr{Elems: []Attribute{c.String("x"), c.Unit()}})},
		"string":   {c.String("s"), UniqueAttr(c, &StringAttr{Val: "s", Typ: c.None()})}, // typed none is untyped
		"dense":    {UniqueAttr(c, &DenseElementsAttr{Typ: ta, Data: []byte{1, 2, 3, 4, 5, 6, 7, 8}}), UniqueAttr(c, &DenseElementsAttr{Typ: ta, Data: []byte{1, 2, 3, 4, 5, 6, 7, 8}})},
	}
	for name, p := range same {
		if p[0] != p[1] {
			t.Errorf("%s: equal values are different pointers", name)
		}
	}
	differ := map[string][2]any{
		"function inputs and results": {c.Function([]Type{ta}, []Type{tb}), c.Function([]Type{ta, tb}, nil)},
		"function order":              {c.Function([]Type{ta, tb}, nil), c.Function([]Type{tb, ta}, nil)},
		"tuple":                       {c.Tuple(ta), c.Tuple(tb)},
		"tuple and function":          {c.Tuple(), c.Function(nil, nil)},
		"dict value":                  {c.Dict([]NamedAttr{{"a", c.String("x")}}), c.Dict([]NamedAttr{{"a", c.String("y")}})},
		"dict name":                   {c.Dict([]NamedAttr{{"a", c.Unit()}}), c.Dict([]NamedAttr{{"b", c.Unit()}})},
		"string type":                 {c.String("s"), UniqueAttr(c, &StringAttr{Val: "s", Typ: i1})},
		"dense data":                  {UniqueAttr(c, &DenseElementsAttr{Typ: ta, Data: []byte{1, 2, 3, 4, 5, 6, 7, 8}}), UniqueAttr(c, &DenseElementsAttr{Typ: ta, Data: []byte{1, 2, 3, 4, 5, 6, 7, 9}})},
		"dense splat":                 {UniqueAttr(c, &DenseElementsAttr{Typ: ta, Splat: true, Data: []byte{1, 2}}), UniqueAttr(c, &DenseElementsAttr{Typ: ta, Data: []byte{1, 2}})},
		"tensor element":              {ta, tb},
		"tensor dims":                 {c.Tensor([]int64{4, 1}, f16), c.Tensor([]int64{1, 4}, f16)},
	}
	for name, p := range differ {
		if p[0] == p[1] {
			t.Errorf("%s: different values are one pointer", name)
		}
	}
}

// Values whose hashes collide are still told apart and still uniqued.
func TestIdentityTableCollisions(t *testing.T) {
	c := NewContext()
	var tab identityTable[IdentityKeyed]
	var vals []*TupleType
	for i := 0; i < 50; i++ {
		v := &TupleType{Types: []Type{c.Tensor([]int64{int64(i)}, c.F32())}}
		vals = append(vals, v)
		if _, ok := tab.lookup(7, v); ok {
			t.Fatalf("value %d found before it was stored", i)
		}
		tab.insert(7, v) // every value under one hash
	}
	if tab.len() != 50 {
		t.Fatalf("table holds %d values, want 50", tab.len())
	}
	for i, v := range vals {
		probe := &TupleType{Types: []Type{c.Tensor([]int64{int64(i)}, c.F32())}}
		got, ok := tab.lookup(7, probe)
		if !ok || got != IdentityKeyed(v) {
			t.Fatalf("value %d: found %v, %v", i, got, ok)
		}
	}
	if _, ok := tab.lookup(8, vals[0]); ok {
		t.Fatal("a value found under another hash")
	}
}

// Goroutines uniquing the same function types and dictionaries get the
// same pointers.
func TestIdentityKeyedConcurrent(t *testing.T) {
	c := NewContext()
	const n = 500
	got := make([][]any, 4)
	var wg sync.WaitGroup
	for g := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < n; i++ {
				ty := c.Tensor([]int64{int64(i % 37), int64(i)}, c.F16())
				got[g] = append(got[g], c.Function([]Type{ty}, []Type{ty, ty}), c.Dict([]NamedAttr{{fmt.Sprint("k", i%11), c.String(fmt.Sprint(i))}}))
			}
		}()
	}
	wg.Wait()
	for i := range got[0] {
		for g := 1; g < len(got); g++ {
			if got[g][i] != got[0][i] {
				t.Fatalf("value %d uniqued differently across goroutines", i)
			}
		}
	}
}
