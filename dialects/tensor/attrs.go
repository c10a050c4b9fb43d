package tensor

import (
	"fmt"

	"github.com/ipuir/ipuir/ir"
)

// Attribute kinds the dialect declares, named as MLIR's ODS names them.
var (
	F32AttrKind = ir.AttrKind{Desc: "32-bit float attribute", Pred: func(a ir.Attribute) bool {
		fa, ok := a.(*ir.FloatAttr)
		return ok && fa.Typ.Kind == ir.F32
	}}
	// ConstantValueKind accepts what tensor.constant can hold.
	ConstantValueKind = ir.AttrKind{
		Desc: "dense float or integer elements attribute of static shape or float attribute",
		Pred: func(a ir.Attribute) bool {
			switch v := a.(type) {
			case *ir.DenseElementsAttr:
				return isStaticTensor(v.Typ)
			case *ir.FloatAttr:
				_, ok := kindOf(v.Typ)
				return ok
			}
			return false
		},
	}
)

// attrLookup finds an attribute by name: an op's attribute, or an entry of
// the list InferResultTypes receives.
type attrLookup func(name string) ir.Attribute

func opAttrs(op *ir.Operation) attrLookup { return op.Attr }

func listAttrs(attrs []ir.NamedAttr) attrLookup {
	return func(name string) ir.Attribute {
		for i := len(attrs) - 1; i >= 0; i-- {
			if attrs[i].Name == name {
				return attrs[i].Value
			}
		}
		return nil
	}
}

// ints reads an i64 dense array attribute as ints. A missing or mistyped
// attribute is an error phrased like the declared-constraint check, so that
// inference run before verification reports the same problem.
func (l attrLookup) ints(name string) ([]int, error) {
	a := l(name)
	if a == nil {
		return nil, fmt.Errorf("requires attribute '%s'", name)
	}
	if !ir.DenseI64ArrayKind.Pred(a) {
		return nil, fmt.Errorf("attribute '%s' failed to satisfy constraint: %s", name, ir.DenseI64ArrayKind.Desc)
	}
	vals := a.(*ir.DenseArrayAttr).Ints
	out := make([]int, len(vals))
	for i, v := range vals {
		out[i] = int(v)
	}
	return out, nil
}

// int reads an i64 integer attribute.
func (l attrLookup) int(name string) (int, error) {
	a := l(name)
	if a == nil {
		return 0, fmt.Errorf("requires attribute '%s'", name)
	}
	if !ir.I64AttrKind.Pred(a) {
		return 0, fmt.Errorf("attribute '%s' failed to satisfy constraint: %s", name, ir.I64AttrKind.Desc)
	}
	return int(a.(*ir.IntegerAttr).Int), nil
}

// float reads a float attribute.
func (l attrLookup) float(name string) (float64, error) {
	a := l(name)
	if a == nil {
		return 0, fmt.Errorf("requires attribute '%s'", name)
	}
	fa, ok := a.(*ir.FloatAttr)
	if !ok {
		return 0, fmt.Errorf("attribute '%s' failed to satisfy constraint: %s", name, F32AttrKind.Desc)
	}
	return fa.Val, nil
}
