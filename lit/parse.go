package lit

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"
)

// Test is a parsed test file.
type Test struct {
	Path        string   // the file
	Name        string   // its name in reports
	Run         []string // commands, continuations joined, not yet substituted
	Requires    []string // expressions that must all hold
	Unsupported []string // expressions of which none may hold
	XFail       []string // expressions of which one holding means failure is expected
}

var keywords = []string{"RUN:", "REQUIRES:", "UNSUPPORTED:", "XFAIL:"}

// ParseFile reads the lit keywords of the test at path.
func ParseFile(path, name string) (*Test, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, name, data)
}

// Parse reads the lit keywords of a test from its contents. Like lit, it
// finds a keyword anywhere on a line and takes the rest of the line.
func Parse(path, name string, data []byte) (*Test, error) {
	t := &Test{Path: path, Name: name}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	lineNo := 0
	continuing := false
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		kw, rest := findKeyword(line)
		if kw == "" {
			if continuing {
				return nil, fmt.Errorf("%s:%d: RUN line continued with '\\' but the next line is not a RUN line", path, lineNo)
			}
			continue
		}
		rest = strings.TrimSpace(rest)
		if continuing && kw != "RUN:" {
			return nil, fmt.Errorf("%s:%d: RUN line continued with '\\' but the next line is %s", path, lineNo, kw)
		}
		switch kw {
		case "RUN:":
			if continuing {
				last := &t.Run[len(t.Run)-1]
				*last = strings.TrimSuffix(*last, "\\") + " " + rest
			} else {
				t.Run = append(t.Run, rest)
			}
			continuing = strings.HasSuffix(t.Run[len(t.Run)-1], "\\")
		case "REQUIRES:":
			t.Requires = append(t.Requires, splitList(rest)...)
		case "UNSUPPORTED:":
			t.Unsupported = append(t.Unsupported, splitList(rest)...)
		case "XFAIL:":
			t.XFail = append(t.XFail, splitList(rest)...)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if continuing {
		return nil, fmt.Errorf("%s: the last RUN line ends with '\\'", path)
	}
	for _, lists := range [][]string{t.Requires, t.Unsupported, t.XFail} {
		for _, e := range lists {
			if e == "*" {
				continue
			}
			if _, err := evalFeatures(e, nil); err != nil {
				return nil, fmt.Errorf("%s: %v", path, err)
			}
		}
	}
	return t, nil
}

func findKeyword(line string) (string, string) {
	best, bestAt := "", -1
	for _, kw := range keywords {
		if i := strings.Index(line, kw); i >= 0 && (bestAt < 0 || i < bestAt) {
			best, bestAt = kw, i
		}
	}
	if bestAt < 0 {
		return "", ""
	}
	return best, line[bestAt+len(best):]
}

func splitList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}
