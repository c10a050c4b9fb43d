package tensor

import (
	"fmt"

	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/ir"
)

// Strings are values of the reference interpreter only: models carry them
// at their edges (text normalised before tokenising, numbers printed or
// read), and no machine computes on them, so no lowering takes them (the
// tiled level finds no tile representation for !tensor.string and says
// so). The three ops that take or make strings say which ONNX operator
// they are.

// StringType is !tensor.string, the element type of string tensors.
type StringType struct{}

func (*StringType) Print(p *ir.AsmPrinter) { p.WriteString(eval.StringTypeName) }

// String returns the context's !tensor.string.
func String(ctx *ir.Context) *StringType { return ir.UniqueType(ctx, &StringType{}) }

var stringTypeDecl = &ir.TypeDecl{
	Mnemonic: "string",
	Summary:  "A string: the element type of tensors of text, which only the reference interpreter computes on.",
	Syntax:   "!tensor.string",
	Parse: func(ctx *ir.Context, body string) (ir.Type, error) {
		if body != "" {
			return nil, &ir.BodyError{Message: "!tensor.string takes no parameters"}
		}
		return String(ctx), nil
	},
}

// stringTensorShape returns the dims of a ranked tensor of strings.
func stringTensorShape(t ir.Type) ([]int64, bool) {
	rt, ok := t.(*ir.RankedTensorType)
	if !ok {
		return nil, false
	}
	if _, ok := rt.Elem.(*StringType); !ok {
		return nil, false
	}
	return rt.Dims, true
}

// IsStringTensor reports whether t is a ranked tensor of !tensor.string.
func IsStringTensor(t ir.Type) bool { _, ok := stringTensorShape(t); return ok }

// Type constraints of the string ops.
var (
	StaticStringTensor = ir.TypeConstraint{
		Desc: "statically shaped tensor of !tensor.string",
		Pred: func(t ir.Type) bool { d, ok := stringTensorShape(t); return ok && ir.NumElements(d) >= 0 },
	}
	// StringTensor may have dynamic dimensions: a StringNormalizer's
	// length is known only once its stop words are taken out.
	StringTensor = ir.TypeConstraint{
		Desc: "ranked tensor of !tensor.string",
		Pred: IsStringTensor,
	}
)

// MatchesStrings reports whether a is a string array of t's shape, a
// dynamic dimension matching any size: the one test of a string value
// against its type (evaluation, inputs, .npy files).
func MatchesStrings(a *eval.Array, t ir.Type) bool {
	dims, ok := stringTensorShape(t)
	if !ok || !a.IsStrings() || len(dims) != len(a.Shape) {
		return false
	}
	for i, d := range dims {
		if d != ir.Dynamic && int(d) != a.Shape[i] {
			return false
		}
	}
	return true
}

// boundOfStrings is the accuracy model of the string ops: only the
// reference computes them, so its value is the value (a number read from
// a string is the reference's too).
func boundOfStrings(_ *opSpec, _ *ir.Operation, _, _ []*eval.Array, result *eval.Array) (*eval.Array, error) {
	return zeros(result.Shape), nil
}

// Attributes of tensor.string_normalize.
const (
	CaseChangeAttr    = "case_change_action"
	CaseSensitiveAttr = "is_case_sensitive"
	StopwordsAttr     = "stopwords"
)

var (
	StringNormalizeOp, StringFormatOp, StringParseOp *ir.OpDef
)

const (
	StringNormalizeOpName = Name + ".string_normalize"
	StringFormatOpName    = Name + ".string_format"
	StringParseOpName     = Name + ".string_parse"
)

func stringSpecs() []*opSpec {
	return []*opSpec{stringNormalizeSpec(), stringFormatSpec(), stringParseSpec()}
}

// normalizerOf reads the op's attributes.
func normalizerOf(op *ir.Operation) (eval.StringNormalizer, error) {
	n := eval.StringNormalizer{Case: "NONE", CaseSensitive: op.Attr(CaseSensitiveAttr) != nil}
	if a, ok := op.Attr(CaseChangeAttr).(*ir.StringAttr); ok {
		n.Case = a.Val
	}
	switch n.Case {
	case "LOWER", "UPPER", "NONE":
	default:
		return n, fmt.Errorf("%s is %q; it is LOWER, UPPER or NONE", CaseChangeAttr, n.Case)
	}
	if a, ok := op.Attr(StopwordsAttr).(*ir.ArrayAttr); ok {
		for i, e := range a.Elems {
			s, ok := e.(*ir.StringAttr)
			if !ok {
				return n, fmt.Errorf("%s #%d is %s, not a string", StopwordsAttr, i, ir.AttrString(e))
			}
			n.Stopwords = append(n.Stopwords, s.Val)
		}
	}
	return n, nil
}

