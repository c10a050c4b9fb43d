// Command ipu-lsp is a Language Server Protocol server for .ipuir files,
// over standard input and output (the base protocol read here, rpc.go; the
// protocol's types and dispatch github.com/tliron/glsp's): diagnostics as the file is opened and changed
// (parse, verify, and the target's verifiers when the module names one,
// with the loader every tool uses), go-to-definition and references for
// SSA values, block labels, symbols and aliases, hover (an op's summary
// from its declaration; a value's defining line, with its type and, on
// tiled, exchange and tile-asm ops, their layout, plan, estimate or
// placement), document symbols, folding ranges, completion of op names and
// of pass names in RUN lines, and a code action that turns a diagnostic
// into an expected-error line. docs/lsp.md says how to set up an editor.
package main

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf16"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/registry"
	"github.com/ipuir/ipuir/target/irtarget"
	"github.com/ipuir/ipuir/tools/optmain"
	"github.com/ipuir/ipuir/tools/toolkit"
)

func main() {
	if len(os.Args) > 1 && (os.Args[1] == "--help" || os.Args[1] == "-h") {
		fmt.Println("OVERVIEW: ipu-lsp: a Language Server Protocol server for .ipuir files, over stdin and stdout\n\nUSAGE: ipu-lsp (started by an editor; docs/lsp.md)")
		return
	}
	s := newServer()
	os.Exit(serveRPC(os.Stdin, os.Stdout, os.Stderr, s.handler()))
}

// debounce is how long the server waits after a change before it parses
// again: a burst of keystrokes costs one parse, and a parse under way is
// abandoned (its diagnostics dropped) when a newer text arrives.
const debounce = 150 * time.Millisecond

// A document is an open file: its text and lines as of the last change,
// and the index and diagnostics of the last text analysed (which trail
// the text by the debounce and the analysis).
type document struct {
	uri     string
	version int32
	text    string
	lines   []string
	index   *index
	diags   []protocol.Diagnostic
	timer   *time.Timer
}

type lspServer struct {
	mu   sync.Mutex
	docs map[string]*document
	// opNames and passNames are offered for completion.
	opNames, passNames []string
	ctx                *ir.Context
}

func newServer() *lspServer {
	s := &lspServer{docs: map[string]*document{}, ctx: registry.NewContext()}
	for _, d := range s.ctx.Dialects() {
		for _, op := range d.Ops {
			s.opNames = append(s.opNames, op.Name)
		}
	}
	slices.Sort(s.opNames)
	for _, p := range registry.NewPassRegistry().Passes() {
		s.passNames = append(s.passNames, p.Name)
	}
	slices.Sort(s.passNames)
	return s
}

