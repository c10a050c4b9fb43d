package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// inputFile is one --inputs entry: a file, named for its input (NAME=FILE)
// or placed by position (FILE).
type inputFile struct{ name, file string }

// parseInputs reads --inputs entries. An entry is NAME=FILE when it has an
// '=' after a name with no path separator, and is not itself a file that
// exists; one --inputs takes one form for all its entries.
func parseInputs(entries []string) ([]inputFile, error) {
	var out []inputFile
	named := 0
	for _, e := range entries {
		name, file, ok := strings.Cut(e, "=")
		if ok && name != "" && !strings.ContainsRune(name, os.PathSeparator) {
			if _, err := os.Lstat(e); err != nil {
				if file == "" {
					return nil, fmt.Errorf("--inputs %s: no file for input '%s'", e, name)
				}
				out = append(out, inputFile{name: name, file: file})
				named++
				continue
			}
		}
		out = append(out, inputFile{file: e})
	}
	if named != 0 && named != len(out) {
		return nil, fmt.Errorf("--inputs: give every input by name (x=x.npy,...) or every one by position (x.npy,...), not both")
	}
	return out, nil
}

// ordered is the files of given in input order, for inputs called names
// ("" for an input without a name), what naming them in messages ("@main",
// "the package").
func ordered(given []inputFile, names []string, what string) ([]string, error) {
	if len(given) == 0 || given[0].name == "" {
		if len(given) != len(names) {
			return nil, fmt.Errorf("%s takes %s, but --inputs names %s", what, count(len(names), "input"), count(len(given), "file"))
		}
		files := make([]string, len(given))
		for i, g := range given {
			files[i] = g.file
		}
		return files, nil
	}
	// An input without a name of its own is called as its host stream is
	// ("input 0", pkgemit's name, which --dump-package shows).
	names = slices.Clone(names)
	for i, n := range names {
		if n == "" {
			names[i] = "input " + strconv.Itoa(i)
		}
	}
	files := make([]string, len(names))
	for _, g := range given {
		i := slices.Index(names, g.name)
		if i < 0 {
			return nil, fmt.Errorf("--inputs %s=%s: %s has no input '%s' (its inputs: %s)", g.name, g.file, what, g.name, quotedNames(names))
		}
		if files[i] != "" {
			return nil, fmt.Errorf("--inputs: input '%s' is given twice", g.name)
		}
		files[i] = g.file
	}
	var missing []string
	for i, f := range files {
		if f == "" {
			missing = append(missing, inputLabel(names, i))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("--inputs gives no file for %s", strings.Join(missing, ", "))
	}
	return files, nil
}

// inputLabel names input i in messages: input #0 'x', or input #0.
func inputLabel(names []string, i int) string {
	if i < len(names) && names[i] != "" {
		return fmt.Sprintf("input #%d '%s'", i, names[i])
	}
	return fmt.Sprintf("input #%d", i)
}

func quotedNames(names []string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		if n == "" {
			n = fmt.Sprintf("#%d (no name)", i)
		} else {
			n = "'" + n + "'"
		}
		parts[i] = n
	}
	return strings.Join(parts, ", ")
}
