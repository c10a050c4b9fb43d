package passes

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/ipuir/ipuir/ir"
)

// A crash reproducer is a file that replays a failing pipeline: the IR
// followed by MLIR's resource block naming the pipeline,
//
//	{-#
//	  external_resources: {
//	    mlir_reproducer: {
//	      pipeline: "builtin.module(func.func(cse))",
//	      disable_threading: false,
//	      verify_each: true
//	    }
//	  }
//	#-}
//
// so that `ipu-opt FILE --run-reproducer` (and mlir-opt's) runs it again.
// The full form holds the IR before the whole pipeline; the local form
// holds the IR just before the failing pass and only that pass.

// ReproducerConfig is the mlir_reproducer entry of a reproducer.
type ReproducerConfig struct {
	Pipeline         string
	DisableThreading bool
	VerifyEach       bool
}

// Apply sets the options the reproducer recorded.
func (c ReproducerConfig) Apply(o *Options) {
	o.DisableThreading = c.DisableThreading
	o.VerifyEach = c.VerifyEach
}

func (pm *PassManager) writeReproducer(top *ir.Operation, failures []*failure, snapshot *ir.Operation) *ir.Diagnostic {
	o := &pm.opts
	first := failures[0]
	var reproIR *ir.Operation
	pipeline := pm.pipeline.reproducerText()
	if o.LocalReproducer {
		reproIR = localReproducerIR(pm.ctx, top, first)
		var b strings.Builder
		for _, a := range first.anchors {
			b.WriteString(a + "(")
		}
		b.WriteString(first.pass.Name())
		if opts := optionsText(first.pass); opts != "" {
			b.WriteString("{" + opts + "}")
		}
		b.WriteString(strings.Repeat(")", len(first.anchors)))
		pipeline = b.String()
	} else {
		reproIR = snapshot
	}
	var buf bytes.Buffer
	err := o.printFunc()(&buf, reproIR)
	if err == nil {
		for bytes.HasSuffix(buf.Bytes(), []byte("\n")) {
			buf.Truncate(buf.Len() - 1)
		}
		fmt.Fprintf(&buf, "\n\n{-#\n  external_resources: {\n    mlir_reproducer: {\n      pipeline: %s,\n      disable_threading: %t,\n      verify_each: %t\n    }\n  }\n#-}\n",
			ir.AppendQuoted(nil, pipeline), o.DisableThreading, o.VerifyEach)
		err = os.WriteFile(o.CrashReproducer, buf.Bytes(), 0o644)
	}
	d := ir.Errorf(first.op.Loc(), "Failures have been detected while processing an MLIR pass pipeline")
	what := first.String()
	if len(failures) > 1 {
		parts := make([]string, len(failures))
		for i, f := range failures {
			parts[i] = f.String()
		}
		what = "[" + strings.Join(parts, ", ") + "]"
	}
	if err != nil {
		return d.AttachNote(nil, "Pipeline failed while executing %s: failed to write reproducer to `%s`: %v", what, o.CrashReproducer, err)
	}
	return d.AttachNote(nil, "Pipeline failed while executing %s: reproducer generated at `%s`", what, o.CrashReproducer)
}

// localReproducerIR is a copy of the top-level op in which the op the
// failing pass ran on is replaced by its state before that pass.
func localReproducerIR(ctx *ir.Context, top *ir.Operation, fl *failure) *ir.Operation {
	if fl.op == top {
		return fl.snapshot
	}
	// Path of positions from top down to the failing op.
	var path [][3]int
	for o := fl.op; o != top && o != nil; o = o.ParentOp() {
		reg := o.ParentRegion()
		blk := o.Block()
		pos := 0
		for p := blk.First(); p != o; p = p.Next() {
			pos++
		}
		path = append(path, [3]int{reg.Index(), blk.Index(), pos})
	}
	clone := top.Clone(ctx, nil)
	target := clone
	for i := len(path) - 1; i >= 0; i-- {
		p := path[i]
		target = target.Region(p[0]).Blocks()[p[1]].First()
		for k := 0; k < p[2]; k++ {
			target = target.Next()
		}
	}
	snap := fl.snapshot.Clone(ctx, nil)
	target.Block().InsertBefore(snap, target)
	target.ReplaceAllUsesWith(snap.Results())
	target.Erase()
	return clone
}

