package filecheck

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/ipuir/ipuir/internal/cli"
)

// This file is the filecheck command's option handling, kept in the library
// so that tests can run the command in-process.

type flags struct {
	set                       *pflag.FlagSet
	inputFile                 string
	checkPrefixes             []string
	commentPrefixes           []string
	implicitCheckNot          []string
	defines                   []string
	strictWhitespace          bool
	ignoreCase                bool
	allowEmpty                bool
	allowUnusedPrefixes       bool
	matchFullLines            bool
	enableVarScope            bool
	allowDeprecatedDagOverlap bool
	verbose, veryVerbose      bool
	dumpInput                 []string
	dumpInputFilter           []string
	dumpInputContext          []string
}

func newFlags() *flags {
	f := &flags{set: pflag.NewFlagSet("filecheck", pflag.ContinueOnError)}
	s := f.set
	s.SortFlags = false
	// Main reports errors and help itself, in LLVM's words.
	s.SetOutput(io.Discard)
	s.Usage = func() {}
	s.StringVar(&f.inputFile, "input-file", "-", "file to check (defaults to stdin)")
	s.StringArrayVar(&f.checkPrefixes, "check-prefixes", nil, "comma-separated prefixes of directives (default CHECK)")
	s.StringArrayVar(&f.checkPrefixes, "check-prefix", nil, "alias for --check-prefixes")
	s.StringArrayVar(&f.commentPrefixes, "comment-prefixes", nil, "comma-separated comment prefixes (default COM,RUN)")
	s.StringArrayVar(&f.implicitCheckNot, "implicit-check-not", nil, "add an implicit CHECK-NOT with this pattern to every positive check")
	s.StringArrayVarP(&f.defines, "define", "D", nil, "define a variable: VAR=VALUE, or #VAR=EXPR for a numeric one")
	s.BoolVar(&f.strictWhitespace, "strict-whitespace", false, "do not treat all horizontal whitespace as equivalent")
	s.BoolVar(&f.ignoreCase, "ignore-case", false, "use case-insensitive matching")
	s.BoolVar(&f.allowEmpty, "allow-empty", false, "allow the input to be empty")
	s.BoolVar(&f.allowUnusedPrefixes, "allow-unused-prefixes", false, "allow prefixes that do not appear in the check file")
	s.BoolVar(&f.matchFullLines, "match-full-lines", false, "require positive matches to cover whole input lines")
	s.BoolVar(&f.enableVarScope, "enable-var-scope", false, "forget variables not starting with $ at each CHECK-LABEL")
	s.BoolVar(&f.allowDeprecatedDagOverlap, "allow-deprecated-dag-overlap", false, "let matches of a CHECK-DAG group overlap")
	s.BoolVarP(&f.verbose, "v", "v", false, "report good matches too")
	s.BoolVar(&f.veryVerbose, "vv", false, "report even more (implies -v)")
	s.StringArrayVar(&f.dumpInput, "dump-input", nil, "help, always, fail (default) or never")
	s.StringArrayVar(&f.dumpInputFilter, "dump-input-filter", nil, "all, annotation-full, annotation or error")
	s.StringArrayVar(&f.dumpInputContext, "dump-input-context", nil, "lines of context around filtered lines (default 5)")
	return f
}

// normalizeArgs lets FileCheck's single-dash long options (-check-prefix=X,
// -vv) through pflag, which reads "-abc" as three short flags.
func normalizeArgs(set *pflag.FlagSet, args []string) []string {
	out := make([]string, 0, len(args))
	args = append([]string(nil), args...)
	skip := false
	for i, a := range args {
		if skip {
			skip = false
			continue
		}
		if a == "--" {
			return append(out, args[i:]...)
		}
		if len(a) > 2 && strings.HasPrefix(a, "-D") {
			// -DVAR=VALUE: pflag would drop a '=' right after -D.
			out = append(out, "--define="+a[2:])
			continue
		}
		if len(a) > 2 && a[0] == '-' && a[1] != '-' {
			name := a[1:]
			if eq := strings.IndexByte(name, '='); eq >= 0 {
				name = name[:eq]
			}
			if f := set.Lookup(name); f != nil && name != "v" {
				a = "-" + a
			}
		}
		// A value given as the next argument is taken whatever it looks
		// like, as LLVM's option parser does (--implicit-check-not -x).
		if strings.HasPrefix(a, "--") && !strings.Contains(a, "=") && i+1 < len(args) {
			if f := set.Lookup(a[2:]); f != nil && f.Value.Type() != "bool" {
				out = append(out, a+"="+args[i+1])
				args[i+1] = ""
				skip = true
				continue
			}
		}
		out = append(out, a)
	}
	return out
}

// splitCommandLine splits FILECHECK_OPTS into words, honouring quotes and
// backslashes as a GNU-style command line does.
func splitCommandLine(s string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\\' && quote == '"' && i+1 < len(s) {
				i++
				cur.WriteByte(s[i])
			} else {
				cur.WriteByte(c)
			}
		case c == '"' || c == '\'':
			quote = c
			inWord = true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

func splitCommas(values []string) []string {
	var out []string
	for _, v := range values {
		out = append(out, strings.Split(v, ",")...)
	}
	return out
}

