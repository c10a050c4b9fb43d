package tensor

import (
	"fmt"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/ir"
)

// Op names of this file.
const (
	AddOpName     = "tensor.add"
	SubOpName     = "tensor.sub"
	MulOpName     = "tensor.mul"
	DivOpName     = "tensor.div"
	MaxOpName     = "tensor.max"
	ExpOpName     = "tensor.exp"
	RsqrtOpName   = "tensor.rsqrt"
	TanhOpName    = "tensor.tanh"
	ErfOpName     = "tensor.erf"
	GeluOpName    = "tensor.gelu"
	ConvertOpName = "tensor.convert"
)

// ApproximateAttr, a unit attribute on tensor.gelu, selects the tanh
// approximation instead of the exact erf form.
const ApproximateAttr = "approximate"

func binarySpec(handle **ir.OpDef, name string, op eval.BinaryOp, summary string, traits ir.Trait,
	fold func(op *ir.Operation, operands []ir.Attribute) (ir.FoldResult, bool)) *opSpec {
	return binarySpecOf(handle, name, op, summary, traits, fold, AnyTensor)
}

// binarySpecOf is binarySpec for operands of constraint c.
func binarySpecOf(handle **ir.OpDef, name string, op eval.BinaryOp, summary string, traits ir.Trait,
	fold func(op *ir.Operation, operands []ir.Attribute) (ir.FoldResult, bool), c ir.TypeConstraint) *opSpec {
	short := name[len(Name)+1:]
	return &opSpec{
		handle: handle,
		def: &ir.OpDef{
			Name:    name,
			Summary: summary,
			Description: "Elementwise on two operands of one type (no implicit broadcasting: use " +
				"tensor.broadcast). Each element is computed in float64 and rounded once to the element type; " +
				"on integers, truncated toward zero and wrapped to the type's width (i1: 1 for any non-zero value).",
			Example:        fmt.Sprintf("%%2 = tensor.%s %%0, %%1 : tensor<4x8xf16>", short),
			Operands:       []ir.ValueDef{{Name: "lhs", Type: c}, {Name: "rhs", Type: c}},
			Results:        []ir.ValueDef{{Name: "result", Type: c}},
			Traits:         ir.TraitPure | ir.TraitSameOperandsAndResultType | traits,
			Interfaces:     []any{ir.ElementwiseImpl{}},
			AssemblyFormat: "$lhs `,` $rhs attr-dict `:` type($result)",
		},
		infer: sameAsOperand,
		evaluate: func(_ *ir.Operation, args []*eval.Array) (*eval.Array, error) {
			return eval.Binary(op, args[0], args[1])
		},
		fold:  fold,
		splat: splatElementwise,
		bound: boundOfBinary(op),
		fn:    func(*ir.Operation) eval.Function { return eval.Function{Binary: op} },
	}
}

// unarySpec declares an elementwise op of one operand computing op: a
// handle (nil for an op no Go code names), its name and its summary; its
// evaluation, folding, accuracy model and lowering follow from op.
func unarySpec(handle **ir.OpDef, name string, op eval.UnaryOp, summary string) *opSpec {
	short := name[len(Name)+1:]
	s := &opSpec{
		handle: handle,
		def: &ir.OpDef{
			Name:           name,
			Summary:        summary,
			Description:    "Elementwise; each element is computed in float64 and rounded once to the element type.",
			Example:        fmt.Sprintf("%%1 = tensor.%s %%0 : tensor<4x8xf16>", short),
			Operands:       []ir.ValueDef{{Name: "input", Type: FloatTensor}},
			Results:        []ir.ValueDef{{Name: "result", Type: FloatTensor}},
			Traits:         ir.TraitPure | ir.TraitSameOperandsAndResultType,
			Interfaces:     []any{ir.ElementwiseImpl{}},
			AssemblyFormat: "$input attr-dict `:` type($result)",
		},
		infer: sameAsOperand,
		splat: splatElementwise,
		bound: boundOfUnary,
		fn:    func(*ir.Operation) eval.Function { return eval.Function{Unary: op} },
	}
	s.evaluate = func(o *ir.Operation, args []*eval.Array) (*eval.Array, error) {
		return eval.Unary(s.fn(o).Unary, args[0])
	}
	return s
}

