package passes_test

import (
	"strings"
	"testing"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/passes"
	"github.com/ipuir/ipuir/tests/fixture"
	"github.com/ipuir/ipuir/transforms"
)

// anchoredPass runs on func.func only.
type anchoredPass struct{}

func (*anchoredPass) Name() string                                 { return "anchored" }
func (*anchoredPass) Summary() string                              { return "A pass anchored on func.func" }
func (*anchoredPass) Anchor() string                               { return "func.func" }
func (*anchoredPass) Run(*ir.Operation, *passes.PassContext) error { return nil }

// configurable passes stand for passes with bad declarations.
type named struct{ name, summary, anchor string }

func (n *named) Name() string                                 { return n.name }
func (n *named) Summary() string                              { return n.summary }
func (n *named) Anchor() string                               { return n.anchor }
func (n *named) Run(*ir.Operation, *passes.PassContext) error { return nil }

type noHelp struct {
	named
	X int `pass:"x"`
}
type dupOption struct {
	named
	X int `pass:"x" help:"x"`
	Y int `pass:"x" help:"y"`
}
type badType struct {
	named
	X map[string]int `pass:"x" help:"x"`
}
type badDefault struct {
	named
	X int `pass:"x" help:"x" default:"ten"`
}
type minOnString struct {
	named
	X string `pass:"x" help:"x" min:"1"`
}
type defaultBelowMin struct {
	named
	X int `pass:"x" help:"x" default:"0" min:"1"`
}

// withMin has an option with a least value, as plan-gemms' finalists.
type withMin struct {
	X int  `pass:"x" help:"x" default:"2" min:"1"`
	U uint `pass:"u" help:"u" min:"3"`
}

func (*withMin) Name() string                                 { return "with-min" }
func (*withMin) Summary() string                              { return "A pass with least option values" }
func (*withMin) Anchor() string                               { return "" }
func (*withMin) Run(*ir.Operation, *passes.PassContext) error { return nil }

type untaggedStat struct {
	named
	S passes.Statistic
}
type helpNoTag struct {
	named
	X int `help:"x"`
}
type dupStat struct {
	named
	A passes.Statistic `statistic:"n" help:"a"`
	B passes.Statistic `statistic:"n" help:"b"`
}
type unexported struct {
	named
	x int `pass:"x" help:"x"`
}
type notStruct int

func (notStruct) Name() string                                 { return "ns" }
func (notStruct) Summary() string                              { return "not a struct" }
func (notStruct) Anchor() string                               { return "" }
func (notStruct) Run(*ir.Operation, *passes.PassContext) error { return nil }

func TestRegistryChecks(t *testing.T) {
	ok := named{"p", "A pass", ""}
	tests := []struct {
		pass passes.Pass
		err  string
	}{
		{&named{"", "s", ""}, `invalid name ""`},
		{&named{"a b", "s", ""}, `invalid name "a b"`},
		{&named{"a(b", "s", ""}, `invalid name "a(b"`},
		{&named{"a,b", "s", ""}, `invalid name "a,b"`},
		{&named{"p", "", ""}, "pass 'p' has no summary"},
		{&named{"p", "s", "any"}, `an anchor on any op is written ""`},
		{&noHelp{named: ok}, "option field X needs a name and help"},
		{&dupOption{named: ok}, "option 'x' declared twice"},
		{&badType{named: ok}, "option 'x' has unsupported type map[string]int"},
		{&badDefault{named: ok}, "bad default: for the --x option: 'ten' value invalid for long argument!"},
		{&untaggedStat{named: ok}, "statistic field S has no statistic tag"},
		{&helpNoTag{named: ok}, "field X has help or a default but no pass tag"},
		{&dupStat{named: ok}, "statistic 'n' declared twice"},
		{&unexported{named: ok}, "option field x must be exported"},
		{&minOnString{named: ok}, `option 'x' has a min tag "1", but min needs an integer option and an integer`},
		{&defaultBelowMin{named: ok}, "bad default: for the --x option: '0' is less than the least allowed value, 1!"},
		{notStruct(0), "is not a pointer to a struct"},
		{nil, "registering a nil pass"},
	}
	for _, tc := range tests {
		err := passes.NewRegistry().Register(tc.pass)
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%T: got %v, want %q", tc.pass, err, tc.err)
		}
	}

	r := passes.NewRegistry()
	if err := r.Register(&named{"p", "s", ""}); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(&named{"p", "again", ""}); err == nil || err.Error() != "pass 'p' registered twice" {
		t.Errorf("duplicate pass: %v", err)
	}
	if err := r.RegisterPipeline("p", "s", "p"); err == nil || !strings.Contains(err.Error(), "has the name of a registered pass") {
		t.Errorf("pipeline named as a pass: %v", err)
	}
	if err := r.RegisterPipeline("q", "s", "p"); err != nil {
		t.Fatal(err)
	}
	if err := r.RegisterPipeline("q", "s", "p"); err == nil || !strings.Contains(err.Error(), "registered twice") {
		t.Errorf("duplicate pipeline: %v", err)
	}
	if err := r.Register(&named{"q", "s", ""}); err == nil || !strings.Contains(err.Error(), "name of a registered pipeline") {
		t.Errorf("pass named as a pipeline: %v", err)
	}
	if err := r.RegisterPipeline("r", "", "p"); err == nil {
		t.Error("pipeline without summary accepted")
	}
	if err := r.RegisterPipeline("r", "s", "p)"); err == nil {
		t.Error("pipeline with bad syntax accepted")
	}
	twice := fixture.Registry(t)
	if err := twice.Register(&transforms.CSE{}); err == nil {
		t.Error("registering a pass twice succeeded")
	}
}

