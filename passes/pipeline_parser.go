package passes

import (
	"fmt"
	"strings"

	"github.com/ipuir/ipuir/internal/nearest"
	"github.com/ipuir/ipuir/ir"
)

// The textual pipeline syntax is MLIR's:
//
//	pipeline := op-name '(' elements? ')'
//	elements := element (',' element)*
//	element  := pass-name ('{' options '}')? | op-name '(' elements ')'
//
// It is parsed in two steps, as MLIR does, so that errors come in the same
// order: first the structure (names, option strings, nesting), then each
// name is resolved against the registry. Errors read as mlir-opt-19's,
// including the position inside the pipeline text and a caret line.

// element is one parsed entry of a pipeline text.
type element struct {
	name       string
	nameOff    int // byte offset of the name in the text
	options    string
	nested     bool
	inner      []element
	innerStart int
}

// syntaxError is a positioned error in a pipeline text.
type syntaxError struct {
	off int
	msg string
}

func (e *syntaxError) Error() string { return e.msg }

// parseElements splits a flat pipeline text into elements.
func parseElements(text string) ([]element, error) {
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	var top []element
	stack := []*[]element{&top}
	pos := 0 // offset of text[pos:] in the original
	rest := text
	for {
		cur := stack[len(stack)-1]
		i := strings.IndexAny(rest, ",(){")
		nameText := rest
		if i >= 0 {
			nameText = rest[:i]
		}
		trimmed := strings.TrimSpace(nameText)
		off := pos + len(nameText) - len(strings.TrimLeft(nameText, " \t\n"))
		if trimmed == "" {
			off = pos + len(nameText) // MLIR points past the blanks
		}
		*cur = append(*cur, element{name: trimmed, nameOff: off})
		if i < 0 {
			break
		}
		advance := func(n int) { rest = rest[n:]; pos += n }
		// mlir-opt skips blanks after a closing brace or parenthesis.
		skipBlanks := func() { advance(len(rest) - len(strings.TrimLeft(rest, " \t\n"))) }
		advance(i)
		sep := rest[0]
		if sep == '{' {
			advance(1)
			depth, closeAt := 1, -1
			for j := 0; j < len(rest); j++ {
				if rest[j] == '{' {
					depth++
				} else if rest[j] == '}' {
					if depth--; depth == 0 {
						closeAt = j
						break
					}
				}
			}
			if closeAt < 0 {
				return nil, &syntaxError{pos - 1, "missing closing '}' while processing pass options"}
			}
			(*cur)[len(*cur)-1].options = rest[:closeAt]
			advance(closeAt + 1)
			skipBlanks()
			if rest == "" {
				break
			}
			sep = rest[0]
		}
		if sep == '(' {
			advance(1)
			last := &(*cur)[len(*cur)-1]
			last.nested = true
			last.innerStart = pos
			stack = append(stack, &last.inner)
			continue
		}
		for strings.HasPrefix(rest, ")") {
			advance(1)
			if len(stack) == 1 {
				return nil, &syntaxError{pos - 1, "encountered extra closing ')' creating unbalanced parentheses while parsing pipeline"}
			}
			stack = stack[:len(stack)-1]
			skipBlanks()
		}
		if rest == "" {
			break
		}
		if !strings.HasPrefix(rest, ",") {
			return nil, &syntaxError{pos, "expected ',' after parsing pipeline"}
		}
		advance(1)
	}
	if len(stack) > 1 {
		return nil, &syntaxError{pos, "encountered unbalanced parentheses while parsing pipeline"}
	}
	return top, nil
}

// pipelineDiag turns a positioned error into the diagnostic mlir-opt
// prints: the inner position, the pipeline line and a caret.
func pipelineDiag(text string, err error) *ir.Diagnostic {
	se, ok := err.(*syntaxError)
	if !ok {
		return &ir.Diagnostic{Severity: ir.SeverityError, Message: err.Error()}
	}
	line, col := 1, se.off+1
	start := 0
	for i := 0; i < se.off && i < len(text); i++ {
		if text[i] == '\n' {
			line++
			start = i + 1
			col = se.off - i
		}
	}
	end := strings.IndexByte(text[start:], '\n')
	src := text[start:]
	if end >= 0 {
		src = text[start : start+end]
	}
	msg := fmt.Sprintf("MLIR Textual PassPipeline Parser:%d:%d: error: %s\n%s\n%s^", line, col, se.msg, src, strings.Repeat(" ", col-1))
	return &ir.Diagnostic{Severity: ir.SeverityError, Message: msg}
}

