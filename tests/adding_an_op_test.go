package tests

import (
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestAddingAnOpIsTrue keeps docs/adding-an-op.md true: every code block
// marked `<!-- quote: FILE -->` appears in FILE line for line (a line
// "..." skips any number of lines), and every table row whose last two
// cells are a backquoted file and a backquoted name names a file that
// exists and contains the name.
func TestAddingAnOpIsTrue(t *testing.T) {
	root := moduleRoot(t)
	page, err := os.ReadFile(filepath.Join(root, "docs", "adding-an-op.md"))
	if err != nil {
		t.Fatal(err)
	}
	read := func(rel string) (string, bool) {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			t.Errorf("docs/adding-an-op.md names %s: %v", rel, err)
			return "", false
		}
		return string(b), true
	}
	lines := strings.Split(string(page), "\n")
	quotes, names := 0, 0
	for i := 0; i < len(lines); i++ {
		if rel, ok := strings.CutPrefix(lines[i], "<!-- quote: "); ok {
			rel = strings.TrimSuffix(rel, " -->")
			if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "```") {
				t.Errorf("line %d: a quote marker must precede a code block", i+1)
				continue
			}
			end := i + 2
			for end < len(lines) && !strings.HasPrefix(lines[end], "```") {
				end++
			}
			if src, ok := read(rel); ok {
				if msg := quoted(lines[i+2:end], strings.Split(src, "\n")); msg != "" {
					t.Errorf("docs/adding-an-op.md:%d: the block quoted from %s is not in it: %s", i+1, rel, msg)
				}
				quotes++
			}
			i = end
			continue
		}
		cells := tableCells(lines[i])
		if len(cells) < 3 {
			continue
		}
		file, name := cells[len(cells)-2], cells[len(cells)-1]
		if !isCode(file) || !isCode(name) || !strings.Contains(file, "/") {
			continue
		}
		file, name = strings.Trim(file, "`"), strings.Trim(name, "`")
		if src, ok := read(file); ok {
			if !strings.Contains(src, name) {
				t.Errorf("docs/adding-an-op.md:%d: %s does not contain %q", i+1, file, name)
			}
			names++
		}
	}
	if quotes < 5 || names < 25 {
		t.Errorf("only %d quoted blocks and %d named declarations checked; has the page's format changed?", quotes, names)
	}
	t.Logf("%d quoted blocks and %d named declarations checked", quotes, names)
}

// quoted reports why block is not a run of lines of file ("" when it
// is), with "..." lines in block standing for any lines.
func quoted(block, file []string) string {
	var segments [][]string
	seg := []string{}
	for _, l := range block {
		if strings.TrimSpace(l) == "..." {
			segments = append(segments, seg)
			seg = []string{}
			continue
		}
		seg = append(seg, l)
	}
	segments = append(segments, seg)
	at := 0
	for _, seg := range segments {
		if len(seg) == 0 {
			continue
		}
		found := -1
		for j := at; j+len(seg) <= len(file); j++ {
			if slices.Equal(file[j:j+len(seg)], seg) {
				found = j
				break
			}
		}
		if found < 0 {
			return "no run of lines from " + strings.TrimSpace(seg[0])
		}
		at = found + len(seg)
	}
	return ""
}

func tableCells(line string) []string {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "|") || !strings.HasSuffix(line, "|") {
		return nil
	}
	cells := strings.Split(line[1:len(line)-1], "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

func isCode(cell string) bool {
	return len(cell) > 2 && strings.HasPrefix(cell, "`") && strings.HasSuffix(cell, "`") && strings.Count(cell, "`") == 2
}

// TestSiluIsThreeDeclarations holds the claim of docs/adding-an-op.md
// that an elementwise function is declared in three places: outside the
// tests, comments and generated docs, the code that names silu is in
// eval, the tensor dialect's spec list and the kernel table, and nowhere
// else (every other level derives it).
func TestSiluIsThreeDeclarations(t *testing.T) {
	root := moduleRoot(t)
	want := []string{"dialects/tensor/elementwise.go", "eval/elementwise.go", "kernel/kernel.go"}
	var got []string
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "examples") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		var s scanner.Scanner
		fset := token.NewFileSet()
		s.Init(fset.AddFile(path, -1, len(src)), src, nil, 0) // comments skipped
		for {
			_, tok, lit := s.Scan()
			if tok == token.EOF {
				break
			}
			if (tok == token.IDENT || tok == token.STRING) && strings.Contains(strings.ToLower(lit), "silu") {
				rel, _ := filepath.Rel(root, path)
				got = append(got, filepath.ToSlash(rel))
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("only %d Go files scanned", files)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("the code naming silu is in %v, want only %v: a level restates the elementwise function instead of deriving it", got, want)
	}
	t.Logf("%d Go files scanned; silu declared in %v", files, got)
}
