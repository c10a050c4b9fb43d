package cli

import (
	"bytes"
	"testing"

	"github.com/spf13/pflag"
)

func TestUnknownFlagSuggestsTheNearest(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.SetOutput(&bytes.Buffer{})
	fs.Bool("mlir-print-ir-after", false, "")
	fs.Bool("verify-each", false, "")
	err := fs.Parse([]string{"--mlir-print-ir-aftr"})
	var out bytes.Buffer
	if code := ParseError(&out, "t", fs, err); code != 1 {
		t.Errorf("exit %d", code)
	}
	want := "t: Unknown command line argument '--mlir-print-ir-aftr'.  Try: 't --help'\nt: Did you mean '--mlir-print-ir-after'?\n"
	if out.String() != want {
		t.Errorf("got %q\nwant %q", out.String(), want)
	}
	out.Reset()
	ParseError(&out, "t", fs, fs.Parse([]string{"--zzzzzzzzzzzz"}))
	if out.String() != "t: Unknown command line argument '--zzzzzzzzzzzz'.  Try: 't --help'\n" {
		t.Errorf("no suggestion expected: %q", out.String())
	}
}
