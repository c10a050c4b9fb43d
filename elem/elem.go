// Package elem is ipuir's one vocabulary of element types: the scalar
// types tensors hold, with their size, their name as MLIR spells it, and
// parsing. The IR (through package irelem), the targets' cost model, the
// reference interpreter, .npy files, the application package and the
// device all speak it, so that no layer keeps an enum of its own and a
// mapping to every other.
//
// It imports nothing, so that the runtime can use it without the IR.
package elem

import (
	"fmt"
	"strings"
)

// Type is an element type. The zero Type is invalid, so that a forgotten
// field is caught rather than silently meaning one of the types.
type Type uint8

const (
	Invalid Type = iota
	I1           // boolean; one byte in memory
	I8           // signless integers (signed where a sign matters)
	I16
	I32
	I64
	U8 // unsigned integers (MLIR's ui8 ...)
	U16
	U32
	U64
	BF16 // bfloat16: the top 16 bits of a binary32
	F16  // IEEE 754 binary16
	F32  // IEEE 754 binary32
	F64  // IEEE 754 binary64
	numTypes
)

type info struct {
	name  string // MLIR's spelling
	bits  int    // bits of the value
	bytes int    // bytes in memory
	float bool
	uint  bool
}

var infos = [numTypes]info{
	I1:   {"i1", 1, 1, false, false},
	I8:   {"i8", 8, 1, false, false},
	I16:  {"i16", 16, 2, false, false},
	I32:  {"i32", 32, 4, false, false},
	I64:  {"i64", 64, 8, false, false},
	U8:   {"ui8", 8, 1, false, true},
	U16:  {"ui16", 16, 2, false, true},
	U32:  {"ui32", 32, 4, false, true},
	U64:  {"ui64", 64, 8, false, true},
	BF16: {"bf16", 16, 2, true, false},
	F16:  {"f16", 16, 2, true, false},
	F32:  {"f32", 32, 4, true, false},
	F64:  {"f64", 64, 8, true, false},
}

// Valid reports whether t is one of the declared types.
func (t Type) Valid() bool { return t > Invalid && t < numTypes }

// String returns the type's name as MLIR spells it ("f16", "ui8", ...).
func (t Type) String() string {
	if t.Valid() {
		return infos[t].name
	}
	return fmt.Sprintf("elem.Type(%d)", uint8(t))
}

// Bytes returns the storage size of one element (i1 takes a whole byte);
// 0 for an invalid type.
func (t Type) Bytes() int {
	if t.Valid() {
		return infos[t].bytes
	}
	return 0
}

// Bits returns the width of the value (1 for i1); 0 for an invalid type.
func (t Type) Bits() int {
	if t.Valid() {
		return infos[t].bits
	}
	return 0
}

// IsFloat reports whether t is a floating-point type.
func (t Type) IsFloat() bool { return t.Valid() && infos[t].float }

// IsInteger reports whether t is an integer type (i1 included).
func (t Type) IsInteger() bool { return t.Valid() && !infos[t].float }

// IsUnsigned reports whether t is an unsigned integer type.
func (t Type) IsUnsigned() bool { return t.Valid() && infos[t].uint }

// All lists every valid type, in declaration order.
func All() []Type {
	out := make([]Type, 0, numTypes-1)
	for t := I1; t < numTypes; t++ {
		out = append(out, t)
	}
	return out
}

// Floats lists the floating-point types.
func Floats() []Type { return []Type{BF16, F16, F32, F64} }

// Parse maps an MLIR spelling ("f16", "bf16", "i32", "ui8") to its Type.
func Parse(name string) (Type, error) {
	for t := I1; t < numTypes; t++ {
		if infos[t].name == name {
			return t, nil
		}
	}
	return Invalid, fmt.Errorf("unknown element type %q (known: %s)", name, Names(All()))
}

// Names joins the names of ts with ", ", for messages.
func Names(ts []Type) string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.String()
	}
	return strings.Join(names, ", ")
}
