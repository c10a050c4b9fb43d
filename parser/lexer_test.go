package parser

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/ir"
)

// lexAll renders the tokens of src as "kind:text" (or "error@line:col:msg").
func lexAll(src string) string {
	l := NewLexer([]byte(src))
	var out []string
	for {
		t := l.Token()
		switch t.Kind {
		case EOF:
			return strings.Join(out, " ")
		case Error:
			msg, et := l.Err()
			return strings.Join(append(out, fmt.Sprintf("error@%d:%d:%s", et.Line, et.Col, msg)), " ")
		}
		out = append(out, fmt.Sprintf("%s:%s", t.Kind, l.Text(t)))
		l.Next()
	}
}

func TestLexer(t *testing.T) {
	cases := []struct{ src, want string }{
		{`%0:2 = "d.op"(%a, %b#1)`, `%-identifier:%0 ::: integer:2 =:= string:"d.op" (:( %-identifier:%a ,:, %-identifier:%b #-identifier:#1 ):)`},
		{`tensor<4x?xf32>`, `identifier:tensor <:< integer:4 identifier:x ?:? identifier:xf32 >:>`},
		{`0xi32 0x1F 0x`, `integer:0 identifier:xi32 integer:0x1F integer:0 identifier:x`},
		{`1.5 1. 1.e5 1.5e-3 1e5 2.0E+7`, `float:1.5 float:1. float:1.e5 float:1.5e-3 integer:1 identifier:e5 float:2.0E+7`},
		{`-> - -1 {-# #-} ...`, `->:-> -:- -:- integer:1 {-#:{-# #-}:#-} ...:...`},
		{`@a @"b c" @_x.y$`, `@-identifier:@a @-identifier:@"b c" @-identifier:@_x.y$`},
		{`%-x %$y.z ^bb-1 ^7 %13x #1 !foo.bar`, `%-identifier:%-x %-identifier:%$y.z ^-identifier:^bb-1 ^-identifier:^7 %-identifier:%13 identifier:x #-identifier:#1 !-identifier:!foo.bar`},
		{"a // comment\n b // c\r d", `identifier:a identifier:b identifier:d`},
		{"\"a\\n\\t\\\"\\\\\\41\"", `string:"a\n\t\"\\\41"`},
		{"\"tab\there\"", "string:\"tab\there\""},
		{"a\x00b", `identifier:a identifier:b`},
		{"\"abc\n\"", `error@1:5:expected '"' in string literal`},
		{`"a\qb"`, `error@1:3:unknown escape in string literal`},
		{`"abc`, `error@1:5:expected '"' in string literal`},
		{`x $`, `identifier:x error@1:3:unexpected character`},
		{`x / y`, `identifier:x error@1:3:unexpected character`},
		{`.5`, `error@1:2:expected three consecutive dots for an ellipsis`},
		{`% x`, `error@1:1:invalid SSA name`},
		{`@1`, `error@1:2:@ identifier expected to start with letter or '_'`},
		{"é", `error@1:1:unexpected character`},
	}
	for _, c := range cases {
		if got := lexAll(c.src); got != c.want {
			t.Errorf("lex(%q):\n got  %s\n want %s", c.src, got, c.want)
		}
	}
}

func TestLexerPositions(t *testing.T) {
	l := NewLexer([]byte("a\n  b // x\n\tc"))
	var got []string
	for l.Token().Kind != EOF {
		t := l.Token()
		got = append(got, fmt.Sprintf("%s@%d:%d", l.Text(t), t.Line, t.Col))
		l.Next()
	}
	if want := "a@1:1 b@2:3 c@3:2"; strings.Join(got, " ") != want {
		t.Errorf("got %v, want %s", got, want)
	}
}

func TestLexerResetSplitsTokens(t *testing.T) {
	l := NewLexer([]byte("x4xf32>\n y"))
	l.ResetTo(1) // after the 'x'
	if tok := l.Token(); l.Text(tok) != "4" || tok.Col != 2 {
		t.Fatalf("after reset: %q at col %d", l.Text(tok), tok.Col)
	}
	l.Next()
	l.ResetTo(l.Token().Start + 1)
	if tok := l.Token(); l.Text(tok) != "f32" {
		t.Fatalf("after second reset: %q", l.Text(tok))
	}
	l.ResetTo(9) // across the newline
	if tok := l.Token(); l.Text(tok) != "y" || tok.Line != 2 || tok.Col != 2 {
		t.Fatalf("after reset past a newline: %q at %d:%d", l.Text(tok), tok.Line, tok.Col)
	}
}

func TestDecodeString(t *testing.T) {
	cases := map[string]string{
		`"plain"`:         "plain",
		`"a\nb\tc\"d\\e"`: "a\nb\tc\"d\\e",
		`"\41\42\0a\FF"`:  "AB\n\xff",
		"\"raw\ttab\"":    "raw\ttab",
		`""`:              "",
		`"\\\\"`:          `\\`,
		`"utf8 \C3\A9 é"`: "utf8 é é",
	}
	for in, want := range cases {
		if got := decodeString([]byte(in)); got != want {
			t.Errorf("decodeString(%s) = %q, want %q", in, got, want)
		}
	}
}

// A long comment costs no memory beyond the source: the parser allocates
// for the ops, not for the 16 MB it skips (a 1 GB comment once took four
// times its size).
func TestLongCommentAllocatesNothingForIt(t *testing.T) {
	src := []byte("// " + strings.Repeat("x", 16<<20) + "\n\"t.op\"() : () -> ()\n")
	ctx := ir.NewContext()
	ctx.AllowUnregisteredDialects = true
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := ParseSourceString(ctx, src, Config{Filename: "c.mlir"}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 256<<10 {
		t.Fatalf("parsing allocated %d bytes for a 16 MB comment and one op", n)
	}
}
