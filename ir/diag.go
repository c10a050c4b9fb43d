package ir

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// Severity of a diagnostic.
type Severity uint8

const (
	SeverityError Severity = iota
	SeverityWarning
	SeverityRemark
	SeverityNote
)

func (s Severity) String() string {
	return [...]string{"error", "warning", "remark", "note"}[s]
}

// Diagnostic is a located message with optional notes. It is an error, so
// verifier hooks and passes can return one directly.
type Diagnostic struct {
	Severity Severity
	Loc      Location
	Message  string
	Notes    []*Diagnostic
	// Op is the op the diagnostic is about, when there is one; tools use it
	// to print the op in a note.
	Op *Operation
	// Cause is the error the diagnostic reports, when it reports one whose
	// kind a caller may act on (errors.Is and errors.As see it): a compile
	// driver that tries again in phases when a program does not fit tile
	// memory, say. It does not change what the diagnostic prints.
	Cause error
}

// Unwrap is d's cause, for errors.Is and errors.As.
func (d *Diagnostic) Unwrap() error { return d.Cause }

// WithCause sets d's cause and returns d.
func (d *Diagnostic) WithCause(err error) *Diagnostic {
	d.Cause = err
	return d
}

func (d *Diagnostic) Error() string {
	var b strings.Builder
	writeHeader(&b, d)
	return strings.TrimSuffix(b.String(), "\n")
}

// AttachNote adds a note (at loc; nil means the diagnostic's own location).
func (d *Diagnostic) AttachNote(loc Location, format string, args ...any) *Diagnostic {
	if loc == nil {
		loc = d.Loc
	}
	d.Notes = append(d.Notes, &Diagnostic{Severity: SeverityNote, Loc: loc, Message: fmt.Sprintf(format, args...)})
	return d
}

// Errorf makes an error diagnostic at loc.
func Errorf(loc Location, format string, args ...any) *Diagnostic {
	d := &Diagnostic{Severity: SeverityError, Loc: loc, Message: fmt.Sprintf(format, args...)}
	if diagnosticTraces.Load() {
		d.Notes = append(d.Notes, &Diagnostic{Severity: SeverityNote, Loc: loc, Message: "diagnostic emitted with trace:\n" + trace(2)})
	}
	return d
}

// diagnosticTraces is set by --mlir-print-stacktrace-on-diagnostic.
var diagnosticTraces atomic.Bool

// SetDiagnosticTraces makes every error diagnostic carry a note with the
// stack of the code that made it (mlir-opt's
// --mlir-print-stacktrace-on-diagnostic), for finding where in the
// compiler a message comes from. It is a process-wide switch for tools.
func SetDiagnosticTraces(on bool) { diagnosticTraces.Store(on) }

