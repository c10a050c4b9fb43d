// Package cli holds the command-line conventions of LLVM tools that every
// ipuir command follows on top of pflag: the wording of an unknown flag,
// with a "did you mean" suggestion, and --help on stdout with status 0.
package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/ipuir/ipuir/internal/nearest"
)

// ParseError reports a pflag parse error as LLVM tools do and returns the
// exit status (1): an unknown flag reads
//
//	tool: Unknown command line argument '--foo'.  Try: 'tool --help'
//	tool: Did you mean '--food'?
//
// other errors `tool: <error>`.
func ParseError(w io.Writer, tool string, fs *pflag.FlagSet, err error) int {
	msg := err.Error()
	name := ""
	switch {
	case strings.HasPrefix(msg, "unknown flag: "):
		name = strings.TrimPrefix(msg, "unknown flag: ")
	case strings.HasPrefix(msg, "unknown shorthand flag: "):
		// "unknown shorthand flag: 'x' in -xyz"
		if i := strings.LastIndex(msg, " in "); i >= 0 {
			name = msg[i+len(" in "):]
		}
	}
	if name == "" {
		fmt.Fprintf(w, "%s: %s\n", tool, msg)
		return 1
	}
	fmt.Fprintf(w, "%s: Unknown command line argument '%s'.  Try: '%s --help'\n", tool, name, tool)
	if s := Suggest(fs, name); s != "" {
		fmt.Fprintf(w, "%s: Did you mean '%s'?\n", tool, s)
	}
	return 1
}

// Suggest returns the flag of fs nearest to the unknown arg (as `--name`),
// or "" when none is close.
func Suggest(fs *pflag.FlagSet, arg string) string {
	want := strings.TrimLeft(arg, "-")
	if i := strings.IndexByte(want, '='); i >= 0 {
		want = want[:i]
	}
	var names []string
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	if n := nearest.Name(want, names); n != "" {
		return "--" + n
	}
	return ""
}