// An option's least value is enforced when it is set; values from it up
// are taken.
func TestOptionMin(t *testing.T) {
	for opts, want := range map[string]string{
		"x=0":  "for the --x option: '0' is less than the least allowed value, 1!",
		"x=-1": "for the --x option: '-1' is less than the least allowed value, 1!",
		"u=2":  "for the --u option: '2' is less than the least allowed value, 3!",
		"x=1":  "",
		"u=3":  "",
	} {
		p := passes.WithDefaults(&withMin{})
		err := passes.SetOptions(p, opts)
		if (want == "") != (err == nil) || (err != nil && err.Error() != want) {
			t.Errorf("%s: got %v, want %q", opts, err, want)
		}
	}
}

func TestRegistryInfo(t *testing.T) {
	r := fixture.Registry(t)
	c := r.Lookup("canonicalize")
	if c == nil || c.DisplayName != "Canonicalizer" || c.Summary != "Canonicalize operations" || c.Anchor != "" {
		t.Fatalf("canonicalize: %+v", c)
	}
	if len(c.Options) != 7 {
		t.Errorf("canonicalize has %d options", len(c.Options))
	}
	cse := r.Lookup("cse")
	if cse.DisplayName != "CSE" || len(cse.Statistics) != 2 || cse.Statistics[0].Name != "num-cse'd" {
		t.Errorf("cse: %+v", cse)
	}
	if r.Lookup("symbol-dce").DisplayName != "SymbolDCE" {
		t.Error("symbol-dce display name")
	}
	var names []string
	for _, p := range r.Passes() {
		names = append(names, p.Name)
	}
	if !strings.HasPrefix(strings.Join(names, ","), "canonicalize,cse,dce,symbol-dce,test-") {
		t.Errorf("passes: %v", names)
	}
}

func TestListPasses(t *testing.T) {
	var b strings.Builder
	if err := fixture.Registry(t).WriteList(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"Passes:\n",
		"  --canonicalize                        - Canonicalize operations\n",
		"    --max-iterations=<long>             - Max. iterations between applying patterns / simplifying regions (default: 10)\n",
		"    --region-simplify=<value>           - Perform control flow optimizations to the region tree (default: normal)\n",
		"      =disabled                         - Don't run any control-flow simplification.\n",
		"    --top-down                          - Seed the worklist in general top-down order (default: true)\n",
		"    --disable-patterns=<string>         - Labels of patterns that should be filtered out during application\n",
		"  --cse                                 - Eliminate common sub-expressions\n",
		"    (S) num-cse'd                       - Number of operations CSE'd\n",
		"    --unsigned=<ulong>                  - Example unsigned option\n",
		"    --small=<int>                       - Example 32-bit integer option\n",
		"    --ratio=<number>                    - Example float option (default: 0.5)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
}

func TestCheckPassNames(t *testing.T) {
	r := fixture.Registry(t)
	if err := r.CheckPassNames("mlir-print-ir-before", []string{"cse", "canonicalize"}); err != nil {
		t.Error(err)
	}
	err := r.CheckPassNames("mlir-print-ir-before", []string{"cse", "nope"})
	if err == nil || err.Error() != "for the --mlir-print-ir-before option: Cannot find option named 'nope'!" {
		t.Errorf("got %v", err)
	}
}