// trace formats the caller's stack, skipping skip frames, as LLVM's
// stack traces read: one numbered frame a line.
func trace(skip int) string {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(skip+1, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	var b strings.Builder
	for i := 0; ; i++ {
		f, more := frames.Next()
		fmt.Fprintf(&b, " #%d %s %s:%d\n", i, f.Function, f.File, f.Line)
		if !more {
			break
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// EmitError makes an error located at op, with op as the diagnostic's
// Op: a tool's "see current operation" note prints op itself, as MLIR's
// op->emitError attaches it, not the op a pass was running on.
func (op *Operation) EmitError(format string, args ...any) *Diagnostic {
	d := Errorf(op.loc, format, args...)
	d.Op = op
	return d
}

// EmitOpError makes an error located at op and prefixed `'name' op `, the
// form verifier messages take, with op as the diagnostic's Op.
func (op *Operation) EmitOpError(format string, args ...any) *Diagnostic {
	d := Errorf(op.loc, "'%s' op %s", op.name, fmt.Sprintf(format, args...))
	d.Op = op
	return d
}

// AsDiagnostic turns err into a diagnostic: diagnostics pass through,
// other errors become an op error at op (when op is non-nil).
func AsDiagnostic(err error, op *Operation) *Diagnostic {
	if d, ok := err.(*Diagnostic); ok {
		return d
	}
	if op == nil {
		return &Diagnostic{Severity: SeverityError, Message: err.Error()}
	}
	return op.EmitOpError("%s", err.Error())
}

// DiagnosticHandler receives diagnostics that are reported rather than
// returned (warnings and remarks from passes, for instance).
type DiagnosticHandler func(*Diagnostic)

// SetDiagnosticHandler installs h; nil restores the default, which writes
// nothing and lets the caller inspect Context.Diagnostics.
func (c *Context) SetDiagnosticHandler(h DiagnosticHandler) {
	c.mu.Lock()
	c.diagHandler = h
	c.mu.Unlock()
}

// Emit reports d to the context's handler.
func (c *Context) Emit(d *Diagnostic) {
	c.mu.RLock()
	h := c.diagHandler
	c.mu.RUnlock()
	if h != nil {
		h(d)
	}
}

// SourceMgr holds source buffers so diagnostics can quote the line they
// point at.
type SourceMgr struct {
	mu    sync.RWMutex
	files map[string]*sourceBuffer
}

// sourceBuffer is one buffer and, once a diagnostic needs a line of it,
// the offsets of its line starts, found in one pass, so that any number
// of diagnostics costs a binary search each rather than a scan.
type sourceBuffer struct {
	text   []byte
	once   sync.Once
	starts []int
}

func (b *sourceBuffer) line(n int) ([]byte, bool) {
	b.once.Do(func() {
		b.starts = append(b.starts, 0)
		for i, c := range b.text {
			if c == '\n' {
				b.starts = append(b.starts, i+1)
			}
		}
	})
	if n < 1 || n > len(b.starts) {
		return nil, false
	}
	start := b.starts[n-1]
	end := len(b.text)
	if n < len(b.starts) {
		end = b.starts[n] - 1
	}
	return b.text[start:end], true
}

// NewSourceMgr returns an empty source manager.
func NewSourceMgr() *SourceMgr { return &SourceMgr{files: map[string]*sourceBuffer{}} }

// Add registers the contents of a buffer under its name.
func (s *SourceMgr) Add(name string, contents []byte) {
	s.mu.Lock()
	s.files[name] = &sourceBuffer{text: contents}
	s.mu.Unlock()
}

// Line returns line (1-based) of the named buffer.
func (s *SourceMgr) Line(name string, line int) (string, bool) {
	if s == nil {
		return "", false
	}
	s.mu.RLock()
	buf, ok := s.files[name]
	s.mu.RUnlock()
	if !ok {
		return "", false
	}
	text, ok := buf.line(line)
	if !ok {
		return "", false
	}
	return strings.TrimSuffix(string(text), "\r"), true
}

// Render formats d as mlir-opt does: `file:line:col: error: message`, the
// source line with a caret under the column, then the notes.
func (s *SourceMgr) Render(d *Diagnostic) string {
	var b strings.Builder
	s.render(&b, d, true)
	return b.String()
}

// render writes d; notes located where their diagnostic is skip the
// source line, as LLVM's SourceMgr handler does.
func (s *SourceMgr) render(b *strings.Builder, d *Diagnostic, showLine bool) {
	file := writeHeader(b, d)
	if file != nil && showLine {
		if line, ok := s.Line(file.File, file.Line); ok {
			expanded, caretCol := expandTabs(line, file.Col)
			expanded, caretCol = clipLine(expanded, caretCol)
			b.WriteString(expanded)
			b.WriteByte('\n')
			b.WriteString(strings.Repeat(" ", caretCol))
			b.WriteString("^\n")
		}
	}
	if cs, ok := d.Loc.(*CallSiteLoc); ok {
		s.render(b, &Diagnostic{Severity: SeverityNote, Loc: cs.Caller, Message: "called from"}, true)
	}
	for _, n := range d.Notes {
		s.render(b, n, n.Loc != d.Loc)
	}
}

// writeHeader writes the first line and returns the file location used.
// A diagnostic on an op imported from a model leads with the model's own
// words, the node's name and op type, then the model file and the node's
// place in its graph (ModelNodeOf): `/conv1/Conv (Conv) in resnet18.onnx,
// node 2: error: ...`; the line and column of a binary model name no place
// a user can open.
func writeHeader(b *strings.Builder, d *Diagnostic) *FileLineColLoc {
	if node, ok := ModelNodeOf(d.Loc); ok {
		fmt.Fprintf(b, "%s", EscapeControl(node.Name))
		if node.OpType != "" {
			fmt.Fprintf(b, " (%s)", EscapeControl(node.OpType))
		}
		fmt.Fprintf(b, " in %s, node %d: %s: %s\n", node.File, node.Index, d.Severity, d.Message)
		return nil
	}
	file, ok := FileLineColOf(d.Loc)
	if ok {
		fmt.Fprintf(b, "%s:%d:%d: %s: ", file.File, file.Line, file.Col, d.Severity)
	} else {
		fmt.Fprintf(b, "<unknown>:0: %s: ", d.Severity)
		if d.Loc != nil {
			if _, unknown := d.Loc.(*UnknownLoc); !unknown {
				b.WriteString(AttrString(d.Loc))
				b.WriteString(": ")
			}
		}
	}
	b.WriteString(d.Message)
	b.WriteByte('\n')
	if !ok {
		return nil
	}
	return file
}

// maxSourceLineShown bounds the source line a diagnostic quotes: a longer
// one (a megabyte literal, a minified file) is shown as the part around
// the caret, each cut marked with "...", as clang clips lines to the
// terminal, so that a diagnostic stays a few lines whatever the input.
const maxSourceLineShown = 160

// clipLine cuts line to at most maxSourceLineShown columns around caret,
// returning the caret's column in what is kept.
func clipLine(line string, caret int) (string, int) {
	if len(line) <= maxSourceLineShown {
		return line, caret
	}
	lo := max(0, min(caret-maxSourceLineShown/3, len(line)-maxSourceLineShown))
	hi := min(len(line), lo+maxSourceLineShown)
	// Cut at rune boundaries.
	for lo > 0 && !utf8.RuneStart(line[lo]) {
		lo--
	}
	for hi < len(line) && !utf8.RuneStart(line[hi]) {
		hi++
	}
	out, shift := line[lo:hi], lo
	if lo > 0 {
		out, shift = "..."+out, lo-3
	}
	if hi < len(line) {
		out += "..."
	}
	return out, caret - shift
}

// expandTabs expands tabs to 8-column stops (as LLVM's SourceMgr shows
// lines) and maps the 1-based byte column to a display column.
func expandTabs(line string, col int) (string, int) {
	var out strings.Builder
	caret := -1
	for i := 0; i < len(line); i++ {
		if i == col-1 {
			caret = out.Len()
		}
		if line[i] == '\t' {
			n := 8 - out.Len()%8
			out.WriteString(strings.Repeat(" ", n))
		} else {
			out.WriteByte(line[i])
		}
	}
	if caret < 0 {
		caret = out.Len() + (col - 1 - len(line))
		if caret < 0 {
			caret = 0
		}
	}
	return out.String(), caret
}

// opPrinter prints an op for a diagnostic; see SetDiagnosticOpPrinter.
var opPrinter struct {
	sync.RWMutex
	print func(*Operation) string
}

// SetDiagnosticOpPrinter installs how diagnostics spell an op that is part
// of their message (MLIR's `diag << op`): the printer package installs the
// generic form with local scope, which ir cannot produce itself since the
// printer sits above it. Without one, an op is spelled by its quoted name.
func SetDiagnosticOpPrinter(print func(*Operation) string) {
	opPrinter.Lock()
	opPrinter.print = print
	opPrinter.Unlock()
}

// OpForDiagnostic spells op inside a diagnostic message as MLIR does: the
// op printed, on a line of its own when it spans several.
func OpForDiagnostic(op *Operation) string {
	opPrinter.RLock()
	print := opPrinter.print
	opPrinter.RUnlock()
	if print == nil {
		return "'" + op.name + "'"
	}
	s := print(op)
	if strings.Contains(s, "\n") {
		return "\n" + s
	}
	return s
}

// ModelNode is where an op imported from a model came from: the graph
// node's name and op type, the model file, and the node's place (1-based)
// in its graph.
type ModelNode struct {
	Name, OpType, File string
	Index              int
}

// ModelNodeOf reads the model node of an importer's location,
// loc("NODE"("OPTYPE"("MODEL.onnx":N:K))) or loc("NODE"("MODEL.onnx":N:K)),
// following fused locations to their first part; false for any other.
func ModelNodeOf(loc Location) (ModelNode, bool) {
	if f, ok := loc.(*FusedLoc); ok {
		if len(f.Locs) == 0 {
			return ModelNode{}, false
		}
		return ModelNodeOf(f.Locs[0])
	}
	n, ok := loc.(*NameLoc)
	if !ok {
		return ModelNode{}, false
	}
	node := ModelNode{Name: n.Name}
	child := n.Child
	if op, ok := child.(*NameLoc); ok {
		node.OpType, child = op.Name, op.Child
	}
	file, ok := child.(*FileLineColLoc)
	if !ok || !isModelFile(file.File) {
		return ModelNode{}, false
	}
	node.File, node.Index = file.File, file.Line
	return node, true
}

// isModelFile reports whether a location's file is a binary model (an
// ONNX protobuf), whose line and column are the importer's node places.
func isModelFile(name string) bool { return strings.HasSuffix(strings.ToLower(name), ".onnx") }

// EscapeControl writes s with its control characters (ASCII below space,
// DEL, and the C1 range) escaped as \xNN or \u{NNNN}, so that a name from a
// model file cannot move a terminal's cursor or colour its output.
func EscapeControl(s string) string {
	clean := true
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\x%02x", r)
		case r >= 0x80 && r < 0xa0:
			fmt.Fprintf(&b, "\\u{%04x}", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
