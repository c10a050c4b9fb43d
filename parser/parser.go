package parser

import (
	"bytes"
	"sort"

	"github.com/ipuir/ipuir/ir"
)

// Config for one parse.
type Config struct {
	// Filename as given on the command line; "<stdin>" for "-".
	Filename string
	// SourceMgr, when set, receives the buffer so diagnostics can quote it.
	SourceMgr *ir.SourceMgr
	// LineOffset is, for a --split-input-file chunk, the line number of the
	// chunk's first line minus one, so locations and diagnostics refer to
	// lines of the original file.
	LineOffset int
	// ColumnOffset is added to columns of the chunk's first line, which
	// for a chunk that starts after a split marker is not the whole line.
	ColumnOffset int
	// ExternalResources takes the groups of the file's external_resources
	// by name; a group without a handler is ignored with a warning, as
	// mlir-opt ignores it.
	ExternalResources map[string]ResourceHandler
}

// maxNestingDepth bounds the recursion of regions, attributes, types and
// locations, so hostile input fails with a diagnostic instead of exhausting
// memory. Real IR nests a few dozen levels at most.
const maxNestingDepth = 512

// parser is the state of one parse over one buffer: the lexer, where
// diagnostics point, and the per-file tables in st.
type parser struct {
	Lexer
	ctx        *ir.Context
	file       string
	lineOffset int
	colOffset  int // for columns of line 1 (Config.ColumnOffset)
	st         *state
	depth      int
	external   map[string]ResourceHandler
}

// state is what a whole file parse shares: aliases, the text caches, the
// SSA and block name scopes, forward references and deferred locations.
// Dialect body parsers started for this file see its aliases through it.
type state struct {
	typeAliases map[string]ir.Type
	attrAliases map[string]ir.Attribute
	distinct    map[uint64]*ir.DistinctAttr // distinct[N] of the file by N

	cache   textCache
	noCache bool     // tests compare parses with and without the cache
	arena   ir.Arena // the parsed ops' storage
	// attrStack holds the entries of the dictionaries being parsed.
	attrStack []ir.NamedAttr
	// typeStack holds the types of the function types being parsed.
	typeStack []ir.Type
	// freeElems is the element list of the last dense literal, for the next.
	freeElems []literalElem
	ops       map[string]*opInfo // interned op names
	names     map[string]string  // interned attribute names and strings

	values       map[string]ssaEntry
	scopes       []*regionScope
	numScopes    int
	placeholders map[*ir.Value]Token
	deferredLocs []deferredLoc
	locMarkers   map[ir.Location]int // placeholder location -> deferredLocs index

	defaultDialects []string
	operands        []useRef    // stack of operands awaiting resolution
	operandVals     []*ir.Value // scratch for resolved operands
	opState         ir.OperationState
	succs           []*ir.Block
	results         []resultGroup
}

func newState() *state {
	return &state{
		typeAliases:     map[string]ir.Type{},
		attrAliases:     map[string]ir.Attribute{},
		cache:           newTextCache(),
		ops:             map[string]*opInfo{},
		names:           map[string]string{},
		values:          map[string]ssaEntry{},
		placeholders:    map[*ir.Value]Token{},
		defaultDialects: []string{"builtin"},
	}
}

func newParser(ctx *ir.Context, src []byte, file string, lineOffset int, st *state) *parser {
	p := &parser{ctx: ctx, file: file, lineOffset: lineOffset, st: st}
	p.init(src)
	return p
}

