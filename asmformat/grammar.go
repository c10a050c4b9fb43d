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

// A directive either takes arguments (a name the grammar lists, so that
// `attr-dict (...)?` reads as a directive followed by a group) or is a
// bare word (attr-dict, operands, ...; unknown words are reported when
// compiling).
type syntaxDirective struct {
	Pos    lexer.Position
	Name   string       `parser:"( @('type' | 'functional-type' | 'qualified' | 'ref' | 'custom')"`
	Custom string       `parser:"  ( '<' @Ident '>' )?"`
	Args   []*syntaxArg `parser:"  '(' ( @@ ( ',' @@ )* )? ')'"`
	Bare   string       `parser:"| @Ident )"`
	Anchor bool         `parser:"@'^'?"`
}

// name is the directive's word, with or without arguments.
func (d *syntaxDirective) name() string {
	if d.Name != "" {
		return d.Name
	}
	return d.Bare
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
