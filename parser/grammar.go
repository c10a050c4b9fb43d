package parser

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/ipuir/ipuir/ir"
)

// Grammar reads dialect attribute and type bodies with a participle
// grammar that the dialect declares as Go structs, over MLIR's tokens (the
// hand-written Lexer: `->`, `x4xf32`, strings, `@sym`, `%v`...). Builtin
// types and attributes inside a body are grammar leaves, TypeRef and
// AttrRef, that the hand-written parsers read (participle's Parseable), so
// a grammar says `@@` where MLIR's dialect parsers say parseType().
//
//	type pairBody struct {
//		Name string          `parser:"@Ident '<'"`
//		A    *parser.TypeRef `parser:"@@ ','"`
//		B    *parser.TypeRef `parser:"@@ '>'"`
//	}
//	var pairGrammar = parser.MustGrammar[pairBody]()
//	// in ParseType: body, err := pairGrammar.Parse(ctx, text)
//
// Errors are *BodyError values; a hook returns them as they are and the
// core parser reports them at the right place of the file.
type Grammar[T any] struct{ p *participle.Parser[T] }

// NewGrammar builds a grammar for T; options are participle's.
func NewGrammar[T any](options ...participle.Option) (*Grammar[T], error) {
	p, err := participle.Build[T](append([]participle.Option{participle.Lexer(tokenDefinition{})}, options...)...)
	if err != nil {
		return nil, err
	}
	return &Grammar[T]{p}, nil
}

// MustGrammar is NewGrammar for package variables, where a bad grammar is
// a programming error.
func MustGrammar[T any](options ...participle.Option) *Grammar[T] {
	g, err := NewGrammar[T](options...)
	if err != nil {
		panic("BUG: " + err.Error())
	}
	return g
}

// Parse reads all of body.
func (g *Grammar[T]) Parse(ctx *ir.Context, body string) (*T, error) {
	run := &grammarRun{ctx: ctx, body: body}
	key := grammarRuns.add(run)
	defer grammarRuns.remove(key)
	lex, err := tokenDefinition{}.LexBytes(key, []byte(body))
	if err != nil {
		return nil, grammarError(err)
	}
	peek, err := lexer.Upgrade(lex)
	if err != nil {
		return nil, grammarError(err)
	}
	v, err := g.p.ParseFromLexer(peek)
	if run.leafErr != nil {
		// participle may backtrack over a failed leaf and blame a later
		// token; the leaf's own error is the one to report.
		return nil, run.leafErr
	}
	if err != nil {
		return nil, grammarError(err)
	}
	return v, nil
}

// grammarError converts a participle error to a BodyError.
func grammarError(err error) error {
	var be *BodyError
	if errors.As(err, &be) {
		return be
	}
	var pe participle.Error
	if errors.As(err, &pe) {
		return &BodyError{Offset: pe.Position().Offset, Message: pe.Message()}
	}
	return &BodyError{Message: err.Error()}
}

// TypeRef is a grammar leaf holding a type read by the builtin type parser
// (builtin types, aliases of the file being parsed, dialect types).
type TypeRef struct{ Type ir.Type }

// AttrRef is a grammar leaf holding an attribute read by the builtin
// attribute parser.
type AttrRef struct{ Attr ir.Attribute }

// Parse implements participle.Parseable.
func (r *TypeRef) Parse(lex *lexer.PeekingLexer) error {
	return parseLeaf(lex, func(p *parser) (bool, error) {
		if !p.isTypeStart() {
			return false, nil
		}
		t, err := p.parseType()
		r.Type = t
		return true, err
	})
}

// Parse implements participle.Parseable.
func (r *AttrRef) Parse(lex *lexer.PeekingLexer) error {
	return parseLeaf(lex, func(p *parser) (bool, error) {
		switch p.tok.Kind {
		case EOF, Error, RParen, RSquare, RBrace, Greater, Comma, Colon, Equal, Arrow:
			return false, nil
		}
		a, err := p.parseAttribute(nil)
		r.Attr = a
		return true, err
	})
}

// parseLeaf runs a hand-written parser at the grammar's current token and
// moves the token stream past what it read.
func parseLeaf(lex *lexer.PeekingLexer, read func(*parser) (bool, error)) error {
	tok := lex.Peek()
	run := grammarRuns.get(tok.Pos.Filename)
	if run == nil {
		return participle.Errorf(tok.Pos, "builtin types and attributes need Grammar.Parse")
	}
	st := newState()
	if types, attrs, ok := activeAliases(run.ctx); ok {
		st.typeAliases, st.attrAliases = types, attrs
	}
	p := newParser(run.ctx, []byte(run.body), tok.Pos.Filename, 0, st)
	p.ResetTo(tok.Pos.Offset)
	matched, err := read(p)
	if !matched {
		return participle.NextMatch
	}
	if err != nil {
		be := &BodyError{Offset: tok.Pos.Offset, Message: err.Error()}
		var d *ir.Diagnostic
		if errors.As(err, &d) {
			be.Message = d.Message
			if f, ok := ir.FileLineColOf(d.Loc); ok {
				be.Offset = p.tokOffset(Token{Start: -1, Line: f.Line, Col: f.Col})
			}
		}
		if run.leafErr == nil {
			run.leafErr = be
		}
		return be
	}
	for t := lex.Peek(); !t.EOF() && t.Pos.Offset < p.prevEnd; t = lex.Peek() {
		lex.Next()
	}
	return nil
}

// grammarRun is one Grammar.Parse in progress. Leaves find it through the
// file name of their tokens, a key unique to the run, so concurrent parses
// never see each other's text.
type grammarRun struct {
	ctx     *ir.Context
	body    string
	leafErr error // the first error of a TypeRef or AttrRef
}

type runTable struct {
	mu   sync.Mutex
	next atomic.Uint64
	runs map[string]*grammarRun
}

var grammarRuns = &runTable{runs: map[string]*grammarRun{}}

func (t *runTable) add(r *grammarRun) string {
	key := fmt.Sprintf("<grammar body %d>", t.next.Add(1))
	t.mu.Lock()
	t.runs[key] = r
	t.mu.Unlock()
	return key
}

func (t *runTable) remove(key string) {
	t.mu.Lock()
	delete(t.runs, key)
	t.mu.Unlock()
}

func (t *runTable) get(key string) *grammarRun {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.runs[key]
}

// The aliases of the files being parsed, per context, so that dialect
// hooks (which receive only the context and the body) can resolve them.
var (
	activeMu     sync.Mutex
	activeParses = map[*ir.Context][]*state{}
)

// activate makes st's aliases visible to body parsers of ctx until the
// returned function is called.
func activate(ctx *ir.Context, st *state) func() {
	activeMu.Lock()
	activeParses[ctx] = append(activeParses[ctx], st)
	activeMu.Unlock()
	return func() {
		activeMu.Lock()
		defer activeMu.Unlock()
		states := activeParses[ctx]
		for i := len(states) - 1; i >= 0; i-- {
			if states[i] == st {
				states = append(states[:i], states[i+1:]...)
				break
			}
		}
		if len(states) == 0 {
			delete(activeParses, ctx)
		} else {
			activeParses[ctx] = states
		}
	}
}

func activeAliases(ctx *ir.Context) (map[string]ir.Type, map[string]ir.Attribute, bool) {
	activeMu.Lock()
	defer activeMu.Unlock()
	states := activeParses[ctx]
	if len(states) == 0 {
		return nil, nil, false
	}
	top := states[len(states)-1]
	return top.typeAliases, top.attrAliases, true
}