// pickMax returns the highest-precedence value of a repeated option.
func pickMax(values []string, order map[string]int, what string) (int, error) {
	best := -1
	for _, v := range values {
		n, ok := order[v]
		if !ok {
			return 0, fmt.Errorf("Cannot find option named '%s'!", v)
		}
		best = max(best, n)
	}
	return best, nil
}

// Env is what Main needs from the process: standard streams, the
// environment and the file system.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	ReadFile       func(string) ([]byte, error)
}

// Main is the filecheck command: args[0] is the program name. It returns
// the exit status.
func Main(args []string, env Env) int {
	stdout, stderr := env.Stdout, env.Stderr
	f := newFlags()
	var all []string
	if env := env.Getenv("FILECHECK_OPTS"); env != "" {
		all = append(all, splitCommandLine(env)...)
	}
	all = append(all, args[1:]...)
	for _, a := range all {
		if a == "-D" {
			// LLVM's -D takes its value only attached (-DVAR=VALUE).
			fmt.Fprintf(stderr, "%s: for the -D option: requires a value!\n", args[0])
			return 1
		}
	}
	if err := f.set.Parse(normalizeArgs(f.set, all)); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			// As FileCheck: --help prints the options and succeeds.
			fmt.Fprintf(stdout, "OVERVIEW: filecheck: a flexible pattern matching file verifier (LLVM FileCheck 19)\n\nUSAGE: filecheck [options] <check-file>\n\nOPTIONS:\n")
			fmt.Fprint(stdout, f.set.FlagUsages())
			return 0
		}
		return cli.ParseError(stderr, "filecheck", f.set, err)
	}

	opts := DefaultOptions()
	mode, err := pickMax(f.dumpInput, map[string]int{"never": 0, "fail": 1, "always": 2, "help": 3}, "dump-input")
	if err != nil {
		fmt.Fprintf(stderr, "filecheck: for the --dump-input option: %v\n", err)
		return 1
	}
	if mode >= 0 {
		opts.DumpInput = DumpMode(mode)
	}
	filter, err := pickMax(f.dumpInputFilter, map[string]int{"error": 0, "annotation": 1, "annotation-full": 2, "all": 3}, "dump-input-filter")
	if err != nil {
		fmt.Fprintf(stderr, "filecheck: for the --dump-input-filter option: %v\n", err)
		return 1
	}
	if filter >= 0 {
		opts.DumpInputFilter = DumpFilter(filter)
		opts.DumpInputFilterSet = true
	}
	for i, v := range f.dumpInputContext {
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil {
			fmt.Fprintf(stderr, "filecheck: for the --dump-input-context option: '%s' value invalid for uint argument!\n", v)
			return 1
		}
		if i == 0 || int(n) > opts.DumpInputContext {
			opts.DumpInputContext = int(n)
		}
	}
	if opts.DumpInput == DumpHelp {
		io.WriteString(stdout, dumpHelp)
		return 0
	}
	if f.set.NArg() < 1 {
		fmt.Fprintln(stderr, "<check-file> not specified")
		return 2
	}
	if f.set.NArg() > 1 {
		fmt.Fprintf(stderr, "filecheck: Too many positional arguments specified!\n")
		return 1
	}
	checkName := f.set.Arg(0)

	opts.CheckPrefixes = splitCommas(f.checkPrefixes)
	opts.CommentPrefixes = splitCommas(f.commentPrefixes)
	opts.ImplicitCheckNot = f.implicitCheckNot
	defineError := false
	for _, d := range f.defines {
		eq := strings.IndexByte(d, '=')
		switch {
		case eq < 0:
			fmt.Fprintf(stderr, "Missing equal sign in command-line definition '-D%s'\n", d)
			defineError = true
		case eq == 0:
			fmt.Fprintf(stderr, "Missing variable name in command-line definition '-D%s'\n", d)
			defineError = true
		default:
			opts.Defines = append(opts.Defines, d)
		}
	}
	if defineError {
		return 2
	}
	opts.AllowEmptyInput = f.allowEmpty
	opts.AllowUnusedPrefixes = f.allowUnusedPrefixes
	opts.EnableVarScope = f.enableVarScope
	opts.AllowDeprecatedDagOverlap = f.allowDeprecatedDagOverlap
	opts.Verbose = f.verbose || f.veryVerbose
	opts.VerboseVerbose = f.veryVerbose
	opts.StrictWhitespace = f.strictWhitespace
	opts.MatchFullLines = f.matchFullLines
	opts.IgnoreCase = f.ignoreCase

	checkText, err := readFileOrStdin(env, checkName)
	if err != nil {
		fmt.Fprintf(stderr, "Could not open check file '%s': %s\n", checkName, errorMessage(err))
		return 2
	}
	// The check file is validated before the input is read, as FileCheck
	// does; an input error then cannot hide a bad check file.
	return RunWithInput(opts, checkName, checkText, f.inputFile, func() ([]byte, error) {
		return readFileOrStdin(env, f.inputFile)
	}, func(name string, err error) string {
		return fmt.Sprintf("Could not open input file '%s': %s\n", name, errorMessage(err))
	}, stderr, args)
}

func readFileOrStdin(env Env, name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(env.Stdin)
	}
	return env.ReadFile(name)
}

// errorMessage renders err like std::error_code::message (strerror).
func errorMessage(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		msg := errno.Error()
		return strings.ToUpper(msg[:1]) + msg[1:]
	}
	return err.Error()
}