func stringNormalizeSpec() *opSpec {
	return &opSpec{
		handle: &StringNormalizeOp,
		def: &ir.OpDef{
			Name:    StringNormalizeOpName,
			Summary: "Drops stop words from a row of strings and changes their case (ONNX StringNormalizer).",
			Description: "The operand is [C] or [1, C]. Each string equal to a stop word (case-folded first " +
				"unless `is_case_sensitive`) is dropped, and the rest are lower- or upper-cased " +
				"(`case_change_action`: LOWER, UPPER or NONE, the default). The result has the operand's " +
				"rank; its length is known only from the data, so it is `?` or the length the data gives. " +
				"When no string is left the result is one empty string, as ONNX specifies.",
			Example:  `%1 = tensor.string_normalize %0 {case_change_action = "LOWER", stopwords = ["monday"]} : tensor<4x!tensor.string> -> tensor<?x!tensor.string>`,
			Operands: []ir.ValueDef{{Name: "input", Type: StaticStringTensor}},
			Results:  []ir.ValueDef{{Name: "result", Type: StringTensor}},
			Attributes: []ir.AttrDef{
				{Name: CaseChangeAttr, Kind: ir.StringAttrKind, Optional: true, Doc: "LOWER, UPPER or NONE (the default)"},
				{Name: CaseSensitiveAttr, Kind: ir.UnitAttrKind, Optional: true, Doc: "stop words match exactly, not case-folded"},
				{Name: StopwordsAttr, Kind: ir.ArrayAttrKind, Optional: true, Doc: "the strings to drop"},
			},
			Traits:         ir.TraitPure,
			AssemblyFormat: "$input attr-dict `:` type($input) `->` type($result)",
		},
		check: func(op *ir.Operation) error {
			if _, err := normalizerOf(op); err != nil {
				return err
			}
			in, _ := stringTensorShape(op.Operand(0).Type())
			out, _ := stringTensorShape(op.Result(0).Type())
			if len(in) != 1 && (len(in) != 2 || in[0] != 1) {
				return fmt.Errorf("operand of type %s: it is [C] or [1, C]", typeStr(op.Operand(0).Type()))
			}
			if len(out) != len(in) || (len(in) == 2 && out[0] != 1) {
				return fmt.Errorf("result of type %s for an operand of type %s: it has the operand's rank and one row", typeStr(op.Result(0).Type()), typeStr(op.Operand(0).Type()))
			}
			return nil
		},
		evaluate: func(op *ir.Operation, args []*eval.Array) (*eval.Array, error) {
			n, err := normalizerOf(op)
			if err != nil {
				return nil, err
			}
			return n.Apply(args[0])
		},
		bound: boundOfStrings,
	}
}

// sameStaticShape checks that a string op's operand and result have one
// static shape.
func sameStaticShape(op *ir.Operation) error {
	in, out := op.Operand(0).Type(), op.Result(0).Type()
	if !eval.SameShape(shapeOf(in), shapeOf(out)) {
		return fmt.Errorf("operand type %s and result type %s have different shapes", typeStr(in), typeStr(out))
	}
	return nil
}

func stringFormatSpec() *opSpec {
	return &opSpec{
		handle: &StringFormatOp,
		def: &ir.OpDef{
			Name:    StringFormatOpName,
			Summary: "Writes numbers as strings (ONNX Cast to STRING).",
			Description: "Integers in decimal; floats in the shortest form that reads back as the same value " +
				"of their type (f16 and bf16 as f32); NaN, INF and -INF as ONNX spells them.",
			Example:        "%1 = tensor.string_format %0 : tensor<3x4xf32> -> tensor<3x4x!tensor.string>",
			Operands:       []ir.ValueDef{{Name: "input", Type: AnyTensor}},
			Results:        []ir.ValueDef{{Name: "result", Type: StaticStringTensor}},
			Traits:         ir.TraitPure,
			AssemblyFormat: "$input attr-dict `:` type($input) `->` type($result)",
		},
		check: sameStaticShape,
		evaluate: func(_ *ir.Operation, args []*eval.Array) (*eval.Array, error) {
			return eval.FormatNumbers(args[0])
		},
		bound: boundOfStrings,
	}
}

func stringParseSpec() *opSpec {
	return &opSpec{
		handle: &StringParseOp,
		def: &ir.OpDef{
			Name:    StringParseOpName,
			Summary: "Reads numbers from strings (ONNX Cast from STRING).",
			Description: "Each string is a decimal or scientific number, or NaN, INF or -INF in any case, " +
				"rounded to the result's element type (integers truncated toward zero); a string that " +
				"is no number is an error naming it.",
			Example:        "%1 = tensor.string_parse %0 : tensor<3x4x!tensor.string> -> tensor<3x4xf32>",
			Operands:       []ir.ValueDef{{Name: "input", Type: StaticStringTensor}},
			Results:        []ir.ValueDef{{Name: "result", Type: AnyTensor}},
			Traits:         ir.TraitPure,
			AssemblyFormat: "$input attr-dict `:` type($input) `->` type($result)",
		},
		check: sameStaticShape,
		evaluate: func(op *ir.Operation, args []*eval.Array) (*eval.Array, error) {
			k, ok := ElementKind(op.Result(0).Type())
			if !ok {
				return nil, fmt.Errorf("result type %s", typeStr(op.Result(0).Type()))
			}
			return eval.ParseNumbers(args[0], k)
		},
		bound: boundOfStrings,
	}
}
