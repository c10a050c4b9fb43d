package ir

import (
	"regexp"
	"strconv"
	"strings"
)

// Source names are what the user calls a value or an op, for reports and
// logs (never for semantics): the lowering keeps every op's location, so a
// buffer or instruction many levels down still carries the location of
// the tensor-level op it came from. A name location gives its name (the
// ONNX importer names each op after its node: loc("/q_proj/MatMul"(...)));
// a file location into a source the context keeps (SetSources; the parser and
// the tools' loader register the buffers they parse) gives the SSA names written there: the
// results before the op's name (%q for `%q = tensor.matmul ...`) or the
// block argument it points at (%x). The text is read only when a name is
// asked for, so parsing pays nothing for it.

// maxSourceNameDepth bounds the recursion into nested locations; deeper
// parts go unnamed.
const maxSourceNameDepth = 16

// SetSources gives the context the source buffers its locations point
// into, for SourceName. The first one set stays: a tool that parses
// several chunks into one context passes one manager for all.
func (c *Context) SetSources(s *SourceMgr) {
	c.mu.Lock()
	if c.sources == nil {
		c.sources = s
	}
	c.mu.Unlock()
}

// Sources is the source manager SetSources gave, or nil.
func (c *Context) Sources() *SourceMgr {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.sources
}

// SourceName is what the user calls what was made at loc: every name loc
// gives (SourceNames), joined by ", "; "" when it gives none.
func (c *Context) SourceName(loc Location) string {
	return strings.Join(SourceNames(loc, c.Sources()), ", ")
}

// SourceNames returns the names loc gives, in order and without repeats:
// each name location's name (not its child's), else the SSA names sources
// show at each file location, through call sites (the callee) and every
// part of a fused location. sources may be nil.
func SourceNames(loc Location, sources *SourceMgr) []string {
	var out []string
	sourceNames(loc, sources, 0, func(n string) {
		for _, have := range out {
			if have == n {
				return
			}
		}
		out = append(out, n)
	})
	return out
}

func sourceNames(loc Location, sources *SourceMgr, depth int, add func(string)) {
	if depth > maxSourceNameDepth {
		return
	}
	switch l := loc.(type) {
	case *NameLoc:
		add(l.Name)
	case *FileLineColLoc:
		line, ok := sources.Line(l.File, l.Line)
		if !ok {
			return
		}
		if n := resultNamesAt(line, l.Col); n != "" {
			add(n)
		} else if n := argumentAt(line, l.Col); n != "" {
			add(n)
		}
	case *CallSiteLoc:
		sourceNames(l.Callee, sources, depth+1, add)
	case *FusedLoc:
		for _, part := range l.Locs {
			sourceNames(part, sources, depth+1, add)
		}
	}
}

// resultList matches the end of the text before an op's name: its results'
// SSA names (%q, or %r:2, or %a, %b) and the '=' (and the generic form's
// opening quote).
var resultList = regexp.MustCompile(`(%[\w$.\-]+(?::\d+)?(?:\s*,\s*%[\w$.\-]+(?::\d+)?)*)\s*=\s*"?$`)

// resultNamesAt returns the SSA names written before the op at column col
// of line ("%q"; "%a, %b"), or "" when there are none there.
func resultNamesAt(line string, col int) string {
	if col < 1 || col-1 > len(line) {
		return ""
	}
	m := resultList.FindStringSubmatch(line[:col-1])
	if m == nil {
		return ""
	}
	return m[1]
}

// argument matches a block argument as its location points at it:
// %x: tensor<...>.
var argument = regexp.MustCompile(`^%[\w$.\-]+`)

// argumentAt returns the block argument's name at column col of line, or "".
func argumentAt(line string, col int) string {
	if col < 1 || col-1 >= len(line) {
		return ""
	}
	return argument.FindString(line[col-1:])
}

// OpNameAt returns the op name written at loc's place in sources
// (tensor.matmul, or "tensor.matmul" in the generic form), or "".
func OpNameAt(loc Location, sources *SourceMgr) string {
	f, ok := FileLineColOf(loc)
	if !ok {
		return ""
	}
	line, ok := sources.Line(f.File, f.Line)
	if !ok || f.Col < 1 || f.Col-1 >= len(line) {
		return ""
	}
	rest := strings.TrimPrefix(line[f.Col-1:], `"`)
	end := strings.IndexFunc(rest, func(r rune) bool {
		return !(r == '.' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	})
	if end < 0 {
		end = len(rest)
	}
	if !strings.Contains(rest[:end], ".") {
		return ""
	}
	return rest[:end]
}

// DescribeOp names op for logs and diagnostics of the lowering: its
// source name and what it is where ("%q (tensor.matmul at f.ipuir:12:8)"),
// or, without a source name, what it is where ("tensor.matmul at
// f.ipuir:12:8"; the op's own name without a file location).
func DescribeOp(op *Operation) string {
	what := op.Name()
	if f, ok := FileLineColOf(op.Loc()); ok {
		what += " at " + f.File + ":" + strconv.Itoa(f.Line) + ":" + strconv.Itoa(f.Col)
	}
	if n := op.Context().SourceName(op.Loc()); n != "" {
		return n + " (" + what + ")"
	}
	return what
}

// DescribeValue names v for reports: a block argument by what the user
// (or an importer's location) called it, else "argument N"; an op's result
// by its op's source name and the op ("%k (tiled.relayout)"), else by the
// op and its place (DescribeOp), with "#N" after result N of an op with
// several.
func DescribeValue(v *Value) string {
	op := v.DefiningOp()
	if op == nil {
		if blk := v.OwnerBlock(); blk != nil && blk.ParentOp() != nil {
			if n := blk.ParentOp().Context().SourceName(v.Loc()); n != "" {
				return n
			}
		}
		return "argument " + strconv.Itoa(v.Index())
	}
	name := op.Name()
	if n := op.Context().SourceName(op.Loc()); n != "" {
		name = n + " (" + op.Name() + ")"
	} else {
		name = DescribeOp(op)
	}
	if op.NumResults() > 1 {
		name += " #" + strconv.Itoa(v.Index())
	}
	return name
}
