package ir

import (
	"strings"
	"testing"
)

// A diagnostic on an op imported from a model leads with the node's name
// and op type, then the file and the node's place; an .ipuir location
// keeps mlir-opt's file:line:col; a node name's control characters are
// escaped.
func TestDiagnosticLeadsWithTheModelNode(t *testing.T) {
	ctx := NewContext()
	file := ctx.FileLineCol("resnet18.onnx", 2, 1)
	cases := []struct {
		loc  Location
		want string
	}{
		{ctx.NameLoc("/conv1/Conv", ctx.NameLoc("Conv", file)), "/conv1/Conv (Conv) in resnet18.onnx, node 2: error: boom\n"},
		{ctx.NameLoc("/conv1/Conv", file), "/conv1/Conv in resnet18.onnx, node 2: error: boom\n"},
		{ctx.FusedLoc([]Location{ctx.NameLoc("/q\x1b[2J", ctx.NameLoc("MatMul", file)), ctx.FileLineCol("m.onnx", 3, 1)}, nil),
			"/q\\x1b[2J (MatMul) in resnet18.onnx, node 2: error: boom\n"},
		{ctx.NameLoc("x", ctx.FileLineCol("f.ipuir", 4, 7)), "f.ipuir:4:7: error: boom\n"},
	}
	for _, c := range cases {
		got := (&SourceMgr{}).Render(&Diagnostic{Severity: SeverityError, Loc: c.loc, Message: "boom"})
		if got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", AttrString(c.loc), got, c.want)
		}
	}
	if got := EscapeControl("a\tb\u0085c\u00e9"); got != `a\x09b\u{0085}cé` || strings.ContainsAny(got, "\t\u0085") {
		t.Errorf("EscapeControl: %q", got)
	}
}

// A diagnostic quotes at most maxSourceLineShown columns of its source
// line, around the caret, marking each cut: a 4 MB line no longer prints
// 4 MB of stderr.
func TestLongSourceLinesAreClipped(t *testing.T) {
	line := strings.Repeat("a", 5000) + "X" + strings.Repeat("b", 5000)
	sm := NewSourceMgr()
	sm.Add("long.ipuir", []byte(line+"\n"))
	ctx := NewContext()
	got := sm.Render(&Diagnostic{Severity: SeverityError, Loc: ctx.FileLineCol("long.ipuir", 1, 5001), Message: "here"})
	lines := strings.Split(got, "\n")
	if len(got) > 600 || len(lines) < 3 {
		t.Fatalf("%d bytes:\n%s", len(got), got)
	}
	quoted, caret := lines[1], strings.Index(lines[2], "^")
	if !strings.HasPrefix(quoted, "...") || !strings.HasSuffix(quoted, "...") || caret < 0 || quoted[caret] != 'X' {
		t.Errorf("the caret does not point at the column:\n%s\n%s", quoted, lines[2])
	}
}