// ParseReproducer reads the mlir_reproducer entry of a file's
// `{-# external_resources: ... #-}` block, for --run-reproducer. It reads
// the block on its own so that it does not depend on how the parser
// records resource blocks.
func ParseReproducer(src []byte) (ReproducerConfig, error) {
	var cfg ReproducerConfig
	text := string(src)
	start := strings.LastIndex(text, "{-#")
	if start < 0 {
		return cfg, fmt.Errorf("no '{-#' resource block holding a reproducer")
	}
	body, _, ok := strings.Cut(text[start+3:], "#-}")
	if !ok {
		return cfg, fmt.Errorf("unterminated '{-#' resource block")
	}
	lex := &resourceLexer{s: body}
	top, err := lex.parseEntries()
	if err != nil {
		return cfg, fmt.Errorf("in the resource block: %v", err)
	}
	ext, ok := top["external_resources"].(map[string]any)
	if !ok {
		return cfg, fmt.Errorf("the resource block has no external_resources entry")
	}
	rep, ok := ext["mlir_reproducer"].(map[string]any)
	if !ok {
		return cfg, fmt.Errorf("external_resources has no mlir_reproducer entry")
	}
	p, ok := rep["pipeline"].(string)
	if !ok {
		return cfg, fmt.Errorf("mlir_reproducer has no pipeline string")
	}
	cfg.Pipeline = p
	cfg.VerifyEach = true
	if v, ok := rep["disable_threading"].(bool); ok {
		cfg.DisableThreading = v
	}
	if v, ok := rep["verify_each"].(bool); ok {
		cfg.VerifyEach = v
	}
	return cfg, nil
}

// resourceLexer reads the `key: value, ...` entries of a resource block,
// where a value is a string, true, false, or a braced group of entries.
type resourceLexer struct {
	s     string
	pos   int
	depth int
}

// maxResourceDepth bounds the nesting of groups, so that hostile input
// fails instead of recursing without end.
const maxResourceDepth = 64

func (l *resourceLexer) skipSpace() {
	for l.pos < len(l.s) {
		switch c := l.s[l.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			l.pos++
		case strings.HasPrefix(l.s[l.pos:], "//"):
			for l.pos < len(l.s) && l.s[l.pos] != '\n' {
				l.pos++
			}
		default:
			return
		}
	}
}

func (l *resourceLexer) parseEntries() (map[string]any, error) {
	out := map[string]any{}
	for {
		l.skipSpace()
		if l.pos >= len(l.s) || l.s[l.pos] == '}' {
			return out, nil
		}
		key, err := l.parseKey()
		if err != nil {
			return nil, err
		}
		l.skipSpace()
		if l.pos >= len(l.s) || l.s[l.pos] != ':' {
			return nil, fmt.Errorf("expected ':' after '%s'", key)
		}
		l.pos++
		l.skipSpace()
		v, err := l.parseValue()
		if err != nil {
			return nil, err
		}
		out[key] = v
		l.skipSpace()
		if l.pos < len(l.s) && l.s[l.pos] == ',' {
			l.pos++
		}
	}
}

func (l *resourceLexer) parseKey() (string, error) {
	if l.pos < len(l.s) && l.s[l.pos] == '"' {
		return l.parseString()
	}
	start := l.pos
	for l.pos < len(l.s) {
		c := l.s[l.pos]
		if c == '_' || c == '.' || c == '-' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') {
			l.pos++
			continue
		}
		break
	}
	if start == l.pos {
		return "", fmt.Errorf("expected a key at offset %d", start)
	}
	return l.s[start:l.pos], nil
}

func (l *resourceLexer) parseValue() (any, error) {
	if l.pos >= len(l.s) {
		return nil, fmt.Errorf("expected a value")
	}
	switch {
	case l.s[l.pos] == '"':
		return l.parseString()
	case l.s[l.pos] == '{':
		if l.depth++; l.depth > maxResourceDepth {
			return nil, fmt.Errorf("groups nested too deeply")
		}
		defer func() { l.depth-- }()
		l.pos++
		m, err := l.parseEntries()
		if err != nil {
			return nil, err
		}
		if l.pos >= len(l.s) || l.s[l.pos] != '}' {
			return nil, fmt.Errorf("expected '}'")
		}
		l.pos++
		return m, nil
	case strings.HasPrefix(l.s[l.pos:], "true"):
		l.pos += 4
		return true, nil
	case strings.HasPrefix(l.s[l.pos:], "false"):
		l.pos += 5
		return false, nil
	}
	return nil, fmt.Errorf("unexpected value at offset %d", l.pos)
}

// parseString reads an MLIR string literal: \n \t \" \\ and \XX escapes.
func (l *resourceLexer) parseString() (string, error) {
	var b strings.Builder
	l.pos++
	for l.pos < len(l.s) {
		c := l.s[l.pos]
		switch {
		case c == '"':
			l.pos++
			return b.String(), nil
		case c == '\n':
			return "", fmt.Errorf("newline in string")
		case c == '\\' && l.pos+1 < len(l.s):
			n := l.s[l.pos+1]
			switch n {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case '"', '\\':
				b.WriteByte(n)
			default:
				if l.pos+2 >= len(l.s) {
					return "", fmt.Errorf("bad escape in string")
				}
				var v byte
				if _, err := fmt.Sscanf(l.s[l.pos+1:l.pos+3], "%02x", &v); err != nil {
					return "", fmt.Errorf("bad escape in string")
				}
				b.WriteByte(v)
				l.pos++
			}
			l.pos += 2
		default:
			b.WriteByte(c)
			l.pos++
		}
	}
	return "", fmt.Errorf("unterminated string")
}