func (s *lspServer) handler() *protocol.Handler {
	h := &protocol.Handler{}
	h.Initialize = func(ctx *glsp.Context, p *protocol.InitializeParams) (any, error) {
		caps := h.CreateServerCapabilities()
		full := protocol.TextDocumentSyncKindFull
		caps.TextDocumentSync = &protocol.TextDocumentSyncOptions{OpenClose: &protocol.True, Change: &full}
		caps.CompletionProvider = &protocol.CompletionOptions{TriggerCharacters: []string{".", "%", "@", "^"}}
		name, version := "ipu-lsp", "1"
		return protocol.InitializeResult{Capabilities: caps, ServerInfo: &protocol.InitializeResultServerInfo{Name: name, Version: &version}}, nil
	}
	h.Initialized = func(*glsp.Context, *protocol.InitializedParams) error { return nil }
	h.Shutdown = func(*glsp.Context) error { return nil }
	h.SetTrace = func(*glsp.Context, *protocol.SetTraceParams) error { return nil }
	h.TextDocumentDidOpen = func(ctx *glsp.Context, p *protocol.DidOpenTextDocumentParams) error {
		s.update(ctx, p.TextDocument.URI, p.TextDocument.Version, p.TextDocument.Text)
		return nil
	}
	h.TextDocumentDidChange = func(ctx *glsp.Context, p *protocol.DidChangeTextDocumentParams) error {
		for _, c := range p.ContentChanges {
			if whole, ok := c.(protocol.TextDocumentContentChangeEventWhole); ok {
				s.update(ctx, p.TextDocument.URI, p.TextDocument.Version, whole.Text)
			}
		}
		return nil
	}
	h.TextDocumentDidClose = func(ctx *glsp.Context, p *protocol.DidCloseTextDocumentParams) error {
		s.mu.Lock()
		delete(s.docs, p.TextDocument.URI)
		s.mu.Unlock()
		return nil
	}
	h.TextDocumentDefinition = func(ctx *glsp.Context, p *protocol.DefinitionParams) (any, error) {
		doc, t := s.tokenAt(p.TextDocument.URI, p.Position)
		if t == nil {
			return nil, nil
		}
		if d := doc.index.definition(t); d != nil {
			return protocol.Location{URI: doc.uri, Range: doc.rangeOf(d)}, nil
		}
		return nil, nil
	}
	h.TextDocumentReferences = func(ctx *glsp.Context, p *protocol.ReferenceParams) ([]protocol.Location, error) {
		doc, t := s.tokenAt(p.TextDocument.URI, p.Position)
		if t == nil {
			return nil, nil
		}
		var out []protocol.Location
		for _, r := range doc.index.references(t, p.Context.IncludeDeclaration) {
			out = append(out, protocol.Location{URI: doc.uri, Range: doc.rangeOf(r)})
		}
		return out, nil
	}
	h.TextDocumentHover = func(ctx *glsp.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
		return s.hover(p.TextDocument.URI, p.Position), nil
	}
	h.TextDocumentDocumentSymbol = func(ctx *glsp.Context, p *protocol.DocumentSymbolParams) (any, error) {
		return s.symbols(p.TextDocument.URI), nil
	}
	h.TextDocumentFoldingRange = func(ctx *glsp.Context, p *protocol.FoldingRangeParams) ([]protocol.FoldingRange, error) {
		return s.folds(p.TextDocument.URI), nil
	}
	h.TextDocumentCompletion = func(ctx *glsp.Context, p *protocol.CompletionParams) (any, error) {
		return s.complete(p.TextDocument.URI, p.Position), nil
	}
	h.TextDocumentCodeAction = func(ctx *glsp.Context, p *protocol.CodeActionParams) (any, error) {
		return s.actions(p), nil
	}
	return h
}

// update takes a document's new text. A keystroke costs splitting it into
// lines (completion reads the current line); the index and the
// diagnostics follow after the debounce, side by side (on a 30 MB file
// each takes about 1.4 s on this 2-core machine). A newly opened document
// is indexed at once.
func (s *lspServer) update(ctx *glsp.Context, uri string, version int32, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	doc := s.docs[uri]
	if doc == nil {
		doc = &document{uri: uri, index: newIndex(text)}
		s.docs[uri] = doc
	}
	doc.version, doc.text, doc.lines = version, text, strings.Split(text, "\n")
	if doc.timer != nil {
		doc.timer.Stop()
	}
	doc.timer = time.AfterFunc(debounce, func() { s.diagnose(ctx, uri, version, text) })
}

// diagnose indexes, parses and verifies text as the tools do and
// publishes what they would report, unless a newer version came
// meanwhile.
func (s *lspServer) diagnose(ctx *glsp.Context, uri string, version int32, text string) {
	indexed := make(chan *index, 1)
	go func() { indexed <- newIndex(text) }()
	diags := analyze(uri, text)
	ix := <-indexed
	s.mu.Lock()
	doc := s.docs[uri]
	current := doc != nil && doc.version == version
	if current {
		doc.diags, doc.index = diags, ix
	}
	s.mu.Unlock()
	if !current {
		return
	}
	v := protocol.UInteger(version)
	ctx.Notify(protocol.ServerTextDocumentPublishDiagnostics, protocol.PublishDiagnosticsParams{URI: uri, Version: &v, Diagnostics: diags})
}

// verifyRun finds a RUN line that checks the file's expected-* lines
// (--verify-diagnostics).
var verifyRun = regexp.MustCompile(`(?m)^\s*//\s*RUN:.*--?verify-diagnostics`)

