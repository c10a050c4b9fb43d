package asmformat

import (
	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// The syntax tree of a format string, as participle reads it. It says
// nothing about meaning; compile.go turns it into elements.

type syntaxFormat struct {
	Elems []*syntaxElem `parser:"@@*"`
}

type syntaxElem struct {
	Pos     lexer.Position
	Literal *string          `parser:"(  @Literal"`
	Var     *syntaxVar       `parser:"| @@"`
	Group   *syntaxGroup     `parser:"| @@"`
	Dir     *syntaxDirective `parser:"| @@ )"`
}

type syntaxVar struct {
	Name   string `parser:"@Var"`
	Anchor bool   `parser:"@'^'?"`
}

type syntaxGroup struct {
	Then     []*syntaxElem `parser:"'(' @@+ ')'"`
	Else     []*syntaxElem `parser:"( ':' '(' @@+ ')' )?"`
	Optional bool          `parser:"@'?'?"`
}

type syntaxDirective struct {
	Pos    lexer.Position
	Name   string       `parser:"@Ident"`
	Custom string       `parser:"( '<' @Ident '>' )?"`
	Args   []*syntaxArg `parser:"( '(' ( @@ ( ',' @@ )* )? ')' )?"`
	Anchor bool         `parser:"@'^'?"`
}

type syntaxArg struct {
	Pos lexer.Position
	Var *string          `parser:"@Var"`
	Dir *syntaxDirective `parser:"| @@"`
}

var formatLexer = lexer.MustSimple([]lexer.SimpleRule{
	{Name: "Literal", Pattern: "`[^`]*`"},
	{Name: "Var", Pattern: `\$[A-Za-z_][A-Za-z0-9_]*`},
	{Name: "Ident", Pattern: `[A-Za-z_][A-Za-z0-9_-]*`},
	{Name: "Punct", Pattern: `[()?^,<>:]`},
	{Name: "Whitespace", Pattern: `\s+`},
})

var formatParser = participle.MustBuild[syntaxFormat](
	participle.Lexer(formatLexer),
	participle.Elide("Whitespace"),
)