// enter guards recursion depth; leave must follow a successful enter.
func (p *parser) enter() error {
	p.depth++
	if p.depth > maxNestingDepth {
		return p.errorf("nesting of regions, attributes or types is deeper than %d levels", maxNestingDepth)
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

// text is the spelling of t, without copying.
func (p *parser) text(t Token) []byte { return p.src[t.Start:t.End] }

// is reports whether the current token is the bare identifier kw.
func (p *parser) is(kw string) bool {
	return p.tok.Kind == BareIdent && string(p.src[p.tok.Start:p.tok.End]) == kw
}

// ParseSourceString parses a whole file into a builtin.module, with MLIR's
// rules: when the file holds exactly one top-level builtin.module op and no
// other op, that op is the module; otherwise the top-level ops are wrapped
// in an implicit module located at FILE:0:0. It runs no verifier. Errors are
// *ir.Diagnostic located at the offending token, with MLIR's messages.
func ParseSourceString(ctx *ir.Context, src []byte, cfg Config) (*ir.Operation, error) {
	return parseSource(ctx, src, cfg, false)
}

func parseSource(ctx *ir.Context, src []byte, cfg Config, noCache bool) (*ir.Operation, error) {
	st := newState()
	st.noCache = noCache
	return parseSourceWith(ctx, src, cfg, st)
}

// parseSourceWith parses with st, which the caller made for this file
// (tests read the caches it ends with).
func parseSourceWith(ctx *ir.Context, src []byte, cfg Config, st *state) (*ir.Operation, error) {
	if cfg.SourceMgr != nil {
		buf := src
		if cfg.LineOffset > 0 {
			// Pad so that line numbers of the original file find this chunk.
			buf = append(bytes.Repeat([]byte{'\n'}, cfg.LineOffset), src...)
		}
		cfg.SourceMgr.Add(cfg.Filename, buf)
		// The text is also where reports find the SSA names the user wrote
		// (ir.Context.SourceName), read only when one is asked for.
		ctx.SetSources(cfg.SourceMgr)
	}
	if len(src) >= 1<<20 {
		// Most lines of a large file hold an op, and every op a location.
		lines := bytes.Count(src, []byte{'\n'})
		ctx.ReserveFileLocations(lines)
		// Below what ipu-parse-bench's two 30 MB files unique per line
		// (0.5 and 2.7 values by their parts, 0.04 and 0.7 tensor types).
		ctx.ReserveUniqued(lines/2, lines/32)
		st.cache.reserve(lines)
	}
	p := newParser(ctx, src, cfg.Filename, cfg.LineOffset, st)
	p.colOffset = cfg.ColumnOffset
	p.external = cfg.ExternalResources
	defer activate(ctx, st)()

	top := &ir.Block{}
	p.pushScope()
	for p.tok.Kind != EOF {
		var err error
		switch p.tok.Kind {
		case Error:
			err = p.lexError()
		case HashIdent:
			err = p.parseAttributeAliasDef()
		case BangIdent:
			err = p.parseTypeAliasDef()
		case FileMetadataBegin:
			err = p.parseFileMetadata()
		default:
			err = p.parseOperation(top)
		}
		if err != nil {
			return nil, err
		}
	}
	if err := p.finalize(); err != nil {
		return nil, err
	}
	if first := top.First(); first != nil && first == top.Last() && first.Is(ir.Module) {
		first.Remove()
		return first, nil
	}
	module := ir.NewModule(ctx, ctx.FileLineCol(cfg.Filename, 0, 0))
	body := ir.ModuleBody(module)
	for op := top.First(); op != nil; {
		next := op.Next()
		op.Remove()
		body.Append(op)
		op = next
	}
	return module, nil
}

// finalize reports values used but never defined, resolves location
// aliases used before their definition, and closes the top-level scope.
func (p *parser) finalize() error {
	if len(p.st.placeholders) > 0 {
		uses := make([]Token, 0, len(p.st.placeholders))
		for _, t := range p.st.placeholders {
			uses = append(uses, t)
		}
		sort.Slice(uses, func(i, j int) bool { return p.tokOffset(uses[i]) < p.tokOffset(uses[j]) })
		return p.errorAt(uses[0], "use of undeclared SSA value name")
	}
	if err := p.resolveDeferredLocs(); err != nil {
		return err
	}
	return p.popScope()
}

// ParseType parses a type from s, which must hold nothing else. As in
// MLIR, diagnostics name the input string as their file.
func ParseType(ctx *ir.Context, s string) (ir.Type, error) {
	p := newParser(ctx, []byte(s), s, 0, newState())
	t, err := p.parseType()
	if err != nil {
		return nil, err
	}
	return t, p.expectEnd()
}

// ParseAttribute parses an attribute from s, which must hold nothing else.
func ParseAttribute(ctx *ir.Context, s string) (ir.Attribute, error) {
	p := newParser(ctx, []byte(s), s, 0, newState())
	a, err := p.parseAttribute(nil)
	if err != nil {
		return nil, err
	}
	return a, p.expectEnd()
}

// tokOffset is a token's byte offset, recomputed from its line and column
// for the positions custom op operands carry.
func (p *parser) tokOffset(t Token) int {
	if t.Start >= 0 {
		return t.Start
	}
	off := 0
	for line := 1; line < t.Line; line++ {
		i := bytes.IndexByte(p.src[off:], '\n')
		if i < 0 {
			return len(p.src)
		}
		off += i + 1
	}
	return off + t.Col - 1
}

func (p *parser) expectEnd() error {
	if p.tok.Kind == Error {
		return p.lexError()
	}
	if p.tok.Kind != EOF {
		return p.errorAt(p.tok, "found trailing characters: '%s'", p.src[p.tok.Start:])
	}
	return nil
}
