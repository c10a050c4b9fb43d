package testdialect

import "github.com/ipuir/ipuir/ir"

// Helpers that build test ops with a Builder, for unit tests and benchmarks.

// Const builds `test.constant v : t`.
func Const(b *ir.Builder, t ir.Type, v int64) *ir.Value {
	return b.Create(&ir.OperationState{Name: Constant, ResultTypes: []ir.Type{t},
		Attrs: []ir.NamedAttr{{Name: "value", Value: b.Ctx.IntegerAttr(t, v)}}}).Result(0)
}

// Binary builds a two-operand op (Add, Sub, Mul) of the operands' type.
func Binary(b *ir.Builder, name string, lhs, rhs *ir.Value) *ir.Value {
	return b.Create(&ir.OperationState{Name: name, Operands: []*ir.Value{lhs, rhs},
		ResultTypes: []ir.Type{lhs.Type()}}).Result(0)
}

// Unary builds a one-operand op (Neg) of the operand's type.
func Unary(b *ir.Builder, name string, v *ir.Value) *ir.Value {
	return b.Create(&ir.OperationState{Name: name, Operands: []*ir.Value{v},
		ResultTypes: []ir.Type{v.Type()}}).Result(0)
}

// UseValues builds `test.use` of vs.
func UseValues(b *ir.Builder, vs ...*ir.Value) *ir.Operation {
	return b.Create(&ir.OperationState{Name: Use, Operands: vs})
}

// SourceValues builds `test.source` producing values of the given types.
func SourceValues(b *ir.Builder, types ...ir.Type) []*ir.Value {
	return b.Create(&ir.OperationState{Name: Source, ResultTypes: types}).Results()
}

// NewFunc appends a test.func named name to the module body, with an entry
// block taking args, and leaves b at the end of that block. Visibility is
// "private" or "" for public.
func NewFunc(b *ir.Builder, module *ir.Operation, name, visibility string, args ...ir.Type) (*ir.Operation, *ir.Block) {
	attrs := []ir.NamedAttr{{Name: ir.SymbolAttrName, Value: b.Ctx.String(name)}}
	if visibility != "" {
		attrs = append(attrs, ir.NamedAttr{Name: ir.VisibilityAttrName, Value: b.Ctx.String(visibility)})
	}
	b.SetInsertionPointToEnd(ir.ModuleBody(module))
	fn := b.Create(&ir.OperationState{Name: Func, Attrs: attrs, NumRegions: 1})
	entry := b.CreateBlock(fn.Region(0), args, nil)
	return fn, entry
}

// Ret builds `test.return` of vs.
func Ret(b *ir.Builder, vs ...*ir.Value) *ir.Operation {
	return b.Create(&ir.OperationState{Name: Return, Operands: vs})
}

// CallSym builds `test.call @callee(args)` with the given result types.
func CallSym(b *ir.Builder, callee string, args []*ir.Value, results ...ir.Type) *ir.Operation {
	return b.Create(&ir.OperationState{Name: Call, Operands: args, ResultTypes: results,
		Attrs: []ir.NamedAttr{{Name: "callee", Value: b.Ctx.SymbolRef(callee)}}})
}

// NewContext returns a context with the test dialect registered.
func NewContext() *ir.Context {
	ctx := ir.NewContext()
	if err := Register(ctx); err != nil {
		panic("BUG: " + err.Error())
	}
	return ctx
}
