// Package irelem is the one mapping between the IR's builtin types and
// the element-type vocabulary of package elem: package ir knows no other
// package of the project, and elem knows nothing of the IR, so the bridge
// stands between them.
package irelem

import (
	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/ir"
)

// Of returns the element type of t (or of its elements, for a shaped
// type), when the vocabulary has it.
func Of(t ir.Type) (elem.Type, bool) {
	switch et := ir.ElementTypeOrSelf(t).(type) {
	case *ir.FloatType:
		switch et.Kind {
		case ir.BF16:
			return elem.BF16, true
		case ir.F16:
			return elem.F16, true
		case ir.F32:
			return elem.F32, true
		case ir.F64:
			return elem.F64, true
		}
	case *ir.IntegerType:
		if et.Width == 1 && et.Signedness != ir.Unsigned {
			return elem.I1, true
		}
		signed := [...]elem.Type{8: elem.I8, 16: elem.I16, 32: elem.I32, 64: elem.I64}
		unsigned := [...]elem.Type{8: elem.U8, 16: elem.U16, 32: elem.U32, 64: elem.U64}
		if et.Width < len(signed) && signed[et.Width] != elem.Invalid {
			if et.Signedness == ir.Unsigned {
				return unsigned[et.Width], true
			}
			return signed[et.Width], true
		}
	}
	return elem.Invalid, false
}

// Type returns the IR type of e: iN (signless) for the signed integers,
// uiN for the unsigned ones, the builtin float types.
func Type(ctx *ir.Context, e elem.Type) ir.Type {
	switch e {
	case elem.BF16:
		return ctx.BF16()
	case elem.F16:
		return ctx.F16()
	case elem.F32:
		return ctx.F32()
	case elem.F64:
		return ctx.F64()
	case elem.U8, elem.U16, elem.U32, elem.U64:
		return ctx.IntegerType(e.Bits(), ir.Unsigned)
	}
	if e.IsInteger() {
		return ctx.I(e.Bits())
	}
	panic("BUG: irelem.Type of invalid " + e.String())
}

// FloatType is Type for the float types, typed as the IR's float type.
func FloatType(ctx *ir.Context, e elem.Type) *ir.FloatType {
	t, ok := Type(ctx, e).(*ir.FloatType)
	if !ok {
		panic("BUG: irelem.FloatType of " + e.String())
	}
	return t
}
