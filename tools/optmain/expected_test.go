package optmain

import (
	"strings"
	"testing"

	"github.com/ipuir/ipuir/ir"
)

func TestParseExpectations(t *testing.T) {
	ctx := ir.NewContext()
	src := strings.Join([]string{
		`// expected-error@+1 {{first}}`,        // 1 -> 2
		`op1`,                                   // 2
		`op2 // expected-warning {{same line}}`, // 3 -> 3
		`// expected-note@-2 {{two up}}`,        // 4 -> 2
		`// expected-remark@below {{below}}`,    // 5 -> 7 (skips the expected line)
		`// expected-error@above {{above}}`,     // 6 -> 4? no: above skips expected lines -> 3
		`op3`,                                   // 7
		`// expected-error-re@unknown {{a {{[0-9]+}} b}}`,
	}, "\n")
	exps, errs := parseExpectations("f.mlir", src, 1, ctx)
	if len(errs) != 0 {
		t.Fatalf("unexpected errors: %v", errs)
	}
	want := []struct {
		sev  ir.Severity
		line int
		text string
	}{
		{ir.SeverityError, 2, "first"},
		{ir.SeverityWarning, 3, "same line"},
		{ir.SeverityNote, 2, "two up"},
		{ir.SeverityRemark, 7, "below"},
		{ir.SeverityError, 3, "above"},
		{ir.SeverityError, 0, "a {{[0-9]+}} b"},
	}
	if len(exps) != len(want) {
		t.Fatalf("got %d expectations, want %d", len(exps), len(want))
	}
	for i, w := range want {
		e := exps[i]
		if e.severity != w.sev || e.line != w.line || e.text != w.text {
			t.Errorf("expectation %d = {%v %d %q}, want {%v %d %q}", i, e.severity, e.line, e.text, w.sev, w.line, w.text)
		}
	}
	if !exps[5].unknown || !exps[5].re.MatchString("a 42 b") || exps[5].re.MatchString("a x b") {
		t.Error("the -re@unknown expectation does not behave as a regex on unknown locations")
	}
}

func TestCheckExpectations(t *testing.T) {
	ctx := ir.NewContext()
	exps, _ := parseExpectations("f.mlir", "// expected-error@+1 {{bad thing}}\nx\n// expected-error {{never}}", 1, ctx)
	got := []*ir.Diagnostic{
		ir.Errorf(ctx.FileLineCol("f.mlir", 2, 1), "a bad thing happened"),
		ir.Errorf(ctx.FileLineCol("f.mlir", 2, 1), "surprise"),
	}
	fails := checkExpectations(ctx, "f.mlir", exps, got)
	var msgs []string
	for _, f := range fails {
		msgs = append(msgs, f.Message)
	}
	want := []string{"unexpected error: surprise", `expected error "never" was not produced`}
	if strings.Join(msgs, "|") != strings.Join(want, "|") {
		t.Errorf("failures = %q, want %q", msgs, want)
	}
}

func TestSplitInput(t *testing.T) {
	cs := splitInput([]byte("a\nb\n// -----\nc\n  // ----- x\n"), SplitMarker)
	if len(cs) != 3 || string(cs[0].text) != "a\nb\n" || string(cs[1].text) != "\nc\n" || cs[1].firstLine != 3 ||
		string(cs[2].text) != " x\n" || cs[2].firstLine != 5 {
		t.Errorf("split = %+v", cs)
	}
}

func TestNormaliseArgs(t *testing.T) {
	got := normaliseArgs([]string{"-split-input-file", "--x", "-o", "out", "-", "-h", "-o=f", "--", "-y"})
	want := []string{"--split-input-file", "--x", "-o", "out", "-", "-h", "-o=f", "--", "-y"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got %v want %v", got, want)
	}
}
