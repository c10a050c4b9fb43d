package toolkit

import (
	"io"
	"testing"

	"github.com/spf13/pflag"
)

func TestParseFlags(t *testing.T) {
	for _, c := range []struct {
		args     []string
		code     int
		ok       bool
		wantName string
	}{
		{[]string{"--name=x"}, 0, true, "x"},
		{[]string{"--help"}, 0, false, ""},
		{[]string{"--nosuch"}, 2, false, ""},
	} {
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		fs.SetOutput(io.Discard)
		name := fs.String("name", "", "")
		code, ok := ParseFlags(fs, c.args)
		if code != c.code || ok != c.ok || (ok && *name != c.wantName) {
			t.Errorf("ParseFlags(%v) = %d, %v (name %q)", c.args, code, ok, *name)
		}
	}
}
