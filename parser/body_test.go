package parser_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
)

// A dialect whose type and attribute hooks read their bodies with
// parser.BodyParser, as our dialects do.

type pairType struct{ A, B ir.Type }

func (t *pairType) Print(p *ir.AsmPrinter) {
	p.WriteString("!tdl.pair<")
	p.PrintType(t.A)
	p.WriteString(", ")
	p.PrintType(t.B)
	p.WriteByte('>')
}

type rangeAttr struct {
	Lo, Hi int64
	Typ    ir.Type
}

func (a *rangeAttr) Print(p *ir.AsmPrinter) {
	p.WriteString(fmt.Sprintf("#tdl.range<%d, %d>", a.Lo, a.Hi))
	if a.Typ != nil {
		p.WriteString(" : ")
		p.PrintType(a.Typ)
	}
}

func testDialect() *ir.Dialect {
	return &ir.Dialect{
		Name: "tdl",
		ParseType: func(ctx *ir.Context, body string) (ir.Type, error) {
			b := parser.NewBodyParser(ctx, body)
			if err := b.ParseKeyword("pair"); err != nil {
				return nil, err
			}
			if err := b.ParsePunct("<"); err != nil {
				return nil, err
			}
			x, err := b.ParseType()
			if err != nil {
				return nil, err
			}
			if err := b.ParsePunct(","); err != nil {
				return nil, err
			}
			y, err := b.ParseType()
			if err != nil {
				return nil, err
			}
			if err := b.ParsePunct(">"); err != nil {
				return nil, err
			}
			if err := b.ExpectEnd(); err != nil {
				return nil, err
			}
			return ir.UniqueType(ctx, &pairType{x, y}), nil
		},
		ParseAttr: func(ctx *ir.Context, body string, typ ir.Type) (ir.Attribute, error) {
			b := parser.NewBodyParser(ctx, body)
			if !strings.HasPrefix(body, "range") {
				return nil, b.Errorf("unknown attribute %q", body)
			}
			b.ParseKeyword("range")
			if err := b.ParsePunct("<"); err != nil {
				return nil, err
			}
			lo, err := b.ParseInteger()
			if err != nil {
				return nil, err
			}
			if err := b.ParsePunct(","); err != nil {
				return nil, err
			}
			hi, err := b.ParseInteger()
			if err != nil {
				return nil, err
			}
			if hi < lo {
				return nil, b.Errorf("empty range")
			}
			if err := b.ParsePunct(">"); err != nil {
				return nil, err
			}
			return ir.UniqueAttr(ctx, &rangeAttr{lo, hi, typ}), b.ExpectEnd()
		},
	}
}

func TestDialectHooksWithBodyParser(t *testing.T) {
	ctx := newTestContext(t, false)
	ctx.MustRegisterDialect(testDialect())
	ctx.AllowUnregisteredDialects = true
	m := parseOK(t, ctx, `!t = tensor<2xi8>
"x.a"() {r = #tdl.range<-3, 4> : i32, s = #tdl.range<1, 1>} : () -> (!tdl.pair<!t, f32>, !tdl.pair<i1, !tdl.pair<i8, i8>>)
`, parser.Config{})
	op := ops(m)[0]
	pt, ok := op.Result(0).Type().(*pairType)
	if !ok || ir.TypeString(pt.A) != "tensor<2xi8>" || pt.B != ctx.F32() {
		t.Errorf("pair type %v (alias in the body must resolve)", op.Result(0).Type())
	}
	if _, ok := op.Result(1).Type().(*pairType).B.(*pairType); !ok {
		t.Errorf("nested dialect type not parsed by the hook")
	}
	r := op.Attr("r").(*rangeAttr)
	if r.Lo != -3 || r.Hi != 4 || r.Typ != ctx.I(32) {
		t.Errorf("range %+v", r)
	}
}

// Like MLIR's dialect parsers, body parsers report "expected" errors at
// the end of the previous line when the offending token starts a line.
func TestBodyErrorsPointIntoTheFile(t *testing.T) {
	ctx := newTestContext(t, true)
	ctx.MustRegisterDialect(testDialect())
	cases := map[string]string{
		"\"x.a\"() : () -> !tdl.pair<i32 f32>":                "1:31: expected ','",
		"\"x.a\"() : () -> !tdl.pair<i32,\n  foo>":            "1:31: expected non-function type",
		"\"x.a\"() {r = #tdl.range<5, 1>} : () -> ()":         "1:29: empty range",
		"\"x.a\"() {r = #tdl.other} : () -> ()":               "1:19: unknown attribute \"other\"",
		"\"x.a\"() {r = #tdl<range<1, 2>>} : () -> ()":        "1:18: unknown attribute \"<range<1, 2>>\"",
		"\"x.a\"() {r = #tdl.range<1, 99999999999999999999>}": "1:28: integer value too large",
	}
	for src, want := range cases {
		_, err := parser.ParseSourceString(ctx, []byte(src+"\n"), parser.Config{Filename: "b.mlir"})
		if err == nil {
			t.Errorf("%q parsed", src)
			continue
		}
		if got := diagLine(t, err); got != want {
			t.Errorf("%q: %s, want %s", src, got, want)
		}
	}
}

func TestBodyParserOnItsOwn(t *testing.T) {
	ctx := ir.NewContext()
	b := parser.NewBodyParser(ctx, `foo<"s", -2.5, 7, [1, 2], tensor<2xf32>> -> x`)
	kw, _ := b.ParseKeywordAny()
	b.ParsePunct("<")
	s, _ := b.ParseString()
	b.ParsePunct(",")
	f, _ := b.ParseFloat()
	b.ParsePunct(",")
	i, _ := b.ParseInteger()
	b.ParsePunct(",")
	a, _ := b.ParseAttribute(nil)
	b.ParsePunct(",")
	ty, _ := b.ParseType()
	b.ParsePunct(">")
	if kw != "foo" || s != "s" || f != -2.5 || i != 7 || ir.AttrString(a) != "[1, 2]" || ir.TypeString(ty) != "tensor<2xf32>" {
		t.Errorf("read %q %q %v %v %v %v", kw, s, f, i, a, ty)
	}
	if !b.ParseOptionalPunct("->") || b.ParseOptionalKeyword("y") || !b.ParseOptionalKeyword("x") || !b.AtEnd() {
		t.Errorf("optional items misread")
	}
	if err := parser.NewBodyParser(ctx, "a b").ExpectEnd(); err == nil {
		t.Errorf("ExpectEnd accepted trailing text")
	}
}
