package passes_test

import (
	"strings"
	"testing"

	"github.com/ipuir/ipuir/passes"
	"github.com/ipuir/ipuir/tests/testpasses"
	"github.com/ipuir/ipuir/transforms"
)

func TestOptionParsing(t *testing.T) {
	const defaults = "count=4 enum=zero flag=false  ratio=0.5 small=0 string=  unsigned=0"
	tests := []struct {
		opts, want, err string
	}{
		{"", defaults, ""},
		{"flag", "count=4 enum=zero flag=true  ratio=0.5 small=0 string=  unsigned=0", ""},
		{"flag=1 flag=FALSE", defaults, ""},
		{"flag=True", "count=4 enum=zero flag=true  ratio=0.5 small=0 string=  unsigned=0", ""},
		{"count=-0x10 small=010 unsigned=0b101", "count=-16 enum=zero flag=false  ratio=0.5 small=8 string=  unsigned=5", ""},
		{"ratio=2.25", "count=4 enum=zero flag=false  ratio=2.25 small=0 string=  unsigned=0", ""},
		{"enum=one", "count=4 enum=one flag=false  ratio=0.5 small=0 string=  unsigned=0", ""},
		{"list=1,2,3 string-list={a b},c,'d e'", "count=4 enum=zero flag=false list=1,2,3 ratio=0.5 small=0 string= string-list={a b},c,{d e} unsigned=0", ""},
		{"list={4,5}", "count=4 enum=zero flag=false list=4,5 ratio=0.5 small=0 string=  unsigned=0", ""},
		{`string="hello world"`, "count=4 enum=zero flag=false  ratio=0.5 small=0 string={hello world}  unsigned=0", ""},
		{"string={a{b}c}", "count=4 enum=zero flag=false  ratio=0.5 small=0 string=a{b}c  unsigned=0", ""},

		{"count=1_000", "", "for the --count option: '1_000' value invalid for long argument!"},
		{"small=4294967296", "", "for the --small option: '4294967296' value invalid for integer argument!"},
		{"unsigned=-1", "", "for the --unsigned option: '-1' value invalid for ulong argument!"},
		{"ratio=x", "", "for the --ratio option: 'x' value invalid for floating point argument!"},
		{"enum=two", "", "for the --enum option: Cannot find option named 'two'!"},
		{"enum", "", "for the --enum option: requires a value!"},
		{"count", "", "for the --count option: requires a value!"},
		{"list=1,x", "", "for the --list option: 'x' value invalid for long argument!"},
		{"nope=1", "", "<Pass-Options-Parser>: no such option nope"},
		{`string="`, "", `for the --string option: '"' has an unbalanced quote or brace`},
		{"string-list={a,b", "", "for the --string-list option: '{a,b' has an unbalanced quote or brace"},
		{"string={'a'}", "count=4 enum=zero flag=false  ratio=0.5 small=0 string={'a'}  unsigned=0", ""},
		{"string-list={'a,b',c}", "count=4 enum=zero flag=false  ratio=0.5 small=0 string= string-list={a,b},c unsigned=0", ""},
	}
	for _, tc := range tests {
		p := passes.WithDefaults(&testpasses.TestOptionsPass{})
		err := passes.SetOptions(p, tc.opts)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%q: got %v, want %q", tc.opts, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.opts, err)
			continue
		}
		pm := passes.NewOpPassManager("builtin.module")
		if err := pm.AddPass(p); err != nil {
			t.Fatal(err)
		}
		got := strings.TrimSuffix(strings.TrimPrefix(pm.String(), "builtin.module(test-options{"), "})")
		if got != tc.want {
			t.Errorf("%q:\ngot  %q\nwant %q", tc.opts, got, tc.want)
		}
		// The printed options read back to the same values.
		again := passes.WithDefaults(&testpasses.TestOptionsPass{})
		if err := passes.SetOptions(again, got); err != nil {
			t.Errorf("%q: printed options %q do not parse: %v", tc.opts, got, err)
		}
		pm2 := passes.NewOpPassManager("builtin.module")
		pm2.AddPass(again)
		if pm2.String() != pm.String() {
			t.Errorf("%q: round trip gives %s, want %s", tc.opts, pm2, pm)
		}
	}
}

func TestWithDefaults(t *testing.T) {
	c := passes.WithDefaults(&transforms.Canonicalizer{})
	if c.MaxIterations != 10 || c.MaxNumRewrites != -1 || !c.TopDown || c.RegionSimplify != passes.RegionSimplifyNormal {
		t.Errorf("defaults not applied: %+v", c)
	}
	o := passes.WithDefaults(&testpasses.TestOptionsPass{})
	if o.Count != 4 || o.Ratio != 0.5 || o.Flag {
		t.Errorf("defaults not applied: %+v", o)
	}
}
