// Command filecheck is a drop-in replacement for LLVM's FileCheck 19: it
// verifies that an input (stdin or --input-file) matches the CHECK
// directives of a check file. Exit status 0 means every directive matched,
// 1 that some did not, 2 that the check file, the options or the input are
// unusable.
//
//	filecheck [options] check-file < input
//
// Options are spelled as FileCheck spells them, with one or two dashes:
// --check-prefix(es), --comment-prefixes, --implicit-check-not, -D VAR=VALUE,
// -D#VAR=EXPR, --strict-whitespace, --ignore-case, --match-full-lines,
// --allow-empty, --allow-unused-prefixes, --enable-var-scope,
// --allow-deprecated-dag-overlap, --input-file, --dump-input,
// --dump-input-filter, --dump-input-context, -v, -vv. Options in the
// FILECHECK_OPTS environment variable are read before the command line.
package main

import (
	"os"

	"github.com/ipuir/ipuir/filecheck"
)

func main() {
	os.Exit(filecheck.Main(os.Args, filecheck.Env{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		Getenv: os.Getenv, ReadFile: os.ReadFile,
	}))
}