// analyze parses and verifies text with the tools' loader: the module's
// target's verifiers run when it names one. A file a RUN line checks with
// --verify-diagnostics is checked as ipu-opt checks it: its diagnostics
// against its expected-* lines, the failures reported.
func analyze(uri, text string) []protocol.Diagnostic {
	file := uriPath(uri)
	loader := &toolkit.Loader{Setup: registry.RegisterDialects, Env: irtarget.EnvOfModule}
	out := []protocol.Diagnostic{}
	if run := verifyRun.FindStringIndex(text); run != nil {
		marker := ""
		line, _, _ := strings.Cut(text[run[0]:], "\n")
		if strings.Contains(line, "split-input-file") {
			marker = "// -----"
		}
		for _, d := range optmain.CheckDiagnostics(loader, file, []byte(text), marker) {
			out = append(out, toProtocol(text, d))
		}
		return out
	}
	ctx, err := loader.NewContext()
	if err != nil {
		return nil
	}
	_, _, err = loader.Parse(ctx, toolkit.Chunk{File: file, Source: []byte(text)})
	if err == nil {
		return out
	}
	add := func(d *ir.Diagnostic) { out = append(out, toProtocol(text, d)) }
	var d *ir.Diagnostic
	var ds interface{ Unwrap() []error }
	switch {
	case asDiagnostic(err, &d):
		add(d)
	case asMulti(err, &ds):
		for _, e := range ds.Unwrap() {
			if asDiagnostic(e, &d) {
				add(d)
			}
		}
	default:
		out = append(out, protocol.Diagnostic{Range: protocol.Range{}, Message: err.Error()})
	}
	return out
}

// toProtocol is d as the protocol has it, on the token at its location.
func toProtocol(text string, d *ir.Diagnostic) protocol.Diagnostic {
	line, col := 0, 0
	if l, ok := d.Loc.(*ir.FileLineColLoc); ok && l.Line > 0 {
		line, col = l.Line-1, max(l.Col-1, 0)
	}
	sev := protocol.DiagnosticSeverityError
	if d.Severity == ir.SeverityWarning {
		sev = protocol.DiagnosticSeverityWarning
	}
	src := "ipuir"
	return protocol.Diagnostic{Range: tokenRange(lineOf(text, line), line, col), Severity: &sev, Source: &src, Message: d.Message}
}

// lineOf is line (0-based) of text.
func lineOf(text string, line int) string {
	for i := 0; i < line; i++ {
		j := strings.IndexByte(text, '\n')
		if j < 0 {
			return ""
		}
		text = text[j+1:]
	}
	if j := strings.IndexByte(text, '\n'); j >= 0 {
		return text[:j]
	}
	return text
}

// tokenRange is the range of the token at byte col of line: the whole
// name or word that starts there, at least one character.
func tokenRange(line string, ln, col int) protocol.Range {
	end := col
	for end < len(line) && !strings.ContainsRune(" \t,:()<>{}[]=", rune(line[end])) {
		end++
	}
	end = max(end, col+1)
	return protocol.Range{Start: protocol.Position{Line: protocol.UInteger(ln), Character: utf16Col(line, col)},
		End: protocol.Position{Line: protocol.UInteger(ln), Character: utf16Col(line, end)}}
}

// utf16Col is byte column col of line in UTF-16 code units, as the
// protocol counts.
func utf16Col(line string, col int) protocol.UInteger {
	col = min(col, len(line))
	return protocol.UInteger(len(utf16.Encode([]rune(line[:col]))))
}

// byteCol is the protocol's character c of line as a byte column.
func byteCol(line string, c protocol.UInteger) int {
	n := 0
	for i, r := range line {
		if n >= int(c) {
			return i
		}
		n += len(utf16.Encode([]rune{r}))
	}
	return len(line)
}

func (doc *document) rangeOf(t *token) protocol.Range {
	line := doc.index.lines[t.line]
	return protocol.Range{Start: protocol.Position{Line: protocol.UInteger(t.line), Character: utf16Col(line, t.col)},
		End: protocol.Position{Line: protocol.UInteger(t.line), Character: utf16Col(line, t.col+len(t.name))}}
}

func (s *lspServer) doc(uri string) *document {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.docs[uri]
}

