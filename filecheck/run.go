package filecheck

import (
	"fmt"
	"io"
	"strings"
)

// Run checks input against the directives of checkText, writing FileCheck's
// diagnostics to stderr. It returns FileCheck's exit status: 0 when every
// directive matched, 1 when some did not, 2 when the check file or the
// options are unusable or the input is empty. checkName and inputName label
// diagnostics; an inputName of "-" reads as "<stdin>". commandLine is echoed
// in the empty-input error.
func Run(opts Options, checkName string, checkText []byte, inputName string, input []byte, stderr io.Writer, commandLine []string) int {
	return RunWithInput(opts, checkName, checkText, inputName, func() ([]byte, error) { return input, nil }, nil, stderr, commandLine)
}

// RunWithInput is Run with the input read only once the check file has
// been found valid, as FileCheck orders it. If readInput fails, the message
// from openError is printed and the status is 2.
func RunWithInput(opts Options, checkName string, checkText []byte, inputName string, readInput func() ([]byte, error),
	openError func(name string, err error) string, stderr io.Writer, commandLine []string) int {
	var sb strings.Builder
	code := run(&opts, checkName, checkText, inputName, readInput, openError, &sb, commandLine)
	io.WriteString(stderr, sb.String())
	return code
}

func run(opts *Options, checkName string, checkText []byte, inputName string, readInput func() ([]byte, error),
	openError func(name string, err error) string, w *strings.Builder, commandLine []string) int {
	if !validatePrefixes(w, opts) {
		return 2
	}
	checkBuf := newSourceBuffer(checkName, canonicalize(checkText, opts.StrictWhitespace))
	cf, exitOne := readCheckFile(w, checkBuf, opts)
	if cf == nil {
		if exitOne {
			return 1
		}
		return 2
	}
	input, err := readInput()
	if inputName == "-" {
		inputName = "<stdin>"
	}
	if err != nil {
		w.WriteString(openError(inputName, err))
		return 2
	}
	if len(input) == 0 && !opts.AllowEmptyInput {
		fmt.Fprintf(w, "FileCheck error: '%s' is empty.\n", inputName)
		w.WriteString("FileCheck command line: ")
		for _, a := range commandLine {
			w.WriteString(" " + a)
		}
		w.WriteString("\n")
		return 2
	}
	inBuf := newSourceBuffer(inputName, canonicalize(input, opts.StrictWhitespace))
	var diags []diag
	c := &checker{w: w, opts: opts, input: inBuf}
	if opts.DumpInput != DumpNever {
		c.diags = &diags
	}
	code := 1
	if c.checkInput(cf) {
		code = 0
	}
	if c.fatal {
		return 2
	}
	if opts.DumpInput == DumpAlways || code == 1 && opts.DumpInput == DumpFail {
		filter := opts.DumpInputFilter
		if !opts.DumpInputFilterSet {
			filter = FilterError
			if opts.DumpInput == DumpAlways {
				filter = FilterAll
			}
		}
		fmt.Fprintf(w, "\nInput file: %s\nCheck file: %s\n\n-dump-input=help explains the following input dump.\n\n",
			inputName, checkName)
		anns, width := buildAnnotations(diags, checkBuf, cf.implicit)
		dumpAnnotatedInput(w, filter, opts.DumpInputContext, inBuf.text, anns, width)
	}
	return code
}
