package pkgemit

import (
	"bytes"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/runtime/ipupkg"
)

// The origin of an instruction (ipupkg.Origin) is what the user calls the
// op it came from. The lowering keeps every op's location, so a tile-asm
// instruction carries its tensor-level op's: a name location (the ONNX
// importer names each op after its node: loc("/q_proj/MatMul"(...))), or a
// file location into the source the package keeps, where the op's line
// gives the SSA names the user wrote for its results (%q = tensor.matmul
// ...). A fused location (tiled-prepare's joint QKV matmul) is named after
// all its parts.

// originOf names op's origin from its location and the package's source.
func originOf(op *ir.Operation, source []byte) ipupkg.Origin {
	var o ipupkg.Origin
	if f, ok := ir.FileLineColOf(op.Loc()); ok {
		o.Line, o.Column = f.Line, f.Col
	}
	lines := sourceLines(source)
	var names []string
	for _, n := range locNames(op.Loc(), lines, 0) {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	o.Name = strings.Join(names, ", ")
	if o.Name == "" {
		// No name: the source op (or, without a source, the instruction's
		// own op) and its place.
		o.Name = op.Name()
		if n := opNameAt(lines, o.Line, o.Column); n != "" {
			o.Name = n
		}
		if o.Line > 0 {
			o.Name += "@" + strconv.Itoa(o.Line) + ":" + strconv.Itoa(o.Column)
		}
	}
	return o
}

// maxLocDepth bounds the recursion into nested locations; deeper parts go
// unnamed.
const maxLocDepth = 16

// locNames returns the names loc gives, in order: each name location's
// name (not its child's), else the SSA names at each file location.
func locNames(loc ir.Location, lines [][]byte, depth int) []string {
	if depth > maxLocDepth {
		return nil
	}
	switch l := loc.(type) {
	case *ir.NameLoc:
		return []string{l.Name}
	case *ir.FileLineColLoc:
		if n := resultNamesAt(lines, l.Line, l.Col); n != "" {
			return []string{n}
		}
		if n := argumentAt(lines, l.Line, l.Col); n != "" {
			return []string{n}
		}
	case *ir.CallSiteLoc:
		return locNames(l.Callee, lines, depth+1)
	case *ir.FusedLoc:
		var out []string
		for _, part := range l.Locs {
			out = append(out, locNames(part, lines, depth+1)...)
		}
		return out
	}
	return nil
}

func sourceLines(source []byte) [][]byte {
	if len(source) == 0 {
		return nil
	}
	return bytes.Split(source, []byte("\n"))
}

// resultList matches the end of the text before an op's name: its results'
// SSA names (%q, or %r:2, or %a, %b) and the '=' (and the generic form's
// opening quote).
var resultList = regexp.MustCompile(`(%[\w$.\-]+(?::\d+)?(?:\s*,\s*%[\w$.\-]+(?::\d+)?)*)\s*=\s*"?$`)

// resultNamesAt returns the SSA names written before the op at line:col
// of the source ("%q"; "%a, %b"), or "" when there are none there.
func resultNamesAt(lines [][]byte, line, col int) string {
	if line < 1 || line > len(lines) || col < 1 || col-1 > len(lines[line-1]) {
		return ""
	}
	m := resultList.FindSubmatch(lines[line-1][:col-1])
	if m == nil {
		return ""
	}
	return string(m[1])
}

// argument matches a block argument as its location points at it:
// %x: tensor<...>.
var argument = regexp.MustCompile(`^%[\w$.\-]+`)

// argumentAt returns the block argument's name at line:col of the source
// (a function argument's relayout is located there), or "".
func argumentAt(lines [][]byte, line, col int) string {
	if line < 1 || line > len(lines) || col < 1 || col-1 >= len(lines[line-1]) {
		return ""
	}
	return string(argument.Find(lines[line-1][col-1:]))
}

// opNameAt returns the op name written at line:col of the source
// (tensor.matmul, or "tensor.matmul" in the generic form), or "".
func opNameAt(lines [][]byte, line, col int) string {
	if line < 1 || line > len(lines) || col < 1 || col-1 >= len(lines[line-1]) {
		return ""
	}
	rest := bytes.TrimPrefix(lines[line-1][col-1:], []byte(`"`))
	end := bytes.IndexFunc(rest, func(r rune) bool {
		return !(r == '.' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	})
	if end < 0 {
		end = len(rest)
	}
	if !bytes.Contains(rest[:end], []byte(".")) {
		return ""
	}
	return string(rest[:end])
}