// tokenAt is the name token at the protocol position p.
func (s *lspServer) tokenAt(uri string, p protocol.Position) (*document, *token) {
	doc := s.doc(uri)
	if doc == nil || int(p.Line) >= len(doc.index.lines) {
		return doc, nil
	}
	line := doc.index.lines[p.Line]
	return doc, doc.index.at(int(p.Line), byteCol(line, p.Character))
}

// hover is an op's summary from its declaration, or a value's,
// block's or symbol's defining line (its type, and the layout, plan,
// estimate or placement a tiled, exchange or tile-asm op carries).
func (s *lspServer) hover(uri string, p protocol.Position) *protocol.Hover {
	doc, t := s.tokenAt(uri, p)
	if doc == nil {
		return nil
	}
	if t != nil {
		d := doc.index.definition(t)
		if d == nil {
			return nil
		}
		text := strings.TrimSpace(doc.index.lines[d.line])
		// The aliases the line uses (a tiled op's #layout3, #gemm_plan),
		// spelled out: the layout, plan or placement itself.
		seen := map[string]bool{}
		for i := range doc.index.tokens {
			u := &doc.index.tokens[i]
			if u.line != d.line || (u.name[0] != '#' && u.name[0] != '!') || seen[u.name] || u.def {
				continue
			}
			seen[u.name] = true
			if a := doc.index.definition(u); a != nil {
				text += "\n" + strings.TrimSpace(doc.index.lines[a.line])
			}
		}
		return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: "```mlir\n" + text + "\n```"}}
	}
	if int(p.Line) >= len(doc.lines) {
		return nil
	}
	line := doc.lines[p.Line]
	word := wordAt(line, byteCol(line, p.Character))
	def := s.ctx.OpDef(word)
	if def == nil {
		return nil
	}
	value := fmt.Sprintf("**%s**: %s", def.Name, def.Summary)
	if def.Description != "" {
		value += "\n\n" + def.Description
	}
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: value}}
}

// symbols are the document's functions, each with its blocks.
func (s *lspServer) symbols(uri string) []protocol.DocumentSymbol {
	doc := s.doc(uri)
	if doc == nil {
		return nil
	}
	var out []protocol.DocumentSymbol
	for f, fn := range doc.index.functions {
		lastLine := doc.index.lines[fn.last]
		whole := protocol.Range{Start: protocol.Position{Line: protocol.UInteger(fn.first)},
			End: protocol.Position{Line: protocol.UInteger(fn.last), Character: utf16Col(lastLine, len(lastLine))}}
		name := doc.index.lines[fn.nameLine]
		sel := protocol.Range{Start: protocol.Position{Line: protocol.UInteger(fn.nameLine), Character: utf16Col(name, fn.nameCol)},
			End: protocol.Position{Line: protocol.UInteger(fn.nameLine), Character: utf16Col(name, fn.nameCol+len(fn.name))}}
		sym := protocol.DocumentSymbol{Name: fn.name, Kind: protocol.SymbolKindFunction, Range: whole, SelectionRange: sel}
		for _, b := range doc.index.blocks(f) {
			r := doc.rangeOf(b)
			sym.Children = append(sym.Children, protocol.DocumentSymbol{Name: b.name, Kind: protocol.SymbolKindNamespace, Range: r, SelectionRange: r})
		}
		out = append(out, sym)
	}
	return out
}

// folds are the spans of braces and parentheses opened on one line and
// closed on a later one (functions, regions, attribute dictionaries).
func (s *lspServer) folds(uri string) []protocol.FoldingRange {
	doc := s.doc(uri)
	if doc == nil {
		return nil
	}
	var out []protocol.FoldingRange
	var open []int
	for ln, raw := range doc.index.lines {
		for _, c := range code(raw) {
			switch c {
			case '{', '(', '[':
				open = append(open, ln)
			case '}', ')', ']':
				if n := len(open); n > 0 {
					start := open[n-1]
					open = open[:n-1]
					if ln > start {
						out = append(out, protocol.FoldingRange{StartLine: protocol.UInteger(start), EndLine: protocol.UInteger(ln - 1)})
					}
				}
			}
		}
	}
	slices.SortStableFunc(out, func(a, b protocol.FoldingRange) int { return int(a.StartLine) - int(b.StartLine) })
	return slices.CompactFunc(out, func(a, b protocol.FoldingRange) bool { return a.StartLine == b.StartLine })
}