// sameAsOperand infers the type of an elementwise op: its first operand's.
func sameAsOperand(operands []ir.Type, _ attrLookup) (resultType, error) {
	if len(operands) == 0 {
		return resultType{}, fmt.Errorf("expected at least one operand")
	}
	if err := requireTensor(operands, 0); err != nil {
		return resultType{}, err
	}
	return tensorResult(shapeOf(operands[0]), elemOf(operands[0])), nil
}

// requireTensor checks operand i against AnyTensor with the verifier's
// wording, for inference that runs before verification.
func requireTensor(operands []ir.Type, i int) error {
	if i >= len(operands) {
		return fmt.Errorf("expected %d operands, but found %d", i+1, len(operands))
	}
	if !AnyTensor.Accepts(operands[i]) {
		return fmt.Errorf("operand #%d must be %s, but got %s", i, AnyTensor.Desc, typeStr(operands[i]))
	}
	return nil
}

func elementwiseSpecs() []*opSpec {
	gelu := unarySpec(&GeluOp, GeluOpName, eval.Gelu, "Gaussian error linear unit: x·Φ(x).")
	gelu.def.Description = "x/2·(1+erf(x/√2)), or with the `approximate` unit attribute the tanh form " +
		"x/2·(1+tanh(√(2/π)·(x+0.044715·x³))); computed in float64 and rounded once per element."
	gelu.def.Example = "%1 = tensor.gelu %0 {approximate} : tensor<729x4304xf16>"
	gelu.def.Attributes = []ir.AttrDef{{Name: ApproximateAttr, Kind: ir.UnitAttrKind, Optional: true,
		Doc: "use the tanh approximation"}}
	gelu.fn = func(op *ir.Operation) eval.Function {
		if op.Attr(ApproximateAttr) != nil {
			return eval.Function{Unary: eval.GeluTanh}
		}
		return eval.Function{Unary: eval.Gelu}
	}
	return []*opSpec{
		binarySpec(&AddOp, AddOpName, eval.Add, "Elementwise addition.", ir.TraitCommutative, foldIdentity(0, true)),
		binarySpec(&SubOp, SubOpName, eval.Sub, "Elementwise subtraction.", 0, foldIdentity(0, false)),
		binarySpec(&MulOp, MulOpName, eval.Mul, "Elementwise multiplication.", ir.TraitCommutative, foldIdentity(1, true)),
		binarySpec(&DivOp, DivOpName, eval.Div, "Elementwise division.", 0, foldIdentity(1, false)),
		binarySpec(&MaxOp, MaxOpName, eval.Max, "Elementwise maximum (NaN propagates; +0 is above -0).", ir.TraitCommutative, foldMaxSame),
		binarySpecOf(nil, "tensor.pow", eval.Pow, "Elementwise power x^y, as C's pow (NaN for negative x and non-integral y; 1 for y = 0).", 0, nil, FloatTensor),
		compareSpec("tensor.less", eval.Less, "Elementwise x < y, as i1."),
		compareSpec("tensor.less_equal", eval.LessEqual, "Elementwise x ≤ y, as i1."),
		compareSpec("tensor.equal", eval.Equal, "Elementwise x = y, as i1 (NaN equals nothing, itself included)."),
		compareSpec("tensor.not_equal", eval.NotEqual, "Elementwise x ≠ y, as i1 (NaN differs from everything)."),
		selectSpec(),
		unarySpec(&ExpOp, ExpOpName, eval.Exp, "Elementwise e^x."),
		unarySpec(&RsqrtOp, RsqrtOpName, eval.Rsqrt, "Elementwise 1/√x."),
		unarySpec(&TanhOp, TanhOpName, eval.Tanh, "Elementwise hyperbolic tangent."),
		unarySpec(&ErfOp, ErfOpName, eval.Erf, "Elementwise error function."),
		gelu,
		unarySpec(nil, "tensor.silu", eval.Silu, "Sigmoid-weighted linear unit: x·σ(x) = x/(1+e^(-x))."),
		unarySpec(nil, "tensor.log", eval.Log, "Elementwise natural logarithm."),
		unarySpec(nil, "tensor.floor", eval.Floor, "Elementwise floor: the greatest integral value not above x."),
		unarySpec(nil, "tensor.ceil", eval.Ceil, "Elementwise ceiling: the least integral value not below x."),
		unarySpec(nil, "tensor.round", eval.Round, "Elementwise rounding to the nearest integral value, halves to even."),
		unarySpec(nil, "tensor.sign", eval.Sign, "Elementwise sign: -1, 0 or 1 (0 and NaN are their own sign)."),
		unarySpec(nil, "tensor.sin", eval.Sin, "Elementwise sine."),
		unarySpec(nil, "tensor.cos", eval.Cos, "Elementwise cosine."),
		unarySpec(nil, "tensor.atan", eval.Atan, "Elementwise arctangent."),
		convertSpec(),
	}
}

