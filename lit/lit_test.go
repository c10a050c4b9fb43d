package lit

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseJoinsContinuationsAndReadsConditions(t *testing.T) {
	src := `// RUN: echo one \
// RUN:   two | cat
// RUN: true
// REQUIRES: linux, !windows
// UNSUPPORTED: foo || bar
// XFAIL: *
// CHECK: RUN: is found anywhere on a line
`
	test, err := Parse("t.ipuir", "t", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	wantRun := []string{"echo one  two | cat", "true", "is found anywhere on a line"}
	if !reflect.DeepEqual(test.Run, wantRun) {
		t.Errorf("Run = %q, want %q", test.Run, wantRun)
	}
	if !reflect.DeepEqual(test.Requires, []string{"linux", "!windows"}) {
		t.Errorf("Requires = %q", test.Requires)
	}
	if !reflect.DeepEqual(test.Unsupported, []string{"foo || bar"}) || !reflect.DeepEqual(test.XFail, []string{"*"}) {
		t.Errorf("Unsupported = %q, XFail = %q", test.Unsupported, test.XFail)
	}
}

func TestParseRejectsBrokenContinuationAndExpressions(t *testing.T) {
	for _, src := range []string{
		"// RUN: echo \\\n// not a run line\n",
		"// RUN: echo \\\n",
		"// REQUIRES: a &&\n",
		"// REQUIRES: (a\n",
	} {
		if _, err := Parse("t", "t", []byte(src)); err == nil {
			t.Errorf("Parse(%q) succeeded", src)
		}
	}
}

func TestFeatureExpressions(t *testing.T) {
	features := map[string]bool{"linux": true, "filecheck-19": true, "x86_64": true}
	cases := map[string]bool{
		"linux":                      true,
		"darwin":                     false,
		"!darwin":                    true,
		"linux && filecheck-19":      true,
		"darwin || x86_64":           true,
		"!(linux && !filecheck-19)":  true,
		"linux && (darwin || false)": false,
		"true":                       true,
	}
	for expr, want := range cases {
		got, err := evalFeatures(expr, features)
		if err != nil || got != want {
			t.Errorf("evalFeatures(%q) = %v, %v; want %v", expr, got, err, want)
		}
	}
}

func TestSubstitute(t *testing.T) {
	got := Substitute("tool %s -o %t && ls %T %S %p | grep 100%% %%s", "/src/dir/a.ipuir", "/tmp/x/a.ipuir")
	want := "tool /src/dir/a.ipuir -o /tmp/x/a.ipuir.tmp && ls /tmp/x /src/dir /src/dir | grep 100% %s"
	if got != want {
		t.Errorf("Substitute = %q\nwant %q", got, want)
	}
}

func TestRunStatuses(t *testing.T) {
	dir := t.TempDir()
	cfg := &Config{Features: map[string]bool{"linux": true}, TempRoot: t.TempDir()}
	cases := []struct {
		src  string
		want Status
	}{
		{"// RUN: true\n", Pass},
		{"// RUN: false\n", Fail},
		{"// RUN: not false\n", Pass},
		{"// RUN: not true\n", Fail},
		{"// RUN: not not true\n", Pass},
		{"// RUN: not --crash bash -c 'kill -SEGV $$'\n", Pass},
		{"// RUN: not --crash false\n", Fail},
		{"// RUN: false | true\n", Fail},
		{"// RUN: echo hi > %t && grep -q hi %t\n", Pass},
		{"// RUN: grep -q 'magic string' %s\n// magic string\n", Pass},
		{"// RUN: true\n// RUN: false\n// RUN: true\n", Fail},
		{"// XFAIL: *\n// RUN: false\n", XFail},
		{"// XFAIL: linux\n// RUN: true\n", XPass},
		{"// XFAIL: darwin\n// RUN: true\n", Pass},
		{"// REQUIRES: darwin\n// RUN: false\n", Unsupported},
		{"// UNSUPPORTED: linux\n// RUN: false\n", Unsupported},
		{"// REQUIRES: linux\n// RUN: true\n", Pass},
		{"no run lines\n", Fail},
	}
	for i, c := range cases {
		path := filepath.Join(dir, "t"+strconv.Itoa(i)+".ipuir")
		if err := os.WriteFile(path, []byte(c.src), 0o644); err != nil {
			t.Fatal(err)
		}
		test, err := ParseFile(path, "t")
		if err != nil {
			t.Fatal(err)
		}
		if r := cfg.Run(test); r.Status != c.want {
			t.Errorf("%q: status %v, want %v; output:\n%s", c.src, r.Status, c.want, r.Output)
		}
	}
}

func TestRunTranscriptNamesFailingLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.ipuir")
	os.WriteFile(path, []byte("// RUN: echo first\n// RUN: echo oops >&2; exit 3\n"), 0o644)
	test, _ := ParseFile(path, "t")
	r := (&Config{}).Run(test)
	for _, want := range []string{"$ echo first\nfirst\n", "oops\n", "RUN line 2 failed with exit status 3"} {
		if !strings.Contains(r.Output, want) {
			t.Errorf("transcript lacks %q:\n%s", want, r.Output)
		}
	}
}

func TestTimeoutKillsPipelines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.ipuir")
	os.WriteFile(path, []byte("// RUN: sleep 30 | cat\n"), 0o644)
	test, _ := ParseFile(path, "t")
	r := (&Config{Timeout: 200 * time.Millisecond}).Run(test)
	if r.Status != Fail || !strings.Contains(r.Output, "timed out") || r.Duration > 10*time.Second {
		t.Errorf("status %v after %v:\n%s", r.Status, r.Duration, r.Output)
	}
}

func TestDiscoverSkipsInputs(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a.ipuir", "b.mlir", "c.txt", "sub/d.ipuir", "Inputs/e.ipuir"} {
		p := filepath.Join(dir, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, nil, 0o644)
	}
	files, err := Discover([]string{dir}, DefaultSuffixes)
	if err != nil {
		t.Fatal(err)
	}
	var rel []string
	for _, f := range files {
		r, _ := filepath.Rel(dir, f)
		rel = append(rel, r)
	}
	if want := []string{"a.ipuir", "b.mlir", "sub/d.ipuir"}; !reflect.DeepEqual(rel, want) {
		t.Errorf("Discover = %q, want %q", rel, want)
	}
}
