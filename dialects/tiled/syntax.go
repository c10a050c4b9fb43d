package tiled

import (
	"errors"
	"fmt"
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// The grammar of every #tiled.* attribute body. It is deliberately generic —
// a mnemonic with a list of `key = value` items, whose values are integers,
// words with optional `<...>` arguments, `[...]` lists or `{...}` records —
// and the attribute constructors below give it meaning, so that an error
// names the field at fault ("axes[1]: unknown field 'stride'") instead of a
// token the grammar did not expect.
//
//	body   := Ident ( '<' items '>' )?
//	items  := ( item ( ',' item )* )?
//	item   := ( Ident '=' )? value
//	value  := Int | Ident ( '<' items '>' )? | '[' ( value ( ',' value )* )? ']' | '{' items '}'

type syntaxBody struct {
	Mnemonic string      `parser:"@Ident"`
	Args     *syntaxArgs `parser:"( '<' @@ '>' )?"`
}

type syntaxArgs struct {
	Items []*syntaxItem `parser:"( @@ ( ',' @@ )* )?"`
}

type syntaxItem struct {
	Pos   lexer.Position
	Key   string       `parser:"( @Ident '=' )?"`
	Value *syntaxValue `parser:"@@"`
}

type syntaxValue struct {
	Pos    lexer.Position
	Int    *int64      `parser:"  @Int"`
	Word   *syntaxWord `parser:"| @@"`
	List   *syntaxList `parser:"| '[' @@ ']'"`
	Record *syntaxArgs `parser:"| '{' @@ '}'"`
}

type syntaxList struct {
	Elems []*syntaxValue `parser:"( @@ ( ',' @@ )* )?"`
}

type syntaxWord struct {
	Name string      `parser:"@Ident"`
	Args *syntaxArgs `parser:"( '<' @@ '>' )?"`
}

var attrLexer = lexer.MustSimple([]lexer.SimpleRule{
	{Name: "Ident", Pattern: `[A-Za-z_][A-Za-z0-9_$]*`},
	{Name: "Int", Pattern: `-?[0-9]+`},
	{Name: "Punct", Pattern: `[<>\[\]{}=,]`},
	{Name: "Space", Pattern: `\s+`},
})

var attrParser = participle.MustBuild[syntaxBody](
	participle.Lexer(attrLexer),
	participle.Elide("Space"),
	participle.UseLookahead(2),
)

// parseBody parses an attribute body as the core parser hands it over:
// `layout<...>` or `.layout<...>` (the text after `#tiled`).
func parseBody(body string) (*syntaxBody, error) {
	text := strings.TrimPrefix(body, ".")
	tree, err := attrParser.ParseString("", text)
	if err != nil {
		var perr participle.Error
		if errors.As(err, &perr) {
			msg := grammarNames.Replace(perr.Message())
			return nil, fmt.Errorf("at column %d of #tiled.%s: %s", perr.Position().Column, firstWord(text), msg)
		}
		return nil, err
	}
	return tree, nil
}

// grammarNames turns the grammar's node names in participle's messages into
// words a user knows.
var grammarNames = strings.NewReplacer("SyntaxValue", "a value", "SyntaxItem", "a field", "SyntaxWord", "a name",
	"SyntaxArgs", "fields", "SyntaxList", "list elements", "SyntaxBody", "an attribute")

func firstWord(s string) string {
	end := strings.IndexFunc(s, func(r rune) bool { return r == '<' || r == ' ' })
	if end < 0 {
		return s
	}
	return s[:end]
}

// fieldSet is the items of one `<...>` or `{...}`: named fields, each used
// at most once; done reports the ones nobody asked for.
type fieldSet struct {
	what  string // for messages: "#tiled.layout", "axes[1]"
	items map[string]*syntaxItem
	order []string
	used  map[string]bool
}

func newFieldSet(what string, args *syntaxArgs) (*fieldSet, error) {
	f := &fieldSet{what: what, items: map[string]*syntaxItem{}, used: map[string]bool{}}
	if args == nil {
		return f, nil
	}
	for _, it := range args.Items {
		if it.Key == "" {
			return nil, fmt.Errorf("%s: expected `name = value`, got a bare %s", what, describeValue(it.Value))
		}
		if _, dup := f.items[it.Key]; dup {
			return nil, fmt.Errorf("%s: field '%s' given twice", what, it.Key)
		}
		f.items[it.Key] = it
		f.order = append(f.order, it.Key)
	}
	return f, nil
}

func describeValue(v *syntaxValue) string {
	switch {
	case v.Int != nil:
		return fmt.Sprintf("integer %d", *v.Int)
	case v.Word != nil:
		return fmt.Sprintf("word '%s'", v.Word.Name)
	case v.Record != nil:
		return "record"
	}
	return "list"
}

func (f *fieldSet) has(name string) bool { _, ok := f.items[name]; return ok }

func (f *fieldSet) take(name string) *syntaxValue {
	it, ok := f.items[name]
	if !ok {
		return nil
	}
	f.used[name] = true
	return it.Value
}

// int returns an integer field; def when absent unless required.
func (f *fieldSet) int(name string, def int64, required bool) (int64, error) {
	v := f.take(name)
	if v == nil {
		if required {
			return 0, fmt.Errorf("%s: missing field '%s'", f.what, name)
		}
		return def, nil
	}
	if v.Int == nil {
		return 0, fmt.Errorf("%s: field '%s' must be an integer, got %s", f.what, name, describeValue(v))
	}
	return *v.Int, nil
}

// positive is int for fields that must be at least 1.
func (f *fieldSet) positive(name string, def int64, required bool) (int64, error) {
	n, err := f.int(name, def, required)
	if err == nil && n < 1 {
		err = fmt.Errorf("%s: field '%s' must be at least 1, got %d", f.what, name, n)
	}
	return n, err
}

// word returns a bare word field (no arguments), one of allowed if given.
func (f *fieldSet) word(name string, required bool, allowed ...string) (string, error) {
	v := f.take(name)
	if v == nil {
		if required {
			return "", fmt.Errorf("%s: missing field '%s'", f.what, name)
		}
		return "", nil
	}
	if v.Word == nil || v.Word.Args != nil {
		return "", fmt.Errorf("%s: field '%s' must be a name, got %s", f.what, name, describeValue(v))
	}
	if len(allowed) > 0 && !contains(allowed, v.Word.Name) {
		return "", fmt.Errorf("%s: field '%s' must be one of %s, got '%s'", f.what, name, strings.Join(allowed, ", "), v.Word.Name)
	}
	return v.Word.Name, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// done fails on fields that were given but not understood.
func (f *fieldSet) done(known ...string) error {
	for _, name := range f.order {
		if !f.used[name] {
			if len(known) > 0 {
				return fmt.Errorf("%s: unknown field '%s' (fields: %s)", f.what, name, strings.Join(known, ", "))
			}
			return fmt.Errorf("%s: unknown field '%s'", f.what, name)
		}
	}
	return nil
}
