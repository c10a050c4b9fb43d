package tiled

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
)

// The grammar of every #tiled.* attribute body. It is deliberately generic —
// a list of `key = value` items after the mnemonic, whose values are integers,
// words with optional `<...>` arguments, `[...]` lists or `{...}` records —
// and the attribute constructors below give it meaning, so that an error
// names the field at fault ("axes[1]: unknown field 'stride'") instead of a
// token the grammar did not expect.
//
//	body   := ( '<' items '>' )?
//	items  := ( item ( ',' item )* )?
//	item   := ( Ident '=' )? value
//	value  := '-'? Int | Ident ( '<' items '>' )? | '[' ( value ( ',' value )* )? ']' | '{' items '}'

type syntaxBody struct {
	Args *syntaxArgs `parser:"( '<' @@ '>' )?"`
}

type syntaxArgs struct {
	Pos   lexer.Position
	Items []*syntaxItem `parser:"( @@ ( ',' @@ )* )?"`
}

type syntaxItem struct {
	Pos   lexer.Position
	Key   string       `parser:"( @Ident '=' )?"`
	Value *syntaxValue `parser:"@@"`
}

type syntaxValue struct {
	Pos    lexer.Position
	Int    *syntaxInt  `parser:"  @@"`
	Word   *syntaxWord `parser:"| @@"`
	List   *syntaxList `parser:"| '[' @@ ']'"`
	Record *syntaxArgs `parser:"| '{' @@ '}'"`
}

// syntaxInt is an integer as MLIR's lexer tokenises it: an optional minus
// sign, then the digits.
type syntaxInt struct {
	Neg    bool   `parser:"@'-'?"`
	Digits string `parser:"@Int"`
}

type syntaxList struct {
	Elems []*syntaxValue `parser:"( @@ ( ',' @@ )* )?"`
}

type syntaxWord struct {
	Name string      `parser:"@Ident"`
	Args *syntaxArgs `parser:"( '<' @@ '>' )?"`
}

// bodyGrammar reads every #tiled.* body through the parser's shared path
// for participle grammars: MLIR's tokens, positions that point into the
// file, and the parser's nesting bound.
var bodyGrammar = parser.MustGrammar[syntaxBody](participle.UseLookahead(2))

// parseBody parses the text after an attribute's mnemonic: `<...>` or
// nothing; what names the attribute in messages ("#tiled.layout"). Errors
// are *ir.BodyError values at the offending token.
func parseBody(ctx *ir.Context, what, body string) (*syntaxBody, error) {
	tree, err := bodyGrammar.Parse(ctx, body)
	if err != nil {
		if be, ok := err.(*ir.BodyError); ok {
			return nil, &ir.BodyError{Offset: be.Offset, Message: what + ": " + grammarNames.Replace(be.Message)}
		}
		return nil, err
	}
	return tree, nil
}

// grammarNames turns the grammar's node names in participle's messages into
// words a user knows.
var grammarNames = strings.NewReplacer("(expected <int>)", "(expected a value)", "SyntaxValue", "a value", "SyntaxItem", "a field", "SyntaxWord", "a name",
	"SyntaxArgs", "fields", "SyntaxList", "list elements", "SyntaxBody", "an attribute", "SyntaxInt", "an integer")

// errAt makes an error located at pos, the place of a field or value.
func errAt(pos lexer.Position, format string, args ...any) error {
	return &ir.BodyError{Offset: pos.Offset, Message: fmt.Sprintf(format, args...)}
}

// value returns the integer's value; one that does not fit an int64 is an
// error at its place.
func (n *syntaxInt) value(pos lexer.Position) (int64, error) {
	text := n.Digits
	if n.Neg {
		text = "-" + text
	}
	v, err := strconv.ParseInt(text, 0, 64)
	if err != nil {
		return 0, errAt(pos, "integer %s does not fit in 64 bits", text)
	}
	return v, nil
}

// fieldSet is the items of one `<...>` or `{...}`: named fields, each used
// at most once; done reports the ones nobody asked for. Every error points
// at the field or value at fault, or at the record for a missing field.
type fieldSet struct {
	what  string         // for messages: "#tiled.layout", "axes[1]"
	pos   lexer.Position // the record's place
	items map[string]*syntaxItem
	order []string
	used  map[string]bool
}

// newFieldSet reads the items of args; pos is where the record starts (its
// opening bracket), for records written without one.
func newFieldSet(what string, pos lexer.Position, args *syntaxArgs) (*fieldSet, error) {
	f := &fieldSet{what: what, pos: pos, items: map[string]*syntaxItem{}, used: map[string]bool{}}
	if args == nil {
		return f, nil
	}
	if len(args.Items) > 0 {
		f.pos = args.Pos
	}
	for _, it := range args.Items {
		if it.Key == "" {
			return nil, errAt(it.Pos, "%s: expected `name = value`, got a bare %s", what, describeValue(it.Value))
		}
		if _, dup := f.items[it.Key]; dup {
			return nil, errAt(it.Pos, "%s: field '%s' given twice", what, it.Key)
		}
		f.items[it.Key] = it
		f.order = append(f.order, it.Key)
	}
	return f, nil
}

func describeValue(v *syntaxValue) string {
	switch {
	case v.Int != nil:
		if n, err := v.Int.value(v.Pos); err == nil {
			return fmt.Sprintf("integer %d", n)
		}
		return "integer " + v.Int.Digits
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

// missing is the error for a required field that is absent.
func (f *fieldSet) missing(name, hint string) error {
	return errAt(f.pos, "%s: missing field '%s'%s", f.what, name, hint)
}

// int returns an integer field; def when absent unless required.
func (f *fieldSet) int(name string, def int64, required bool) (int64, error) {
	v := f.take(name)
	if v == nil {
		if required {
			return 0, f.missing(name, "")
		}
		return def, nil
	}
	if v.Int == nil {
		return 0, errAt(v.Pos, "%s: field '%s' must be an integer, got %s", f.what, name, describeValue(v))
	}
	return v.Int.value(v.Pos)
}

// positive is int for fields that must be at least 1.
func (f *fieldSet) positive(name string, def int64, required bool) (int64, error) {
	n, err := f.int(name, def, required)
	if err == nil && n < 1 {
		err = errAt(f.items[name].Value.Pos, "%s: field '%s' must be at least 1, got %d", f.what, name, n)
	}
	return n, err
}

// word returns a bare word field (no arguments), one of allowed if given.
func (f *fieldSet) word(name string, required bool, allowed ...string) (string, error) {
	v := f.take(name)
	if v == nil {
		if required {
			return "", f.missing(name, "")
		}
		return "", nil
	}
	if v.Word == nil || v.Word.Args != nil {
		return "", errAt(v.Pos, "%s: field '%s' must be a name, got %s", f.what, name, describeValue(v))
	}
	if len(allowed) > 0 && !slices.Contains(allowed, v.Word.Name) {
		return "", errAt(v.Pos, "%s: field '%s' must be one of %s, got '%s'", f.what, name, strings.Join(allowed, ", "), v.Word.Name)
	}
	return v.Word.Name, nil
}

// done fails on fields that were given but not understood.
func (f *fieldSet) done(known ...string) error {
	for _, name := range f.order {
		if !f.used[name] {
			if len(known) > 0 {
				return errAt(f.items[name].Pos, "%s: unknown field '%s' (fields: %s)", f.what, name, strings.Join(known, ", "))
			}
			return errAt(f.items[name].Pos, "%s: unknown field '%s'", f.what, name)
		}
	}
	return nil
}