// complete offers op names after a dialect prefix, an op's declared
// attributes inside its attribute dictionary, pass names in a RUN line's
// pipeline, and the document's names after their sigils.
func (s *lspServer) complete(uri string, p protocol.Position) []protocol.CompletionItem {
	doc := s.doc(uri)
	if doc == nil || int(p.Line) >= len(doc.lines) {
		return nil
	}
	line := doc.lines[p.Line]
	col := byteCol(line, p.Character)
	before := line[:col]
	var out []protocol.CompletionItem
	item := func(label string, kind protocol.CompletionItemKind, detail string) {
		k := kind
		out = append(out, protocol.CompletionItem{Label: label, Kind: &k, Detail: &detail})
	}
	if strings.Contains(before, "RUN:") && strings.Contains(before, "pipeline") {
		for _, n := range s.passNames {
			item(n, protocol.CompletionItemKindFunction, "pass")
		}
		return out
	}
	// A name after its sigil: the document's names of that kind.
	if i := strings.LastIndexAny(before, "%@^"); i >= 0 && !strings.ContainsAny(before[i:], " ,():=") {
		seen := map[string]bool{}
		for _, t := range doc.index.tokens {
			if t.def && t.name[0] == before[i] && !seen[t.name] && strings.HasPrefix(t.name, before[i:]) {
				seen[t.name] = true
				item(t.name, protocol.CompletionItemKindVariable, "")
			}
		}
		return out
	}
	// Inside an op's attribute dictionary: its declared attributes.
	if open := strings.LastIndexByte(before, '{'); open >= 0 && !strings.Contains(before[open:], "}") {
		for _, f := range strings.Fields(before[:open]) {
			if d := s.ctx.OpDef(f); d != nil {
				for _, a := range d.Attributes {
					item(a.Name, protocol.CompletionItemKindProperty, a.Doc)
				}
				return out
			}
		}
	}
	prefix := before[strings.LastIndexAny(before, " \t=(")+1:]
	for _, n := range s.opNames {
		if strings.HasPrefix(n, prefix) {
			detail := ""
			if d := s.ctx.OpDef(n); d != nil {
				detail = d.Summary
			}
			item(n, protocol.CompletionItemKindKeyword, detail)
		}
	}
	return out
}

// actions offer, for each diagnostic in the request, the line that
// expects it (for a --verify-diagnostics test), inserted above its line.
func (s *lspServer) actions(p *protocol.CodeActionParams) []protocol.CodeAction {
	doc := s.doc(p.TextDocument.URI)
	if doc == nil {
		return nil
	}
	var out []protocol.CodeAction
	kind := protocol.CodeActionKindQuickFix
	for _, d := range p.Context.Diagnostics {
		ln := int(d.Range.Start.Line)
		if ln >= len(doc.lines) {
			continue
		}
		line := doc.lines[ln]
		indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
		msg, _, _ := strings.Cut(d.Message, "\n")
		text := fmt.Sprintf("%s// expected-error@+1 {{%s}}\n", indent, msg)
		at := protocol.Position{Line: protocol.UInteger(ln)}
		diag := d
		out = append(out, protocol.CodeAction{Title: "Expect this error (// expected-error@+1)", Kind: &kind, Diagnostics: []protocol.Diagnostic{diag},
			Edit: &protocol.WorkspaceEdit{Changes: map[string][]protocol.TextEdit{doc.uri: {{Range: protocol.Range{Start: at, End: at}, NewText: text}}}}})
	}
	return out
}

func asDiagnostic(err error, d **ir.Diagnostic) bool { return errors.As(err, d) }

func asMulti(err error, ds *interface{ Unwrap() []error }) bool { return errors.As(err, ds) }

// uriPath is the file a document URI names, unescaped ("file:///a%20b.ipuir"
// is "/a b.ipuir"), for diagnostics' file names; a URI of another scheme,
// or one that does not parse, is kept as it is.
func uriPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return uri
	}
	return u.Path
}
