package tensor

import (
	"fmt"
	"slices"
	"sort"

	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/ir"
)

// Name is the dialect's namespace.
const Name = "tensor"

// opSpec is what the package knows of an op beyond its OpDef: how to infer
// and check its types and how to evaluate it. The OpDef's Verify,
// InferResultTypes and Fold are built from it, so that every op verifies,
// infers and folds the same way.
type opSpec struct {
	// handle is the package variable that names the op's definition
	// (MatmulOp, ...); newSpecs points it at def.
	handle **ir.OpDef
	def    *ir.OpDef
	// infer computes the result type from operand types and attributes.
	// Nil for ops whose result type is free (convert, reshape, broadcast,
	// splat); check then verifies them. It sees types before verification,
	// so it checks what it relies on.
	infer func(operands []ir.Type, attrs attrLookup) (resultType, error)
	// check verifies what infer cannot (may be nil).
	check func(op *ir.Operation) error
	// evaluate computes the op's single result.
	evaluate func(op *ir.Operation, args []*eval.Array) (*eval.Array, error)
	// fold is the op's algebraic folder (identities such as x+0 → x),
	// tried before constant folding. May be nil.
	fold func(op *ir.Operation, operands []ir.Attribute) (ir.FoldResult, bool)
	// splat says how splat constant operands fold to a splat result.
	splat splatRule
	// bound is the op's accuracy model (accuracy.go): how far a device's
	// value may lie from evaluate's.
	bound boundRule
	// fn is what an elementwise op (one that lists ir.ElementwiseImpl)
	// computes on each element, in eval's terms: the kernels that lower
	// it (kernel.FnFor) and its evaluation come from it.
	fn func(op *ir.Operation) eval.Function
}

// splatRule says whether an op maps splat operands to a splat result of
// any size, and how to compute its value.
type splatRule uint8

const (
	noSplat splatRule = iota
	// splatElementwise: evaluate the op on one element of each operand.
	splatElementwise
	// splatMove: the result's value is the operand's value (data movement).
	splatMove
)

// newSpecs declares every op, once per program (see init), and points
// each op's handle at its definition.
func newSpecs() map[string]*opSpec {
	specs := map[string]*opSpec{}
	for _, group := range [][]*opSpec{constantSpecs(), elementwiseSpecs(), matmulSpecs(), convSpecs(), reduceSpecs(),
		normalizeSpecs(), movementSpecs(), stringSpecs()} {
		for _, s := range group {
			if specs[s.def.Name] != nil {
				panic("BUG: tensor: op declared twice: " + s.def.Name)
			}
			if s.handle != nil && *s.handle != nil {
				panic("BUG: tensor: op whose handle another op has: " + s.def.Name)
			}
			if s.bound == nil {
				panic("BUG: tensor: op without an accuracy model: " + s.def.Name)
			}
			if elementwise := slices.ContainsFunc(s.def.Interfaces, func(i any) bool { _, ok := i.(ir.ElementwiseImpl); return ok }); elementwise != (s.fn != nil) {
				panic("BUG: tensor: an op is elementwise exactly when its spec names its function: " + s.def.Name)
			}
			wire(s)
			if s.handle != nil {
				*s.handle = s.def
			}
			specs[s.def.Name] = s
		}
	}
	return specs
}

// specs holds every op's spec by name. It is filled by init rather than
// by its declaration because the ops' hooks refer to the handles that
// filling it sets.
var specs map[string]*opSpec

func init() {
	specs = newSpecs()
	var ops []*ir.OpDef
	for _, s := range specs {
		ops = append(ops, s.def)
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].Name < ops[j].Name })
	Dialect.Ops = ops
}

// ElementwiseFunction is what elementwise op computes on each element.
func ElementwiseFunction(op *ir.Operation) (eval.Function, bool) {
	if s := specOf(op); s != nil && s.fn != nil {
		return s.fn(op), true
	}
	return eval.Function{}, false
}

// specFor returns the spec of a dialect op by name, for building ops.
func specFor(name string) *opSpec { return specs[name] }

// specOf returns the spec of op's definition, or nil when op is not an op
// of the dialect.
func specOf(op *ir.Operation) *opSpec {
	if d := op.Def(); d != nil && d.Dialect() == Dialect {
		return specs[d.Name]
	}
	return nil
}

// wire fills the OpDef hooks that every op of the dialect shares.
func wire(s *opSpec) {
	d := s.def
	d.Verify = func(op *ir.Operation) error { return verify(s, op) }
	if s.infer != nil {
		d.InferResultTypes = func(ctx *ir.Context, operands []*ir.Value, attrs []ir.NamedAttr) ([]ir.Type, error) {
			types := make([]ir.Type, len(operands))
			for i, v := range operands {
				types[i] = v.Type()
			}
			r, err := s.infer(types, listAttrs(attrs))
			if err != nil {
				return nil, err
			}
			return []ir.Type{r.Type(ctx)}, nil
		}
	}
	d.Fold = func(op *ir.Operation, operands []ir.Attribute) ([]ir.FoldResult, bool) {
		return fold(s, op, operands)
	}
}

// verify runs after the declared constraints: infer the result types and
// compare (ignoring encodings), then the op's own check.
func verify(s *opSpec, op *ir.Operation) error {
	if s.infer != nil {
		inferred, err := s.infer(op.OperandTypes(), opAttrs(op))
		if err != nil {
			return err
		}
		if got := op.Result(0).Type(); !inferred.Matches(got) {
			return fmt.Errorf("result type %s does not match the inferred type '%s'", typeStr(got), inferred)
		}
	}
	if s.check != nil {
		return s.check(op)
	}
	return nil
}

// Dialect is the tensor dialect, declared once (its ops are set by init)
// and registered in each context that uses it.
var Dialect = &ir.Dialect{
	Name: Name,
	Summary: "Model-level operations on ranked tensors with value semantics: matmuls, elementwise " +
		"arithmetic, reductions, softmax, layer norm, gelu and data movement.",
	Description: "Step 1 of the lowering pipeline. Every op is executable by the reference " +
		"interpreter; see package eval for the arithmetic rules.",
	Directives:          directives,
	MaterializeConstant: materializeConstant,
	Types:               []*ir.TypeDecl{stringTypeDecl},
}

// Register adds the tensor dialect to ctx. Registering it twice is an error.
func Register(ctx *ir.Context) error { return ctx.RegisterDialect(Dialect) }

// materializeConstant builds a tensor.constant for a folded value.
func materializeConstant(b *ir.Builder, a ir.Attribute, t ir.Type, loc ir.Location) *ir.Operation {
	if !ConstantValueKind.Pred(a) {
		return nil
	}
	if ta, ok := a.(ir.TypedAttr); !ok || !sameShapeAndElement(ta.Type(), t) {
		return nil
	}
	return b.Create(&ir.OperationState{
		Name: ConstantOpName, Loc: loc, ResultTypes: []ir.Type{t},
		Attrs: []ir.NamedAttr{{Name: "value", Value: a}},
	})
}
