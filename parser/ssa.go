package parser

import (
	"sort"

	"github.com/ipuir/ipuir/ir"
)

// SSA names follow MLIR's scoping: one table of names for the whole file
// (MLIR's isolated name scope; neither generic regions nor builtin.module
// open a new one), and per region the list of names it defined, erased when
// the region ends. So a name visible from an enclosing region cannot be
// redefined, while sibling regions may reuse names. A use before its
// definition gets a placeholder value that the definition replaces; any
// placeholder left at the end of the file is an undeclared name. Block
// labels are scoped per region.

// valueDef is a defined value, or a placeholder for a forward reference,
// with the token where it was defined or first used.
type valueDef struct {
	v   *ir.Value
	tok Token
}

// maxDenseResultNumber bounds the slice of result numbers kept per name;
// larger numbers (`%x#4000000`) go to a map, so hostile input cannot make
// the parser allocate per number.
const maxDenseResultNumber = 1 << 12

// ssaEntry holds the values of one name, indexed by result number. Most
// names have one value, which lives inline.
type ssaEntry struct {
	first  valueDef
	rest   []valueDef // numbers 1..len(rest)
	sparse map[int]valueDef
}

func (e *ssaEntry) get(n int) valueDef {
	switch {
	case n == 0:
		return e.first
	case n <= len(e.rest):
		return e.rest[n-1]
	case e.sparse != nil:
		return e.sparse[n]
	}
	return valueDef{}
}

func (e *ssaEntry) set(n int, d valueDef) {
	switch {
	case n == 0:
		e.first = d
	case n <= len(e.rest):
		e.rest[n-1] = d
	case n < maxDenseResultNumber:
		for len(e.rest) < n-1 {
			e.rest = append(e.rest, valueDef{})
		}
		e.rest = append(e.rest, d)
	default:
		if e.sparse == nil {
			e.sparse = map[int]valueDef{}
		}
		e.sparse[n] = d
	}
}

// useRef is a value use as written: the `%name` token and its result number.
type useRef struct {
	tok    Token
	number int
}

// blockDef is a block label of a region: defined, or referenced ahead.
type blockDef struct {
	name string // a piece of the source (sourceKey)
	b    *ir.Block
	tok  Token // definition, or first use while fwd
	fwd  bool
}

// regionScope is what one region defines.
type regionScope struct {
	defined []string
	// blocks are the region's block labels; most regions have a few, so
	// they are searched in order, and indexed once there are many.
	blocks     []blockDef
	blockIndex map[string]int
	numFwd     int
}

// maxScannedBlocks is the number of labels searched in order before the
// scope indexes them.
const maxScannedBlocks = 16

// block returns the label called name, or nil.
func (s *regionScope) block(name []byte) *blockDef {
	if s.blockIndex != nil {
		if i, ok := s.blockIndex[sourceKey(name)]; ok {
			return &s.blocks[i]
		}
		return nil
	}
	for i := range s.blocks {
		if s.blocks[i].name == sourceKey(name) {
			return &s.blocks[i]
		}
	}
	return nil
}

func (s *regionScope) addBlock(d blockDef) {
	s.blocks = append(s.blocks, d)
	switch {
	case s.blockIndex != nil:
		s.blockIndex[d.name] = len(s.blocks) - 1
	case len(s.blocks) > maxScannedBlocks:
		s.blockIndex = make(map[string]int, 2*len(s.blocks))
		for i, b := range s.blocks {
			s.blockIndex[b.name] = i
		}
	}
}

func (p *parser) pushScope() {
	st := p.st
	if st.numScopes == len(st.scopes) {
		st.scopes = append(st.scopes, &regionScope{})
	}
	s := st.scopes[st.numScopes]
	s.defined = s.defined[:0]
	clear(s.blocks) // drop the old region's blocks for the collector
	s.blocks, s.blockIndex = s.blocks[:0], nil
	s.numFwd = 0
	st.numScopes++
}

func (p *parser) scope() *regionScope { return p.st.scopes[p.st.numScopes-1] }

// popScope ends a region: blocks referenced but not defined are errors, and
// the names it defined go out of scope.
func (p *parser) popScope() error {
	s := p.scope()
	if s.numFwd > 0 {
		var uses []Token
		for _, d := range s.blocks {
			if d.fwd {
				uses = append(uses, d.tok)
			}
		}
		sort.Slice(uses, func(i, j int) bool { return uses[i].Start < uses[j].Start })
		return p.errorAt(uses[0], "reference to an undefined block")
	}
	for _, name := range s.defined {
		delete(p.st.values, name)
	}
	p.st.numScopes--
	return nil
}

