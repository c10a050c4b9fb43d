package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/filecheck"
)

const sampleOutput = `#map = affine_map<(d0) -> (d0 * 2)>
module {
  func.func @add(%arg0: i32, %arg1: i32) -> i32 {
    %0 = arith.addi %arg0, %arg1 : i32
    %1:2 = "test.pair"(%0) : (i32) -> (i32, i32)
    %2 = "test.map"(%1#0) {map = #map, s = "50%", v = [[1]]} : (i32) -> i32
    cf.br ^bb1(%2 : i32)
  ^bb1(%3: i32):  // pred: ^bb0
    %4 = "test.region"() ({
      %5 = arith.muli %3, %3 : i32
      "test.yield"(%5) : (i32) -> ()
    }) : () -> i32
    return %4 : i32
  }
  func.func @other(%arg0: i32) -> i32 {
    %0 = arith.addi %arg0, %arg0 : i32
    return %0 : i32
  }
}
`

// generateChecks runs the command on the sample and returns its output.
func generateChecks(t *testing.T, args ...string) string {
	t.Helper()
	var out, errs bytes.Buffer
	if code := run(args, strings.NewReader(sampleOutput), &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	return out.String()
}

func TestGeneratedChecksMatchTheOutput(t *testing.T) {
	checks := generateChecks(t)
	var stderr bytes.Buffer
	if code := filecheck.Run(filecheck.DefaultOptions(), "checks", []byte(checks), "output", []byte(sampleOutput), &stderr, nil); code != 0 {
		t.Fatalf("generated checks fail on the output they came from:\n%s\n%s", checks, stderr.String())
	}
	for _, want := range []string{
		"// CHECK-LABEL:   func.func @add(",
		"// CHECK-SAME:                   [[ARG0:%[-a-zA-Z0-9$._]+]]: i32,",
		"// CHECK:           [[VAL0:%[-a-zA-Z0-9$._]+]] = arith.addi [[ARG0]], [[ARG1]] : i32",
		`{map = #[[$ATTR0]], s = "50%", v = {{\[\[}}1]]}`,
		"// CHECK:         ^bb1([[VAL3:%[-a-zA-Z0-9$._]+]]: i32):\n",
		"// CHECK:             [[VAL5:%[-a-zA-Z0-9$._]+]] = arith.muli [[VAL3]], [[VAL3]] : i32",
		// Names restart for each top-level operation.
		"// CHECK:           [[VAL0:%[-a-zA-Z0-9$._]+]] = arith.addi [[ARG0]], [[ARG0]] : i32",
	} {
		if !strings.Contains(checks, want) {
			t.Errorf("output lacks %q:\n%s", want, checks)
		}
	}
}

func TestChecksFailOnDifferentOutput(t *testing.T) {
	checks := generateChecks(t)
	changed := strings.Replace(sampleOutput, "arith.muli %3, %3", "arith.muli %3, %0", 1)
	if code := filecheck.Run(filecheck.DefaultOptions(), "checks", []byte(checks), "output", []byte(changed), &bytes.Buffer{}, nil); code != 1 {
		t.Fatalf("checks accepted a changed use-def chain (exit %d)", code)
	}
}

func TestChosenNamesAndPrefix(t *testing.T) {
	checks := generateChecks(t, "--check-prefix=OUT", "--variable-names=,,SUM")
	if !strings.Contains(checks, "// OUT:           [[SUM:%[-a-zA-Z0-9$._]+]] = arith.addi") {
		t.Errorf("--variable-names or --check-prefix ignored:\n%s", checks)
	}
}

func TestInPlaceRewritesOldChecks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.ipuir")
	source := `// RUN: ipu-opt %s | filecheck %s

// CHECK-LABEL: stale check
// CHECK: stale
func.func @add(%a: i32, %b: i32) -> i32 {
  %0 = arith.addi %a, %b : i32
  return %0 : i32
}

// CHECK: stale too
func.func @other(%a: i32) -> i32 {
  return %a : i32
}
`
	if err := os.WriteFile(path, []byte(source), 0o644); err != nil {
		t.Fatal(err)
	}
	var errs bytes.Buffer
	if code := run([]string{"--source", path, "-i"}, strings.NewReader(sampleOutput), &bytes.Buffer{}, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	got, _ := os.ReadFile(path)
	text := string(got)
	if strings.Contains(text, "stale") {
		t.Errorf("old checks kept:\n%s", text)
	}
	order := regexp.MustCompile(`(?s)^// RUN: ipu-opt %s \| filecheck %s\n\n// NOTE: .*// CHECK-LABEL:   func.func @add\(.*\nfunc.func @add\(%a.*// CHECK-LABEL:   func.func @other\(.*\nfunc.func @other\(%a`)
	if !order.MatchString(text) {
		t.Errorf("checks not placed before their functions:\n%s", text)
	}
	// Running it again gives the same file.
	if code := run([]string{"--source", path, "-i"}, strings.NewReader(sampleOutput), &bytes.Buffer{}, &errs); code != 0 {
		t.Fatalf("second run: exit %d: %s", code, errs.String())
	}
	if again, _ := os.ReadFile(path); string(again) != text {
		t.Errorf("not idempotent:\n%s\n---\n%s", text, again)
	}
}

func TestInPlaceRejectsMismatchedFunctions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.ipuir")
	os.WriteFile(path, []byte("// RUN: true\nfunc.func @only() {\n  return\n}\n"), 0o644)
	var errs bytes.Buffer
	if code := run([]string{"--source", path, "-i"}, strings.NewReader(sampleOutput), &bytes.Buffer{}, &errs); code != 1 ||
		!strings.Contains(errs.String(), "1 top-level operations matching --source-delim-regex, the output 2") {
		t.Errorf("exit %d, stderr %q", code, errs.String())
	}
}

// Bad options are refused before the test file is touched, with a message
// and status 2; --help is not an error.
func TestOptionsAreValidatedFirst(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.ipuir")
	const original = "// RUN: true\nfunc.func @add(%a: i32) {\n  return\n}\n"
	os.WriteFile(path, []byte(original), 0o644)
	for _, args := range [][]string{
		{"--source", path, "-i", "--check-prefix="},
		{"--source", path, "-i", "--check-prefix=1X"},
		{"--source", path, "-i", "--variable-names=A,9b"},
		{"--source", path, "-i", "--attribute_names=a b"},
		{"--source", path, "-i", "--source_delim_regex=("},
		{"-i"},
		{"--no-such-flag"},
	} {
		var errs bytes.Buffer
		if code := run(args, strings.NewReader(sampleOutput), &bytes.Buffer{}, &errs); code != 2 || errs.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs.String())
		}
		if got, _ := os.ReadFile(path); string(got) != original {
			t.Fatalf("%v rewrote the test:\n%s", args, got)
		}
	}
	var out bytes.Buffer
	if code := run([]string{"--help"}, nil, &out, &bytes.Buffer{}); code != 0 || !strings.Contains(out.String(), "--source") {
		t.Errorf("--help: exit %d, output %q", code, out.String())
	}
	// Upstream's spellings: --source with the checks printed, underscores.
	out.Reset()
	if code := run([]string{"--source", path, "--source_delim_regex", "func @", "--check_prefix", "CHK"},
		strings.NewReader("module {\n  func.func @add(%arg0: i32) {\n    return\n  }\n}\n"), &out, &bytes.Buffer{}); code != 0 ||
		!strings.Contains(out.String(), "// CHK-LABEL:   func.func @add(") {
		t.Errorf("exit %d, output:\n%s", code, out.String())
	}
}