// foldIdentity folds x∘c → x when c is a constant whose every element is
// the identity value (and, for commutative ops, c∘x → x). For addition the
// identity is zero of either sign: x + (+0) → x changes the sign of a -0
// result, which the dialect, like ML compilers generally, treats as equal.
func foldIdentity(identity float64, commutative bool) func(*ir.Operation, []ir.Attribute) (ir.FoldResult, bool) {
	return func(op *ir.Operation, operands []ir.Attribute) (ir.FoldResult, bool) {
		if len(operands) != 2 {
			return ir.FoldResult{}, false
		}
		if isSplatOf(operands[1], identity) {
			return ir.FoldResult{Value: op.Operand(0)}, true
		}
		if commutative && isSplatOf(operands[0], identity) {
			return ir.FoldResult{Value: op.Operand(1)}, true
		}
		return ir.FoldResult{}, false
	}
}

// foldMaxSame folds max(x, x) → x.
func foldMaxSame(op *ir.Operation, _ []ir.Attribute) (ir.FoldResult, bool) {
	if op.NumOperands() == 2 && op.Operand(0) == op.Operand(1) {
		return ir.FoldResult{Value: op.Operand(0)}, true
	}
	return ir.FoldResult{}, false
}

// isSplatOf reports whether a is a float elements attribute whose elements
// all equal v (-0 equals +0).
func isSplatOf(a ir.Attribute, v float64) bool {
	d, ok := a.(*ir.DenseElementsAttr)
	if !ok || !ir.IsFloat(d.Typ.ElementType()) {
		return false
	}
	if d.Splat {
		return d.FloatAt(0) == v
	}
	n := d.NumElements()
	if n > FoldElementLimit {
		return false
	}
	for i := int64(0); i < n; i++ {
		if d.FloatAt(i) != v {
			return false
		}
	}
	return true
}

// compareSpec declares a comparison: two operands of one type, an i1
// result of their shape.
func compareSpec(name string, op eval.BinaryOp, summary string) *opSpec {
	short := name[len(Name)+1:]
	return &opSpec{
		def: &ir.OpDef{
			Name:    name,
			Summary: summary,
			Description: "Elementwise on two operands of one type (no implicit broadcasting); the result has " +
				"their shape and i1 elements, 1 where the comparison holds.",
			Example:        fmt.Sprintf("%%2 = tensor.%s %%0, %%1 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xi1>", short),
			Operands:       []ir.ValueDef{{Name: "lhs", Type: AnyTensor}, {Name: "rhs", Type: AnyTensor}},
			Results:        []ir.ValueDef{{Name: "result", Type: BoolTensor}},
			Traits:         ir.TraitPure,
			Interfaces:     []any{ir.ElementwiseImpl{}},
			AssemblyFormat: "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)",
		},
		infer: func(operands []ir.Type, _ attrLookup) (resultType, error) {
			if err := requireTensor(operands, 1); err != nil {
				return resultType{}, err
			}
			if operands[0] != operands[1] {
				return resultType{}, fmt.Errorf("operands of types %s and %s: a comparison's operands have one type", typeStr(operands[0]), typeStr(operands[1]))
			}
			return resultType{Shape: shapeOf(operands[0]), Kind: elem.I1}, nil
		},
		evaluate: func(_ *ir.Operation, args []*eval.Array) (*eval.Array, error) {
			r, err := eval.Binary(op, args[0], args[1])
			if err != nil {
				return nil, err
			}
			return eval.Convert(r, elem.I1)
		},
		splat: splatElementwise,
		bound: boundOfCompare(op),
		fn:    func(*ir.Operation) eval.Function { return eval.Function{Binary: op} },
	}
}

