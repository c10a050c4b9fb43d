package passes

import (
	"slices"

	"github.com/ipuir/ipuir/ir"
)

// TypeConverter maps the types of a source program to those of the
// target, and builds the ops that bridge the two where a converted value
// meets a user that still expects the old type (materializations). Without
// materialization functions, or when they decline, the bridge is a
// builtin.unrealized_conversion_cast, which a later conversion removes.
type TypeConverter struct {
	conversions []func(ir.Type) (ir.Type, bool)
	source      []Materialization
	target      []Materialization
}

// Materialization builds a value of type t from inputs at b's insertion
// point, or returns nil to decline.
type Materialization func(b *ir.Builder, t ir.Type, inputs []*ir.Value, loc ir.Location) *ir.Value

// AddConversion adds a conversion; conversions added later are tried
// first. A conversion returns ok false to pass the type on to earlier
// ones, or ok true with nil to say the type cannot be converted.
func (tc *TypeConverter) AddConversion(f func(ir.Type) (ir.Type, bool)) {
	tc.conversions = append(tc.conversions, f)
}

// AddSourceMaterialization adds a way to turn converted values back into
// values of their original type, for users left unconverted.
func (tc *TypeConverter) AddSourceMaterialization(m Materialization) {
	tc.source = append(tc.source, m)
}

// AddTargetMaterialization adds a way to turn values into the converted
// type a pattern expects for an operand.
func (tc *TypeConverter) AddTargetMaterialization(m Materialization) {
	tc.target = append(tc.target, m)
}

// ConvertType returns the converted form of t, or nil when t cannot be
// converted, which includes types no conversion claims: as in MLIR, a
// converter usually starts with an identity conversion. A nil converter
// converts every type to itself.
func (tc *TypeConverter) ConvertType(t ir.Type) ir.Type {
	if tc == nil {
		return t
	}
	for _, f := range slices.Backward(tc.conversions) {
		if r, ok := f(t); ok {
			return r
		}
	}
	return nil
}

// IsLegal says whether t is its own converted form.
func (tc *TypeConverter) IsLegal(t ir.Type) bool { return tc.ConvertType(t) == t }

// AreLegal says whether every type is legal.
func (tc *TypeConverter) AreLegal(ts []ir.Type) bool {
	for _, t := range ts {
		if !tc.IsLegal(t) {
			return false
		}
	}
	return true
}

// IsSignatureLegal says whether a function type's inputs and results are legal.
func (tc *TypeConverter) IsSignatureLegal(ft *ir.FunctionType) bool {
	return tc.AreLegal(ft.Inputs) && tc.AreLegal(ft.Results)
}

// materialize builds a value of type t from inputs with the given
// functions, most recently added first, falling back to an unrealized
// conversion cast.
func materialize(ms []Materialization, b *ir.Builder, t ir.Type, inputs []*ir.Value, loc ir.Location) (*ir.Value, *ir.Operation) {
	for _, m := range slices.Backward(ms) {
		if v := m(b, t, inputs, loc); v != nil {
			return v, nil
		}
	}
	cast := b.Create(&ir.OperationState{Name: ir.UnrealizedCast, Loc: loc, Operands: inputs, ResultTypes: []ir.Type{t}})
	return cast.Result(0), cast
}

func (tc *TypeConverter) sourceMaterializations() []Materialization {
	if tc == nil {
		return nil
	}
	return tc.source
}

func (tc *TypeConverter) targetMaterializations() []Materialization {
	if tc == nil {
		return nil
	}
	return tc.target
}