func (p *parser) isPlaceholder(v *ir.Value) bool {
	_, ok := p.st.placeholders[v]
	return ok
}

// addDefinition binds name#number to v, resolving a forward reference.
func (p *parser) addDefinition(tok Token, name string, number int, v *ir.Value) error {
	st := p.st
	e := st.values[name]
	if old := e.get(number); old.v != nil {
		if !p.isPlaceholder(old.v) {
			d := p.errorAt(tok, "redefinition of SSA value '%s'", name)
			d.AttachNote(p.tokLoc(old.tok), "previously defined here")
			return d
		}
		if old.v.Type() != v.Type() {
			d := p.errorAt(tok, "definition of SSA value '%s#%d' has type '%s'", name, number, ir.TypeString(v.Type()))
			d.AttachNote(p.tokLoc(old.tok), "previously used here with type '%s'", ir.TypeString(old.v.Type()))
			return d
		}
		old.v.ReplaceAllUsesWith(v)
		delete(st.placeholders, old.v)
	}
	e.set(number, valueDef{v, tok})
	st.values[name] = e
	s := p.scope()
	s.defined = append(s.defined, name)
	return nil
}

// resolveUse returns the value a use refers to, of type t, creating a
// forward-reference placeholder for a name not defined yet.
func (p *parser) resolveUse(u useRef, t ir.Type) (*ir.Value, error) {
	return p.resolveUseNamed(p.text(u.tok), u, t)
}

// resolveUseNamed is resolveUse for a name given apart from its token.
func (p *parser) resolveUseNamed(name []byte, u useRef, t ir.Type) (*ir.Value, error) {
	st := p.st
	e, ok := st.values[string(name)]
	if ok {
		if d := e.get(u.number); d.v != nil {
			if d.v.Type() == t {
				return d.v, nil
			}
			diag := p.errorAt(u.tok, "use of value '%s' expects different type than prior uses: '%s' vs '%s'",
				name, ir.TypeString(t), ir.TypeString(d.v.Type()))
			diag.AttachNote(p.tokLoc(d.tok), "prior use here")
			return nil, diag
		}
		if e.first.v != nil && !p.isPlaceholder(e.first.v) {
			return nil, p.errorAt(u.tok, "reference to invalid result number")
		}
	}
	ph := ir.NewOperation(p.ctx, &ir.OperationState{Name: ir.UnrealizedCast, ResultTypes: []ir.Type{t}}).Result(0)
	st.placeholders[ph] = u.tok
	e.set(u.number, valueDef{ph, u.tok})
	st.values[string(name)] = e
	return ph, nil
}

// referenceTok returns where name#number was defined or first used, if it
// is known in the current scope.
func (p *parser) referenceTok(name string, number int) (Token, bool) {
	e, ok := p.st.values[name]
	if !ok {
		return Token{}, false
	}
	d := e.get(number)
	return d.tok, d.v != nil
}

// blockNamed returns the block a successor names, declaring it ahead of
// its definition when needed.
func (p *parser) blockNamed(tok Token) *ir.Block {
	s := p.scope()
	name := p.text(tok)
	if d := s.block(name); d != nil {
		return d.b
	}
	b := &ir.Block{}
	s.addBlock(blockDef{name: sourceKey(name), b: b, tok: tok, fwd: true})
	s.numFwd++
	return b
}

// defineBlock defines the label at tok; entry, when non-nil, is the
// region's entry block that the label names.
func (p *parser) defineBlock(tok Token, entry *ir.Block) (*ir.Block, error) {
	s := p.scope()
	name := p.text(tok)
	if d := s.block(name); d != nil {
		if !d.fwd {
			return nil, p.errorAt(tok, "redefinition of block '%s'", name)
		}
		// A label referenced ahead; the entry label comes first in its
		// region, so this is never the entry block.
		d.fwd = false
		d.tok = tok
		s.numFwd--
		return d.b, nil
	}
	b := entry
	if b == nil {
		b = &ir.Block{}
	}
	s.addBlock(blockDef{name: sourceKey(name), b: b, tok: tok})
	return b, nil
}