// selectSpec declares tensor.select: where(c, a, b).
func selectSpec() *opSpec {
	return &opSpec{
		def: &ir.OpDef{
			Name:    "tensor.select",
			Summary: "Elementwise where(c, a, b): a where the i1 condition is 1, b where it is 0.",
			Description: "The condition and both values have one shape (no implicit broadcasting); the values " +
				"have one type, the result's. The value not chosen is not computed with: an Inf or NaN " +
				"there does not reach the result.",
			Example: "%3 = tensor.select %0, %1, %2 : tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>",
			Operands: []ir.ValueDef{{Name: "condition", Type: BoolTensor}, {Name: "true_value", Type: AnyTensor},
				{Name: "false_value", Type: AnyTensor}},
			Results:        []ir.ValueDef{{Name: "result", Type: AnyTensor}},
			Traits:         ir.TraitPure,
			Interfaces:     []any{ir.ElementwiseImpl{}},
			AssemblyFormat: "$condition `,` $true_value `,` $false_value attr-dict `:` type($condition) `,` type($true_value) `,` type($false_value) `->` type($result)",
		},
		infer: func(operands []ir.Type, _ attrLookup) (resultType, error) {
			if err := requireTensor(operands, 2); err != nil {
				return resultType{}, err
			}
			if operands[1] != operands[2] {
				return resultType{}, fmt.Errorf("values of types %s and %s: both have the result's type", typeStr(operands[1]), typeStr(operands[2]))
			}
			if !eval.SameShape(shapeOf(operands[0]), shapeOf(operands[1])) {
				return resultType{}, fmt.Errorf("a condition of type %s for values of type %s: they have one shape", typeStr(operands[0]), typeStr(operands[1]))
			}
			return tensorResult(shapeOf(operands[1]), elemOf(operands[1])), nil
		},
		evaluate: func(_ *ir.Operation, args []*eval.Array) (*eval.Array, error) {
			return eval.Select(args[0], args[1], args[2])
		},
		splat: splatElementwise,
		bound: boundOfSelect,
		fn:    func(*ir.Operation) eval.Function { return eval.Function{Select: true} },
	}
}

func convertSpec() *opSpec {
	return &opSpec{
		handle: &ConvertOp,
		def: &ir.OpDef{
			Name:    ConvertOpName,
			Summary: "Converts elements to another element type.",
			Description: "The result has the operand's shape and its own element type; each element is " +
				"rounded to nearest, ties to even, to a float type, and truncated toward zero and " +
				"wrapped to an integer type (to i1: 1 for any non-zero value; NaN and ±Inf become 0). " +
				"Converting to the same type folds away, and a chain " +
				"of two conversions whose middle type loses nothing folds into one.",
			Example:        "%1 = tensor.convert %0 : tensor<4x8xf32> -> tensor<4x8xf16>",
			Operands:       []ir.ValueDef{{Name: "input", Type: AnyTensor}},
			Results:        []ir.ValueDef{{Name: "result", Type: AnyTensor}},
			Traits:         ir.TraitPure,
			Interfaces:     []any{ir.ElementwiseImpl{}},
			AssemblyFormat: "$input attr-dict `:` type($input) `->` type($result)",
			Canonicalize:   []ir.RewritePattern{convertOfConvert},
		},
		check: func(op *ir.Operation) error {
			in, out := op.Operand(0).Type(), op.Result(0).Type()
			if !eval.SameShape(shapeOf(in), shapeOf(out)) {
				return fmt.Errorf("operand type %s and result type %s have different shapes", typeStr(in), typeStr(out))
			}
			return nil
		},
		evaluate: func(op *ir.Operation, args []*eval.Array) (*eval.Array, error) {
			k, _ := ElementKind(op.Result(0).Type())
			return eval.Convert(args[0], k)
		},
		fold: func(op *ir.Operation, _ []ir.Attribute) (ir.FoldResult, bool) {
			if sameShapeAndElement(op.Operand(0).Type(), op.Result(0).Type()) {
				return ir.FoldResult{Value: op.Operand(0)}, true
			}
			return ir.FoldResult{}, false
		},
		splat: splatElementwise,
		bound: boundOfConvert,
		fn:    func(*ir.Operation) eval.Function { return eval.Function{Convert: true} },
	}
}

// losslessWidening reports whether every value of kind from is exactly
// representable in kind to.
func losslessWidening(from, to elem.Type) bool {
	switch {
	case from == to:
		return true
	case to == elem.F64:
		return true
	case to == elem.F32:
		return from == elem.F16 || from == elem.BF16
	}
	return false
}