// ParsePipeline parses a pipeline wrapped in its anchor, as
// --pass-pipeline takes it: `builtin.module(func.func(cse),symbol-dce)`.
// Errors are *ir.Diagnostic values with mlir-opt-19's wording.
func (r *Registry) ParsePipeline(text string) (*OpPassManager, error) {
	text = strings.TrimSpace(text)
	open := strings.IndexByte(text, '(')
	if open <= 0 || !strings.HasSuffix(text, ")") {
		return nil, &ir.Diagnostic{Severity: ir.SeverityError,
			Message: "expected pass pipeline to be wrapped with the anchor operation type, e.g. 'builtin.module(...)'"}
	}
	pm := NewOpPassManager(strings.TrimSpace(text[:open]))
	if err := r.ParseInto(pm, text[open+1:len(text)-1]); err != nil {
		return nil, err
	}
	return pm, nil
}

// ParseFlatPipeline parses a pipeline without its anchor, such as
// "canonicalize,func.func(cse)", into a new pipeline anchored on anchor.
//
// Passes anchored on another op than anchor nest implicitly, as mlir-opt
// builds the pipeline of its pass flags: `--cse --my-func-pass` on a module
// is `builtin.module(cse,func.func(my-func-pass))`.
func (r *Registry) ParseFlatPipeline(anchor, text string) (*OpPassManager, error) {
	pm := NewOpPassManager(anchor)
	pm.SetImplicitNesting(true)
	if err := r.ParseInto(pm, text); err != nil {
		return nil, err
	}
	return pm, nil
}

// ParseInto parses a flat pipeline text and appends its entries to pm.
func (r *Registry) ParseInto(pm *OpPassManager, text string) error {
	elems, err := parseElements(text)
	if err != nil {
		return pipelineDiag(text, err)
	}
	if err := r.resolve(elems, 0); err != nil {
		return pipelineDiag(text, err)
	}
	if err := r.build(pm, elems, 0); err != nil {
		return &ir.Diagnostic{Severity: ir.SeverityError, Message: err.Error()}
	}
	if err := pm.checkOrder(); err != nil {
		return &ir.Diagnostic{Severity: ir.SeverityError, Message: err.Error()}
	}
	pm.providers = r.providers()
	return nil
}

// maxPipelineDepth bounds the expansion of named pipelines, which may
// refer to each other.
const maxPipelineDepth = 32

// resolve checks that every leaf name is a pass or a named pipeline.
func (r *Registry) resolve(elems []element, depth int) error {
	for _, e := range elems {
		if e.nested {
			if err := r.resolve(e.inner, depth); err != nil {
				return err
			}
			continue
		}
		if r.passes[e.name] != nil {
			continue
		}
		if p := r.pipelines[e.name]; p != nil {
			if depth >= maxPipelineDepth {
				return &syntaxError{e.nameOff, fmt.Sprintf("pass pipeline '%s' expands into itself", e.name)}
			}
			inner, err := parseElements(p.Text)
			if err == nil {
				err = r.resolve(inner, depth+1)
			}
			if err != nil {
				return &syntaxError{e.nameOff, fmt.Sprintf("in pass pipeline '%s': %s", e.name, errText(err))}
			}
			continue
		}
		return &syntaxError{e.nameOff, fmt.Sprintf("'%s' does not refer to a registered pass or pass pipeline%s", e.name, nearest.Suffix(e.name, r.names()))}
	}
	return nil
}

func errText(err error) string {
	if se, ok := err.(*syntaxError); ok {
		return se.msg
	}
	return err.Error()
}

// build adds resolved elements to pm.
func (r *Registry) build(pm *OpPassManager, elems []element, depth int) error {
	for _, e := range elems {
		if e.nested {
			if err := r.build(pm.Nest(e.name), e.inner, depth); err != nil {
				return err
			}
			continue
		}
		if info := r.passes[e.name]; info != nil {
			p, err := r.New(e.name, e.options)
			if err != nil {
				return err
			}
			if err := pm.AddPass(p); err != nil {
				return fmt.Errorf("%v\nfailed to add `%s` with options `%s`", err, e.name, e.options)
			}
			continue
		}
		p := r.pipelines[e.name]
		if strings.TrimSpace(e.options) != "" {
			args := splitOptionString(e.options)
			return fmt.Errorf("<Pass-Options-Parser>: no such option %s\nfailed to add `%s` with options `%s`", args[0].name, e.name, e.options)
		}
		inner, _ := parseElements(p.Text)
		if err := r.build(pm, inner, depth+1); err != nil {
			return err
		}
	}
	return nil
}
