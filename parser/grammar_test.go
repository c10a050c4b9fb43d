package parser_test

import (
	"strings"
	"testing"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
)

// A dialect type declared as a participle grammar with builtin leaves:
// !gdl.buf<name, tensor<4xf32>, [1, 2] : attr>.

type bufBody struct {
	Name  string          `parser:"'<' @Ident ','"`
	Type  *parser.TypeRef `parser:"@@"`
	Attrs []*bufAttr      `parser:"( ',' @@ )* '>'"`
}

type bufAttr struct {
	Value *parser.AttrRef `parser:"@@"`
	Label string          `parser:"( ':' @Ident )?"`
}

var bufGrammar = parser.MustGrammar[bufBody]()

type bufType struct {
	Name  string
	Elem  ir.Type
	Attrs []ir.Attribute
}

func (t *bufType) Print(p *ir.AsmPrinter) {
	p.WriteString("!gdl.buf<" + t.Name + ", ")
	p.PrintType(t.Elem)
	for _, a := range t.Attrs {
		p.WriteString(", ")
		p.PrintAttr(a)
	}
	p.WriteByte('>')
}

func grammarDialect() *ir.Dialect {
	return &ir.Dialect{
		Name: "gdl",
		Types: []*ir.TypeDecl{{Mnemonic: "buf", Summary: "A named buffer.", Parse: func(ctx *ir.Context, body string) (ir.Type, error) {
			b, err := bufGrammar.Parse(ctx, body)
			if err != nil {
				return nil, err
			}
			t := &bufType{Name: b.Name, Elem: b.Type.Type}
			for _, a := range b.Attrs {
				t.Attrs = append(t.Attrs, a.Value.Attr)
			}
			return ir.UniqueType(ctx, t), nil
		}}},
	}
}

func TestGrammarWithBuiltinLeaves(t *testing.T) {
	ctx := newTestContext(t, true)
	ctx.MustRegisterDialect(grammarDialect())
	m := parseOK(t, ctx, `!e = tensor<4x?xf32>
#a = [1, 2]
"x.a"() : () -> !gdl.buf<weights, !e, #a : lbl, dense<1.0> : tensor<2xf16>, @sym::@x, (i32) -> i64>
`, parser.Config{})
	bt, ok := ops(m)[0].Result(0).Type().(*bufType)
	if !ok {
		t.Fatalf("type %T", ops(m)[0].Result(0).Type())
	}
	if bt.Name != "weights" || ir.TypeString(bt.Elem) != "tensor<4x?xf32>" || len(bt.Attrs) != 4 {
		t.Fatalf("parsed %+v", bt)
	}
	want := []string{"[1, 2]", "dense<1.000000e+00> : tensor<2xf16>", "@sym::@x", "(i32) -> i64"}
	for i, a := range bt.Attrs {
		if ir.AttrString(a) != want[i] {
			t.Errorf("attr %d: %s, want %s", i, ir.AttrString(a), want[i])
		}
	}
}

func TestGrammarErrorsPointIntoTheFile(t *testing.T) {
	ctx := newTestContext(t, true)
	ctx.MustRegisterDialect(grammarDialect())
	cases := map[string]string{
		`"x.a"() : () -> !gdl.buf<w, tensor<4xf32 x>>`: "1:41: expected '>' in tensor type",
		`"x.a"() : () -> !gdl.buf<w, i32, 1 2>`:        "1:36: unexpected token \"2\" (expected \">\")",
		`"x.a"() : () -> !gdl.buf<w, i32, #undefined>`: "1:44: undefined symbol alias id 'undefined'",
		`"x.a"() : () -> !gdl.other<w, i32>`:           "1:22: unknown type !gdl.other (known: buf)",
		// Nesting past the parser's bound is an error at the bracket that
		// crosses it, never a stack overflow in participle.
		`"x.a"() : () -> !gdl.buf<w, i32, ` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `>`: "1:545: nesting of regions, attributes or types is deeper than 512 levels",
	}
	for src, want := range cases {
		_, err := parser.ParseSourceString(ctx, []byte(src+"\n"), parser.Config{Filename: "g.mlir"})
		if err == nil {
			t.Errorf("%q parsed", src)
			continue
		}
		if got := diagLine(t, err); got != want {
			t.Errorf("%q: %s, want %s", src, got, want)
		}
	}
}
